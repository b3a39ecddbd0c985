// Copyright 2026 the understudy authors. MIT license.
// The FlakyChannel, the fault core of every flaky link: drop, delay,
// duplicate and reorder at given rates, every decision drawn from the seed,
// so one seed replays the same run.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  FlakyChannel,
  type LinkFaults,
  ManualScheduler,
  seededRandom,
} from "../../src/testing/mod.ts";

async function run(seed: number, faults: LinkFaults, frames = 1_000) {
  const scheduler = new ManualScheduler();
  const received: { frame: number; at: number }[] = [];
  const channel = new FlakyChannel<number>({
    name: "up",
    random: seededRandom(seed),
    scheduler,
    faults,
    deliver: (frame) => received.push({ frame, at: scheduler.now() }),
  });
  for (let i = 1; i <= frames; i++) {
    channel.send(i);
    if (i % 10 === 0) await scheduler.timePasses(1);
  }
  await scheduler.timePasses(200);
  assert.equal(channel.inFlight, 0);
  assert.equal(scheduler.pendingTimers, 0);
  return { received, stats: channel.stats, trace: channel.trace };
}

describe("FlakyChannel", () => {
  it("without faults delivers every frame once, in order, on a later timer", async () => {
    const { received, stats } = await run(1, {});
    assert.deepEqual(
      received.map((r) => r.frame),
      Array.from({ length: 1_000 }, (_, i) => i + 1),
    );
    assert.equal(stats.delivered, 1_000);
  });

  it("drops, duplicates and reorders at about the given rates", async () => {
    const { received, stats } = await run(2, {
      drop: 0.2,
      duplicate: 0.1,
      reorder: 0.1,
      delayMs: [0, 40],
    });
    assert.ok(stats.dropped > 150 && stats.dropped < 250, `${stats.dropped}`);
    assert.ok(
      stats.duplicated > 50 && stats.duplicated < 110,
      `${stats.duplicated}`,
    );
    assert.ok(
      stats.reordered > 50 && stats.reordered < 110,
      `${stats.reordered}`,
    );
    assert.equal(received.length, 1_000 - stats.dropped + stats.duplicated);
    assert.equal(stats.delivered, received.length);
    const order = received.map((r) => r.frame);
    assert.notDeepEqual(
      order,
      [...order].sort((a, b) => a - b),
      "some out of order",
    );
  });

  it("keeps FIFO order for frames not freed by the reorder fault, whatever their delays", async () => {
    const { received } = await run(3, { drop: 0.3, delayMs: [0, 40] });
    const order = received.map((r) => r.frame);
    assert.deepEqual(order, [...order].sort((a, b) => a - b));
  });

  it("delays each frame within [min, max]", async () => {
    const scheduler = new ManualScheduler();
    const delays: number[] = [];
    const channel = new FlakyChannel<number>({
      name: "up",
      random: seededRandom(4),
      scheduler,
      faults: { delayMs: [5, 15], reorder: 1 },
      deliver: (sentAt) => delays.push(scheduler.now() - sentAt),
    });
    for (let i = 0; i < 200; i++) {
      channel.send(scheduler.now());
      await scheduler.timePasses(1);
    }
    await scheduler.timePasses(100);
    // Freed frames are held up to max + 10 more.
    assert.ok(delays.every((d) => d >= 5 && d <= 15 + 25), `${delays}`);
    assert.ok(delays.some((d) => d > 15));
  });

  it("replays a seed exactly: the same frames at the same virtual times, the same trace", async () => {
    const faults = {
      drop: 0.25,
      duplicate: 0.1,
      reorder: 0.2,
      delayMs: [0, 40] as const,
    };
    const a = await run(1234, faults, 300);
    const b = await run(1234, faults, 300);
    const c = await run(1235, faults, 300);
    assert.deepEqual(a.received, b.received);
    assert.deepEqual(a.trace, b.trace);
    assert.notDeepEqual(a.received, c.received);
    assert.match(a.trace[0], /^0 up #1 /);
  });

  it("draws the same numbers per frame whatever the rates, so one rate changes only its own fault", async () => {
    // reorder 1: every frame keeps its own drawn delay (no FIFO clamp).
    const lossy = await run(
      9,
      { drop: 0.5, reorder: 1, delayMs: [0, 40] },
      200,
    );
    const clean = await run(9, { reorder: 1, delayMs: [0, 40] }, 200);
    const cleanLines = new Set(clean.trace);
    const kept = lossy.trace.filter((line) => !line.endsWith("dropped"));
    assert.ok(kept.length > 50 && kept.length < 150, `${kept.length}`);
    for (const line of kept) assert.ok(cleanLines.has(line), line);
  });

  it("heals with setFaults({}), and close() discards what is in flight, leaving no timer", async () => {
    const scheduler = new ManualScheduler();
    const received: string[] = [];
    const channel = new FlakyChannel<string>({
      name: "down",
      random: seededRandom(5),
      scheduler,
      faults: { drop: 1 },
      deliver: (frame) => received.push(frame),
    });
    channel.send("lost");
    channel.setFaults({ delayMs: 10 });
    channel.send("late");
    channel.send("never");
    await scheduler.timePasses(10);
    channel.send("in flight");
    channel.close();
    channel.send("after close");
    assert.equal(scheduler.pendingTimers, 0);
    await scheduler.timePasses(100);
    assert.deepEqual(received, ["late", "never"]);
    assert.deepEqual(channel.stats, {
      sent: 5,
      delivered: 2,
      dropped: 1,
      duplicated: 0,
      reordered: 0,
      discarded: 2,
    });
    assert.equal(channel.closed, true);
    assert.deepEqual(
      channel.trace.at(-2),
      "10 down closed, 1 in flight discarded",
    );
  });

  it("refuses bad options at the call, naming them", () => {
    const base = {
      name: "up",
      random: seededRandom(1),
      scheduler: new ManualScheduler(),
      deliver: () => {},
    };
    const bad: [object, RegExp][] = [
      [
        { faults: { drop: 2 } },
        /"faults.drop" must be a probability in \[0, 1\] \(got 2\)/,
      ],
      [{ faults: { reorder: "x" } }, /"faults.reorder" must be a probability/],
      [
        { faults: { delayMs: -1 } },
        /"faults.delayMs" must be a finite number of milliseconds/,
      ],
      [
        { faults: { delayMs: [5, 1] } },
        /"faults.delayMs\[1\]" must be >= delayMs\[0\] \(5\)/,
      ],
      [
        { faults: { delayMs: [1] } },
        /"faults.delayMs" must be a number or \[min, max\]/,
      ],
      [{ faults: null }, /"faults" must be an object of faults/],
      [{ random: Math.random }, /"random" must be a SeededRandom/],
      [{ scheduler: {} }, /"scheduler" must be a Scheduler/],
      [{ deliver: 1 }, /"deliver" must be a function/],
      [{ name: 1 }, /"name" must be a string/],
    ];
    for (const [override, pattern] of bad) {
      assert.throws(
        () => new FlakyChannel({ ...base, ...override } as never),
        pattern,
      );
    }
  });
});
