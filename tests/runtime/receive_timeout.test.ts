// Copyright 2026 the understudy authors. MIT license.
// Specification of context.setReceiveTimeout and the ReceiveTimeout message,
// in virtual time (a ManualScheduler; no global timer faked).

import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { Actor, type ActorSystem, Props } from "../../mod.ts";
import { ReceiveTimeout } from "../../src/runtime/features/receive_timeout.ts";
import { ManualScheduler } from "../../src/testing/manual_scheduler.ts";
import { createSystem, deferred, type FnActor, fnProps } from "./_helpers.ts";

/** What the test tells the actor to do; anything else is just recorded. */
type Command =
  | { set: number | undefined }
  | { timer: number }
  | { cancelAllTimers: true }
  | { hold: Promise<void> }
  | "throw"
  | string;

/** An actor that records, at its system's time, every message it gets. */
function timeoutProps(log: string[]) {
  return fnProps<Command | ReceiveTimeout>(
    async (a: FnActor<Command | ReceiveTimeout>, m) => {
      if (m === ReceiveTimeout) {
        log.push(`${a.context.system.scheduler.now()} ReceiveTimeout`);
        return;
      }
      if (typeof m === "object" && "set" in m) {
        a.context.setReceiveTimeout(m.set);
      } else if (typeof m === "object" && "timer" in m) {
        a.context.timers.startTimerWithFixedDelay("tick", "tick", m.timer);
      } else if (typeof m === "object" && "cancelAllTimers" in m) {
        a.context.timers.cancelAll();
      } else if (typeof m === "object" && "hold" in m) {
        await m.hold;
      } else if (m === "throw") {
        throw new Error("boom");
      } else {
        log.push(`${a.context.system.scheduler.now()} ${m}`);
      }
    },
  );
}

describe("context.setReceiveTimeout", () => {
  let scheduler: ManualScheduler;
  let system: ActorSystem;
  beforeEach(() => {
    scheduler = new ManualScheduler();
    system = createSystem({ scheduler });
  });
  afterEach(async () => {
    await system.terminate();
    assert.equal(scheduler.pendingTimers, 0, "no timer left after terminate");
  });

  it("delivers ReceiveTimeout after that long without a message, and again after each further period of silence", async () => {
    const log: string[] = [];
    const ref = system.actorOf(timeoutProps(log), "idle");
    ref.tell({ set: 100 });
    await scheduler.timePasses(99);
    assert.deepEqual(log, []);
    await scheduler.timePasses(1);
    assert.deepEqual(log, ["100 ReceiveTimeout"]);
    await scheduler.timePasses(250);
    assert.deepEqual(log, [
      "100 ReceiveTimeout",
      "200 ReceiveTimeout",
      "300 ReceiveTimeout",
    ]);
  });

  it("is reset by every message: the period counts from the last one", async () => {
    const log: string[] = [];
    const ref = system.actorOf(timeoutProps(log), "busy");
    ref.tell({ set: 100 });
    await scheduler.timePasses(60);
    ref.tell("a"); // at 60
    await scheduler.timePasses(60);
    ref.tell("b"); // at 120
    await scheduler.timePasses(99);
    assert.deepEqual(log, ["60 a", "120 b"]);
    await scheduler.timePasses(1);
    assert.deepEqual(log, ["60 a", "120 b", "220 ReceiveTimeout"]);
  });

  it("is not reset by the actor's own timers' messages", async () => {
    const log: string[] = [];
    const ref = system.actorOf(timeoutProps(log), "ticking");
    ref.tell({ set: 100 });
    ref.tell({ timer: 30 });
    await scheduler.timePasses(100);
    assert.deepEqual(log, [
      "30 tick",
      "60 tick",
      "90 tick",
      "100 ReceiveTimeout",
    ]);
  });

  it("is cancelled by setReceiveTimeout(undefined), and can be set again", async () => {
    const log: string[] = [];
    const ref = system.actorOf(timeoutProps(log), "cancelled");
    ref.tell({ set: 100 });
    await scheduler.timePasses(50);
    ref.tell({ set: undefined });
    await scheduler.timePasses(1_000);
    assert.deepEqual(log, []);
    ref.tell({ set: 30 }); // at 1050
    await scheduler.timePasses(30);
    assert.deepEqual(log, ["1080 ReceiveTimeout"]);
  });

  it("setting it again replaces the period", async () => {
    const log: string[] = [];
    const ref = system.actorOf(timeoutProps(log), "replaced");
    ref.tell({ set: 100 });
    await scheduler.timePasses(10);
    ref.tell({ set: 500 });
    await scheduler.timePasses(400);
    assert.deepEqual(log, []);
    await scheduler.timePasses(100);
    assert.deepEqual(log, ["510 ReceiveTimeout"]);
  });

  it("counts an async handler's time as busy: the period starts when it settles", async () => {
    const log: string[] = [];
    const gate = deferred();
    const ref = system.actorOf(timeoutProps(log), "slow");
    ref.tell({ set: 100 });
    ref.tell({ hold: gate.promise }); // at 0, for 300 ms
    await scheduler.timePasses(300);
    assert.deepEqual(log, []);
    gate.resolve();
    await scheduler.timePasses(99);
    assert.deepEqual(log, []);
    await scheduler.timePasses(1);
    assert.deepEqual(log, ["400 ReceiveTimeout"]);
  });

  it("is not cancelled by timers.cancelAll(), which cancels the actor's own timers only", async () => {
    const log: string[] = [];
    const ref = system.actorOf(timeoutProps(log), "cancelling");
    ref.tell({ set: 100 });
    ref.tell({ timer: 30 }); // a "tick" every 30 ms, until cancelled
    await scheduler.timePasses(10);
    ref.tell({ cancelAllTimers: true }); // at 10, before the first tick
    await scheduler.timePasses(100);
    assert.deepEqual(log, ["110 ReceiveTimeout"]);
    await scheduler.timePasses(100);
    assert.deepEqual(log, ["110 ReceiveTimeout", "210 ReceiveTimeout"]);
  });

  it("is cleared by a restart: the fresh instance sets its own", async () => {
    const log: string[] = [];
    const ref = system.actorOf(timeoutProps(log), "restarted");
    ref.tell({ set: 100 });
    await scheduler.timePasses(10);
    ref.tell("throw"); // restarted by the default strategy
    await scheduler.timePasses(1_000);
    assert.deepEqual(log, []);
    ref.tell({ set: 50 });
    await scheduler.timePasses(50);
    assert.deepEqual(log, ["1060 ReceiveTimeout"]);
  });

  it("is read back by context.receiveTimeout", async () => {
    const seen: (number | undefined)[] = [];
    const ref = system.actorOf(
      fnProps<number | undefined>((a, m) => {
        a.context.setReceiveTimeout(m);
        seen.push(a.context.receiveTimeout);
      }),
      "reader",
    );
    ref.tell(250);
    ref.tell(undefined);
    await scheduler.timePasses(0);
    assert.deepEqual(seen, [250, undefined]);
  });

  it("rejects a period that is not a number of milliseconds above 0, naming it", async () => {
    const errors: unknown[] = [];
    const ref = system.actorOf(
      fnProps<unknown>((a, m) => {
        try {
          a.context.setReceiveTimeout(m as number);
        } catch (error) {
          errors.push(error);
        }
      }),
      "checker",
    );
    for (const bad of [0, -5, NaN, Infinity, 2 ** 31, "100", null]) {
      ref.tell(bad);
    }
    await scheduler.timePasses(0);
    assert.equal(errors.length, 7);
    assert.ok(errors.slice(0, 5).every((e) => e instanceof RangeError));
    assert.ok(errors.slice(5).every((e) => e instanceof TypeError));
    assert.match(
      (errors[0] as Error).message,
      /^Cannot setReceiveTimeout: "ms" must be a number of milliseconds from 1 to 2147483647, or undefined to cancel \(got 0\)$/,
    );
    assert.match((errors[5] as Error).message, /\(got "100"\)/);
  });

  it("leaves no timer behind when the actor stops", async () => {
    const log: string[] = [];
    const ref = system.actorOf(timeoutProps(log), "stopping");
    ref.tell({ set: 100 });
    await scheduler.timePasses(10);
    system.stop(ref);
    await scheduler.timePasses(0);
    assert.equal(scheduler.pendingTimers, 0);
    await scheduler.timePasses(1_000);
    assert.deepEqual(log, []);
  });
});

describe("ReceiveTimeout set in preStart", () => {
  it("counts from the start, and a session actor can stop itself when idle", async () => {
    const scheduler = new ManualScheduler();
    const system = createSystem({ scheduler });
    try {
      const log: string[] = [];
      class Session extends Actor<string | ReceiveTimeout> {
        override preStart(): void {
          this.context.setReceiveTimeout(1_000);
        }
        onReceive(m: string | ReceiveTimeout): void {
          log.push(`${scheduler.now()} ${m === ReceiveTimeout ? "idle" : m}`);
          if (m === ReceiveTimeout) this.context.stopSelf();
        }
        override postStop(): void {
          log.push(`${scheduler.now()} stopped`);
        }
      }
      const ref = system.actorOf(Props.create(() => new Session()), "session");
      await scheduler.timePasses(500);
      ref.tell("ping");
      await scheduler.timePasses(2_000);
      assert.deepEqual(log, ["500 ping", "1500 idle", "1500 stopped"]);
    } finally {
      await system.terminate();
    }
  });
});
