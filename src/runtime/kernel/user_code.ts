// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The one boundary between the kernel and user code: every call the cell
 * makes into an actor (its factory and constructor, a hook, `onReceive` or
 * a `become` behaviour), every read of a value the user handed back (a
 * returned thenable's `then`, a `supervisorStrategy` getter), and the
 * settling of what an async hook returns. Each catches what the user's code
 * throws, once, here; the cell branches on the outcome it is handed
 * ({@linkcode DONE}, {@linkcode THREW} with {@linkcode thrown}, or a
 * thenable to await) and holds no `try` of its own. Internal to the
 * runtime.
 *
 * @module
 */

import { Actor, type Behavior, constructWith } from "../actor.ts";
import type { ActorContext } from "../actor.ts";
import { checkStrategy } from "../../supervision/strategy.ts";
import { describeValue } from "../../validation.ts";

/** The user's code returned, with nothing to await. */
export const DONE: unique symbol = Symbol("done");
/** The user's code threw: {@linkcode thrown} has what. */
export const THREW: unique symbol = Symbol("threw");

/** What a call into user code came to. */
export type Outcome = typeof DONE | typeof THREW | PromiseLike<unknown>;

let lastThrown: unknown = undefined;

/** What the last call that came to {@linkcode THREW} threw (read once). */
export function thrown(): unknown {
  const error = lastThrown;
  lastThrown = undefined;
  return error;
}

/** DONE, or the thenable to await: reading `then` is the user's code too. */
function outcome(result: unknown): Outcome {
  return isThenable(result) ? result : DONE;
}

/**
 * Whether a hook's result is to be awaited. Reading `then` is user code (a
 * getter, a Proxy), so it may throw: that is the hook's failure, reported
 * by the caller's `catch`.
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== undefined && value !== null &&
    (typeof value === "object" || typeof value === "function") &&
    typeof (value as PromiseLike<unknown>).then === "function";
}

/**
 * Runs `onFulfilled` or `onRejected` once `result` settles. Through
 * `Promise.resolve`, a hostile thenable (a `then` that throws, calls back
 * twice, or never calls back) can only reject or stay pending: it never
 * throws into the runtime, and one callback runs at most once. A native
 * promise is not asked for its own `then` (it may carry a hostile one);
 * one whose `constructor` throws is resolved through a promise of ours,
 * which turns the throw into a rejection.
 */
export function whenSettled(
  result: PromiseLike<unknown>,
  onFulfilled: () => void,
  onRejected: (error: unknown) => void,
): void {
  let settled: Promise<unknown>;
  try {
    settled = Promise.resolve(result);
  } catch {
    settled = new Promise((resolve) => resolve(result));
  }
  // `then` as promises have it, not as a promise may carry it.
  Promise.prototype.then.call(settled, onFulfilled, onRejected);
}

/**
 * Runs the turn's handler on `message`: the `become` behaviour if one is
 * installed, else `onReceive`.
 */
export function receive(
  actor: Actor<never>,
  behavior: Behavior<never> | undefined,
  message: unknown,
): Outcome {
  try {
    const result = behavior === undefined
      ? actor.onReceive(message as never)
      : behavior(message as never);
    // Most handlers return nothing: no call to ask.
    return result === undefined ? DONE : outcome(result);
  } catch (error) {
    lastThrown = error;
    return THREW;
  }
}

/**
 * A fresh instance from `factory`, made with `context` as its context, and
 * checked: an `Actor` of this context, whose `supervisorStrategy` (a getter
 * of the user's, perhaps) is a strategy. {@linkcode THREW} if not.
 */
export function construct<T>(
  context: ActorContext<T>,
  factory: () => Actor<T>,
  path: string,
): Actor<T> | typeof THREW {
  try {
    const actor = constructWith(context as ActorContext<never>, factory);
    if (!(actor instanceof Actor) || actor.context !== (context as unknown)) {
      throw new TypeError(
        `Props factory for ${path} must return a new Actor instance (got ${
          describeValue(actor)
        })`,
      );
    }
    const strategy = actor.supervisorStrategy;
    if (strategy !== undefined) {
      checkStrategy(`start ${path}`, "supervisorStrategy", strategy);
    }
    return actor;
  } catch (error) {
    lastThrown = error;
    return THREW;
  }
}

/** A lifecycle hook of `actor`'s, by name, with its arguments. */
export function hook(
  actor: Actor<never>,
  name: "preStart" | "postRestart" | "preRestart" | "postStop",
  a?: unknown,
  b?: unknown,
): Outcome {
  try {
    // Called as a method: the hook's `this` is the actor.
    const hooks = actor as unknown as Record<
      typeof name,
      (a: unknown, b: unknown) => unknown
    >;
    return outcome(hooks[name](a, b));
  } catch (error) {
    lastThrown = error;
    return THREW;
  }
}
