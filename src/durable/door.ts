// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Who may come in: what `expose` takes (an `authorize` hook), what the hook
 * sees, and the limits an actor host puts on what callers send it.
 *
 * @module
 */

import { checkCount, fail } from "../validation.ts";

/**
 * Who called, as an actor host can vouch for it: the calling object's own
 * namespace binding and name, as that object knows itself, confirmed by
 * asking that object (never a string the caller chose). `undefined` when
 * the caller is not an actor host (a Worker's `fetch`, a raw stub call) or
 * does not know its own binding.
 *
 * @example Usage
 * ```ts
 * import type { RemoteCaller } from "@understudy/core/durable";
 *
 * const caller: RemoteCaller = { binding: "ORDER", name: "order-42" };
 * ```
 */
export interface RemoteCaller {
  /** The calling object's namespace binding, such as `"ORDER"`. */
  readonly binding: string;
  /** The calling object's name, such as `"order-42"`. */
  readonly name: string;
}

/**
 * What an `authorize` hook is asked about: one message from another object
 * to an exposed actor.
 *
 * @example Usage
 * ```ts
 * import type { RemoteRequest } from "@understudy/core/durable";
 *
 * const fromOrders = (request: RemoteRequest): boolean =>
 *   request.caller?.binding === "ORDER";
 * ```
 */
export interface RemoteRequest {
  /** Who calls, vouched for; `undefined` if the caller is not an actor host that knows itself. */
  readonly caller: RemoteCaller | undefined;
  /** The exposed actor's path, such as `"/user/payment"`. */
  readonly path: string;
  /** The message, as it arrived. */
  readonly message: unknown;
  /** A `tell`, an `ask`, or a `watch` (whose `message` is `undefined`). */
  readonly kind: "tell" | "ask" | "watch";
}

/**
 * Options of `ActorHost.expose`.
 *
 * @example Usage
 * ```ts
 * import type { ExposeOptions } from "@understudy/core/durable";
 *
 * const options: ExposeOptions = {
 *   authorize: ({ caller, kind }) => caller?.binding === "ORDER" && kind === "tell",
 * };
 * ```
 */
export interface ExposeOptions {
  /**
   * Asked about every message from another object to this actor; a
   * message it does not return `true` for (or that it throws on) is a dead
   * letter in this object, and an ask is rejected as undelivered. Without
   * it, every caller that holds a stub may send to the actor.
   */
  authorize?: (request: RemoteRequest) => boolean;
}

/**
 * Limits on what callers send an actor host. A call past them is refused
 * whole with a `RangeError` marked `overloaded` (so the caller does not
 * retry it): its messages are dead letters in the calling object, with the
 * error.
 *
 * @example Usage
 * ```ts
 * import type { ActorHostLimits } from "@understudy/core/durable";
 *
 * const limits: ActorHostLimits = { maxBatch: 512, maxQueued: 5_000 };
 * ```
 */
export interface ActorHostLimits {
  /** Tells in one call, at most: a whole number >= 1, or `Infinity`. Default 1,024 (a remote ref sends at most 256). */
  maxBatch?: number;
  /**
   * Messages waiting in one receiving actor's mailbox, at most, counting
   * the call's own: a call that would queue more is refused. A whole
   * number >= 1, or `Infinity`. Default 10,000.
   */
  maxQueued?: number;
}

/** Checked limits. Internal. */
export interface Limits {
  readonly maxBatch: number;
  readonly maxQueued: number;
}

/** Checks `limits` (of `action`) and fills in the defaults. Internal. */
export function checkLimits(
  action: string,
  limits: ActorHostLimits | undefined,
): Limits {
  if (limits === undefined) return { maxBatch: 1_024, maxQueued: 10_000 };
  if (typeof limits !== "object" || limits === null) {
    fail(action, "limits", "an object", limits);
  }
  return {
    maxBatch: limits.maxBatch === undefined
      ? 1_024
      : checkCount(action, "limits.maxBatch", limits.maxBatch, 1),
    maxQueued: limits.maxQueued === undefined
      ? 10_000
      : checkCount(action, "limits.maxQueued", limits.maxQueued, 1),
  };
}

/** The error a call past a limit is refused with: a `RangeError` marked `overloaded`. Internal. */
export function limitError(message: string): RangeError {
  return Object.assign(new RangeError(message), { overloaded: true });
}
