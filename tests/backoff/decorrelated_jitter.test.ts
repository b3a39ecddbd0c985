// Copyright 2026 the understudy authors. MIT license.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { decorrelatedJitterBackoff } from "../../src/backoff/mod.ts";
import {
  assertSpreadOver,
  assertThrowsNaming,
  assertTimerSafe,
  LARGE_RESTART_COUNTS,
  sample,
  seededRandom,
} from "./_helpers.ts";

/** Just below 1: the largest delay each step allows. */
const ALMOST_ONE = 1 - 2 ** -40;

describe("decorrelatedJitterBackoff", () => {
  it("draws the first delay uniformly from [baseMs, 3 × baseMs)", () => {
    const policy = decorrelatedJitterBackoff({ baseMs: 100, capMs: 20_000 });
    // Each delayFor(0) starts over, so these are 10,000 first delays.
    assertSpreadOver(sample(policy, 0), 100, 300, true);
  });

  it("draws each later delay from [baseMs, 3 × the previous delay)", () => {
    const policy = decorrelatedJitterBackoff({ baseMs: 100, capMs: 20_000 });
    for (let run = 0; run < 1_000; run++) {
      let previous = policy.delayFor(0);
      for (let n = 1; n < 10; n++) {
        const delay = policy.delayFor(n);
        assert.ok(
          delay >= 100 && delay < Math.min(20_000, 3 * previous) + 1e-9,
          `n=${n}: ${delay} after ${previous}`,
        );
        previous = delay;
      }
    }
  });

  it("follows min(capMs, baseMs + u × (3 × previous − baseMs))", () => {
    const policy = decorrelatedJitterBackoff({
      baseMs: 100,
      capMs: 1_000,
      random: () => 0.5,
    });
    // 100 + 0.5 × (300 − 100) = 200, then 100 + 0.5 × (600 − 100) = 350, …
    assert.deepEqual(
      [0, 1, 2, 3, 4].map((n) => policy.delayFor(n)),
      [200, 350, 575, 912.5, 1_000],
    );
  });

  it("starts over at baseMs when called with restartCount 0", () => {
    const policy = decorrelatedJitterBackoff({
      baseMs: 100,
      capMs: 20_000,
      random: () => ALMOST_ONE,
    });
    const climb = [0, 1, 2, 3, 4, 5, 6].map((n) => policy.delayFor(n));
    assert.equal(climb[6], 20_000);
    const restarted = policy.delayFor(0);
    assert.ok(restarted < 300, `restarted at ${restarted}`);
    assert.ok(Math.abs(restarted - climb[0]!) < 1e-9);
  });

  it("keeps its state per policy object", () => {
    const first = decorrelatedJitterBackoff({
      baseMs: 100,
      capMs: 20_000,
      random: () => ALMOST_ONE,
    });
    const second = decorrelatedJitterBackoff({
      baseMs: 100,
      capMs: 20_000,
      random: () => ALMOST_ONE,
    });
    for (let n = 0; n < 5; n++) first.delayFor(n);
    assert.ok(second.delayFor(0) < 300);
  });

  it("spreads clients out once capped", () => {
    const policy = decorrelatedJitterBackoff({ baseMs: 100, capMs: 1_000 });
    const delays: number[] = [];
    for (let n = 0; n < 10_000; n++) delays.push(policy.delayFor(n));
    assertSpreadOver(delays, 100, 1_000);
    assert.ok(delays.filter((delay) => delay < 1_000).length > 1_000);
  });

  it("is reproducible with a seeded random", () => {
    const delays = (seed: number) => {
      const policy = decorrelatedJitterBackoff({
        baseMs: 100,
        capMs: 20_000,
        random: seededRandom(seed),
      });
      return [0, 1, 2, 3, 4, 5].map((n) => policy.delayFor(n));
    };
    assert.deepEqual(delays(3), delays(3));
    assert.notEqual(delays(3).join(), delays(4).join());
  });

  it("never returns NaN, even after 1,025 and more restarts", () => {
    // cockatiel's decorrelated jitter returned NaN after 1,025 attempts.
    const policy = decorrelatedJitterBackoff({ baseMs: 100, capMs: 20_000 });
    for (let n = 0; n < 5_000; n++) {
      const delay = policy.delayFor(n);
      assertTimerSafe(delay);
      assert.ok(delay >= 100 && delay <= 20_000, `n=${n}: ${delay}`);
    }
    for (const n of LARGE_RESTART_COUNTS) {
      const delay = policy.delayFor(n);
      assertTimerSafe(delay);
      assert.ok(delay >= 100 && delay <= 20_000, `n=${n}: ${delay}`);
    }
  });

  it("keeps its sequence when a custom random throws or returns NaN", () => {
    let next: () => number = () => 0.5;
    const policy = decorrelatedJitterBackoff({
      baseMs: 100,
      capMs: 20_000,
      random: () => next(),
    });
    assert.equal(policy.delayFor(0), 200); // 100 + 0.5 × (300 − 100)
    next = () => NaN;
    assert.throws(() => policy.delayFor(1), RangeError);
    next = () => {
      throw new Error("no entropy");
    };
    assert.throws(() => policy.delayFor(1), /no entropy/);
    next = () => 0.5;
    // Built on 200, the last delay returned, not on a poisoned value.
    assert.equal(policy.delayFor(1), 350); // 100 + 0.5 × (600 − 100)
  });

  describe("rejects invalid options, naming the option and the value", () => {
    const create = (options: unknown) => () =>
      decorrelatedJitterBackoff(
        options as Parameters<typeof decorrelatedJitterBackoff>[0],
      );

    it("capMs below baseMs", () => {
      assertThrowsNaming(
        create({ baseMs: 100, capMs: 99 }),
        RangeError,
        "decorrelated jitter backoff",
        '"capMs"',
        "baseMs=100",
        "capMs=99",
      );
    });

    it("negative times, bad random, options not an object", () => {
      assertThrowsNaming(
        create({ baseMs: -5, capMs: 99 }),
        RangeError,
        '"baseMs"',
        "baseMs=-5",
      );
      assertThrowsNaming(
        create({ baseMs: 1, capMs: 99, random: null }),
        TypeError,
        '"random"',
        "random=null",
      );
      assertThrowsNaming(create(undefined), TypeError, "options=undefined");
    });
  });

  it("rejects a restartCount that is not a non-negative integer", () => {
    const policy = decorrelatedJitterBackoff({ baseMs: 1, capMs: 2 });
    assertThrowsNaming(
      () => policy.delayFor(-1),
      RangeError,
      '"restartCount"',
      "restartCount=-1",
    );
  });
});
