// Copyright 2026 the understudy authors. MIT license.
// Specification of bounded shutdown: stopping an actor waits for its async
// handler in flight and its postStop at most a shutdown timeout, then
// abandons them with an ActorStopTimedOut event and a warning; terminate()
// always resolves; children stop before their parent, siblings newest first
// (issue "The kernel never dies", finding 7).

import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  type ActorRef,
  ActorStopped,
  ActorStopTimedOut,
  ActorSystem,
  Props,
} from "../../mod.ts";
import {
  type Clock,
  collect,
  collectDeadLetters,
  createSystem,
  fnProps,
  installClock,
  logRecorder,
  settle,
} from "./_helpers.ts";

const never = (): Promise<void> => new Promise<void>(() => {});

class HangingStop extends Actor<string> {
  override postStop(): Promise<void> {
    return never();
  }
  onReceive(): void {}
}

class HangingStart extends Actor<string> {
  override preStart(): Promise<void> {
    return never();
  }
  onReceive(): void {}
}

/** Resolves to whether `promise` settled, without waiting for it. */
function tracked(promise: Promise<unknown>): { settled: boolean } {
  const state = { settled: false };
  promise.then(() => (state.settled = true));
  return state;
}

describe("bounded shutdown", () => {
  let clock: Clock;

  beforeEach(() => {
    clock = installClock();
  });

  afterEach(() => {
    clock.uninstall();
  });

  it("rejects a shutdownTimeoutMs that is not a timer delay", () => {
    for (const bad of [-1, NaN, 2 ** 31, "5" as unknown as number]) {
      // A number out of range is a RangeError, anything else a TypeError.
      const kind = typeof bad === "number" ? RangeError : TypeError;
      assert.throws(
        () => ActorSystem.create("x", { shutdownTimeoutMs: bad }),
        (e: unknown) =>
          e instanceof kind && /"shutdownTimeoutMs"/.test(e.message),
      );
      assert.throws(
        () => Props.create(() => new HangingStop(), { shutdownTimeoutMs: bad }),
        (e: unknown) =>
          e instanceof kind && /"shutdownTimeoutMs"/.test(e.message),
      );
    }
  });

  it("terminate() resolves after the timeout when a postStop never settles", async () => {
    const log = logRecorder();
    const system = createSystem({
      shutdownTimeoutMs: 1_000,
      logLevel: "warn",
      logger: log.sink,
    });
    const timedOut = collect(system, ActorStopTimedOut);
    const ref = system.actorOf(Props.create(() => new HangingStop()), "hang");
    await settle();
    const done = tracked(system.terminate());
    await settle();
    await clock.tickAsync(999);
    assert.equal(done.settled, false, "waits while within the timeout");
    await clock.tickAsync(1);
    await settle();
    assert.equal(done.settled, true, "resolved once the timeout passed");
    assert.equal(timedOut.length, 1);
    assert.equal(timedOut[0].ref, ref as ActorRef<never>);
    assert.equal(timedOut[0].waitingFor, "postStop");
    assert.equal(timedOut[0].timeoutMs, 1_000);
    assert.ok(log.records.some((r) => r.level === "warn"));
    assert.equal(clock.countTimers(), 0, "no timer left behind");
  });

  it("stopping an actor whose async handler never settles dead-letters its message after the timeout", async () => {
    const system = createSystem({ shutdownTimeoutMs: 500 });
    const dead = collectDeadLetters(system);
    const timedOut = collect(system, ActorStopTimedOut);
    const stopped = collect(system, ActorStopped);
    class Parent extends Actor<string> {
      readonly child = this.context.actorOf(fnProps<string>(never), "child");
      onReceive(message: string): void {
        if (message === "stop child") this.context.stop(this.child);
        else this.child.tell(message);
      }
    }
    const parent = system.actorOf(Props.create(() => new Parent()));
    parent.tell("forever");
    parent.tell("queued");
    await settle(); // the child is now inside the handler that never ends
    parent.tell("stop child");
    await settle();
    await clock.tickAsync(499);
    await settle();
    assert.deepEqual(
      stopped.map((e) => e.ref.path),
      [],
      "still waiting within the timeout",
    );
    await clock.tickAsync(1);
    await settle();
    assert.deepEqual(timedOut.map((e) => e.waitingFor), ["handler"]);
    assert.deepEqual(stopped.map((e) => e.ref.path), ["/user/$0/child"]);
    assert.deepEqual(
      dead.map((d) => d.message).sort(),
      ["forever", "queued"],
      "the abandoned message and the one queued behind it are dead letters",
    );
    assert.match(
      dead.find((d) => d.message === "forever")!.reason,
      /did not settle within the 500 ms shutdown timeout/,
    );
    await system.terminate();
  });

  it("a Props shutdownTimeoutMs overrides the system's", async () => {
    const system = createSystem({ shutdownTimeoutMs: 10_000 });
    const timedOut = collect(system, ActorStopTimedOut);
    system.actorOf(
      Props.create(() => new HangingStop(), { shutdownTimeoutMs: 50 }),
    );
    await settle();
    const done = tracked(system.terminate());
    await settle();
    await clock.tickAsync(50);
    await settle();
    assert.equal(done.settled, true);
    assert.deepEqual(timedOut.map((e) => e.timeoutMs), [50]);
  });

  it("a preStart that never settles is abandoned too", async () => {
    const system = createSystem({ shutdownTimeoutMs: 200 });
    const timedOut = collect(system, ActorStopTimedOut);
    system.actorOf(Props.create(() => new HangingStart()));
    await settle();
    const done = tracked(system.terminate());
    await clock.tickAsync(200);
    await settle();
    assert.equal(done.settled, true);
    assert.deepEqual(timedOut.map((e) => e.waitingFor), ["start"]);
  });

  it("a deep tree of hanging actors still terminates within one timeout", async () => {
    const system = createSystem({ shutdownTimeoutMs: 300 });
    class Hanging extends Actor<string> {
      constructor(depth: number) {
        super();
        if (depth > 0) {
          this.context.actorOf(Props.create(() => new Hanging(depth - 1)));
        }
      }
      override postStop(): Promise<void> {
        return never();
      }
      onReceive(): Promise<void> {
        return never();
      }
    }
    const top = system.actorOf(Props.create(() => new Hanging(4)));
    await settle();
    top.tell("hang");
    await settle();
    const done = tracked(system.terminate());
    await clock.tickAsync(300);
    await settle();
    assert.equal(done.settled, true);
    assert.equal(clock.countTimers(), 0);
  });
});

describe("stop order", () => {
  it("children stop before their parent, siblings newest first", async () => {
    const system = createSystem();
    const order: string[] = [];
    class Leaf extends Actor<string> {
      constructor(readonly label: string) {
        super();
      }
      override postStop(): void {
        order.push(this.label);
      }
      onReceive(): void {}
    }
    class Parent extends Actor<string> {
      constructor() {
        super();
        for (const label of ["first", "second", "third"]) {
          this.context.actorOf(Props.create(() => new Leaf(label)), label);
        }
      }
      override postStop(): void {
        order.push("parent");
      }
      onReceive(): void {}
    }
    system.actorOf(Props.create(() => new Parent()));
    await settle();
    await system.terminate();
    assert.deepEqual(order, ["third", "second", "first", "parent"]);
  });
});

describe("terminating at once", () => {
  it("an actor whose preStart spawns children, terminated before it ran, starts, spawns and stops without an error", async () => {
    const { records, sink } = logRecorder();
    const lifecycle: string[] = [];
    class Child extends Actor<string> {
      override preStart(): void {
        lifecycle.push("child started");
      }
      override postStop(): void {
        lifecycle.push("child stopped");
      }
      onReceive(): void {}
    }
    class Parent extends Actor<string> {
      override preStart(): void {
        lifecycle.push("parent started");
        this.context.actorOf(Props.create(() => new Child()), "child");
      }
      override postStop(): void {
        lifecycle.push("parent stopped");
      }
      onReceive(): void {}
    }
    // The newcomer's three lines: create, then terminate at once.
    const system = ActorSystem.create("three", { logger: sink });
    system.actorOf(Props.create(() => new Parent()), "parent");
    await system.terminate();
    assert.deepEqual(records, []);
    assert.deepEqual(lifecycle, [
      "parent started",
      "child started",
      "child stopped",
      "parent stopped",
    ]);
  });
});
