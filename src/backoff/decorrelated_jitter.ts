// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

import type { BackoffPolicy } from "./backoff_policy.ts";
import type { JitterBackoffOptions } from "./jitter_backoff_options.ts";
import { createPolicy } from "./_policy.ts";

/**
 * Creates a "decorrelated jitter" policy (Brooker, "Exponential Backoff and
 * Jitter"): each delay is `min(capMs, U(baseMs, 3 × previous))`, uniform
 * between `baseMs` and three times the previous delay, where the previous
 * delay starts at `baseMs`.
 *
 * Unlike the other policies it has state: the previous delay. `delayFor(0)`
 * starts the sequence over, and each later call builds on the call before,
 * whatever its `restartCount`. So give each restarting thing its own policy
 * object, and call it once per restart, in order.
 *
 * @example
 * ```ts
 * import { decorrelatedJitterBackoff } from "@understudy/core/backoff";
 * import assert from "node:assert/strict";
 *
 * const policy = decorrelatedJitterBackoff({ baseMs: 100, capMs: 20_000 });
 * const first = policy.delayFor(0); // in [100, 300)
 * const second = policy.delayFor(1); // in [100, 3 × first)
 * assert.ok(first >= 100 && first < 300);
 * assert.ok(second >= 100 && second < 3 * first);
 * ```
 *
 * @param options See {@linkcode JitterBackoffOptions}.
 * @returns The policy.
 * @throws {TypeError} If `options` is not an object or an option has the wrong
 * type.
 * @throws {RangeError} If a time is outside [0, `MAX_TIMER_DELAY_MS`] (or NaN),
 * or `capMs` < `baseMs`.
 */
export function decorrelatedJitterBackoff(
  options: JitterBackoffOptions,
): BackoffPolicy {
  return createPolicy("decorrelated jitter", options, ({ read, random }) => {
    const baseMs = read("baseMs");
    const capMs = read("capMs", "baseMs");
    let previousMs = baseMs;
    return (n) => {
      if (n === 0) previousMs = baseMs;
      // `random()` is drawn first: if it throws (a custom one that is broken
      // or returns a value outside [0, 1]), the previous delay is kept.
      // NaN cannot appear: every term is finite, and at most 3 × capMs.
      const u = random();
      return previousMs = Math.min(
        capMs,
        baseMs + u * (3 * previousMs - baseMs),
      );
    };
  });
}
