// Copyright 2026 the understudy authors. MIT license.

// What every policy promises, whatever its options and even with a custom
// `random` that breaks its contract: a delay setTimeout can honour.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type BackoffPolicy,
  decorrelatedJitterBackoff,
  equalJitterBackoff,
  exponentialBackoff,
  fullJitterBackoff,
  linearBackoff,
  MAX_TIMER_DELAY_MS,
  truncatedBinaryBackoff,
} from "../../src/backoff/mod.ts";
import { assertTimerSafe, LARGE_RESTART_COUNTS } from "./_helpers.ts";

const MAX = MAX_TIMER_DELAY_MS;

/** Every policy, with the largest and the smallest options allowed. */
function everyPolicy(random?: () => number): Map<string, BackoffPolicy> {
  const r = random ? { random } : {};
  return new Map<string, BackoffPolicy>([
    [
      "exponential max",
      exponentialBackoff({ minMs: MAX, maxMs: MAX, randomFactor: 1, ...r }),
    ],
    [
      "exponential tiny",
      exponentialBackoff({ minMs: Number.MIN_VALUE, maxMs: MAX, ...r }),
    ],
    ["exponential zero", exponentialBackoff({ minMs: 0, maxMs: 0, ...r })],
    [
      "linear max",
      linearBackoff({
        minMs: MAX,
        maxMs: MAX,
        stepMs: MAX,
        randomFactor: 1,
        ...r,
      }),
    ],
    ["linear zero", linearBackoff({ minMs: 0, maxMs: 0, stepMs: 0, ...r })],
    ["full jitter max", fullJitterBackoff({ baseMs: MAX, capMs: MAX, ...r })],
    [
      "full jitter tiny",
      fullJitterBackoff({ baseMs: Number.MIN_VALUE, capMs: MAX, ...r }),
    ],
    ["equal jitter max", equalJitterBackoff({ baseMs: MAX, capMs: MAX, ...r })],
    ["equal jitter zero", equalJitterBackoff({ baseMs: 0, capMs: MAX, ...r })],
    [
      "decorrelated max",
      decorrelatedJitterBackoff({ baseMs: MAX, capMs: MAX, ...r }),
    ],
    [
      "decorrelated zero",
      decorrelatedJitterBackoff({ baseMs: 0, capMs: MAX, ...r }),
    ],
    [
      "truncated max",
      truncatedBinaryBackoff({ slotMs: MAX, ceiling: 32, ...r }),
    ],
    [
      "truncated restart",
      truncatedBinaryBackoff({
        slotMs: MAX,
        ceiling: 32,
        atCeiling: "restart",
        ...r,
      }),
    ],
  ]);
}

const RESTART_COUNTS = [0, 1, 2, 10, ...LARGE_RESTART_COUNTS];

describe("every policy", () => {
  it("returns a finite delay in [0, MAX_TIMER_DELAY_MS] for any restart count", () => {
    for (const [name, policy] of everyPolicy()) {
      for (const n of RESTART_COUNTS) {
        for (let draw = 0; draw < 20; draw++) {
          const delay = policy.delayFor(n);
          assertTimerSafe(delay);
          assert.ok(!Number.isNaN(delay), `${name}, n=${n}: NaN`);
        }
      }
    }
  });

  it("stays safe with a custom random outside [0, 1)", () => {
    for (const bad of [NaN, -1, 1, 2, Infinity, -Infinity, 1e308]) {
      for (const [name, policy] of everyPolicy(() => bad)) {
        for (const n of RESTART_COUNTS) {
          const delay = policy.delayFor(n);
          assert.ok(
            Number.isFinite(delay) && delay >= 0 && delay <= MAX,
            `${name}, random()=${bad}, n=${n}: ${delay}`,
          );
        }
      }
    }
  });

  it("reaches MAX_TIMER_DELAY_MS exactly, and never more", () => {
    const policy = exponentialBackoff({
      minMs: 1,
      maxMs: MAX,
      randomFactor: 0,
    });
    assert.equal(policy.delayFor(31), MAX);
    assert.equal(policy.delayFor(Number.MAX_SAFE_INTEGER), MAX);
    assert.equal(MAX_TIMER_DELAY_MS, 2 ** 31 - 1);
  });
});
