// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

import type { BackoffPolicy } from "./backoff_policy.ts";
import type { JitterBackoffOptions } from "./jitter_backoff_options.ts";
import { cappedDoubling, createPolicy } from "./_policy.ts";

/**
 * Creates an "equal jitter" policy (Brooker, "Exponential Backoff and
 * Jitter"): with `v = min(capMs, baseMs × 2^n)` for restart n (0-based), the
 * delay is `v / 2` plus a uniform random part in [0, v / 2).
 *
 * Half the delay is guaranteed, so a client never retries almost at once;
 * the other half spreads clients out.
 *
 * @example
 * ```ts
 * import { equalJitterBackoff } from "@understudy/core/backoff";
 * import assert from "node:assert/strict";
 *
 * const policy = equalJitterBackoff({ baseMs: 100, capMs: 20_000 });
 * const delay = policy.delayFor(3); // in [400, 800)
 * assert.ok(delay >= 400 && delay < 800);
 * ```
 *
 * @param options See {@linkcode JitterBackoffOptions}.
 * @returns The policy.
 * @throws {TypeError} If `options` is not an object or an option has the wrong
 * type.
 * @throws {RangeError} If a time is outside [0, `MAX_TIMER_DELAY_MS`] (or NaN),
 * or `capMs` < `baseMs`.
 */
export function equalJitterBackoff(
  options: JitterBackoffOptions,
): BackoffPolicy {
  return createPolicy("equal jitter", options, ({ read, random }) => {
    const doubled = cappedDoubling(
      read("baseMs"),
      read("capMs", "baseMs"),
    );
    return (n) => doubled(n) * (1 + random()) / 2;
  });
}
