// Copyright 2026 the understudy authors. MIT license.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { linearBackoff, MAX_TIMER_DELAY_MS } from "../../src/backoff/mod.ts";
import {
  assertSpreadOver,
  assertThrowsNaming,
  assertTimerSafe,
  LARGE_RESTART_COUNTS,
  sample,
  seededRandom,
} from "./_helpers.ts";

describe("linearBackoff", () => {
  it("adds stepMs per restart and stays at maxMs, without jitter", () => {
    const policy = linearBackoff({
      minMs: 500,
      stepMs: 500,
      maxMs: 5_000,
      randomFactor: 0,
    });
    assert.deepEqual(
      [0, 1, 2, 3, 8, 9, 10, 100].map((n) => policy.delayFor(n)),
      [500, 1_000, 1_500, 2_000, 4_500, 5_000, 5_000, 5_000],
    );
  });

  it("keeps minMs when stepMs is 0", () => {
    const policy = linearBackoff({
      minMs: 300,
      stepMs: 0,
      maxMs: 5_000,
      randomFactor: 0,
    });
    assert.deepEqual([0, 1, 1_000].map((n) => policy.delayFor(n)), [
      300,
      300,
      300,
    ]);
  });

  it("applies the default ±20% jitter, spread over the whole range", () => {
    const policy = linearBackoff({ minMs: 500, stepMs: 500, maxMs: 5_000 });
    assertSpreadOver(sample(policy, 1), 800, 1_200);
  });

  it("still spreads clients out once capped at maxMs", () => {
    const policy = linearBackoff({ minMs: 500, stepMs: 500, maxMs: 5_000 });
    const delays = sample(policy, 50);
    assertSpreadOver(delays, 4_000, 6_000);
    assert.ok(new Set(delays).size > 5_000, "capped delays should differ");
  });

  it("is reproducible with a seeded random", () => {
    const delays = (seed: number) => {
      const policy = linearBackoff({
        minMs: 500,
        stepMs: 500,
        maxMs: 5_000,
        random: seededRandom(seed),
      });
      return [0, 1, 2, 3, 4].map((n) => policy.delayFor(n));
    };
    assert.deepEqual(delays(7), delays(7));
    assert.notEqual(delays(7).join(), delays(8).join());
  });

  it("stays at maxMs, finite and never NaN, for huge restart counts", () => {
    const exact = linearBackoff({
      minMs: 500,
      stepMs: MAX_TIMER_DELAY_MS,
      maxMs: MAX_TIMER_DELAY_MS,
      randomFactor: 0,
    });
    const jittered = linearBackoff({ minMs: 500, stepMs: 500, maxMs: 5_000 });
    for (const n of LARGE_RESTART_COUNTS) {
      assert.equal(exact.delayFor(n), MAX_TIMER_DELAY_MS);
      const delay = jittered.delayFor(n);
      assertTimerSafe(delay);
      assert.ok(delay >= 4_000 && delay <= 6_000, `n=${n}: ${delay}`);
    }
  });

  describe("rejects invalid options, naming the option and the value", () => {
    const create = (options: unknown) => () =>
      linearBackoff(options as Parameters<typeof linearBackoff>[0]);

    it("maxMs below minMs", () => {
      assertThrowsNaming(
        create({ minMs: 500, stepMs: 1, maxMs: 499 }),
        RangeError,
        "linear backoff",
        '"maxMs"',
        "minMs=500",
        "maxMs=499",
      );
    });

    it("a missing, negative or non-finite stepMs", () => {
      for (const stepMs of [-500, NaN, -Infinity]) {
        assertThrowsNaming(
          create({ minMs: 500, stepMs, maxMs: 5_000 }),
          RangeError,
          '"stepMs"',
          `stepMs=${stepMs}`,
        );
      }
      assertThrowsNaming(
        create({ minMs: 500, maxMs: 5_000 }),
        TypeError,
        '"stepMs"',
        "stepMs=undefined",
      );
    });

    it("randomFactor outside [0, 1]", () => {
      assertThrowsNaming(
        create({ minMs: 1, stepMs: 1, maxMs: 2, randomFactor: 2 }),
        RangeError,
        '"randomFactor"',
        "randomFactor=2",
      );
    });

    it("random that is not a function, or options not an object", () => {
      assertThrowsNaming(
        create({ minMs: 1, stepMs: 1, maxMs: 2, random: "yes" }),
        TypeError,
        '"random"',
        'random="yes"',
      );
      assertThrowsNaming(create(7), TypeError, '"options"', "options=7");
    });
  });

  it("rejects a restartCount that is not a non-negative integer", () => {
    const policy = linearBackoff({ minMs: 1, stepMs: 1, maxMs: 2 });
    assertThrowsNaming(
      () => policy.delayFor(-3),
      RangeError,
      '"restartCount"',
      "restartCount=-3",
    );
  });
});
