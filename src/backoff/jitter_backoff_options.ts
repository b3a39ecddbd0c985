// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Options for the policies from Marc Brooker's "Exponential Backoff and
 * Jitter": {@linkcode fullJitterBackoff}, {@linkcode equalJitterBackoff} and
 * {@linkcode decorrelatedJitterBackoff}.
 *
 * @example
 * ```ts
 * import {
 *   fullJitterBackoff,
 *   type JitterBackoffOptions,
 * } from "@understudy/core/backoff";
 * import assert from "node:assert/strict";
 *
 * const options: JitterBackoffOptions = { baseMs: 100, capMs: 20_000 };
 * assert.ok(fullJitterBackoff(options).delayFor(3) <= 800);
 * ```
 */
export interface JitterBackoffOptions {
  /** The unit the delays grow from, in milliseconds, from 0 to
   * `MAX_TIMER_DELAY_MS`. */
  baseMs: number;
  /** The largest delay, in milliseconds, from `baseMs` to
   * `MAX_TIMER_DELAY_MS`. */
  capMs: number;
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
