// Copyright 2026 the understudy authors. MIT license.
// The random spec of the BackoffSender, 100 seeds per runtime (the faults
// and what is checked: the header of _backoff_sender_random.ts). A failure
// names its seed;
// UNDERSTUDY_SEED=<seed> replays it alone; bench/soak.mjs runs more seeds.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { backoffSenderRandomRun, BASE_SEED } from "./_backoff_sender_random.ts";
import { forEachSeed, seedsToRun } from "../testing/_seeds.ts";

const SEEDS: readonly number[] = seedsToRun(BASE_SEED, 100);

describe("BackoffSender under Akka's random faults", () => {
  it(`loses nothing, applies nothing twice, keeps order (${SEEDS.length} seeds)`, async () => {
    let retries = 0;
    await forEachSeed(SEEDS, async (seed) => {
      retries += (await backoffSenderRandomRun(seed)).retries;
    });
    // The faults struck: about 40% of the writes failed or lost their ack.
    if (SEEDS.length >= 100) assert.ok(retries >= 500, `${retries} retries`);
  });
});
