// Copyright 2026 the understudy authors. MIT license.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { secureRandom } from "../../src/backoff/mod.ts";

describe("secureRandom", () => {
  // 10,000 draws cross the 256-number buffer many times, so refills are
  // covered too.
  const draws: number[] = [];
  for (let i = 0; i < 10_000; i++) draws.push(secureRandom());

  it("returns numbers in [0, 1)", () => {
    for (const u of draws) {
      assert.equal(typeof u, "number");
      assert.ok(u >= 0 && u < 1, `${u} outside [0, 1)`);
    }
  });

  it("spreads evenly over [0, 1)", () => {
    const buckets = new Array<number>(10).fill(0);
    for (const u of draws) buckets[Math.floor(u * 10)]!++;
    for (const count of buckets) {
      assert.ok(count > 850 && count < 1_150, `uneven buckets: ${buckets}`);
    }
    assert.ok(Math.min(...draws) < 0.001);
    assert.ok(Math.max(...draws) > 0.999);
  });

  it("does not repeat itself across buffer refills", () => {
    assert.ok(new Set(draws).size > 9_900);
    // The second buffer's worth must not replay the first.
    assert.notEqual(draws.slice(0, 256).join(), draws.slice(256, 512).join());
  });
});
