// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

import type { BackoffPolicy } from "./backoff_policy.ts";
import { cappedDoubling, createPolicy } from "./_policy.ts";

/**
 * Options of {@linkcode cappedJitterBackoff}.
 *
 * @example Usage
 * ```ts
 * import type { CappedJitterBackoffOptions } from "@understudy/core/backoff";
 *
 * const options: CappedJitterBackoffOptions = { baseMs: 500, capMs: 30_000, spread: 0.3 };
 * ```
 */
export interface CappedJitterBackoffOptions {
  /** The first delay's top, in milliseconds, from 0 to `MAX_TIMER_DELAY_MS`. */
  baseMs: number;
  /** The hard ceiling, in milliseconds, from `baseMs` to `MAX_TIMER_DELAY_MS`: no delay is longer. */
  capMs: number;
  /**
   * How far below its nominal value a delay may fall, as a fraction of it,
   * from 0 (no jitter) to 1. Default 0.5.
   */
  spread?: number;
  /**
   * Source of uniform random numbers in [0, 1), called at each `delayFor`
   * and checked there, as the other policies' `random` is.
   *
   * @default {secureRandom}
   */
  random?: () => number;
}

/**
 * Creates a cap-aware jitter policy: with `v = min(capMs, baseMs × 2^n)`
 * for restart n (0-based), the delay is drawn uniformly from
 * `[v × (1 − spread), v]`. It never exceeds `capMs` (a hard ceiling, which
 * `exponentialBackoff`'s ± jitter does not keep), and it still spreads once
 * capped: delays at the cap are drawn from `[capMs × (1 − spread), capMs]`,
 * so a fleet of clients that all reached the cap keeps retrying apart
 * instead of in step (reconnecting-websocket and partysocket retry every
 * client at exactly their cap).
 *
 * @example A reconnect policy that never waits more than 30 s
 * ```ts
 * import { cappedJitterBackoff } from "@understudy/core/backoff";
 * import assert from "node:assert/strict";
 *
 * const policy = cappedJitterBackoff({ baseMs: 1_000, capMs: 30_000, spread: 0.5 });
 * const capped = policy.delayFor(20); // in [15,000, 30,000]
 * assert.ok(capped >= 15_000 && capped <= 30_000);
 * ```
 *
 * @param options See {@linkcode CappedJitterBackoffOptions}.
 * @returns The policy.
 * @throws {TypeError} If `options` is not an object or an option has the wrong
 * type.
 * @throws {RangeError} If a time is outside [0, `MAX_TIMER_DELAY_MS`] (or NaN),
 * `capMs` < `baseMs`, or `spread` is outside [0, 1].
 */
export function cappedJitterBackoff(
  options: CappedJitterBackoffOptions,
): BackoffPolicy {
  return createPolicy("capped jitter", options, ({ read, random }) => {
    const doubled = cappedDoubling(read("baseMs"), read("capMs", "baseMs"));
    const spread = read("spread", 0, 1, 0.5);
    // 1 − u is in (0, 1]: the delay reaches v, and never passes it.
    return (n) => doubled(n) * (1 - spread * (1 - random()));
  });
}
