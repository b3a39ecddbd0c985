// Copyright 2026 the understudy authors. MIT license.
// Specification of HostLoss: the loss of a host (a Durable Object's
// eviction, a worker's termination) at seeded points, replayed exactly.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { HostLoss, seededRandom } from "../../src/testing/mod.ts";

/** Which of `offers` offers lost the host, for `seed`. */
function losses(seed: number, rate: number, offers = 200): number[] {
  const loss = new HostLoss(seededRandom(seed), rate);
  const at: number[] = [];
  for (let i = 0; i < offers; i++) loss.offer(() => at.push(i));
  assert.equal(loss.lost, at.length);
  return at;
}

describe("HostLoss", () => {
  it("loses at the same offers for the same seed, and at others for another", () => {
    assert.deepEqual(losses(26, 0.2), losses(26, 0.2));
    assert.notDeepEqual(losses(26, 0.2), losses(27, 0.2));
  });

  it("loses at about its rate; 0 never, 1 at every offer", () => {
    const some = losses(5, 0.25, 4_000).length;
    assert.ok(some > 850 && some < 1_150, `${some} of 4,000`);
    assert.deepEqual(losses(5, 0), []);
    assert.equal(losses(5, 1).length, 200);
  });

  it("runs the loss only when it loses, and returns whether it did", () => {
    const loss = new HostLoss(seededRandom(1), 1);
    let aborted = 0;
    assert.equal(loss.offer(() => aborted++), true);
    assert.equal(aborted, 1);
    assert.equal(
      new HostLoss(seededRandom(1), 0).offer(() => aborted++),
      false,
    );
    assert.equal(aborted, 1);
  });

  it("rejects a rate outside 0..1 and a random that is no SeededRandom, naming them", () => {
    assert.throws(() => new HostLoss(seededRandom(1), 1.5), /"rate"/);
    assert.throws(() => new HostLoss({} as never, 0.5), /"random"/);
  });
});
