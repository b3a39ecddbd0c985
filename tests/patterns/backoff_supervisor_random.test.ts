// Copyright 2026 the understudy authors. MIT license.
// The BackoffSupervisor under random actor faults, 100 seeds per runtime
// (the faults and what is checked: the header of
// _backoff_supervisor_random.ts). A failure names its seed;
// UNDERSTUDY_SEED=<seed> replays it alone; bench/soak.mjs runs more seeds.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  backoffSupervisorRandomRun,
  BASE_SEED,
} from "./_backoff_supervisor_random.ts";
import { forEachSeed, seedsToRun } from "../testing/_seeds.ts";

const SEEDS: readonly number[] = seedsToRun(BASE_SEED, 100);

describe("BackoffSupervisor under random actor faults", () => {
  it(`accounts for every message once (${SEEDS.length} seeds)`, async () => {
    let faults = 0;
    await forEachSeed(SEEDS, async (seed) => {
      faults += (await backoffSupervisorRandomRun(seed)).faults;
    });
    // The faults struck: crashes, stops and throwing hooks, several a seed.
    if (SEEDS.length >= 100) assert.ok(faults >= 300, `${faults} faults`);
  });
});
