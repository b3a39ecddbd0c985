// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

import type { BackoffPolicy } from "./backoff_policy.ts";
import { cappedDoubling, createPolicy, jitter } from "./_policy.ts";

/**
 * Options for {@linkcode exponentialBackoff}.
 *
 * @example Reproducible delays from a seeded generator
 * ```ts
 * import {
 *   exponentialBackoff,
 *   type ExponentialBackoffOptions,
 * } from "@understudy/core/backoff";
 * import assert from "node:assert/strict";
 *
 * let seed = 1;
 * const options: ExponentialBackoffOptions = {
 *   minMs: 200,
 *   maxMs: 10_000,
 *   randomFactor: 0.1,
 *   random: () => (seed = (seed * 16_807) % 2_147_483_647) / 2_147_483_647,
 * };
 * const delay = exponentialBackoff(options).delayFor(1); // 400 ± 10%
 * assert.ok(delay >= 360 && delay <= 440);
 * ```
 */
export interface ExponentialBackoffOptions {
  /** Delay before the first restart, in milliseconds, from 0 to
   * `MAX_TIMER_DELAY_MS`. */
  minMs: number;
  /** Largest delay before jitter, in milliseconds, from `minMs` to
   * `MAX_TIMER_DELAY_MS`. */
  maxMs: number;
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
 * Creates a policy whose delay doubles with every restart, from `minMs` up to
 * `maxMs`, then moves by up to ±`randomFactor` of itself at random.
 *
 * For restart n (0-based) the delay is `min(maxMs, minMs × 2^n) × (1 + u ×
 * randomFactor)` with `u` uniform in [-1, 1]. The jitter comes after the cap,
 * so clients that all reached `maxMs` still spread out instead of retrying in
 * step. The result is then clamped to [0, `MAX_TIMER_DELAY_MS`].
 *
 * With `minMs: 200, maxMs: 10_000`, the delays are about 200, 400, 800, 1,600,
 * 3,200, 6,400 and then 10,000 from n = 6 on, for any n.
 *
 * @example Exact delays, without jitter
 * ```ts
 * import { exponentialBackoff } from "@understudy/core/backoff";
 * import assert from "node:assert/strict";
 *
 * const policy = exponentialBackoff({ minMs: 200, maxMs: 10_000, randomFactor: 0 });
 * assert.deepEqual(
 *   [0, 1, 2, 3, 4, 5, 6, 30].map((n) => policy.delayFor(n)),
 *   [200, 400, 800, 1_600, 3_200, 6_400, 10_000, 10_000],
 * );
 * ```
 *
 * @example With the default ±20% jitter
 * ```ts
 * import { exponentialBackoff } from "@understudy/core/backoff";
 * import assert from "node:assert/strict";
 *
 * const policy = exponentialBackoff({ minMs: 200, maxMs: 10_000 });
 * const delay = policy.delayFor(2); // 800 ± 20%
 * assert.ok(delay >= 640 && delay <= 960);
 * ```
 *
 * @param options The delays and jitter; see {@linkcode ExponentialBackoffOptions}.
 * @returns The policy.
 * @throws {TypeError} If `options` is not an object or an option has the wrong
 * type.
 * @throws {RangeError} If a time is outside [0, `MAX_TIMER_DELAY_MS`] (or NaN),
 * `maxMs` < `minMs`, or `randomFactor` is outside [0, 1].
 */
export function exponentialBackoff(
  options: ExponentialBackoffOptions,
): BackoffPolicy {
  return createPolicy("exponential", options, ({ read, random }) => {
    const doubled = cappedDoubling(
      read("minMs"),
      read("maxMs", "minMs"),
    );
    const randomFactor = read("randomFactor", 0, 1, 0.2);
    return (n) => jitter(doubled(n), randomFactor, random);
  });
}
