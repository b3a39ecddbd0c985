// Copyright 2026 the understudy authors. MIT license.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  exponentialBackoff,
  MAX_TIMER_DELAY_MS,
} from "../../src/backoff/mod.ts";
import {
  assertSpreadOver,
  assertThrowsNaming,
  assertTimerSafe,
  LARGE_RESTART_COUNTS,
  sample,
  seededRandom,
} from "./_helpers.ts";

describe("exponentialBackoff", () => {
  it("doubles from minMs and stays at maxMs, without jitter", () => {
    const policy = exponentialBackoff({
      minMs: 200,
      maxMs: 10_000,
      randomFactor: 0,
    });
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5, 6, 7, 30].map((n) => policy.delayFor(n)),
      [200, 400, 800, 1_600, 3_200, 6_400, 10_000, 10_000, 10_000],
    );
  });

  it("reaches a maxMs that is an exact power of two times minMs", () => {
    const policy = exponentialBackoff({
      minMs: 100,
      maxMs: 1_600,
      randomFactor: 0,
    });
    assert.deepEqual(
      [3, 4, 5].map((n) => policy.delayFor(n)),
      [800, 1_600, 1_600],
    );
  });

  it("applies the default ±20% jitter, spread over the whole range", () => {
    const policy = exponentialBackoff({ minMs: 200, maxMs: 10_000 });
    assertSpreadOver(sample(policy, 2), 640, 960);
  });

  it("jitters with the given randomFactor", () => {
    const policy = exponentialBackoff({
      minMs: 200,
      maxMs: 10_000,
      randomFactor: 0.5,
    });
    assertSpreadOver(sample(policy, 0), 100, 300);
  });

  it("maps random() linearly onto the jitter range", () => {
    const delayWith = (u: number) =>
      exponentialBackoff({ minMs: 200, maxMs: 10_000, random: () => u })
        .delayFor(2);
    assert.equal(delayWith(0), 640);
    assert.equal(delayWith(0.5), 800);
    assert.ok(Math.abs(delayWith(0.75) - 880) < 1e-9);
  });

  it("still spreads clients out once capped at maxMs", () => {
    // reconnecting-websocket retries every client at exactly maxMs once
    // capped, so they all reconnect in the same instant.
    const policy = exponentialBackoff({ minMs: 200, maxMs: 10_000 });
    for (const n of [6, 30, 1_025]) {
      const delays = sample(policy, n);
      assertSpreadOver(delays, 8_000, 12_000);
      assert.ok(new Set(delays).size > 5_000, "capped delays should differ");
    }
  });

  it("is reproducible with a seeded random", () => {
    const delays = (seed: number) => {
      const policy = exponentialBackoff({
        minMs: 200,
        maxMs: 10_000,
        random: seededRandom(seed),
      });
      return [0, 1, 2, 3, 4, 5, 6, 7].map((n) => policy.delayFor(n));
    };
    assert.deepEqual(delays(42), delays(42));
    assert.notEqual(delays(42).join(), delays(43).join());
  });

  it("stays at maxMs, finite and never NaN, for huge restart counts", () => {
    const exact = exponentialBackoff({
      minMs: 200,
      maxMs: 10_000,
      randomFactor: 0,
    });
    const jittered = exponentialBackoff({ minMs: 200, maxMs: 10_000 });
    for (const n of LARGE_RESTART_COUNTS) {
      assert.equal(exact.delayFor(n), 10_000);
      const delay = jittered.delayFor(n);
      assertTimerSafe(delay);
      assert.ok(delay >= 8_000 && delay <= 12_000, `n=${n}: ${delay}`);
    }
  });

  it("returns 0 forever when minMs is 0 (no 0 × Infinity)", () => {
    const policy = exponentialBackoff({ minMs: 0, maxMs: 10_000 });
    for (const n of [0, 1, ...LARGE_RESTART_COUNTS]) {
      assert.equal(policy.delayFor(n), 0);
    }
  });

  it("reaches maxMs from a tiny minMs", () => {
    const policy = exponentialBackoff({
      minMs: Number.MIN_VALUE,
      maxMs: 1_000,
      randomFactor: 0,
    });
    assert.equal(policy.delayFor(0), Number.MIN_VALUE);
    for (const n of [1_100, Number.MAX_SAFE_INTEGER]) {
      assert.equal(policy.delayFor(n), 1_000);
    }
  });

  it("clamps jitter above MAX_TIMER_DELAY_MS", () => {
    const policy = exponentialBackoff({
      minMs: 1_000,
      maxMs: MAX_TIMER_DELAY_MS,
      randomFactor: 1,
    });
    const delays = sample(policy, Number.MAX_SAFE_INTEGER);
    delays.forEach(assertTimerSafe);
    assert.ok(delays.includes(MAX_TIMER_DELAY_MS));
    assert.ok(delays.some((delay) => delay < MAX_TIMER_DELAY_MS / 2));
  });

  it("keeps a constant delay when maxMs equals minMs", () => {
    const policy = exponentialBackoff({
      minMs: 500,
      maxMs: 500,
      randomFactor: 0,
    });
    assert.deepEqual([0, 1, 10].map((n) => policy.delayFor(n)), [
      500,
      500,
      500,
    ]);
  });

  describe("rejects invalid options, naming the option and the value", () => {
    const create = (options: unknown) => () =>
      exponentialBackoff(options as Parameters<typeof exponentialBackoff>[0]);

    it("maxMs below minMs", () => {
      assertThrowsNaming(
        create({ minMs: 200, maxMs: 100 }),
        RangeError,
        "exponential backoff",
        '"maxMs"',
        "minMs=200",
        "maxMs=100",
      );
    });

    it("negative, non-finite or too large times", () => {
      for (const minMs of [-1, NaN, Infinity, MAX_TIMER_DELAY_MS + 1]) {
        assertThrowsNaming(
          create({ minMs, maxMs: 100 }),
          RangeError,
          '"minMs"',
          `minMs=${minMs}`,
          "[0, 2147483647]",
        );
      }
      assertThrowsNaming(
        create({ minMs: 100, maxMs: Infinity }),
        RangeError,
        "maxMs=Infinity",
      );
    });

    it("times that are not numbers", () => {
      assertThrowsNaming(
        create({ minMs: "200", maxMs: 1_000 }),
        TypeError,
        '"minMs"',
        'minMs="200"',
      );
      assertThrowsNaming(
        create({ minMs: 200 }),
        TypeError,
        '"maxMs"',
        "maxMs=undefined",
      );
    });

    it("randomFactor outside [0, 1]", () => {
      for (const randomFactor of [-0.1, 1.5, NaN]) {
        assertThrowsNaming(
          create({ minMs: 1, maxMs: 2, randomFactor }),
          RangeError,
          '"randomFactor"',
          `randomFactor=${randomFactor}`,
          "[0, 1]",
        );
      }
      assertThrowsNaming(
        create({ minMs: 1, maxMs: 2, randomFactor: "0.2" }),
        TypeError,
        'randomFactor="0.2"',
      );
    });

    it("random that is not a function", () => {
      assertThrowsNaming(
        create({ minMs: 1, maxMs: 2, random: 0.5 }),
        TypeError,
        '"random"',
        "random=0.5",
        "a function",
      );
    });

    it("options that are not an object", () => {
      for (const options of [undefined, null, 42, "fast"]) {
        assertThrowsNaming(
          create(options),
          TypeError,
          '"options"',
          "an object",
        );
      }
      assertThrowsNaming(create(null), TypeError, "options=null");
    });
  });

  it("rejects a restartCount that is not a non-negative integer", () => {
    const policy = exponentialBackoff({ minMs: 1, maxMs: 2 });
    for (const n of [-1, 1.5, NaN, Infinity, Number.MAX_SAFE_INTEGER + 2]) {
      assertThrowsNaming(
        () => policy.delayFor(n),
        RangeError,
        "exponential backoff delay",
        '"restartCount"',
        `restartCount=${n}`,
      );
    }
    assertThrowsNaming(
      () => policy.delayFor("1" as unknown as number),
      TypeError,
      'restartCount="1"',
    );
  });
});
