// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The BackoffSupervisor's options: what a caller may pass, the defaults,
 * and the checks that turn them into settings. Every option is checked at
 * the call that takes it (`BackoffSupervisor.props`), so a mistake throws
 * there, naming the option, the value and what was expected, not later in
 * the supervisor's turn.
 *
 * @module
 */

import type { BackoffDurability } from "./durable_port.ts";
import type { BackoffPolicy } from "../backoff/backoff_policy.ts";
import { exponentialBackoff } from "../backoff/exponential.ts";
import { Props } from "../runtime/props.ts";
import {
  BackoffDecision,
  type ResetCounter,
  type TriggerOn,
} from "../supervision/backoff_decision.ts";
import {
  checkActorName,
  checkCount,
  checkDelay,
  checkNumber,
  checkPolicy,
  fail,
} from "../validation.ts";

/**
 * Options of {@linkcode BackoffSupervisor.props}.
 *
 * @example Usage
 * ```ts
 * import { Actor, BackoffSupervisor, Props, type BackoffOptions } from "@understudy/core";
 *
 * class Connection extends Actor<string> {
 *   onReceive(): void {}
 * }
 * const options: BackoffOptions<string> = {
 *   childProps: Props.create(() => new Connection()),
 *   childName: "connection",
 *   minBackoff: 200,
 *   maxBackoff: 10_000,
 * };
 * BackoffSupervisor.props(options);
 * ```
 *
 * @typeParam T The messages the child accepts.
 */
export interface BackoffOptions<T> {
  /** How to create each child. */
  childProps: Props<T>;
  /** Children are named `${childName}-1`, `-2`, …. Default `"child"`. */
  childName?: string;
  /** The first delay, in milliseconds. */
  minBackoff: number;
  /** The longest delay, in milliseconds. */
  maxBackoff: number;
  /** Jitter of the default policy: each delay times `1 + u × randomFactor`, `u` in [-1, 1]. Default 0.2. */
  randomFactor?: number;
  /**
   * The delays: an object with a `delayFor(restartCount)` method. Default
   * `exponentialBackoff({ minMs: minBackoff, maxMs: maxBackoff, randomFactor })`.
   * A delay that cannot be used (the method throws, or returns anything but a
   * number >= 0) becomes `maxBackoff`, logged as an error, so a broken policy
   * can neither cause a restart storm nor stop the supervisor; one over
   * 2³¹ − 1 ms is clamped.
   */
  policy?: BackoffPolicy;
  /**
   * When the restart count goes back to 0. Default `"after-min-stable"`.
   * With `{ kind: "after-time", ms }`, `ms` is at most 2³¹ − 1. A child's
   * up-time counts from its spawn (as in Akka), so time spent in `preStart`
   * counts.
   */
  resetCounter?: ResetCounter;
  /** What happens to messages while no child runs: kept (`"stash"`, default) or dropped to dead letters. */
  forward?: "stash" | "drop";
  /** Which terminations lead to a respawn. Default `"any"`. */
  triggerOn?: TriggerOn;
  /** How many messages the stash keeps; the rest go to dead letters. Default 1000. */
  maxStashSize?: number;
  /**
   * How long after spawning a new child the stash is delivered to it, from
   * 0 to 2³¹ − 1 ms. Default `min(50, minBackoff)`. Delivered messages wait
   * in the child's mailbox until its `preStart` is done.
   */
  drainGraceMs?: number;
  /** Whether messages arriving in the grace window go straight to the child (when nothing is stashed). Default `true`. */
  forwardDuringGrace?: boolean;
  /** After this many respawns without a reset, the supervisor gives up and stops. Default `Infinity`; 0 never respawns. */
  maxRestarts?: number;
  /**
   * The clock for up-times, in milliseconds. Default: the system's
   * scheduler (`system.scheduler.now`), `performance.now` unless the
   * system was given another.
   * A reading that fails (the function throws, or returns anything but a
   * finite number) is logged as an error and leaves that child's up-time
   * unknown: the count does not reset by time for it (`Reset` still works),
   * so delays keep growing toward `maxBackoff` rather than a broken clock
   * causing a restart storm or stopping the supervisor.
   */
  clock?: () => number;
  /**
   * Keeps the restart count, the stash and the pending respawn in a store,
   * written in the turn that changes them, and restores them when the
   * supervisor starts (after a Durable Object's eviction, say): made by
   * `durableBackoff(store, key)` (`@understudy/core/durable`). Stashed
   * messages must be structured-cloneable; their senders are not kept.
   * Default: none (all in memory).
   */
  durable?: BackoffDurability;
}

/** {@linkcode BackoffOptions} after defaults and checks. Internal. */
export interface BackoffSettings<T> {
  readonly childProps: Props<T>;
  readonly childName: string;
  readonly forward: "stash" | "drop";
  readonly triggerOn: TriggerOn;
  readonly maxStashSize: number;
  readonly drainGraceMs: number;
  readonly forwardDuringGrace: boolean;
  /** `undefined`: the system's scheduler. */
  readonly clock: (() => number) | undefined;
  readonly durable: BackoffDurability | undefined;
  /**
   * A fresh decision for each supervisor incarnation (the count starts at 0
   * again after the supervisor's own restart), asking the policy for delays
   * (`BackoffDecision` contains a broken one).
   */
  readonly decision: () => BackoffDecision;
}

/** What every message about a bad option begins with. */
const ACTION = "create BackoffSupervisor";

/** Throws for `option`: a RangeError for a number out of range, a TypeError for anything else. */
function invalid(option: string, expected: string, value: unknown): never {
  fail(ACTION, option, expected, value, typeof value === "number");
}

/**
 * Checks `options` and applies the defaults. Internal.
 *
 * @throws {TypeError | RangeError} For the first option that is wrong.
 */
export function backoffSettings<T>(
  options: BackoffOptions<T>,
): BackoffSettings<T> {
  if (typeof options !== "object" || options === null) {
    invalid("options", "an object", options);
  }
  const {
    childProps,
    childName = "child",
    minBackoff,
    maxBackoff,
    randomFactor = 0.2,
    resetCounter = "after-min-stable",
    forward = "stash",
    triggerOn = "any",
    maxStashSize = 1000,
    forwardDuringGrace = true,
    maxRestarts = Infinity,
    clock,
    durable,
  } = options;
  if (!(childProps instanceof Props)) {
    invalid(
      "childProps",
      "Props, as made by Props.create(() => new MyActor())",
      childProps,
    );
  }
  checkActorName(ACTION, "childName", childName);
  // Checked under the names the caller used (the policy calls them minMs and
  // maxMs), also when a custom policy is given: minBackoff still drives the
  // grace window and the stability reset.
  checkDelay(ACTION, "minBackoff", minBackoff);
  checkDelay(ACTION, "maxBackoff", maxBackoff, minBackoff, "minBackoff");
  checkNumber(ACTION, "randomFactor", randomFactor, 0, 1);
  // Only `undefined` means "the default", as for every other option: a
  // `null` policy or grace is a mistake to report, not a default to apply.
  const policy = options.policy === undefined
    ? exponentialBackoff({ minMs: minBackoff, maxMs: maxBackoff, randomFactor })
    : checkPolicy(ACTION, "policy", options.policy);
  if (
    typeof resetCounter === "object" && resetCounter !== null &&
    resetCounter.kind === "after-time"
  ) {
    // The stability check is a timer of `ms`: over 2^31 - 1 it would fire at once.
    checkDelay(ACTION, "resetCounter.ms", resetCounter.ms);
  } else if (
    resetCounter !== "after-min-stable" && resetCounter !== "never" &&
    resetCounter !== "manual"
  ) {
    invalid(
      "resetCounter",
      '"after-min-stable", "never", "manual" or { kind: "after-time", ms }',
      resetCounter,
    );
  }
  if (forward !== "stash" && forward !== "drop") {
    invalid("forward", '"stash" or "drop"', forward);
  }
  if (triggerOn !== "any" && triggerOn !== "failure" && triggerOn !== "stop") {
    invalid("triggerOn", '"any", "failure" or "stop"', triggerOn);
  }
  checkCount(ACTION, "maxStashSize", maxStashSize);
  checkCount(ACTION, "maxRestarts", maxRestarts);
  // The grace window is a timer too.
  const drainGraceMs = checkDelay(
    ACTION,
    "drainGraceMs",
    options.drainGraceMs === undefined
      ? Math.min(50, minBackoff)
      : options.drainGraceMs,
  );
  if (typeof forwardDuringGrace !== "boolean") {
    invalid("forwardDuringGrace", "true or false", forwardDuringGrace);
  }
  if (clock !== undefined && typeof clock !== "function") {
    invalid("clock", "a function returning milliseconds", clock);
  }
  if (
    durable !== undefined &&
    (typeof durable !== "object" || typeof durable?.load !== "function")
  ) {
    invalid("durable", "what durableBackoff(store, key) returns", durable);
  }
  return {
    childProps,
    childName,
    durable,
    forward,
    triggerOn,
    maxStashSize,
    drainGraceMs,
    forwardDuringGrace,
    clock,
    decision: () =>
      new BackoffDecision({
        policy,
        minBackoff,
        maxBackoff,
        resetCounter,
        triggerOn,
        maxRestarts,
      }),
  };
}
