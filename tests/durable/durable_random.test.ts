// Copyright 2026 the understudy authors. MIT license.
// A seeded chaos spec of the durable host: random sends, random passing of
// time, random child failures and evictions at random points, on a fake
// object storage and manual clocks (an eviction drops the object's memory
// and builds a new host on the same storage, as workerd does; the alarm
// runs when its time has come, on whichever object is current). Each seed
// is a different run; a failure names its seed, and UNDERSTUDY_SEED=<seed>
// replays it alone.
//
// What must hold, whatever the evictions:
// - BackoffSupervisor (durable): every message sent is processed by a child
//   exactly once, in the order sent (the stash survives; nothing is waiting
//   in a child's mailbox at an eviction, since each step lets the system
//   settle).
// - BackoffSender (durable): every message is processed at least once and
//   acknowledged; first processings in the order sent.
// - Stored timers: each delivered exactly once, none before its due time.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  type ActorSystem,
  BackoffSender,
  BackoffSupervisor,
  Props,
} from "../../mod.ts";
import { ManualScheduler, SeededRandom } from "../../src/testing/mod.ts";
import { forEachSeed, seedsToRun } from "../testing/_seeds.ts";
import {
  ActorHost,
  durableBackoff,
  durableSender,
  type DurableStore,
} from "../../src/durable/mod.ts";

class FakeStorage {
  readonly rows = new Map<string, unknown>();
  alarm: number | null = null;
  readonly kv = {
    get: (key: string) => structuredClone(this.rows.get(key)),
    put: (key: string, value: unknown) =>
      void this.rows.set(key, structuredClone(value)),
    delete: (key: string) => this.rows.delete(key),
  };
  getAlarm(): Promise<number | null> {
    return Promise.resolve(this.alarm);
  }
  setAlarm(at: number): Promise<void> {
    this.alarm = at;
    return Promise.resolve();
  }
}

/** What the children saw, over every object. */
interface World {
  wall: number;
  /** The children's faults (a stream of its own, forked from the seed's). */
  faults: SeededRandom;
  /** No more faults: the quiet end of a run. */
  quiet: boolean;
  supervised: number[];
  sent: number[];
  acked: Set<number>;
  timers: [number, number][];
}

class Supervised extends Actor<number> {
  constructor(readonly world: World) {
    super();
  }
  override preStart(): void {
    const { faults, quiet } = this.world;
    if (!quiet && faults.chance(0.3)) throw new Error("start fails");
  }
  onReceive(seq: number): void {
    this.world.supervised.push(seq);
  }
}

class Acking extends Actor<BackoffSender.Tracked<number>> {
  constructor(readonly world: World) {
    super();
  }
  onReceive(tracked: BackoffSender.Tracked<number>): void {
    this.world.sent.push(tracked.message);
    const { faults, quiet } = this.world;
    if (!quiet && faults.chance(0.2)) throw new Error("crash before the Ack");
    this.world.acked.add(tracked.message);
    this.context.parent.tell(new BackoffSender.Ack(tracked.id));
  }
}

class TimerSink extends Actor<number> {
  constructor(readonly world: World) {
    super();
  }
  onReceive(due: number): void {
    this.world.timers.push([due, this.world.wall]);
  }
}

function setup(world: World) {
  return (system: ActorSystem, host: ActorHost): void => {
    const store: DurableStore = host.store;
    const wallClock = () => world.wall;
    host.expose(system.actorOf(
      BackoffSupervisor.props({
        childProps: Props.create(() => new Supervised(world)),
        minBackoff: 100,
        maxBackoff: 2_000,
        randomFactor: 0,
        drainGraceMs: 20,
        durable: durableBackoff(store, "sup", { wallClock }),
      }),
      "sup",
    ));
    host.expose(system.actorOf(
      BackoffSender.props({
        childProps: Props.create(() => new Acking(world)),
        policy: { delayFor: (n) => Math.min(50 * 2 ** n, 1_000) },
        durable: durableSender(store, "sender", { wallClock }),
      }),
      "sender",
    ));
    host.expose(
      system.actorOf(Props.create(() => new TimerSink(world)), "timers"),
    );
  };
}

async function run(seed: number): Promise<void> {
  const random = new SeededRandom(seed);
  const world: World = {
    wall: 1_000_000,
    faults: random.fork("faults"),
    quiet: false,
    supervised: [],
    sent: [],
    acked: new Set(),
    timers: [],
  };
  const storage = new FakeStorage();
  const hosts: ActorHost[] = [];
  let scheduler = new ManualScheduler();
  let host!: ActorHost;
  const activate = async () => {
    scheduler = new ManualScheduler();
    host = new ActorHost({ id: { name: "o" }, storage } as never, {}, {
      system: { scheduler, logLevel: "off" },
      durable: { wallClock: () => world.wall, lateWakeMs: 50 },
      setup: setup(world),
    });
    hosts.push(host);
    await host.activate();
    await scheduler.timePasses(0);
  };
  /** Time passes in steps of at most 25 ms; the alarm runs when due. */
  const pass = async (ms: number) => {
    for (let left = ms; left > 0;) {
      const step = Math.min(left, 25);
      left -= step;
      world.wall += step;
      await scheduler.timePasses(step);
      if (storage.alarm !== null && storage.alarm <= world.wall) {
        storage.alarm = null;
        await host.alarm({ retryCount: 0, isRetry: false });
        await scheduler.timePasses(0);
      }
    }
  };
  await activate();
  let seq = 0;
  let evictions = 0;
  const due: number[] = [];
  for (let step = 0; step < 150; step++) {
    const roll = random.int(0, 9);
    if (roll <= 3) {
      seq++;
      void host.deliver(null, 1, [["/user/sup", seq], ["/user/sender", seq]]);
      await scheduler.timePasses(0);
    } else if (roll === 4) {
      const at = world.wall + random.int(0, 500);
      host.timers.startSingle(
        "/user/timers",
        `t${due.length}`,
        at,
        at - world.wall,
      );
      due.push(at);
    } else if (roll <= 7) {
      await pass(random.int(1, 300));
    } else {
      evictions++; // no code runs: the old host is just dropped
      await activate();
    }
  }
  // Quiet: no more failures, long enough for every wait and every timer.
  world.quiet = true;
  await pass(4_000);
  const label = `seed ${seed} (${evictions} evictions, ${seq} messages)`;
  const all = Array.from({ length: seq }, (_, i) => i + 1);
  assert.deepEqual(world.supervised, all, `supervisor: ${label}`);
  assert.deepEqual(
    [...world.acked].sort((a, b) => a - b),
    all,
    `sender acks: ${label}`,
  );
  const firsts = world.sent.filter((m, i) => world.sent.indexOf(m) === i);
  assert.deepEqual(firsts, all, `sender first processings in order: ${label}`);
  assert.equal(world.timers.length, due.length, `timers delivered: ${label}`);
  assert.deepEqual(
    world.timers.map(([at]) => at).sort((a, b) => a - b),
    [...due].sort((a, b) => a - b),
    `each timer once: ${label}`,
  );
  for (const [at, when] of world.timers) {
    assert.ok(
      when >= at,
      `timer due ${at} delivered early at ${when}: ${label}`,
    );
  }
  for (const old of hosts.reverse()) await old.reset();
}

const SEEDS: readonly number[] = seedsToRun(26_000, 8);

describe("durable: random evictions (seeded)", () => {
  it(`stashes, ledgers and stored timers survive evictions at random points (${SEEDS.length} seeds)`, async () => {
    await forEachSeed(SEEDS, run);
  });
});
