// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The BackoffSender's options: what a caller may pass, the defaults (the
 * article's: a truncated binary exponential backoff of 10 ms slots, ceiling
 * 10), and the checks that turn them into settings. Every option is checked
 * at the call that takes it (`BackoffSender.props`), so a mistake throws
 * there, naming the option, the value and what was expected.
 *
 * @module
 */

import type { SenderDurability } from "./durable_port.ts";
import type { BackoffPolicy } from "../backoff/backoff_policy.ts";
import { truncatedBinaryBackoff } from "../backoff/truncated_binary.ts";
import { Props } from "../runtime/props.ts";
import {
  checkActorName,
  checkCount,
  checkPolicy,
  fail,
} from "../validation.ts";
import type { BackoffSenderTracked } from "./backoff_sender_protocol.ts";

/**
 * Options of {@linkcode BackoffSender.props}.
 *
 * @example Usage
 * ```ts
 * import {
 *   Actor,
 *   BackoffSender,
 *   type BackoffSenderOptions,
 *   Props,
 * } from "@understudy/core";
 *
 * class Worker extends Actor<BackoffSender.Tracked<string>> {
 *   onReceive(tracked: BackoffSender.Tracked<string>): void {
 *     this.context.parent.tell(new BackoffSender.Ack(tracked.id));
 *   }
 * }
 * const options: BackoffSenderOptions<string> = {
 *   childProps: Props.create(() => new Worker()),
 *   maxUnacked: 100,
 *   maxAttempts: 5,
 * };
 * BackoffSender.props(options);
 * ```
 *
 * @typeParam M The messages sent through the BackoffSender.
 */
export interface BackoffSenderOptions<M> {
  /**
   * How to create each child (the "dangerous actor"); it receives every
   * message wrapped in a {@linkcode BackoffSenderTracked}. Its restart type
   * (`Props` option `restart`) is not consulted: while messages are
   * unacknowledged the sender always creates a fresh child, since giving up
   * on the child would mean giving up on them (use `maxAttempts` for that).
   */
  childProps: Props<BackoffSenderTracked<M>>;
  /** Children are named `${childName}-1`, `-2`, …. Default `"worker"`. */
  childName?: string;
  /**
   * The delay before the unacknowledged messages are re-sent after the
   * child's n-th termination since the last `Ack` (or `Reset`): an object
   * with a `delayFor(n)` method. Default
   * `truncatedBinaryBackoff({ slotMs: 10, ceiling: 10 })`, the article's
   * (0 ms, then 0 or 10 ms, then 0 to 30 ms, …, up to 10,230 ms). A delay
   * that cannot be used (the method throws, or returns anything but a
   * number >= 0) is logged as an error and becomes
   * {@linkcode BACKOFF_SENDER_FALLBACK_DELAY_MS}; one over 2³¹ − 1 ms is
   * clamped.
   */
  policy?: BackoffPolicy;
  /**
   * How many messages may be unacknowledged at once, those waiting for a
   * re-send included. Over it, the oldest goes to dead letters. A whole
   * number >= 1, or `Infinity`. Default 1000.
   */
  maxUnacked?: number;
  /**
   * How many times one message may be tried, the first delivery included:
   * a try is a delivery the child began to process (took out of its
   * mailbox) and did not acknowledge before it terminated. A message tried
   * this many times goes to dead letters instead of being re-sent. A whole
   * number >= 1 (1: never retried), or `Infinity` (default).
   */
  maxAttempts?: number;
  /**
   * Keeps the unacknowledged messages (with their ids and tries), the retry
   * count and a pending re-send in a store, written in the turn that
   * changes them, and restores them when the sender starts (after a Durable
   * Object's eviction, say): every restored message is sent again, to a
   * fresh child, on the stored schedule. Made by `durableSender(store, key)`
   * (`@understudy/core/durable`). Messages must be structured-cloneable;
   * their senders are not kept. Default: none (all in memory).
   */
  durable?: SenderDurability;
}

/**
 * The delay used when a custom policy's `delayFor` throws or returns
 * anything but a number >= 0: 10,230 ms, the longest wait of the default
 * policy (1,023 slots of 10 ms).
 *
 * @example Usage
 * ```ts
 * import { BACKOFF_SENDER_FALLBACK_DELAY_MS } from "@understudy/core";
 *
 * console.log(BACKOFF_SENDER_FALLBACK_DELAY_MS); // 10230
 * ```
 */
export const BACKOFF_SENDER_FALLBACK_DELAY_MS = 10_230;

/** {@linkcode BackoffSenderOptions} after defaults and checks. Internal. */
export interface BackoffSenderSettings<M> {
  readonly childProps: Props<BackoffSenderTracked<M>>;
  readonly childName: string;
  readonly policy: BackoffPolicy;
  readonly maxUnacked: number;
  readonly maxAttempts: number;
  readonly durable: SenderDurability | undefined;
}

/** What every message about a bad option begins with. */
const ACTION = "create BackoffSender";

/**
 * Checks `options` and applies the defaults. Internal.
 *
 * @throws {TypeError | RangeError} For the first option that is wrong.
 */
export function backoffSenderSettings<M>(
  options: BackoffSenderOptions<M>,
): BackoffSenderSettings<M> {
  if (typeof options !== "object" || options === null) {
    fail(ACTION, "options", "an object", options);
  }
  const {
    childProps,
    childName = "worker",
    maxUnacked = 1000,
    maxAttempts = Infinity,
    durable,
  } = options;
  if (!(childProps instanceof Props)) {
    fail(
      ACTION,
      "childProps",
      "Props, as made by Props.create(() => new MyActor())",
      childProps,
    );
  }
  checkActorName(ACTION, "childName", childName);
  // Only `undefined` means "the default": a `null` policy is a mistake.
  const policy = options.policy === undefined
    ? truncatedBinaryBackoff({ slotMs: 10, ceiling: 10 })
    : checkPolicy(ACTION, "policy", options.policy);
  // Neither can be 0: 0 unacknowledged messages or 0 tries would deliver nothing.
  checkCount(ACTION, "maxUnacked", maxUnacked, 1);
  checkCount(ACTION, "maxAttempts", maxAttempts, 1);
  if (
    durable !== undefined &&
    (typeof durable !== "object" || typeof durable?.load !== "function")
  ) {
    fail(ACTION, "durable", "what durableSender(store, key) returns", durable);
  }
  return { childProps, childName, policy, maxUnacked, maxAttempts, durable };
}
