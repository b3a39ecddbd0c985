// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Decides how long to wait before the next restart (or retry).
 *
 * Any object with a `delayFor` method is a policy, so a custom policy needs no
 * base class. The policies in this module return a finite delay between 0 and
 * `MAX_TIMER_DELAY_MS` for every valid `restartCount`, and throw for
 * an invalid one.
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
   */
  delayFor(restartCount: number): number;
}
