// Copyright 2026 the understudy authors. MIT license.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fullJitterBackoff } from "../../src/backoff/mod.ts";
import {
  assertSpreadOver,
  assertThrowsNaming,
  assertTimerSafe,
  LARGE_RESTART_COUNTS,
  sample,
  seededRandom,
} from "./_helpers.ts";

describe("fullJitterBackoff", () => {
  it("draws uniformly from [0, baseMs × 2^n)", () => {
    const policy = fullJitterBackoff({ baseMs: 100, capMs: 20_000 });
    for (const [n, ceiling] of [[0, 100], [3, 800], [7, 12_800]]) {
      assertSpreadOver(sample(policy, n), 0, ceiling, true);
    }
  });

  it("draws from [0, capMs) once baseMs × 2^n passes capMs", () => {
    const policy = fullJitterBackoff({ baseMs: 100, capMs: 20_000 });
    for (const n of [8, 30, 1_025]) {
      assertSpreadOver(sample(policy, n), 0, 20_000, true);
    }
  });

  it("scales random() by min(capMs, baseMs × 2^n)", () => {
    const delayWith = (u: number, n: number) =>
      fullJitterBackoff({ baseMs: 100, capMs: 20_000, random: () => u })
        .delayFor(n);
    assert.equal(delayWith(0, 5), 0);
    assert.equal(delayWith(0.5, 0), 50);
    assert.equal(delayWith(0.5, 4), 800);
    assert.equal(delayWith(0.5, 30), 10_000);
  });

  it("is reproducible with a seeded random", () => {
    const delays = (seed: number) => {
      const policy = fullJitterBackoff({
        baseMs: 100,
        capMs: 20_000,
        random: seededRandom(seed),
      });
      return [0, 1, 2, 3, 4, 5].map((n) => policy.delayFor(n));
    };
    assert.deepEqual(delays(1), delays(1));
    assert.notEqual(delays(1).join(), delays(2).join());
  });

  it("stays finite and within capMs for huge restart counts", () => {
    const policy = fullJitterBackoff({ baseMs: 100, capMs: 20_000 });
    const zeroBase = fullJitterBackoff({ baseMs: 0, capMs: 20_000 });
    for (const n of LARGE_RESTART_COUNTS) {
      const delay = policy.delayFor(n);
      assertTimerSafe(delay);
      assert.ok(delay < 20_000, `n=${n}: ${delay}`);
      assert.equal(zeroBase.delayFor(n), 0);
    }
  });

  describe("rejects invalid options, naming the option and the value", () => {
    const create = (options: unknown) => () =>
      fullJitterBackoff(options as Parameters<typeof fullJitterBackoff>[0]);

    it("capMs below baseMs", () => {
      assertThrowsNaming(
        create({ baseMs: 100, capMs: 50 }),
        RangeError,
        "full jitter backoff",
        '"capMs"',
        "baseMs=100",
        "capMs=50",
      );
    });

    it("negative or non-finite times", () => {
      assertThrowsNaming(
        create({ baseMs: -1, capMs: 50 }),
        RangeError,
        '"baseMs"',
        "baseMs=-1",
      );
      assertThrowsNaming(
        create({ baseMs: 1, capMs: Infinity }),
        RangeError,
        '"capMs"',
        "capMs=Infinity",
      );
    });

    it("random that is not a function, or options not an object", () => {
      assertThrowsNaming(
        create({ baseMs: 1, capMs: 2, random: {} }),
        TypeError,
        '"random"',
      );
      assertThrowsNaming(create(null), TypeError, "options=null");
    });
  });

  it("rejects a restartCount that is not a non-negative integer", () => {
    const policy = fullJitterBackoff({ baseMs: 1, capMs: 2 });
    assertThrowsNaming(
      () => policy.delayFor(0.5),
      RangeError,
      '"restartCount"',
      "restartCount=0.5",
    );
  });
});
