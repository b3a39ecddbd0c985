// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

import type { BackoffPolicy } from "./backoff_policy.ts";
import type { JitterBackoffOptions } from "./jitter_backoff_options.ts";
import { cappedDoubling, createPolicy } from "./_policy.ts";

/**
 * Creates a "full jitter" policy (Brooker, "Exponential Backoff and Jitter"):
 * the delay for restart n (0-based) is uniform in [0, min(capMs, baseMs ×
 * 2^n)).
 *
 * Of the classic strategies it spreads clients the most and does the least
 * total work, at the price of sometimes retrying almost at once.
 *
 * @example
 * ```ts
 * import { fullJitterBackoff } from "@understudy/core/backoff";
 * import assert from "node:assert/strict";
 *
 * const policy = fullJitterBackoff({ baseMs: 100, capMs: 20_000 });
 * const delay = policy.delayFor(3); // anywhere in [0, 800)
 * assert.ok(delay >= 0 && delay < 800);
 * ```
 *
 * @param options See {@linkcode JitterBackoffOptions}.
 * @returns The policy.
 * @throws {TypeError} If `options` is not an object or an option has the wrong
 * type.
 * @throws {RangeError} If a time is outside [0, `MAX_TIMER_DELAY_MS`] (or NaN),
 * or `capMs` < `baseMs`.
 */
export function fullJitterBackoff(
  options: JitterBackoffOptions,
): BackoffPolicy {
  return createPolicy("full jitter", options, ({ read, random }) => {
    const doubled = cappedDoubling(
      read("baseMs"),
      read("capMs", "baseMs"),
    );
    return (n) => random() * doubled(n);
  });
}
