// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

import type { BackoffPolicy } from "./backoff_policy.ts";
import { createPolicy } from "./_policy.ts";

/**
 * Options for {@linkcode truncatedBinaryBackoff}.
 *
 * @example Ethernet's numbers: 51.2 µs slots, at most 1,023 of them
 * ```ts
 * import {
 *   truncatedBinaryBackoff,
 *   type TruncatedBinaryBackoffOptions,
 * } from "@understudy/core/backoff";
 * import assert from "node:assert/strict";
 *
 * const options: TruncatedBinaryBackoffOptions = { slotMs: 0.0512, ceiling: 10 };
 * const delay = truncatedBinaryBackoff(options).delayFor(15);
 * assert.ok(delay <= 1_023 * 0.0512);
 * ```
 */
export interface TruncatedBinaryBackoffOptions {
  /** Length of one slot, in milliseconds, from 0 to
   * `MAX_TIMER_DELAY_MS`. */
  slotMs: number;
  /**
   * The largest exponent: at most 2^`ceiling` slots to choose from. An
   * integer from 0 to 32 (32 bits is what {@linkcode secureRandom} draws).
   * Ethernet uses 10.
   *
   * @default {10}
   */
  ceiling?: number;
  /**
   * What happens once `restartCount` passes `ceiling`: `"stay"` keeps the
   * exponent at `ceiling`; `"restart"` starts over at exponent 0, so the
   * exponent is `restartCount % (ceiling + 1)`.
   *
   * @default {"stay"}
   */
  atCeiling?: "stay" | "restart";
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
 * Creates Ethernet's truncated binary exponential backoff: wait a whole
 * number of slots, `k × slotMs`, with `k` a uniform random integer in
 * 0 … 2^e − 1.
 *
 * The exponent `e` for restart n (0-based) is n while n <= `ceiling`. After
 * that it depends on `atCeiling`:
 * - `"stay"` (default): `e = ceiling`, for every later restart;
 * - `"restart"`: `e = n % (ceiling + 1)`, so restart `ceiling + 1` starts
 *   over at e = 0 (no wait), then 1, 2, … again.
 *
 * With the default `ceiling` of 10, restart 0 waits 0 slots, restart 1 waits 0
 * or 1, restart 2 waits 0 to 3, …, and restart 10 and later 0 to 1,023.
 *
 * @example
 * ```ts
 * import { truncatedBinaryBackoff } from "@understudy/core/backoff";
 * import assert from "node:assert/strict";
 *
 * const policy = truncatedBinaryBackoff({ slotMs: 50 });
 * const delay = policy.delayFor(2); // 0, 50, 100 or 150
 * assert.ok([0, 50, 100, 150].includes(delay));
 * ```
 *
 * @example Starting over past the ceiling
 * ```ts
 * import { truncatedBinaryBackoff } from "@understudy/core/backoff";
 * import assert from "node:assert/strict";
 *
 * const policy = truncatedBinaryBackoff({
 *   slotMs: 50,
 *   ceiling: 3,
 *   atCeiling: "restart",
 * });
 * assert.equal(policy.delayFor(4), 0); // exponent 4 % (3 + 1) = 0: 1 slot choice
 * ```
 *
 * @param options See {@linkcode TruncatedBinaryBackoffOptions}.
 * @returns The policy.
 * @throws {TypeError} If `options` is not an object or an option has the wrong
 * type.
 * @throws {RangeError} If `slotMs` is outside [0, `MAX_TIMER_DELAY_MS`] (or
 * NaN), or `ceiling` is not an integer from 0 to 32.
 * @throws {TypeError} If `atCeiling` is neither `"stay"` nor `"restart"`.
 */
export function truncatedBinaryBackoff(
  options: TruncatedBinaryBackoffOptions,
): BackoffPolicy {
  return createPolicy(
    "truncated binary",
    options,
    ({ read, random, invalid }) => {
      const slotMs = read("slotMs");
      const ceiling = read("ceiling", 0, 32, 10, true);
      const atCeiling = options.atCeiling === undefined
        ? "stay"
        : options.atCeiling;
      if (atCeiling !== "stay" && atCeiling !== "restart") {
        invalid("atCeiling", '"stay" or "restart"', atCeiling);
      }
      return (n) => {
        const exponent = atCeiling === "stay"
          ? Math.min(n, ceiling)
          : n % (ceiling + 1);
        return Math.floor(random() * 2 ** exponent) * slotMs;
      };
    },
  );
}
