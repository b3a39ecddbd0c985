// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

// What every policy shares: option validation, `restartCount` validation, a
// result `setTimeout` can honour, and the capped doubling and jitter maths.

import type { BackoffPolicy } from "./backoff_policy.ts";
import { MAX_TIMER_DELAY_MS } from "./max_timer_delay.ts";
import { checkNumber, type OptionReader, readOptions } from "./_validation.ts";
import { describeValue } from "../validation.ts";

/**
 * Builds a policy. `setup` reads the options and returns the delay function;
 * `delayFor` wraps it so that it rejects a `restartCount` that is not an
 * integer from 0 to `Number.MAX_SAFE_INTEGER`, and clamps the result to [0,
 * MAX_TIMER_DELAY_MS]. (A custom `random` is checked where it is drawn, by
 * `checkedRandom`, so the delay function never sees NaN or a number outside
 * [0, 1); the clamp only bounds what jitter above the cap adds, and turns a
 * NaN into 0 should one ever appear.)
 *
 * @param kind The policy, such as "exponential", for messages.
 */
export function createPolicy(
  kind: string,
  options: unknown,
  setup: (options: OptionReader) => (restartCount: number) => number,
): BackoffPolicy {
  const delay = setup(readOptions(kind, options));
  // Built once here, not on every call.
  const action = `compute ${kind} backoff delay`;
  return {
    delayFor(restartCount: number): number {
      checkNumber(
        action,
        "restartCount",
        restartCount,
        0,
        Number.MAX_SAFE_INTEGER,
        true,
      );
      const ms = delay(restartCount);
      // `>` is false for NaN, so NaN becomes 0 too.
      return ms > 0 ? Math.min(ms, MAX_TIMER_DELAY_MS) : 0;
    },
  };
}

/**
 * Returns `n => min(capMs, baseMs × 2^n)`, computed so that it is never NaN
 * for any n >= 0 (`2 ** 1024` is Infinity, and `0 × Infinity` is NaN).
 */
export function cappedDoubling(
  baseMs: number,
  capMs: number,
): (n: number) => number {
  // From this exponent on, baseMs × 2^n >= capMs: doubling further would
  // only risk overflow. floor + 1 errs on the high side, which Math.min
  // makes harmless.
  const lastExponent = baseMs > 0
    ? Math.floor(Math.log2(capMs / baseMs)) + 1
    : 0;
  return (n) => Math.min(capMs, baseMs * 2 ** Math.min(n, lastExponent));
}

/**
 * Moves `ms` uniformly within ±`randomFactor` of itself:
 * `ms × (1 + u × randomFactor)` with `u` uniform in [-1, 1).
 */
export function jitter(
  ms: number,
  randomFactor: number,
  random: () => number,
): number {
  return ms * (1 + (2 * random() - 1) * randomFactor);
}

/** What asking a policy for a delay gave: a delay, or what went wrong. */
export type AskedDelay =
  | { readonly delayMs: number; readonly problem?: undefined }
  | {
    readonly delayMs?: undefined;
    readonly problem: string;
    readonly error?: unknown;
  };

/**
 * Asks a policy, possibly the user's own, for its delay before retry
 * `attempt`, contained: a delay `>= 0` comes back clamped to what a timer
 * can wait; a throw, or anything else (NaN, a negative number, a
 * non-number), comes back as a `problem` to report ("threw", or "returned
 * … , not a delay in milliseconds >= 0"), so that every caller, whatever
 * its fallback, treats a broken policy alike.
 */
export function askPolicy(policy: BackoffPolicy, attempt: number): AskedDelay {
  let delayMs: unknown;
  try {
    delayMs = policy.delayFor(attempt);
  } catch (error) {
    return { problem: "threw", error };
  }
  if (typeof delayMs === "number" && delayMs >= 0) {
    return { delayMs: Math.min(delayMs, MAX_TIMER_DELAY_MS) };
  }
  return {
    problem: `returned ${
      describeValue(delayMs)
    }, not a delay in milliseconds >= 0`,
  };
}

/** A policy that gave no usable delay: what to log, and what it threw if it threw. */
export interface PolicyFailure {
  /**
   * What to log, such as `policy.delayFor(2) returned NaN, not a delay in
   * milliseconds >= 0; waiting maxBackoff (10000 ms) instead`.
   */
  readonly message: string;
  /** What `delayFor` threw; absent when it returned an unusable value. */
  readonly error?: unknown;
}

/**
 * {@linkcode askPolicy} for callers that wait anyway: the policy's delay, or
 * `fallbackMs` and the failure to log (`policy.delayFor(n) <problem>;
 * waiting <fallbackName> instead`), so a broken policy can neither cause a
 * retry storm nor stop its caller.
 */
export function delayOr(
  policy: BackoffPolicy,
  attempt: number,
  fallbackMs: number,
  fallbackName: string = `${fallbackMs} ms`,
): { readonly delayMs: number; readonly failure?: PolicyFailure } {
  const asked = askPolicy(policy, attempt);
  if (asked.problem === undefined) return { delayMs: asked.delayMs };
  const message =
    `policy.delayFor(${attempt}) ${asked.problem}; waiting ${fallbackName} instead`;
  return {
    delayMs: fallbackMs,
    failure: "error" in asked ? { message, error: asked.error } : { message },
  };
}

/** Logs a {@linkcode PolicyFailure} as an error, with what was thrown if anything was. */
export function logPolicyFailure(
  log: { error(message: string, ...data: unknown[]): void },
  failure: PolicyFailure,
): void {
  if ("error" in failure) log.error(failure.message, failure.error);
  else log.error(failure.message);
}

/**
 * {@linkcode delayOr} for an actor that waits at once: the delay, with a
 * policy's failure already logged to `log`.
 */
export function loggedDelay(
  log: { error(message: string, ...data: unknown[]): void },
  policy: BackoffPolicy,
  attempt: number,
  fallbackMs: number,
): number {
  const { delayMs, failure } = delayOr(policy, attempt, fallbackMs);
  if (failure !== undefined) logPolicyFailure(log, failure);
  return delayMs;
}
