// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

import type { BackoffPolicy } from "./backoff_policy.ts";
import { createPolicy, jitter } from "./_policy.ts";

/**
 * Options for {@linkcode linearBackoff}.
 *
 * @example
 * ```ts
 * import {
 *   linearBackoff,
 *   type LinearBackoffOptions,
 * } from "@understudy/core/backoff";
 * import assert from "node:assert/strict";
 *
 * const options: LinearBackoffOptions = { minMs: 1_000, stepMs: 1_000, maxMs: 30_000 };
 * const delay = linearBackoff(options).delayFor(2); // 3,000 ± 20%
 * assert.ok(delay >= 2_400 && delay <= 3_600);
 * ```
 */
export interface LinearBackoffOptions {
  /** Delay before the first restart, in milliseconds, from 0 to
   * `MAX_TIMER_DELAY_MS`. */
  minMs: number;
  /** Largest delay before jitter, in milliseconds, from `minMs` to
   * `MAX_TIMER_DELAY_MS`. */
  maxMs: number;
  /** How much each restart adds to the delay, in milliseconds, from 0 to
   * `MAX_TIMER_DELAY_MS`. */
  stepMs: number;
  /**
   * How far jitter may move a delay, as a fraction of it: 0.2 means ±20%.
   * Between 0 (no jitter) and 1.
   *
   * @default {0.2}
   */
  randomFactor?: number;
  /**
   * Source of uniform random numbers in [0, 1), called at each `delayFor`.
   * Pass a seeded generator for reproducible delays.
   *
   * What it returns is checked there (it cannot be when the policy is
   * created): exactly 1 is taken as 1 − 2⁻³² (the largest number
   * `secureRandom` returns); NaN, ±Infinity, any other number outside
   * [0, 1) or a non-number makes `delayFor` throw a RangeError (a TypeError
   * for a non-number) naming `random()` and the value. It is not clamped: a
   * broken generator would then give the longest or the shortest delay every
   * time, with no jitter. An error `random` throws propagates from
   * `delayFor` unchanged.
   *
   * @default {secureRandom}
   */
  random?: () => number;
}

/**
 * Creates a policy whose delay grows by `stepMs` with every restart, from
 * `minMs` up to `maxMs`, then moves by up to ±`randomFactor` of itself at
 * random.
 *
 * For restart n (0-based) the delay is `min(maxMs, minMs + stepMs × n) × (1 +
 * u × randomFactor)` with `u` uniform in [-1, 1], then clamped to [0,
 * `MAX_TIMER_DELAY_MS`]. As with {@linkcode exponentialBackoff}, the jitter
 * comes after the cap so capped clients still spread out.
 *
 * @example Exact delays, without jitter
 * ```ts
 * import { linearBackoff } from "@understudy/core/backoff";
 * import assert from "node:assert/strict";
 *
 * const policy = linearBackoff({
 *   minMs: 500,
 *   stepMs: 500,
 *   maxMs: 5_000,
 *   randomFactor: 0,
 * });
 * assert.deepEqual(
 *   [0, 1, 2, 8, 9, 10].map((n) => policy.delayFor(n)),
 *   [500, 1_000, 1_500, 4_500, 5_000, 5_000],
 * );
 * ```
 *
 * @param options The delays and jitter; see {@linkcode LinearBackoffOptions}.
 * @returns The policy.
 * @throws {TypeError} If `options` is not an object or an option has the wrong
 * type.
 * @throws {RangeError} If a time is outside [0, `MAX_TIMER_DELAY_MS`] (or NaN),
 * `maxMs` < `minMs`, or `randomFactor` is outside [0, 1].
 */
export function linearBackoff(options: LinearBackoffOptions): BackoffPolicy {
  return createPolicy("linear", options, ({ read, random }) => {
    const minMs = read("minMs");
    const maxMs = read("maxMs", "minMs");
    const stepMs = read("stepMs");
    const randomFactor = read("randomFactor", 0, 1, 0.2);
    // stepMs × n is at worst Infinity (never NaN, as n is finite), which
    // Math.min brings back to maxMs.
    return (n) =>
      jitter(Math.min(maxMs, minMs + stepMs * n), randomFactor, random);
  });
}
