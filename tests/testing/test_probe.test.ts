// Copyright 2026 the understudy authors. MIT license.
/**
 * TestProbe: a ref to send to and from, with expectations that wait on the
 * system's scheduler (virtual time with a ManualScheduler, wall-clock time
 * otherwise) and fail with messages that say what was expected and what
 * arrived.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  ActorSystem,
  BackoffSupervisor,
  Props,
  Terminated,
} from "../../mod.ts";
import { ManualScheduler, TestProbe } from "../../src/testing/mod.ts";

class Echo extends Actor<unknown> {
  onReceive(message: unknown): void {
    this.sender?.tell(message, this.self);
  }
}

class Point {
  constructor(readonly x: number, readonly y: number) {}
}

function manualSystem(name: string) {
  const scheduler = new ManualScheduler();
  const system = ActorSystem.create(name, { scheduler, logLevel: "off" });
  return { scheduler, system };
}

describe("TestProbe", () => {
  it("sends with itself as the sender and takes the reply", async () => {
    const { system } = manualSystem("send");
    const probe = new TestProbe(system);
    const echo = system.actorOf(Props.create(() => new Echo()), "echo");
    probe.send(echo, { hello: [1, 2] });
    assert.deepEqual(await probe.expectMessage({ hello: [1, 2] }), {
      hello: [1, 2],
    });
    assert.equal(probe.lastSender, echo);
    await system.terminate();
  });

  it("matches structurally, by prototype, or by a predicate", async () => {
    const { system } = manualSystem("match");
    const probe = new TestProbe(system);
    probe.ref.tell(new Point(1, 2));
    probe.ref.tell(new Point(3, 4));
    probe.ref.tell({ x: 1, y: 2 });
    await probe.expectMessage(new Point(1, 2));
    await probe.expectMessage((m: unknown) => m instanceof Point && m.x === 3);
    await assert.rejects(probe.expectMessage(new Point(1, 2)), {
      name: "ExpectationError",
      message: /expected Point \{"x":1,"y":2\}, got \{"x":1,"y":2\}/,
    });
    await system.terminate();
  });

  it("times out in virtual time, saying what it waited for", async () => {
    const { scheduler, system } = manualSystem("timeout");
    const probe = new TestProbe<string>(system, "probe");
    await assert.rejects(probe.expectMessage("never", 30_000), {
      name: "ExpectationError",
      message:
        /expectMessage on \/user\/probe: timed out after 30000 ms waiting for "never"; no message arrived/,
    });
    assert.equal(scheduler.now(), 30_000, "virtual time, not wall-clock");
    await system.terminate();
  });

  it("waits for a timer's message only as long as it takes", async () => {
    const { scheduler, system } = manualSystem("timer");
    const probe = new TestProbe<string>(system);
    class Delayed extends Actor<string> {
      override preStart(): void {
        this.context.timers.startSingleTimer("k", "late", 700);
      }
      onReceive(message: string): void {
        probe.ref.tell(message);
      }
    }
    system.actorOf(Props.create(() => new Delayed()));
    await probe.expectMessage("late", 1_000);
    assert.equal(scheduler.now(), 700);
    await system.terminate();
  });

  it("expectNoMessage fails on a message and passes on silence", async () => {
    const { system } = manualSystem("quiet");
    const probe = new TestProbe<number>(system);
    await probe.expectNoMessage(500);
    probe.ref.tell(7);
    await assert.rejects(probe.expectNoMessage(500), {
      name: "ExpectationError",
      message: /expected no message for 500 ms, got 7/,
    });
    await system.terminate();
  });

  it("receiveMessages takes n in order, or says how many came", async () => {
    const { system } = manualSystem("many");
    const probe = new TestProbe<number>(system);
    for (const n of [1, 2, 3]) probe.ref.tell(n);
    assert.deepEqual(await probe.receiveMessages(2), [1, 2]);
    await assert.rejects(probe.receiveMessages(2, 100), {
      message: /timed out after 100 ms waiting for 2 messages; only 1 arrived/,
    });
    await system.terminate();
  });

  it("reply answers an ask; without a sender it says so", async () => {
    const { system } = manualSystem("reply");
    const probe = new TestProbe<string>(system);
    probe.ref.tell("no sender");
    await probe.expectMessage("no sender");
    assert.throws(() => probe.reply("x"), {
      name: "TypeError",
      message: /the last message it took had no sender/,
    });
    const answer = probe.ref.ask<string>("question");
    await probe.expectMessage("question");
    probe.reply("answer");
    assert.equal(await answer, "answer");
    await system.terminate();
  });

  it("expectTerminated sees an actor stop", async () => {
    const { system } = manualSystem("terminated");
    const probe = new TestProbe(system);
    const stopper = system.actorOf(
      Props.create(() =>
        new (class extends Actor<string> {
          onReceive(): void {
            this.context.stop(this.self);
          }
        })()
      ),
    );
    stopper.tell("stop");
    const terminated = await probe.expectTerminated(stopper);
    assert.ok(terminated instanceof Terminated);
    assert.equal(terminated.ref, stopper);
    await system.terminate();
  });

  it("works in real time too", async () => {
    const system = ActorSystem.create("real", { logLevel: "off" });
    const probe = new TestProbe<string>(system);
    const echo = system.actorOf(Props.create(() => new Echo()));
    probe.send(echo, "ping");
    await probe.expectMessage("ping", 1_000);
    await probe.expectNoMessage(20);
    await assert.rejects(probe.expectMessage("nothing", 20), {
      message: /timed out after 20 ms/,
    });
    await system.terminate();
  });

  it("tests a BackoffSupervisor's child end to end in virtual time", async () => {
    const { scheduler, system } = manualSystem("backoff");
    const probe = new TestProbe<string>(system);
    class Worker extends Actor<string> {
      override preStart(): void {
        probe.ref.tell("started");
      }
      onReceive(message: string): void {
        if (message === "crash") throw new Error("boom");
        this.sender?.tell(`done: ${message}`);
      }
    }
    const supervisor = system.actorOf(BackoffSupervisor.props({
      childProps: Props.create(() => new Worker()),
      minBackoff: 30_000,
      maxBackoff: 30_000,
      randomFactor: 0,
    }));
    await probe.expectMessage("started");
    supervisor.tell("crash");
    probe.send(supervisor, "kept while down");
    await probe.expectNoMessage(29_999);
    await probe.expectMessage("started", 1);
    assert.equal(scheduler.now(), 30_000, "respawned after exactly 30 s");
    await probe.expectMessage("done: kept while down");
    await system.terminate();
    assert.equal(scheduler.pendingTimers, 0);
  });

  it("rejects bad input", () => {
    assert.throws(() => new TestProbe(undefined as unknown as ActorSystem), {
      name: "TypeError",
      message: /"system" must be an ActorSystem \(got undefined\)/,
    });
  });
});
