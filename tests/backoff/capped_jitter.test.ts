// Copyright 2026 the understudy authors. MIT license.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  cappedJitterBackoff,
  exponentialBackoff,
} from "../../src/backoff/mod.ts";
import {
  assertSpreadOver,
  assertThrowsNaming,
  assertTimerSafe,
  LARGE_RESTART_COUNTS,
  sample,
  seededRandom,
} from "./_helpers.ts";

describe("cappedJitterBackoff", () => {
  it("draws uniformly from [v × (1 − spread), v] with v = baseMs × 2^n", () => {
    const policy = cappedJitterBackoff({
      baseMs: 100,
      capMs: 20_000,
      spread: 0.5,
    });
    for (const [n, v] of [[0, 100], [3, 800], [7, 12_800]]) {
      assertSpreadOver(sample(policy, n), v / 2, v);
    }
  });

  it("keeps the hard ceiling and still spreads at it: [capMs × (1 − spread), capMs]", () => {
    const policy = cappedJitterBackoff({
      baseMs: 100,
      capMs: 20_000,
      spread: 0.3,
    });
    for (const n of [8, 30, 1_025]) {
      assertSpreadOver(sample(policy, n), 14_000, 20_000);
    }
    // exponentialBackoff's ± jitter passes its maxMs; this one never does.
    const plusMinus = exponentialBackoff({
      minMs: 100,
      maxMs: 20_000,
      randomFactor: 0.3,
    });
    assert.ok(sample(plusMinus, 30).some((delay) => delay > 20_000));
  });

  it("property: for any options, seed and restart count, the delay is in [v × (1 − spread), v]", () => {
    const draw = seededRandom(28);
    for (let run = 0; run < 2_000; run++) {
      const baseMs = Math.floor(draw() * 5_000);
      const capMs = baseMs + Math.floor(draw() * 100_000);
      const spread = run % 10 === 0 ? [0, 1][run % 20 / 10] : draw();
      const n = Math.floor(draw() * 80);
      const policy = cappedJitterBackoff({
        baseMs,
        capMs,
        spread,
        random: seededRandom(run),
      });
      const v = Math.min(capMs, baseMs * 2 ** n);
      const delay = policy.delayFor(n);
      assertTimerSafe(delay);
      assert.ok(
        delay >= v * (1 - spread) - 1e-9 && delay <= v,
        `base ${baseMs}, cap ${capMs}, spread ${spread}, n ${n}: ${delay} outside [${
          v * (1 - spread)
        }, ${v}]`,
      );
    }
  });

  it("maps random() to v × (1 − spread × (1 − u)): 0 gives the bottom, 1 the cap", () => {
    const delayWith = (u: number, n: number) =>
      cappedJitterBackoff({
        baseMs: 100,
        capMs: 20_000,
        spread: 0.5,
        random: () => u,
      }).delayFor(n);
    assert.equal(delayWith(0, 3), 400);
    assert.equal(delayWith(0.5, 3), 600);
    assert.equal(delayWith(0, 40), 10_000);
    assert.ok(delayWith(1, 40) <= 20_000);
    assert.equal(
      cappedJitterBackoff({ baseMs: 100, capMs: 1_000, spread: 0 }).delayFor(
        10,
      ),
      1_000,
      "spread 0: no jitter",
    );
  });

  it("defaults spread to 0.5, and is reproducible with a seeded random", () => {
    const delays = (seed: number) => {
      const policy = cappedJitterBackoff({
        baseMs: 100,
        capMs: 20_000,
        random: seededRandom(seed),
      });
      return [0, 1, 2, 3, 4, 30].map((n) => policy.delayFor(n));
    };
    assert.deepEqual(delays(5), delays(5));
    assert.notEqual(delays(5).join(), delays(6).join());
    assertSpreadOver(
      sample(cappedJitterBackoff({ baseMs: 100, capMs: 1_000 }), 30),
      500,
      1_000,
    );
  });

  it("stays finite and within the ceiling for huge restart counts", () => {
    const policy = cappedJitterBackoff({ baseMs: 100, capMs: 20_000 });
    for (const n of LARGE_RESTART_COUNTS) {
      const delay = policy.delayFor(n);
      assertTimerSafe(delay);
      assert.ok(delay >= 10_000 && delay <= 20_000, `n=${n}: ${delay}`);
    }
  });

  it("rejects invalid options, naming the option and the value", () => {
    const create = (options: unknown) => () =>
      cappedJitterBackoff(options as Parameters<typeof cappedJitterBackoff>[0]);
    assertThrowsNaming(
      create({ baseMs: 300, capMs: 200 }),
      RangeError,
      "capped jitter backoff",
      '"capMs"',
      "capMs=200",
    );
    assertThrowsNaming(
      create({ baseMs: 100, capMs: 200, spread: 1.5 }),
      RangeError,
      '"spread"',
      "spread=1.5",
    );
    assertThrowsNaming(
      create({ baseMs: 100, capMs: 200, spread: "wide" }),
      TypeError,
      '"spread"',
    );
    assertThrowsNaming(create("fast"), TypeError, 'options="fast"');
    assertThrowsNaming(
      () => cappedJitterBackoff({ baseMs: 1, capMs: 2 }).delayFor(-1),
      RangeError,
      '"restartCount"',
    );
  });
});
