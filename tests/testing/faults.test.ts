// Copyright 2026 the understudy authors. MIT license.
// faultyProps: actors that crash on a chosen or random message, hooks that
// throw, handlers that never settle, stops at a random point; every
// decision drawn from the seed.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  ActorSystem,
  BackoffSupervisor,
  DeadLetter,
  Props,
  supervise,
  SupervisorStrategy,
} from "../../mod.ts";
import {
  faultyProps,
  InjectedFault,
  ManualScheduler,
  seededRandom,
  type StruckFault,
} from "../../src/testing/mod.ts";

function setup() {
  const scheduler = new ManualScheduler();
  const system = ActorSystem.create("faults", { scheduler, logLevel: "off" });
  const dead: DeadLetter[] = [];
  system.eventStream.subscribe(DeadLetter, (d) => dead.push(d));
  /** Terminates, moving virtual time for the shutdown deadlines (a hung handler waits for one). */
  const stop = async () => {
    const terminated = system.terminate();
    await scheduler.timePasses(60_000);
    await terminated;
  };
  return { scheduler, system, dead, stop };
}

class Recorder extends Actor<string> {
  constructor(readonly seen: string[]) {
    super();
  }
  onReceive(message: string): void {
    this.seen.push(message);
  }
}

describe("faultyProps", () => {
  it("crashes on the chosen message: an InjectedFault, the message a dead letter, the actor restarted", async () => {
    const { scheduler, system, dead, stop } = setup();
    const seen: string[] = [];
    const struck: StruckFault[] = [];
    try {
      const ref = system.actorOf(
        faultyProps(Props.create(() => new Recorder(seen)), {
          random: seededRandom(1),
          crashOn: (m) => m === "poison",
          onFault: (f) => struck.push(f),
        }),
      );
      for (const m of ["a", "poison", "b"]) ref.tell(m);
      await scheduler.timePasses(0);
      assert.deepEqual(seen, ["a", "b"]);
      assert.deepEqual(struck, [{
        kind: "crash",
        where: "onReceive",
        message: "poison",
        instance: 1,
      }]);
      assert.deepEqual(dead.map((d) => d.message), ["poison"]);
    } finally {
      await stop();
    }
  });

  it("crashes and stops at about the given rates, the same faults for the same seed", async () => {
    async function run(seed: number) {
      const { scheduler, system, dead, stop } = setup();
      const seen: string[] = [];
      const struck: string[] = [];
      try {
        const supervisor = system.actorOf(BackoffSupervisor.props({
          childProps: faultyProps(Props.create(() => new Recorder(seen)), {
            random: seededRandom(seed),
            crash: 0.2,
            stop: 0.05,
            onFault: (f) => struck.push(`${f.kind}@${f.instance}:${f.message}`),
          }),
          minBackoff: 1,
          maxBackoff: 1,
          randomFactor: 0,
          triggerOn: "any",
        }));
        for (let i = 0; i < 200; i++) {
          supervisor.tell(`m${i}`);
          await scheduler.timePasses(1);
        }
        await scheduler.timePasses(100);
      } finally {
        await stop();
      }
      return { seen, struck, dead: dead.map((d) => String(d.message)) };
    }
    const a = await run(5);
    assert.deepEqual(await run(5), a);
    const count = (kind: string) =>
      a.struck.filter((s) => s.startsWith(kind)).length;
    assert.ok(count("crash") > 15 && count("crash") < 70, a.struck.join());
    assert.ok(count("stop") > 0, a.struck.join());
    // Every message handled or dead-lettered: none lost.
    const all = new Set([...a.seen, ...a.dead]);
    for (let i = 0; i < 200; i++) assert.ok(all.has(`m${i}`), `m${i} lost`);
  });

  it("hangs: the handler never settles, and its message is abandoned, a dead letter, when the actor stops", async () => {
    const { scheduler, system, dead, stop } = setup();
    const seen: string[] = [];
    const struck: StruckFault[] = [];
    const ref = system.actorOf(
      faultyProps(Props.create(() => new Recorder(seen)), {
        random: seededRandom(4),
        hang: 1,
        onFault: (f) => struck.push(f),
      }),
    );
    ref.tell("never settles");
    ref.tell("waits behind it");
    await scheduler.timePasses(1_000);
    assert.deepEqual(seen, []);
    assert.deepEqual(struck.map((f) => f.kind), ["hang"]);
    assert.equal(dead.length, 0);
    await stop();
    assert.deepEqual(dead.map((d) => d.message).sort(), [
      "never settles",
      "waits behind it",
    ]);
  });

  it("makes hooks throw at their rate, and keeps the props' typed supervision", async () => {
    const { scheduler, system, stop } = setup();
    const seen: string[] = [];
    const struck: StruckFault[] = [];
    try {
      const props = supervise(Props.create(() => new Recorder(seen)))
        .onFailure(InjectedFault, SupervisorStrategy.restart);
      const faulty = faultyProps(props, {
        random: seededRandom(2),
        hooks: { preStart: 1 },
        onFault: (f) => struck.push(f),
      });
      assert.equal(faulty.failureClauses.length, 1);
      system.actorOf(faulty);
      await scheduler.timePasses(0);
      assert.ok(struck.length >= 1);
      assert.deepEqual(
        { kind: struck[0].kind, where: struck[0].where },
        { kind: "hook", where: "preStart" },
      );
      assert.equal(
        new InjectedFault("hook", "preStart").message,
        "injected hook in preStart",
      );
    } finally {
      await stop();
    }
  });

  it("refuses bad input at the call, naming it", () => {
    const props = Props.create(() => new Recorder([]));
    const random = seededRandom(1);
    assert.throws(
      () => faultyProps({} as never, { random }),
      /Cannot make faulty props: "props" must be Props/,
    );
    assert.throws(
      () => faultyProps(props, { random, crash: 2 }),
      /"faults.crash" must be a probability/,
    );
    assert.throws(
      () => faultyProps(props, { random, hooks: { postStop: -1 } }),
      /"faults.hooks.postStop" must be a probability/,
    );
    assert.throws(
      () => faultyProps(props, { random: {} as never }),
      /"faults.random" must be a SeededRandom/,
    );
    assert.throws(
      () => faultyProps(props, { random, crashOn: 1 as never }),
      /"faults.crashOn" must be a function/,
    );
  });
});
