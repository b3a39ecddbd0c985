// Copyright 2026 the understudy authors. MIT license.
// The seeded random source every fault of the testing kit draws from.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  parseSeed,
  SeededRandom,
  seededRandom,
} from "../../src/testing/mod.ts";

describe("SeededRandom", () => {
  it("gives the same numbers for the same seed, and other numbers for another", () => {
    const draw = (seed: number) => {
      const r = new SeededRandom(seed);
      return [
        r.next(),
        r.int(0, 100),
        r.between(0, 40),
        r.pick(["a", "b", "c"]),
        r.chance(0.5),
      ];
    };
    assert.deepEqual(draw(42), draw(42));
    assert.notDeepEqual(draw(42), draw(43));
    // mulberry32's first number for seed 0, the same in every runtime.
    assert.equal(new SeededRandom(0).next(), 0.26642920868471265);
  });

  it("keeps draws in range, and roughly uniform", () => {
    const r = new SeededRandom(7);
    const counts = [0, 0, 0, 0, 0, 0];
    for (let i = 0; i < 6_000; i++) {
      const x = r.int(1, 6);
      assert.ok(Number.isInteger(x) && x >= 1 && x <= 6);
      counts[x - 1]++;
    }
    for (const c of counts) assert.ok(c > 850 && c < 1150, `${counts}`);
    let hits = 0;
    for (let i = 0; i < 10_000; i++) if (r.chance(0.2)) hits++;
    assert.ok(hits > 1_800 && hits < 2_200, `${hits}`);
    for (let i = 0; i < 1_000; i++) {
      const y = r.between(10, 30);
      assert.ok(y >= 10 && y < 30);
    }
    assert.equal(r.int(5, 5), 5);
    assert.equal(r.chance(0), false);
    assert.equal(r.chance(1), true);
  });

  it("counts its draws: one a call, whatever the rate", () => {
    const r = new SeededRandom(1);
    r.chance(0);
    r.chance(1);
    r.int(0, 9);
    r.pick([1]);
    r.between(0, 1);
    r.next();
    assert.equal(r.draws, 6);
  });

  it("forks streams by label that do not depend on the parent's draws", () => {
    const a = new SeededRandom(11);
    const b = new SeededRandom(11);
    b.next();
    b.next();
    assert.equal(a.fork("up").next(), b.fork("up").next());
    assert.notEqual(a.fork("up").next(), a.fork("down").next());
    assert.notEqual(a.fork("up").seed, new SeededRandom(12).fork("up").seed);
  });

  it("prints its seed, and a fresh one when none is given", () => {
    assert.equal(`${new SeededRandom(8)}`, "seed 8");
    const fresh = seededRandom();
    assert.ok(Number.isInteger(fresh.seed) && fresh.seed >= 0);
    assert.equal(seededRandom(fresh.seed).next(), fresh.next());
  });

  it("refuses bad input at the call, naming it", () => {
    for (const bad of [-1, 1.5, 2 ** 32, NaN, "1"]) {
      assert.throws(
        () => new SeededRandom(bad as number),
        /Cannot create SeededRandom: "seed" must be a whole number in \[0, 4294967295\]/,
      );
    }
    const r = new SeededRandom(1);
    assert.throws(() => r.chance(1.5), RangeError);
    assert.throws(() => r.chance("x" as never), TypeError);
    assert.throws(() => r.int(3, 2), /"hi" must be a whole number >= lo \(3\)/);
    assert.throws(() => r.between(0, Infinity), RangeError);
    assert.throws(() => r.pick([]), /"items" must be a non-empty array/);
    assert.throws(() => r.fork(1 as never), /"label" must be a string/);
  });
});

describe("parseSeed", () => {
  it("reads a seed from text, or nothing from nothing", () => {
    assert.equal(parseSeed(undefined), undefined);
    assert.equal(parseSeed(""), undefined);
    assert.equal(parseSeed(" 1234 "), 1234);
    assert.throws(
      () => parseSeed("12x"),
      /Cannot parse seed: "text" must be a whole number/,
    );
    assert.throws(() => parseSeed("-3"), RangeError);
  });
});
