// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Decides how long to wait before the next restart (or retry).
 *
 * Any object with a `delayFor` method is a policy, so a custom policy needs no
 * base class. The policies in this module return a finite delay between 0 and
 * `MAX_TIMER_DELAY_MS` for every valid `restartCount` (an integer from 0 to
 * `Number.MAX_SAFE_INTEGER`), and throw for an invalid one, or when a custom
 * `random` option returns something other than a number in [0, 1].
 *
 * @example A custom policy: a fixed delay
 * ```ts
 * import type { BackoffPolicy } from "@understudy/core/backoff";
 * import assert from "node:assert/strict";
 *
 * const everySecond: BackoffPolicy = { delayFor: () => 1_000 };
 * assert.equal(everySecond.delayFor(7), 1_000);
 * ```
 */
export interface BackoffPolicy {
  /**
   * Returns the delay before the next attempt.
   *
   * @param restartCount How many restarts happened before this one:
   * 0 before the first restart, 1 before the second, and so on.
   * @returns The delay in milliseconds.
   * @throws {RangeError} From this module's policies: if `restartCount` is
   * not an integer from 0 to `Number.MAX_SAFE_INTEGER` (NaN, negative,
   * fractional, ±Infinity), or a custom `random` returned NaN, ±Infinity or a
   * number outside [0, 1]. A TypeError if either is not a number at all.
   * Whatever a custom `random` throws propagates.
   */
  delayFor(restartCount: number): number;
}
