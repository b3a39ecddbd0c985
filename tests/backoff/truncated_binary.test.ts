// Copyright 2026 the understudy authors. MIT license.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  MAX_TIMER_DELAY_MS,
  truncatedBinaryBackoff,
} from "../../src/backoff/mod.ts";
import {
  assertThrowsNaming,
  assertTimerSafe,
  LARGE_RESTART_COUNTS,
  sample,
  seededRandom,
} from "./_helpers.ts";

/** Makes random() pick the last slot, so the delay reveals the exponent. */
const ALMOST_ONE = 1 - 2 ** -40;

/** The exponent e used for each restart count, read back from the delay. */
function exponents(
  options: { ceiling?: number; atCeiling?: "stay" | "restart" },
  restartCounts: number[],
): number[] {
  const policy = truncatedBinaryBackoff({
    slotMs: 1,
    random: () => ALMOST_ONE,
    ...options,
  });
  // The last slot is 2^e − 1.
  return restartCounts.map((n) => Math.log2(policy.delayFor(n) + 1));
}

describe("truncatedBinaryBackoff", () => {
  it("waits a uniform whole number of slots, 0 … 2^n − 1", () => {
    const policy = truncatedBinaryBackoff({ slotMs: 50 });
    assert.deepEqual([...new Set(sample(policy, 0, 100))], [0]);
    const delays = sample(policy, 2);
    const counts = new Map<number, number>();
    for (const delay of delays) counts.set(delay, (counts.get(delay) ?? 0) + 1);
    assert.deepEqual([...counts.keys()].sort((a, b) => a - b), [
      0,
      50,
      100,
      150,
    ]);
    for (const count of counts.values()) {
      assert.ok(count > 2_000 && count < 3_000, `uneven slots: ${count}`);
    }
  });

  it("with atCeiling 'stay' (default), keeps the exponent at ceiling", () => {
    assert.deepEqual(
      exponents({ ceiling: 3 }, [0, 1, 2, 3, 4, 5, 100]),
      [0, 1, 2, 3, 3, 3, 3],
    );
    assert.deepEqual(
      exponents({}, [9, 10, 11, 1_025, Number.MAX_SAFE_INTEGER]),
      [9, 10, 10, 10, 10],
    );
  });

  it("with atCeiling 'restart', starts over at exponent 0 past ceiling", () => {
    assert.deepEqual(
      exponents({ ceiling: 3, atCeiling: "restart" }, [
        0,
        1,
        2,
        3,
        4,
        5,
        6,
        7,
        8,
        9,
      ]),
      [0, 1, 2, 3, 0, 1, 2, 3, 0, 1],
    );
    // 9,007,199,254,740,991 = 11 × 818,836,295,885,544 + 7.
    assert.deepEqual(
      exponents({ atCeiling: "restart" }, [10, 11, Number.MAX_SAFE_INTEGER]),
      [10, 0, 7],
    );
  });

  it("spreads over every slot up to 2^ceiling − 1", () => {
    const policy = truncatedBinaryBackoff({ slotMs: 1 });
    const delays = sample(policy, 30);
    assert.ok(delays.every((delay) => Number.isInteger(delay)));
    assert.equal(Math.min(...delays), 0);
    assert.ok(Math.max(...delays) <= 1_023);
    assert.ok(Math.max(...delays) > 1_000);
    assert.ok(new Set(delays).size > 1_000);
  });

  it("picks slot floor(random() × 2^e)", () => {
    const policy = truncatedBinaryBackoff({ slotMs: 10, random: () => 0.5 });
    assert.deepEqual([0, 1, 4, 20].map((n) => policy.delayFor(n)), [
      0,
      10,
      80,
      5_120,
    ]);
  });

  it("is reproducible with a seeded random", () => {
    const delays = (seed: number) => {
      const policy = truncatedBinaryBackoff({
        slotMs: 10,
        random: seededRandom(seed),
      });
      return [3, 4, 5, 6, 7, 8, 9, 10].map((n) => policy.delayFor(n));
    };
    assert.deepEqual(delays(11), delays(11));
    assert.notEqual(delays(11).join(), delays(12).join());
  });

  it("stays finite and within MAX_TIMER_DELAY_MS for huge restart counts", () => {
    const policy = truncatedBinaryBackoff({
      slotMs: MAX_TIMER_DELAY_MS,
      ceiling: 32,
    });
    for (const atCeiling of ["stay", "restart"] as const) {
      const other = truncatedBinaryBackoff({ slotMs: 50, atCeiling });
      for (const n of LARGE_RESTART_COUNTS) {
        assertTimerSafe(policy.delayFor(n));
        const delay = other.delayFor(n);
        assertTimerSafe(delay);
        assert.ok(delay <= 1_023 * 50, `n=${n}: ${delay}`);
      }
    }
  });

  describe("rejects invalid options, naming the option and the value", () => {
    const create = (options: unknown) => () =>
      truncatedBinaryBackoff(
        options as Parameters<typeof truncatedBinaryBackoff>[0],
      );

    it("a ceiling that is not an integer from 0 to 32", () => {
      for (const ceiling of [-1, 1.5, 33, NaN]) {
        assertThrowsNaming(
          create({ slotMs: 1, ceiling }),
          RangeError,
          "truncated binary backoff",
          '"ceiling"',
          `ceiling=${ceiling}`,
          "an integer in [0, 32]",
        );
      }
      assertThrowsNaming(
        create({ slotMs: 1, ceiling: "10" }),
        TypeError,
        'ceiling="10"',
      );
    });

    it("an atCeiling other than 'stay' or 'restart'", () => {
      assertThrowsNaming(
        create({ slotMs: 1, atCeiling: "Stay" }),
        TypeError,
        '"atCeiling"',
        'atCeiling="Stay"',
        '"stay" or "restart"',
      );
    });

    it("a negative or non-finite slotMs, bad random, options not an object", () => {
      assertThrowsNaming(
        create({ slotMs: -0.5 }),
        RangeError,
        '"slotMs"',
        "slotMs=-0.5",
      );
      assertThrowsNaming(
        create({ slotMs: Infinity }),
        RangeError,
        "slotMs=Infinity",
      );
      assertThrowsNaming(
        create({ slotMs: 1, random: 1 }),
        TypeError,
        '"random"',
        "random=1",
      );
      assertThrowsNaming(create(false), TypeError, "options=false");
    });
  });

  it("rejects a restartCount that is not a non-negative integer", () => {
    const policy = truncatedBinaryBackoff({ slotMs: 1 });
    assertThrowsNaming(
      () => policy.delayFor(Infinity),
      RangeError,
      '"restartCount"',
      "restartCount=Infinity",
    );
  });
});
