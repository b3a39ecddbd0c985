// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The longest delay, in milliseconds, that `setTimeout` honours:
 * 2,147,483,647 (2³¹ − 1, about 24.8 days).
 *
 * Timers store the delay as a signed 32-bit integer, so a longer delay
 * overflows and the callback fires at once. Every policy in this module clamps
 * its delays to this value.
 *
 * @example Clamp a delay of your own
 * ```ts
 * import { MAX_TIMER_DELAY_MS } from "@understudy/core/backoff";
 * import assert from "node:assert/strict";
 *
 * const oneYearMs = 365 * 24 * 60 * 60 * 1000;
 * assert.equal(Math.min(oneYearMs, MAX_TIMER_DELAY_MS), 2_147_483_647);
 * ```
 */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;
