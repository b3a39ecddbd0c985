// Copyright 2026 the understudy authors. MIT license.
// The random spec of the socket's acknowledged mode, 100 seeds per runtime
// (the faults and what is checked: the header of _delivery_random.ts). A
// failure names its seed;
// UNDERSTUDY_SEED=<seed> replays it alone; bench/soak.mjs runs more seeds.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { BASE_SEED, websocketRandomRun } from "./_delivery_random.ts";
import { forEachSeed, seedsToRun } from "../testing/_seeds.ts";

const SEEDS: readonly number[] = seedsToRun(BASE_SEED, 100);

describe("acknowledged mode under Akka's random faults", () => {
  it(`loses nothing, processes nothing twice, keeps id order (${SEEDS.length} seeds)`, async () => {
    let dropped = 0;
    let broken = 0;
    await forEachSeed(SEEDS, async (seed) => {
      const run = await websocketRandomRun(seed);
      dropped += run.dropped;
      broken += run.broken;
    });
    // The faults struck: frames were lost, connections broke.
    if (SEEDS.length >= 100) {
      assert.ok(
        dropped >= 1_000 && broken >= 50,
        `${dropped} dropped, ${broken} broken`,
      );
    }
  });

  it("replays a seed exactly: the same faults at the same virtual times", async () => {
    for (const seed of SEEDS.slice(0, 3)) {
      const first = await websocketRandomRun(seed);
      const again = await websocketRandomRun(seed);
      assert.ok(first.trace.length > 50, `${first.trace.length} decisions`);
      assert.deepEqual(again.trace, first.trace, `seed ${seed}`);
    }
  });
});
