// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Backoff policies: how long to wait before the next restart or retry.
 *
 * A {@linkcode BackoffPolicy} is any object with
 * `delayFor(restartCount): number`. This module provides:
 *
 * - {@linkcode exponentialBackoff} and {@linkcode linearBackoff}: a growing
 *   delay, capped, with ±`randomFactor` jitter applied after the cap;
 * - {@linkcode fullJitterBackoff}, {@linkcode equalJitterBackoff} and
 *   {@linkcode decorrelatedJitterBackoff}: the strategies from Marc Brooker's
 *   "Exponential Backoff and Jitter";
 * - {@linkcode truncatedBinaryBackoff}: Ethernet's slotted backoff.
 *
 * Every policy returns, for every `restartCount` from 0 to
 * `Number.MAX_SAFE_INTEGER`, a finite delay in milliseconds between 0 and
 * {@linkcode MAX_TIMER_DELAY_MS}, the most `setTimeout` can wait. Randomness
 * comes from {@linkcode secureRandom} unless a `random` option is given; a
 * custom `random` is checked at each draw, and one that returns NaN,
 * ±Infinity or a number outside [0, 1] makes `delayFor` throw rather than
 * return a delay outside the policy's documented range (exactly 1 is taken
 * as 1 − 2⁻³², the largest number secureRandom returns).
 *
 * @example A retry loop
 * ```ts
 * import { exponentialBackoff } from "@understudy/core/backoff";
 *
 * const policy = exponentialBackoff({ minMs: 10, maxMs: 100 });
 * let calls = 0;
 * async function flaky(): Promise<string> {
 *   if (++calls < 3) throw new Error("not yet");
 *   return "ok";
 * }
 *
 * for (let attempt = 0;; attempt++) {
 *   try {
 *     console.log(await flaky()); // "ok", on the third call
 *     break;
 *   } catch {
 *     const ms = policy.delayFor(attempt); // about 10 ms, then 20 ms
 *     await new Promise((resolve) => setTimeout(resolve, ms));
 *   }
 * }
 * ```
 *
 * @module
 */

export type { BackoffPolicy } from "./backoff_policy.ts";
export { MAX_TIMER_DELAY_MS } from "./max_timer_delay.ts";
export { secureRandom } from "./secure_random.ts";
export {
  exponentialBackoff,
  type ExponentialBackoffOptions,
} from "./exponential.ts";
export { linearBackoff, type LinearBackoffOptions } from "./linear.ts";
export type { JitterBackoffOptions } from "./jitter_backoff_options.ts";
export { fullJitterBackoff } from "./full_jitter.ts";
export { equalJitterBackoff } from "./equal_jitter.ts";
export { decorrelatedJitterBackoff } from "./decorrelated_jitter.ts";
export {
  cappedJitterBackoff,
  type CappedJitterBackoffOptions,
} from "./capped_jitter.ts";
export {
  truncatedBinaryBackoff,
  type TruncatedBinaryBackoffOptions,
} from "./truncated_binary.ts";
export {
  retry,
  RetryError,
  type RetryOptions,
  type RetryScheduler,
} from "./retry.ts";
