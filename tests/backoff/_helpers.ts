// Copyright 2026 the understudy authors. MIT license.
// Helpers shared by the backoff tests (not a test file itself).

import assert from "node:assert/strict";
import type { BackoffPolicy } from "../../src/backoff/mod.ts";
import { MAX_TIMER_DELAY_MS } from "../../src/backoff/mod.ts";

/** A seeded generator of numbers in [0, 1) (mulberry32), for reproducible delays. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** `count` delays for the same `restartCount`. */
export function sample(
  policy: BackoffPolicy,
  restartCount: number,
  count = 10_000,
): number[] {
  const delays: number[] = [];
  for (let i = 0; i < count; i++) delays.push(policy.delayFor(restartCount));
  return delays;
}

/**
 * Asserts that every delay is in [low, high] (or [low, high) if
 * `highExclusive`), and that they spread over the range: the smallest is in
 * its bottom 5% and the largest in its top 5%, which fails if jitter is
 * missing or too narrow.
 */
export function assertSpreadOver(
  delays: number[],
  low: number,
  high: number,
  highExclusive = false,
): void {
  let smallest = Infinity;
  let largest = -Infinity;
  for (const delay of delays) {
    assert.ok(
      delay >= low && (highExclusive ? delay < high : delay <= high),
      `delay ${delay} outside [${low}, ${high}${highExclusive ? ")" : "]"}`,
    );
    smallest = Math.min(smallest, delay);
    largest = Math.max(largest, delay);
  }
  const margin = (high - low) * 0.05;
  assert.ok(smallest < low + margin, `smallest delay ${smallest} too high`);
  assert.ok(largest > high - margin, `largest delay ${largest} too low`);
}

/** Asserts a delay `setTimeout` can honour: finite, in [0, MAX_TIMER_DELAY_MS]. */
export function assertTimerSafe(delay: number): void {
  assert.equal(typeof delay, "number");
  assert.ok(Number.isFinite(delay), `delay ${delay} is not finite`);
  assert.ok(delay >= 0, `delay ${delay} is negative`);
  assert.ok(delay <= MAX_TIMER_DELAY_MS, `delay ${delay} is above the max`);
}

/**
 * Asserts that `fn` throws an `ErrorClass` whose message contains every one
 * of `fragments` (typically the option's name and the value given). A
 * fragment `option=value` asks for the option given that value: the
 * message names `"option"` and says `(got value)`, the one shape of every
 * message (or it shows `option=value` as a bound, as in `[minMs=200, …]`).
 */
export function assertThrowsNaming(
  fn: () => unknown,
  ErrorClass: typeof RangeError | typeof TypeError,
  ...fragments: string[]
): void {
  assert.throws(fn, ErrorClass);
  let message = "";
  try {
    fn();
  } catch (error) {
    message = (error as Error).message;
  }
  for (const fragment of fragments) {
    const given = /^([A-Za-z]+(?:\(\))?)=(.*)$/s.exec(fragment);
    const found = message.includes(fragment) ||
      (given !== null && message.includes(`"${given[1]}"`) &&
        message.includes(`(got ${given[2]})`));
    assert.ok(found, `${JSON.stringify(fragment)} is not in: ${message}`);
  }
}

/** The restart counts the limits tests try, up to Number.MAX_SAFE_INTEGER. */
export const LARGE_RESTART_COUNTS: readonly number[] = [
  30,
  31,
  32,
  53,
  64,
  1_023,
  1_024,
  1_025,
  1_075,
  10_000,
  2 ** 31,
  2 ** 32,
  Number.MAX_SAFE_INTEGER - 1,
  Number.MAX_SAFE_INTEGER,
];
