// Copyright 2026 the understudy authors. MIT license.

// What every policy promises, whatever its options and even with a custom
// `random` that breaks its contract: a delay setTimeout can honour.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type BackoffPolicy,
  cappedJitterBackoff,
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
      "capped jitter max",
      cappedJitterBackoff({ baseMs: MAX, capMs: MAX, spread: 1, ...r }),
    ],
    [
      "capped jitter zero",
      cappedJitterBackoff({ baseMs: 0, capMs: MAX, spread: 0, ...r }),
    ],
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

  it("rejects at delayFor a custom random that returns NaN, ±Infinity or a number outside [0, 1]", () => {
    // A random is called at delay time, so this is where it can be checked.
    for (
      const bad of [
        NaN,
        Infinity,
        -Infinity,
        -1,
        -Number.MIN_VALUE,
        1 + 2 ** -52,
        2,
        1e308,
      ]
    ) {
      for (const [name, policy] of everyPolicy(() => bad)) {
        assert.throws(
          () => policy.delayFor(3),
          (error: Error) =>
            error instanceof RangeError &&
            error.message.includes('"random()"') &&
            error.message.includes(`(got ${bad})`) &&
            error.message.includes("[0, 1)"),
          `${name}, random()=${bad}`,
        );
      }
    }
  });

  it("rejects at delayFor a custom random that returns a non-number, describing it safely", () => {
    const throwingToString = {
      toString(): string {
        throw new Error("toString");
      },
    };
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const cases: [unknown, string][] = [
      ["0.5", '(got "0.5")'],
      [10n, "(got 10n)"],
      [undefined, "(got undefined)"],
      [null, "(got null)"],
      [Symbol("u"), "(got Symbol(u))"],
      [Object.create(null), "(got an object (no prototype))"],
      [throwingToString, "(got an object (Object))"],
      [proxy, "(got an object (unreadable))"],
      [{ valueOf: () => 0.5 }, "(got an object (Object))"],
    ];
    for (const [bad, shown] of cases) {
      for (const [name, policy] of everyPolicy(() => bad as number)) {
        assert.throws(
          () => policy.delayFor(1),
          (error: Error) =>
            error instanceof TypeError && error.message.includes(shown),
          `${name}: ${shown}`,
        );
      }
    }
  });

  it("takes a custom random's 1 as just below 1: every documented bound holds", () => {
    const one = () => 1;
    // exponential: min(min·2ⁿ, max) × (1 + u·randomFactor), u < 1
    const exponential = exponentialBackoff({
      minMs: 100,
      maxMs: 1_000,
      randomFactor: 0.5,
      random: one,
    });
    const capped = exponential.delayFor(10);
    assert.ok(capped > 1_499 && capped < 1_500, `${capped}`);
    // full jitter: U(0, v), v excluded
    const full = fullJitterBackoff({ baseMs: 100, capMs: 1_000, random: one });
    assert.ok(full.delayFor(2) < 400 && full.delayFor(2) > 399);
    // equal jitter: v/2 + U(0, v/2), v excluded
    const equal = equalJitterBackoff({
      baseMs: 100,
      capMs: 1_000,
      random: one,
    });
    assert.ok(equal.delayFor(20) < 1_000 && equal.delayFor(20) > 999);
    // truncated binary: at most 2^e − 1 slots
    for (const ceiling of [0, 3, 10, 32]) {
      const truncated = truncatedBinaryBackoff({
        slotMs: 1,
        ceiling,
        random: one,
      });
      assert.equal(
        truncated.delayFor(ceiling),
        Math.min(2 ** ceiling - 1, MAX),
      );
    }
    // decorrelated: stays within [base, cap], and reaches the cap
    const decorrelated = decorrelatedJitterBackoff({
      baseMs: 100,
      capMs: 1_000,
      random: one,
    });
    const delays = [0, 1, 2, 3].map((n) => decorrelated.delayFor(n));
    assert.ok(delays.every((d) => d >= 100 && d <= 1_000), `${delays}`);
    assert.equal(delays[3], 1_000);
    // And every policy stays timer-safe at its extremes.
    for (const [, policy] of everyPolicy(one)) {
      for (const n of RESTART_COUNTS) assertTimerSafe(policy.delayFor(n));
    }
  });

  it("never returns 0 because of a broken random where the minimum is above 0", () => {
    // Before, NaN from a custom random became a delay of 0: a retry storm.
    const policies = [
      exponentialBackoff({ minMs: 100, maxMs: 1_000, random: () => NaN }),
      linearBackoff({
        minMs: 100,
        maxMs: 1_000,
        stepMs: 10,
        random: () => NaN,
      }),
      equalJitterBackoff({ baseMs: 100, capMs: 1_000, random: () => NaN }),
      decorrelatedJitterBackoff({
        baseMs: 100,
        capMs: 1_000,
        random: () => NaN,
      }),
    ];
    for (const policy of policies) {
      assert.throws(() => policy.delayFor(0), RangeError);
    }
  });

  it("lets an error a custom random throws propagate from delayFor", () => {
    const failure = new Error("entropy pool empty");
    for (
      const [name, policy] of everyPolicy(() => {
        throw failure;
      })
    ) {
      assert.throws(
        () => policy.delayFor(2),
        (error) => error === failure,
        name,
      );
    }
  });

  it("rejects a restartCount that is not an integer in [0, MAX_SAFE_INTEGER], naming it", () => {
    const ranges: number[] = [
      -1,
      -0.5,
      0.5,
      NaN,
      Infinity,
      -Infinity,
      2 ** 53,
      1e300,
    ];
    const types: [unknown, string][] = [
      ["1", '(got "1")'],
      [1n, "(got 1n)"],
      [undefined, "(got undefined)"],
      [null, "(got null)"],
      [Symbol("n"), "(got Symbol(n))"],
      [Object.create(null), "(got an object (no prototype))"],
    ];
    for (const [name, policy] of everyPolicy(() => 0.5)) {
      for (const n of ranges) {
        assert.throws(
          () => policy.delayFor(n),
          (error: Error) =>
            error instanceof RangeError &&
            error.message.includes('"restartCount"') &&
            error.message.includes(`(got ${n})`),
          `${name}, n=${n}`,
        );
      }
      for (const [n, shown] of types) {
        assert.throws(
          () => policy.delayFor(n as number),
          (error: Error) =>
            error instanceof TypeError && error.message.includes(shown),
          `${name}, ${shown}`,
        );
      }
    }
  });

  it("stays within its cap for a huge restartCount such as 1e9", () => {
    const cases: [BackoffPolicy, number][] = [
      [
        exponentialBackoff({ minMs: 100, maxMs: 5_000, randomFactor: 0.2 }),
        6_000,
      ],
      [
        linearBackoff({
          minMs: 100,
          maxMs: 5_000,
          stepMs: 100,
          randomFactor: 0.2,
        }),
        6_000,
      ],
      [fullJitterBackoff({ baseMs: 100, capMs: 5_000 }), 5_000],
      [equalJitterBackoff({ baseMs: 100, capMs: 5_000 }), 5_000],
      [decorrelatedJitterBackoff({ baseMs: 100, capMs: 5_000 }), 5_000],
      [truncatedBinaryBackoff({ slotMs: 1 }), 1_023],
    ];
    for (const [policy, cap] of cases) {
      for (
        const n of [1e9, 2 ** 31 - 1, 2 ** 32 + 1, Number.MAX_SAFE_INTEGER]
      ) {
        for (let draw = 0; draw < 50; draw++) {
          const delay = policy.delayFor(n);
          assertTimerSafe(delay);
          assert.ok(delay <= cap, `n=${n}: ${delay} > ${cap}`);
        }
      }
    }
  });

  it("describes any bad option in its error without throwing while doing so", () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    class Weird {
      toString(): string {
        throw new Error("toString");
      }
    }
    const cases: [unknown, string][] = [
      [Object.create(null), "(got an object (no prototype))"],
      [10n, "(got 10n)"],
      [Symbol("ms"), "(got Symbol(ms))"],
      [new Weird(), "(got an object (Weird))"],
      [proxy, "(got an object (unreadable))"],
      [[1], "(got an array)"],
      [function later() {}, "(got function later)"],
      ['5"', '(got "5\\"")'],
    ];
    for (const [minMs, shown] of cases) {
      assert.throws(
        () => exponentialBackoff({ minMs, maxMs: 10 } as never),
        (error: Error) =>
          error instanceof TypeError && error.message.includes(shown) &&
          error.message.includes('"minMs" must be a number'),
        shown,
      );
    }
    assert.throws(
      () => fullJitterBackoff(Object.create(null)),
      (error: Error) =>
        error instanceof TypeError &&
        error.message.includes(
          `"baseMs" must be a number in [0, 2147483647] (got undefined)`,
        ),
    );
    assert.throws(
      () => linearBackoff(10n as never),
      (error: Error) =>
        error instanceof TypeError &&
        error.message.includes(`"options" must be an object (got 10n)`),
    );
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
