// Copyright 2026 the understudy authors. MIT license.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { equalJitterBackoff } from "../../src/backoff/mod.ts";
import {
  assertSpreadOver,
  assertThrowsNaming,
  assertTimerSafe,
  LARGE_RESTART_COUNTS,
  sample,
  seededRandom,
} from "./_helpers.ts";

describe("equalJitterBackoff", () => {
  it("draws uniformly from [v / 2, v) with v = baseMs × 2^n", () => {
    const policy = equalJitterBackoff({ baseMs: 100, capMs: 20_000 });
    for (const [n, v] of [[0, 100], [3, 800], [7, 12_800]]) {
      assertSpreadOver(sample(policy, n), v / 2, v, true);
    }
  });

  it("draws from [capMs / 2, capMs) once baseMs × 2^n passes capMs", () => {
    const policy = equalJitterBackoff({ baseMs: 100, capMs: 20_000 });
    for (const n of [8, 30, 1_025]) {
      assertSpreadOver(sample(policy, n), 10_000, 20_000, true);
    }
  });

  it("adds random() × v / 2 to v / 2", () => {
    const delayWith = (u: number, n: number) =>
      equalJitterBackoff({ baseMs: 100, capMs: 20_000, random: () => u })
        .delayFor(n);
    assert.equal(delayWith(0, 3), 400);
    assert.equal(delayWith(0.5, 3), 600);
    assert.equal(delayWith(0, 40), 10_000);
  });

  it("is reproducible with a seeded random", () => {
    const delays = (seed: number) => {
      const policy = equalJitterBackoff({
        baseMs: 100,
        capMs: 20_000,
        random: seededRandom(seed),
      });
      return [0, 1, 2, 3, 4, 5].map((n) => policy.delayFor(n));
    };
    assert.deepEqual(delays(5), delays(5));
    assert.notEqual(delays(5).join(), delays(6).join());
  });

  it("stays finite and within [capMs / 2, capMs) for huge restart counts", () => {
    const policy = equalJitterBackoff({ baseMs: 100, capMs: 20_000 });
    for (const n of LARGE_RESTART_COUNTS) {
      const delay = policy.delayFor(n);
      assertTimerSafe(delay);
      assert.ok(delay >= 10_000 && delay < 20_000, `n=${n}: ${delay}`);
    }
  });

  describe("rejects invalid options, naming the option and the value", () => {
    const create = (options: unknown) => () =>
      equalJitterBackoff(options as Parameters<typeof equalJitterBackoff>[0]);

    it("capMs below baseMs", () => {
      assertThrowsNaming(
        create({ baseMs: 300, capMs: 200 }),
        RangeError,
        "equal jitter backoff",
        '"capMs"',
        "baseMs=300",
        "capMs=200",
      );
    });

    it("non-numeric times, or options not an object", () => {
      assertThrowsNaming(
        create({ baseMs: null, capMs: 200 }),
        TypeError,
        '"baseMs"',
        "baseMs=null",
      );
      assertThrowsNaming(create("fast"), TypeError, 'options="fast"');
    });
  });

  it("rejects a restartCount that is not a non-negative integer", () => {
    const policy = equalJitterBackoff({ baseMs: 1, capMs: 2 });
    assertThrowsNaming(
      () => policy.delayFor(NaN),
      RangeError,
      '"restartCount"',
      "restartCount=NaN",
    );
  });
});
