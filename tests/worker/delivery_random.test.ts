// Copyright 2026 the understudy authors. MIT license.
// The random spec of the worker transport, 100 seeds per runtime (the
// faults and what is checked: the header of _delivery_random.ts). A failure
// names its seed;
// UNDERSTUDY_SEED=<seed> replays it alone; bench/soak.mjs runs more seeds.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { BASE_SEED, workerRandomRun } from "./_delivery_random.ts";
import { forEachSeed, seedsToRun } from "../testing/_seeds.ts";

const SEEDS: readonly number[] = seedsToRun(BASE_SEED, 100);

describe("the worker transport under a slow channel and lost workers", () => {
  it(`accounts for every job once, in order (${SEEDS.length} seeds)`, async () => {
    let lost = 0;
    await forEachSeed(SEEDS, async (seed) => {
      lost += (await workerRandomRun(seed)).lost;
    });
    // The faults struck: workers were lost (about one a seed).
    if (SEEDS.length >= 100) assert.ok(lost >= 30, `${lost} workers lost`);
  });
});
