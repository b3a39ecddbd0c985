// Copyright 2026 the understudy authors. MIT license.
// The durable host without the platform: a fake object storage (a Map that
// stores structured clones, a recorded alarm) and a ManualScheduler, so that
// an "eviction" is just dropping the host and building a new one on the
// same storage, as workerd does (the old object's memory and timers go; its
// storage stays). The real runtime is in durable_workerd.test.ts.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  type ActorRef,
  ActorSystem,
  BackoffSender,
  BackoffSupervisor,
  DeadLetter,
  Props,
  ReceiveTimeout,
  restartWithBackoff,
  supervise,
} from "../../mod.ts";
import { ManualScheduler } from "../../src/testing/mod.ts";
import {
  ActorHost,
  durableBackoff,
  durableSender,
  DurableState,
  type DurableStore,
} from "../../src/durable/mod.ts";

/** A SQLite-backed object's storage, as far as the host uses it. */
class FakeStorage {
  readonly rows = new Map<string, unknown>();
  alarm: number | null = null;
  alarmWrites = 0;
  puts = 0;
  /** What the puts wrote, as JSON characters. */
  putBytes = 0;
  readonly kv = {
    get: (key: string) => structuredClone(this.rows.get(key)),
    put: (key: string, value: unknown) => {
      this.puts++;
      this.putBytes += JSON.stringify(value)?.length ?? 0;
      this.rows.set(key, structuredClone(value));
    },
    delete: (key: string) => this.rows.delete(key),
  };
  getAlarm(): Promise<number | null> {
    return Promise.resolve(this.alarm);
  }
  setAlarm(at: number): Promise<void> {
    this.alarmWrites++;
    this.alarm = at;
    return Promise.resolve();
  }
}

/** One "object": its host on `storage`, with a manual clock for both kinds of time. */
function object(
  storage: FakeStorage,
  wall: { now: number },
  scheduler: ManualScheduler,
  setup: (system: ActorSystem, host: ActorHost) => void,
  options: { maxAlarmRetries?: number } = {},
): ActorHost {
  return new ActorHost({ id: { name: "o" }, storage } as never, {}, {
    system: { scheduler, logLevel: "off" },
    durable: { wallClock: () => wall.now, lateWakeMs: 100, ...options },
    setup,
  });
}

/** A store whose value is what is stored (clones, as the platform's). */
function cloningStore(): DurableStore & { rows: Map<string, unknown> } {
  const rows = new Map<string, unknown>();
  return {
    rows,
    get: (key) => structuredClone(rows.get(key)),
    put: (key, value) => void rows.set(key, structuredClone(value)),
    delete: (key) => rows.delete(key),
  };
}

/**
 * Records its starts, its restarts and what it gets; throws what `throws`
 * makes for a message it names.
 */
class Flaky extends Actor<string> {
  constructor(
    readonly events: unknown[],
    readonly throws: Readonly<Record<string, () => Error>>,
  ) {
    super();
  }
  override preStart(): void {
    this.events.push("preStart");
  }
  override postRestart(): void {
    this.events.push("postRestart");
  }
  onReceive(message: string): void {
    const error = this.throws[message];
    if (error !== undefined) throw error();
    this.events.push(message);
  }
}

class Recorder extends Actor<unknown> {
  constructor(readonly seen: unknown[]) {
    super();
  }
  onReceive(message: unknown): void {
    this.seen.push(message);
  }
}

/** A child that fails its start while `failing.count` > 0. */
class Starting extends Actor<unknown> {
  constructor(
    readonly failing: { count: number },
    readonly seen: unknown[],
    readonly starts: { count: number },
  ) {
    super();
  }
  override preStart(): void {
    this.starts.count++;
    if (this.failing.count-- > 0) throw new Error("not yet");
  }
  onReceive(message: unknown): void {
    this.seen.push(message);
  }
}

describe("durable: BackoffSupervisor's durable option", () => {
  it("a child down at eviction is respawned on the stored schedule with its stash, in order, and the restart count kept", async () => {
    const store = cloningStore();
    let wall = 10_000;
    const seen: unknown[] = [];
    const starts = { count: 0 };
    const failing = { count: 2 };
    const props = BackoffSupervisor.props({
      childProps: Props.create(() => new Starting(failing, seen, starts)),
      minBackoff: 1_000,
      maxBackoff: 60_000,
      randomFactor: 0,
      drainGraceMs: 0,
      durable: durableBackoff(store, "sup", { wallClock: () => wall }),
    });

    const s1 = new ManualScheduler();
    const first = ActorSystem.create("a", { scheduler: s1, logLevel: "off" });
    const sup1 = first.actorOf(props, "sup");
    await s1.timePasses(0); // child-1 fails: respawn due in 1,000 ms
    sup1.tell("m1");
    sup1.tell("m2");
    await s1.timePasses(0);
    assert.deepEqual(store.rows.get("sup"), {
      restartCount: 1,
      stash: ["m1", "m2"],
      respawnAt: 11_000,
    });
    assert.equal(starts.count, 1);
    // Evicted: no code runs, its timers are gone (never advanced again).

    wall = 10_600;
    const s2 = new ManualScheduler();
    const second = ActorSystem.create("b", { scheduler: s2, logLevel: "off" });
    const sup2 = second.actorOf(props, "sup");
    sup2.tell("m3");
    await s2.timePasses(399);
    assert.equal(starts.count, 1, "not before the stored due time");
    await s2.timePasses(1); // 11,000: child-1 of the new object fails again
    assert.equal(starts.count, 2);
    assert.equal(
      (store.rows.get("sup") as { restartCount: number }).restartCount,
      2,
      "the count went on from the stored one",
    );
    await s2.timePasses(2_000); // second delay: 2,000 ms (1,000 · 2)
    assert.equal(starts.count, 3);
    assert.deepEqual(seen, ["m1", "m2", "m3"]);
    assert.deepEqual(store.rows.get("sup"), {
      restartCount: 2,
      stash: [],
      respawnAt: null,
    });
    await second.terminate();
    assert.equal(
      store.rows.has("sup"),
      false,
      "a stopped supervisor keeps no record",
    );
    await first.terminate();
  });

  it("a supervisor without the option writes nothing and behaves as before", async () => {
    const scheduler = new ManualScheduler();
    const system = ActorSystem.create("c", { scheduler, logLevel: "off" });
    const seen: unknown[] = [];
    const starts = { count: 0 };
    const failing = { count: 1 };
    const sup = system.actorOf(
      BackoffSupervisor.props({
        childProps: Props.create(() => new Starting(failing, seen, starts)),
        minBackoff: 100,
        maxBackoff: 100,
        randomFactor: 0,
        drainGraceMs: 0,
      }),
    );
    sup.tell("x");
    await scheduler.timePasses(0);
    await scheduler.timePasses(100);
    await scheduler.timePasses(0);
    assert.deepEqual(seen, ["x"]);
    assert.equal(starts.count, 2);
    await system.terminate();
  });

  it("durableBackoff and the durable option refuse bad input at the call", () => {
    assert.throws(
      () => durableBackoff({} as never, "k"),
      (e: unknown) => e instanceof TypeError && /"store"/.test(e.message),
    );
    assert.throws(
      () => durableBackoff(new Map() as never, ""),
      (e: unknown) => e instanceof TypeError && /"key"/.test(e.message),
    );
    assert.throws(
      () =>
        BackoffSupervisor.props({
          childProps: Props.create(() => new Recorder([])),
          minBackoff: 1,
          maxBackoff: 1,
          durable: {} as never,
        }),
      (e: unknown) => e instanceof TypeError && /"durable"/.test(e.message),
    );
  });
});

/** Acks what it gets while `acking.on`; crashes on "crash" once. */
class Acker extends Actor<BackoffSender.Tracked<string>> {
  constructor(
    readonly acking: { on: boolean; crashes: number },
    readonly seen: [number, string, number][],
  ) {
    super();
  }
  onReceive(tracked: BackoffSender.Tracked<string>): void {
    this.seen.push([tracked.id, tracked.message, tracked.attempt]);
    if (tracked.message === "crash" && this.acking.crashes-- > 0) {
      throw new Error("crash");
    }
    if (this.acking.on) {
      this.context.parent.tell(new BackoffSender.Ack(tracked.id));
    }
  }
}

describe("durable: BackoffSender's durable option", () => {
  it("unacknowledged messages at eviction are sent again to the next object's child, with their ids; ids go on", async () => {
    const store = cloningStore();
    const acking = { on: false, crashes: 0 };
    const seen: [number, string, number][] = [];
    const props = BackoffSender.props({
      childProps: Props.create(() => new Acker(acking, seen)),
      durable: durableSender(store, "mailer", { wallClock: () => 0 }),
    });
    const s1 = new ManualScheduler();
    const first = ActorSystem.create("a", { scheduler: s1, logLevel: "off" });
    const sender1 = first.actorOf(props, "mailer");
    sender1.tell("a");
    sender1.tell("b");
    await s1.timePasses(0);
    assert.deepEqual(seen, [[1, "a", 1], [2, "b", 1]]);
    assert.deepEqual(store.rows.get("mailer"), {
      retries: 0,
      nextId: 3,
      entries: [[1, "a", 1], [2, "b", 1]],
      resendAt: null,
    });
    // Evicted before any Ack.
    acking.on = true;
    const s2 = new ManualScheduler();
    const second = ActorSystem.create("b", { scheduler: s2, logLevel: "off" });
    const sender2 = second.actorOf(props, "mailer");
    sender2.tell("c");
    await s2.timePasses(0);
    assert.deepEqual(seen.slice(2), [[1, "a", 2], [2, "b", 2], [3, "c", 1]]);
    assert.deepEqual(store.rows.get("mailer"), {
      retries: 0,
      nextId: 4,
      entries: [],
      resendAt: null,
    });
    await second.terminate();
    assert.equal(store.rows.has("mailer"), false);
    await first.terminate();
  });

  it("messages in flight with no re-send due ask the store to wake the host wakeAfterMs later", async () => {
    const wakes: number[] = [];
    const store = Object.assign(cloningStore(), {
      wakeAt: (at: number) => void wakes.push(at),
    });
    const scheduler = new ManualScheduler();
    const system = ActorSystem.create("w", { scheduler, logLevel: "off" });
    const acking = { on: false, crashes: 0 };
    system.actorOf(
      BackoffSender.props({
        childProps: Props.create(() => new Acker(acking, [])),
        durable: durableSender(store, "s", {
          wallClock: () => 700,
          wakeAfterMs: 300,
        }),
      }),
    ).tell("x");
    await scheduler.timePasses(0);
    assert.ok(wakes.length > 0 && wakes.every((at) => at === 1_000));
    assert.throws(
      () => durableSender(store, "s", { wakeAfterMs: -1 }),
      RangeError,
    );
    await system.terminate();
  });

  it("a re-send pending at eviction happens on the stored schedule", async () => {
    const store = cloningStore();
    let wall = 5_000;
    const acking = { on: true, crashes: 1 };
    const seen: [number, string, number][] = [];
    const props = BackoffSender.props({
      childProps: Props.create(() => new Acker(acking, seen)),
      policy: { delayFor: () => 1_000 },
      durable: durableSender(store, "mailer", { wallClock: () => wall }),
    });
    const s1 = new ManualScheduler();
    const first = ActorSystem.create("a", { scheduler: s1, logLevel: "off" });
    first.actorOf(props, "mailer").tell("crash");
    await s1.timePasses(0);
    await s1.timePasses(0);
    assert.deepEqual(store.rows.get("mailer"), {
      retries: 1,
      nextId: 2,
      entries: [[1, "crash", 1]],
      resendAt: 6_000,
    });
    wall = 5_400;
    const s2 = new ManualScheduler();
    const second = ActorSystem.create("b", { scheduler: s2, logLevel: "off" });
    second.actorOf(props, "mailer");
    await s2.timePasses(599);
    assert.equal(seen.length, 1, "not before the stored due time");
    await s2.timePasses(1);
    assert.deepEqual(seen, [[1, "crash", 1], [1, "crash", 2]]);
    await second.terminate();
    await first.terminate();
  });
});

describe("durable: stored timers and the alarm", () => {
  it("a stored timer fires after an eviction, once per due time, to the actor re-created at its path", async () => {
    const storage = new FakeStorage();
    const wall = { now: 1_000 };
    const seen: unknown[] = [];
    const setup = (system: ActorSystem, host: ActorHost) => {
      host.expose(system.actorOf(Props.create(() => new Recorder(seen)), "r"));
    };
    const s1 = new ManualScheduler();
    const host1 = object(storage, wall, s1, setup);
    await host1.activate();
    host1.timers.startSingle("/user/r", "remind", { kind: "remind" }, 5_000);
    assert.equal(storage.alarm, 6_000);
    assert.equal(host1.timers.dueAt("/user/r", "remind"), 6_000);
    // Evicted. Then the alarm wakes a new object on the same storage.
    wall.now = 6_050;
    const s2 = new ManualScheduler();
    const host2 = object(storage, wall, s2, setup);
    await host2.activate();
    await host2.alarm({ retryCount: 0, isRetry: false });
    await s2.timePasses(0);
    assert.deepEqual(seen, [{ kind: "remind" }]);
    await host2.alarm({ retryCount: 0, isRetry: false });
    await s2.timePasses(0);
    assert.deepEqual(seen, [{ kind: "remind" }], "not twice");
    assert.equal(host2.timers.dueAt("/user/r", "remind"), undefined);
    await host2.reset();
    await host1.reset();
  });

  it("a periodic stored timer: due times missed while down are delivered once, then it goes on at its interval; cancel stops it", async () => {
    const storage = new FakeStorage();
    const wall = { now: 0 };
    const seen: unknown[] = [];
    const scheduler = new ManualScheduler();
    const host = object(storage, wall, scheduler, (system, host) => {
      host.expose(system.actorOf(Props.create(() => new Recorder(seen)), "r"));
    });
    await host.activate();
    host.timers.startPeriodic("/user/r", "tick", "tick", 1_000);
    wall.now = 3_500; // 1,000, 2,000 and 3,000 missed
    await host.alarm();
    await scheduler.timePasses(0);
    assert.deepEqual(seen, ["tick"]);
    assert.equal(host.timers.dueAt("/user/r", "tick"), 4_000);
    assert.equal(storage.alarm, 4_000, "re-armed after the work");
    assert.equal(host.timers.cancel("/user/r", "tick"), true);
    wall.now = 5_000;
    await host.alarm();
    await scheduler.timePasses(0);
    assert.deepEqual(seen, ["tick"]);
    await host.reset();
  });

  it("a timer for a path nothing is exposed at is a dead letter; a message that cannot be stored is refused at the call", async () => {
    const storage = new FakeStorage();
    const wall = { now: 0 };
    const scheduler = new ManualScheduler();
    const host = object(storage, wall, scheduler, () => {});
    await host.activate();
    const dead: DeadLetter[] = [];
    host.system.eventStream.subscribe(DeadLetter, (d) => dead.push(d));
    assert.throws(() =>
      host.timers.startSingle("/user/x", "k", { f: () => 1 }, 10)
    );
    assert.equal(host.timers.dueAt("/user/x", "k"), undefined);
    assert.throws(
      () => host.timers.startSingle("/user/x", "k", 1, -1),
      RangeError,
    );
    host.timers.startSingle("/user/nobody", "k", "lost?", 10);
    wall.now = 10;
    await host.alarm();
    await scheduler.timePasses(0);
    assert.equal(dead.length, 1);
    assert.equal(dead[0].message, "lost?");
    assert.match(dead[0].reason ?? "", /no actor exposed at \/user\/nobody/);
    await host.reset();
  });

  it("a failing alarm throws for the platform to retry, and on the last retry is logged, not thrown; the timer is still stored", async () => {
    const storage = new FakeStorage();
    const wall = { now: 0 };
    const scheduler = new ManualScheduler();
    let broken = false;
    const host = object(storage, wall, scheduler, () => {
      if (broken) throw new Error("setup failed");
    }, { maxAlarmRetries: 2 });
    await host.activate();
    host.timers.startSingle("/user/r", "k", "m", 10);
    await host.reset();
    broken = true;
    wall.now = 20;
    await assert.rejects(host.alarm({ retryCount: 0, isRetry: false }), {
      message: "setup failed",
    });
    await assert.rejects(host.alarm({ retryCount: 1, isRetry: true }));
    await host.alarm({ retryCount: 2, isRetry: true }); // the last: resolves
    assert.equal(
      host.timers.dueAt("/user/r", "k"),
      10,
      "kept for the next activation",
    );
  });

  it("scheduler timers want a wake-up lateWakeMs after they are due; the alarm is written only when that moves earlier", async () => {
    const storage = new FakeStorage();
    const wall = { now: 0 };
    const scheduler = new ManualScheduler();
    let ticks = 0;
    class Ticking extends Actor<"tick"> {
      override preStart(): void {
        this.context.timers.startTimerWithFixedDelay("t", "tick", 10);
      }
      onReceive(): void {
        ticks++;
      }
    }
    const host = object(storage, wall, scheduler, (system) => {
      system.actorOf(Props.create(() => new Ticking()), "ticking");
    });
    await host.activate();
    assert.equal(storage.alarm, 110); // 0 + 10 + lateWakeMs 100
    const writes = storage.alarmWrites;
    await scheduler.timePasses(50);
    assert.equal(ticks, 5);
    assert.equal(
      storage.alarmWrites,
      writes,
      "no write while the alarm is earlier",
    );
    // The alarm runs while the object is awake and a tick still pending
    // (the two clocks apart): re-armed, lateWakeMs from now.
    wall.now = 110;
    await host.alarm();
    assert.equal(storage.alarm, 210);
    await host.reset();
  });
});

describe("durable: the alarm clock", () => {
  it("a setAlarm that throws leaves the alarm unknown: the next wake-up sets it again", async () => {
    const storage = new FakeStorage();
    const wall = { now: 0 };
    const scheduler = new ManualScheduler();
    const host = object(storage, wall, scheduler, () => {});
    await host.activate();
    const real = storage.setAlarm.bind(storage);
    storage.setAlarm = () => {
      throw new Error("storage down");
    };
    host.timers.startSingle("/user/x", "a", 1, 500);
    storage.setAlarm = real;
    host.timers.startSingle("/user/x", "b", 2, 900);
    assert.equal(
      storage.alarm,
      900,
      "set again, though later than the failed one",
    );
    await host.reset();
  });
});

describe("durable: DurableState", () => {
  it("a value set in one object is read by the next on the same store; each set is one write", () => {
    const storage = new FakeStorage();
    const a = new DurableState<{ n: number }>(storage.kv, "count", { n: 0 });
    a.set({ n: a.value.n + 1 });
    a.update((v) => ({ n: v.n + 1 }));
    assert.equal(storage.puts, 2);
    const b = new DurableState<{ n: number }>(storage.kv, "count", { n: 0 });
    assert.deepEqual(b.value, { n: 2 });
    b.clear();
    assert.deepEqual(new DurableState(storage.kv, "count", { n: 0 }).value, {
      n: 0,
    });
  });

  it("a value that cannot be stored throws and leaves the value as it was", () => {
    const storage = new FakeStorage();
    const state = new DurableState<unknown>(storage.kv, "v", 1);
    assert.throws(() => state.set({ f: () => 1 }));
    assert.equal(state.value, 1);
  });
});

describe("durable: ActorHost's durable option", () => {
  it("needs a storage with kv and an alarm, and refuses bad options", () => {
    assert.throws(
      () => new ActorHost({ id: {} }, {}, { durable: true }),
      (e: unknown) => e instanceof TypeError && /ctx\.storage/.test(e.message),
    );
    assert.throws(
      () =>
        new ActorHost({ id: {}, storage: new FakeStorage() } as never, {}, {
          durable: { lateWakeMs: -1 },
        }),
      RangeError,
    );
    const plain = new ActorHost(undefined, {});
    assert.throws(() => plain.timers, /durable/);
  });

  it("activation restores a BackoffSupervisor given host.store before any message reaches it", async () => {
    const storage = new FakeStorage();
    const wall = { now: 0 };
    const seen: unknown[] = [];
    const starts = { count: 0 };
    const failing = { count: 1 };
    let sup: ActorRef<unknown> | undefined;
    const setup = (system: ActorSystem, host: ActorHost) => {
      sup = host.expose(system.actorOf(
        BackoffSupervisor.props({
          childProps: Props.create(() => new Starting(failing, seen, starts)),
          minBackoff: 1_000,
          maxBackoff: 1_000,
          randomFactor: 0,
          drainGraceMs: 0,
          durable: durableBackoff(host.store, "sup", {
            wallClock: () => wall.now,
          }),
        }),
        "sup",
      ));
    };
    const s1 = new ManualScheduler();
    const host1 = object(storage, wall, s1, setup);
    await host1.activate();
    await s1.timePasses(0);
    void host1.deliver(null, 1, [["/user/sup", "a"]]);
    await s1.timePasses(0);
    assert.equal(storage.alarm, 1_000, "the respawn wakes the object");
    wall.now = 1_000;
    const s2 = new ManualScheduler();
    const host2 = object(storage, wall, s2, setup);
    await host2.activate();
    await host2.alarm();
    void host2.deliver(null, 1, [["/user/sup", "b"]]);
    await s2.timePasses(0);
    assert.deepEqual(seen, ["a", "b"]);
    assert.equal(starts.count, 2);
    assert.ok(sup !== undefined);
    await host2.reset();
    await host1.reset();
  });
});

describe("durable: receive timeouts and typed backoff restarts across an eviction", () => {
  const DUE = "understudy/due";

  /** What is kept: each entry of the index, from its row (`undefined`: nothing). */
  const kept = (storage: FakeStorage): unknown => {
    const index = storage.rows.get(DUE) as [string, string][] | undefined;
    const rows = [...storage.rows.keys()].filter((key) =>
      key.startsWith(`${DUE}/`)
    );
    if (index === undefined) {
      assert.deepEqual(rows, [], "no row left without the index");
      return undefined;
    }
    assert.equal(rows.length, index.length, "a row an entry, no more");
    return index.map(([path, kind]) =>
      storage.rows.get(`${DUE}/${kind}${path}`)
    );
  };

  /** Sets a receive timeout at its start; records what it gets. */
  class Idle extends Actor<unknown> {
    constructor(readonly seen: unknown[]) {
      super();
    }
    override preStart(): void {
      this.context.setReceiveTimeout(1_000);
    }
    onReceive(message: unknown): void {
      if (message === "cancel") this.context.setReceiveTimeout(undefined);
      else if (message === "stop") this.context.stopSelf();
      else this.seen.push(message === ReceiveTimeout ? "timeout" : message);
    }
  }

  it("a receive timeout set at the start fires at the due time the earlier life kept, not a period after the activation, and not twice", async () => {
    const storage = new FakeStorage();
    const wall = { now: 0 };
    const seen: unknown[] = [];
    const setup = (system: ActorSystem) => {
      system.actorOf(Props.create(() => new Idle(seen)), "idle");
    };
    const s1 = new ManualScheduler();
    const host1 = object(storage, wall, s1, setup);
    await host1.activate();
    await s1.timePasses(400);
    // Evicted at 400 (its timers never run again); activated again at 600.
    wall.now = 600;
    const s2 = new ManualScheduler();
    const host2 = object(storage, wall, s2, setup);
    await host2.activate();
    await s2.timePasses(399);
    assert.deepEqual(seen, [], "not before the kept due time");
    wall.now = 1_000;
    await s2.timePasses(1);
    assert.deepEqual(seen, ["timeout"], "at the kept due time, 1,000");
    // Evicted right after it: the next life waits for the next period.
    wall.now = 1_050;
    const s3 = new ManualScheduler();
    const host3 = object(storage, wall, s3, setup);
    await host3.activate();
    await s3.timePasses(949);
    assert.deepEqual(seen, ["timeout"], "not twice for one due time");
    wall.now = 2_000;
    await s3.timePasses(1);
    assert.deepEqual(seen, ["timeout", "timeout"]);
    await host3.reset();
    await host2.reset();
    await host1.reset();
  });

  it("a receive timeout costs no write per message: one when it is set and one each time it falls due; cancelled or stopped, it is dropped", async () => {
    const storage = new FakeStorage();
    const wall = { now: 0 };
    const seen: unknown[] = [];
    const scheduler = new ManualScheduler();
    let idle: ActorRef<unknown> | undefined;
    const host = object(storage, wall, scheduler, (system) => {
      idle = system.actorOf(Props.create(() => new Idle(seen)), "idle");
    });
    await host.activate();
    const set = storage.puts;
    assert.deepEqual(kept(storage), [
      ["/user/idle", "receive-timeout", 1_000, 1_000],
    ]);
    for (let t = 0; t < 50; t++) {
      idle!.tell(t); // at 0, 10, … 490
      await scheduler.timePasses(10);
    }
    assert.equal(storage.puts, set, "no write per message");
    wall.now = 1_000;
    await scheduler.timePasses(500); // falls due at 1,000: re-armed for the rest
    assert.equal(storage.puts, set + 1);
    assert.deepEqual(kept(storage), [
      ["/user/idle", "receive-timeout", 1_490, 1_000],
    ]);
    idle!.tell("cancel");
    await scheduler.timePasses(0);
    assert.equal(kept(storage), undefined, "cancelled: dropped");
    await host.reset();
    const second = object(storage, wall, scheduler, (system) => {
      idle = system.actorOf(Props.create(() => new Idle(seen)), "idle");
    });
    await second.activate();
    assert.notEqual(kept(storage), undefined);
    idle!.tell("stop");
    await scheduler.timePasses(0);
    assert.equal(kept(storage), undefined, "stopped: dropped");
    await second.reset();
  });

  it("what an earlier life kept for an actor the activation does not re-create is dropped", async () => {
    const storage = new FakeStorage();
    const wall = { now: 0 };
    const s1 = new ManualScheduler();
    const host1 = object(storage, wall, s1, (system) => {
      system.actorOf(Props.create(() => new Idle([])), "idle");
    });
    await host1.activate();
    assert.notEqual(kept(storage), undefined);
    const host2 = object(storage, wall, new ManualScheduler(), () => {});
    await host2.activate();
    assert.equal(kept(storage), undefined);
    await host2.reset();
    await host1.reset();
  });

  it("an actor waiting for its typed backoff restart at eviction stays down until the kept due time, messages waiting, then restarts once with its count kept", async () => {
    const storage = new FakeStorage();
    const wall = { now: 0 };
    let log: unknown[] = [];
    let flaky: ActorRef<string> | undefined;
    const setup = (system: ActorSystem) => {
      flaky = system.actorOf(
        supervise(
          Props.create(() => new Flaky(log, { fail: () => new Error("boom") })),
        ).onFailure(
          Error,
          restartWithBackoff({
            minBackoff: 1_000,
            maxBackoff: 8_000,
            randomFactor: 0,
          }),
        ),
        "flaky",
      );
    };
    const s1 = new ManualScheduler();
    const host1 = object(storage, wall, s1, setup);
    await host1.activate();
    flaky!.tell("fail"); // restart due at 1,000
    await s1.timePasses(300);
    // Evicted at 300; activated again at 500.
    wall.now = 500;
    log = [];
    const s2 = new ManualScheduler();
    const host2 = object(storage, wall, s2, setup);
    await host2.activate();
    flaky!.tell("m");
    await s2.timePasses(499);
    assert.deepEqual(log, [], "still down, m waiting");
    wall.now = 1_000;
    await s2.timePasses(1);
    assert.deepEqual(log, ["postRestart", "m"]);
    assert.equal(kept(storage), undefined, "forgotten at the restart");
    // The count was kept: the next wait is the second one, 2,000 ms.
    flaky!.tell("fail");
    await s2.timePasses(1_999);
    assert.deepEqual(log, ["postRestart", "m"]);
    await s2.timePasses(1);
    assert.deepEqual(log, ["postRestart", "m", "postRestart"]);
    // Evicted after the restart: the next life starts it at once, as new.
    log = [];
    const s3 = new ManualScheduler();
    const host3 = object(storage, wall, s3, setup);
    await host3.activate();
    assert.deepEqual(log, ["preStart"], "restarted once, not again");
    await host3.reset();
    await host2.reset();
    await host1.reset();
  });

  it("an activation whose setup makes 600 actors lets every one of them take back its kept due time", async () => {
    // The dispatcher yields to the host every few milliseconds: the actors
    // past its first slices used to start after the activation had dropped
    // what no actor had taken back yet (345 of 600 lost theirs).
    const storage = new FakeStorage();
    const wall = { now: 0 };
    const setup = (system: ActorSystem) => {
      for (let i = 0; i < 600; i++) {
        system.actorOf(Props.create(() => new Idle([])), `idle-${i}`);
      }
    };
    const host1 = object(storage, wall, new ManualScheduler(), setup);
    await host1.activate();
    const dues = () =>
      (kept(storage) as [string, string, number][]).map((k) => k[2]);
    assert.deepEqual(new Set(dues()), new Set([1_000]));
    assert.equal(dues().length, 600);
    wall.now = 600; // evicted; activated again
    const host2 = object(storage, wall, new ManualScheduler(), setup);
    await host2.activate();
    assert.equal(dues().length, 600);
    const lost = dues().filter((due) => due !== 1_000).length;
    assert.equal(lost, 0, `${lost} of 600 actors lost their kept due time`);
    await host2.reset();
    await host1.reset();
  });

  it("keeping the receive timeouts of twice the actors writes about twice the bytes, not four times", async () => {
    const written = async (n: number) => {
      const storage = new FakeStorage();
      const host = object(
        storage,
        { now: 0 },
        new ManualScheduler(),
        (system) => {
          for (let i = 0; i < n; i++) {
            system.actorOf(Props.create(() => new Idle([])), `session-${i}`);
          }
        },
      );
      await host.activate();
      assert.equal((kept(storage) as unknown[]).length, n);
      const bytes = storage.putBytes;
      await host.reset();
      return bytes;
    };
    const small = await written(500);
    const large = await written(1_000);
    assert.ok(large < small * 2.5, `${large} B against ${small} B`);
  });

  it("a typed restart's reason reads the same after two evictions", async () => {
    class Reasoned extends Actor<string> {
      constructor(readonly seen: unknown[]) {
        super();
      }
      override postRestart(reason: unknown): void {
        this.seen.push((reason as Error).message);
      }
      onReceive(message: string): void {
        if (message === "fail") throw new Error("boom");
      }
    }
    const storage = new FakeStorage();
    const wall = { now: 0 };
    const seen: unknown[] = [];
    let ref: ActorRef<string> | undefined;
    const setup = (system: ActorSystem) => {
      ref = system.actorOf(
        supervise(Props.create(() => new Reasoned(seen))).onFailure(
          Error,
          restartWithBackoff({
            minBackoff: 1_000,
            maxBackoff: 8_000,
            randomFactor: 0,
          }),
        ),
        "reasoned",
      );
    };
    const s1 = new ManualScheduler();
    const hosts = [object(storage, wall, s1, setup)];
    await hosts[0].activate();
    ref!.tell("fail");
    await s1.timePasses(0);
    wall.now = 100; // evicted during the wait, and again
    hosts.push(object(storage, wall, new ManualScheduler(), setup));
    await hosts[1].activate();
    wall.now = 200;
    const s3 = new ManualScheduler();
    hosts.push(object(storage, wall, s3, setup));
    await hosts[2].activate();
    wall.now = 1_000;
    await s3.timePasses(800);
    assert.deepEqual(seen, ["Error: boom"]);
    for (const host of hosts.reverse()) await host.reset();
  });
});

describe("durable: a typed restart's clause, kept across two evictions", () => {
  it("the clause that decided is kept again by a restored wait, so a later life restores the same strategy", async () => {
    const storage = new FakeStorage();
    const wall = { now: 0 };
    const events: unknown[] = [];
    let ref: ActorRef<string> | undefined;
    const setup = (system: ActorSystem) => {
      ref = system.actorOf(
        supervise(
          Props.create(() =>
            new Flaky(events, { type: () => new TypeError("typed") })
          ),
        )
          .onFailure(
            Error,
            restartWithBackoff({
              minBackoff: 1_000,
              maxBackoff: 60_000,
              randomFactor: 0,
            }),
          )
          .onFailure(
            TypeError,
            restartWithBackoff({
              minBackoff: 5_000,
              maxBackoff: 60_000,
              randomFactor: 0,
            }),
          ),
        "picky",
      );
    };
    const hosts: ActorHost[] = [];
    const life = async () => {
      const scheduler = new ManualScheduler();
      const host = object(storage, wall, scheduler, setup);
      hosts.push(host);
      await host.activate();
      return scheduler;
    };
    const first = await life();
    ref!.tell("type"); // the TypeError clause: 5,000 ms
    await first.timePasses(0);
    wall.now = 100;
    await life(); // evicted: waits again, the clause kept
    wall.now = 200;
    const third = await life(); // evicted again during the restored wait
    wall.now = 5_000;
    await third.timePasses(4_800);
    // Started once, in the first life; the restored waits start nothing.
    assert.deepEqual(events, ["preStart", "postRestart"]);
    ref!.tell("type"); // the second wait of the TypeError clause: 10,000 ms
    await third.timePasses(9_999);
    assert.deepEqual(
      events,
      ["preStart", "postRestart"],
      "not the Error clause's 2,000",
    );
    await third.timePasses(1);
    assert.deepEqual(events, ["preStart", "postRestart", "postRestart"]);
    for (const host of hosts.reverse()) await host.reset();
  });
});
