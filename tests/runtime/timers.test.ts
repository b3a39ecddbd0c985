// Copyright 2026 the understudy authors. MIT license.
// Specification of an actor's timers (context.timers), in virtual time: the
// system runs on a ManualScheduler, so no global timer is faked (except in
// the one test that needs a timer to fall due inside a synchronous handler).

import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { Actor, type ActorRef, type ActorSystem, Props } from "../../mod.ts";
import { ManualScheduler } from "../../src/testing/manual_scheduler.ts";
import {
  collectDeadLetters,
  createSystem,
  deferred,
  type FnActor,
  fnProps,
  installClock,
  logRecorder,
  settle,
} from "./_helpers.ts";

type Command =
  | { single: unknown; message: unknown; delay: number }
  | { fixed: unknown; message: unknown; delay: number; initial?: number }
  | { cancel: unknown }
  | { isActive: unknown }
  | { hold: Promise<void> }
  | { run: (actor: FnActor<Command>) => void }
  | "fail"
  | "stop";

interface Received {
  message: unknown;
  at: number;
  sender: ActorRef<unknown> | undefined;
}

/** Runs timer commands; records every other message with the system's time when it arrived. */
function timerActor(
  system: ActorSystem,
  received: Received[],
  activity: boolean[] = [],
) {
  return system.actorOf(
    fnProps<Command>(async (a, m) => {
      const timers = a.context.timers;
      if (m === "fail") throw new Error("boom");
      if (m === "stop") return a.context.stopSelf();
      if (typeof m === "object" && m !== null) {
        if ("single" in m) {
          return timers.startSingleTimer(m.single, m.message, m.delay);
        }
        if ("fixed" in m) {
          return timers.startTimerWithFixedDelay(
            m.fixed,
            m.message,
            m.delay,
            m.initial,
          );
        }
        if ("cancel" in m) return timers.cancel(m.cancel);
        if ("isActive" in m) {
          return void activity.push(timers.isTimerActive(m.isActive));
        }
        if ("hold" in m) return await m.hold;
        if ("run" in m) return m.run(a);
      }
      received.push({
        message: m,
        at: a.context.system.scheduler.now(),
        sender: a.sender,
      });
    }),
    "timed",
  );
}

describe("context.timers", () => {
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

  const times = (received: Received[]) => received.map((r) => r.at);

  it("startSingleTimer delivers its message once, exactly after the delay, with no sender", async () => {
    const received: Received[] = [];
    const payload = { kind: "timeout" };
    const ref = timerActor(system, received);
    ref.tell({ single: "k", message: payload, delay: 100 });
    await scheduler.timePasses(99);
    assert.equal(received.length, 0);
    await scheduler.timePasses(1);
    assert.deepEqual(times(received), [100]);
    assert.equal(received[0].message, payload);
    assert.equal(received[0].sender, undefined);
    await scheduler.timePasses(1_000);
    assert.equal(received.length, 1);
    assert.equal(scheduler.pendingTimers, 0);
  });

  it("startTimerWithFixedDelay delivers after the initial delay, then every delay", async () => {
    const received: Received[] = [];
    const ref = timerActor(system, received);
    ref.tell({ fixed: "beat", message: "beat", delay: 100, initial: 30 });
    await scheduler.timePasses(330);
    assert.deepEqual(times(received), [30, 130, 230, 330]);
  });

  it("startTimerWithFixedDelay waits delay before the first message when no initial delay is given", async () => {
    const received: Received[] = [];
    const ref = timerActor(system, received);
    ref.tell({ fixed: "beat", message: "beat", delay: 50 });
    await scheduler.timePasses(150);
    assert.deepEqual(times(received), [50, 100, 150]);
  });

  it("isTimerActive is true until a single timer's message is processed, and false after cancel", async () => {
    const activity: boolean[] = [];
    const received: Received[] = [];
    const ref = timerActor(system, received, activity);
    ref.tell({ isActive: "k" });
    ref.tell({ single: "k", message: "m", delay: 100 });
    ref.tell({ isActive: "k" });
    await scheduler.timePasses(100);
    ref.tell({ isActive: "k" });
    ref.tell({ single: "p", message: "m", delay: 100 });
    ref.tell({ cancel: "p" });
    ref.tell({ isActive: "p" });
    ref.tell({ fixed: "f", message: "f", delay: 10 });
    await scheduler.timePasses(25);
    ref.tell({ isActive: "f" });
    await scheduler.timePasses(0);
    assert.deepEqual(activity, [false, true, false, false, true]);
  });

  it("cancel prevents delivery", async () => {
    const received: Received[] = [];
    const ref = timerActor(system, received);
    ref.tell({ single: "k", message: "m", delay: 100 });
    ref.tell({ fixed: "f", message: "f", delay: 40 });
    await scheduler.timePasses(50);
    ref.tell({ cancel: "k" });
    ref.tell({ cancel: "f" });
    await scheduler.timePasses(1_000);
    assert.deepEqual(received.map((r) => r.message), ["f"]);
    assert.equal(scheduler.pendingTimers, 0);
  });

  it("a timer cancelled after it fell due, its message already queued, never delivers", async () => {
    const received: Received[] = [];
    const dead = collectDeadLetters(system);
    const ref = timerActor(system, received);
    ref.tell({ single: "k", message: "stale", delay: 100 });
    await scheduler.timePasses(0);
    const gate = deferred();
    ref.tell({ hold: gate.promise }); // keeps the actor busy
    ref.tell({ cancel: "k" }); // queued first...
    await scheduler.timePasses(100); // ...then the timer fires: its message waits behind the cancel
    assert.equal(received.length, 0);
    gate.resolve();
    await scheduler.timePasses(0);
    await scheduler.timePasses(1_000);
    assert.equal(received.length, 0);
    assert.equal(dead.length, 0);
  });

  it("a periodic timer cancelled while a tick is queued delivers no more", async () => {
    const received: Received[] = [];
    const ref = timerActor(system, received);
    ref.tell({ fixed: "f", message: "tick", delay: 100 });
    await scheduler.timePasses(100);
    assert.equal(received.length, 1);
    const gate = deferred();
    ref.tell({ hold: gate.promise });
    ref.tell({ cancel: "f" });
    await scheduler.timePasses(300); // three ticks fall due while the actor is busy
    gate.resolve();
    await scheduler.timePasses(1_000);
    assert.equal(received.length, 1);
  });

  it("a timer replaced after it fell due delivers only the new message, after the new delay", async () => {
    const received: Received[] = [];
    const ref = timerActor(system, received);
    ref.tell({ single: "k", message: "old", delay: 100 });
    await scheduler.timePasses(0);
    const gate = deferred();
    ref.tell({ hold: gate.promise });
    ref.tell({ single: "k", message: "new", delay: 50 });
    await scheduler.timePasses(100); // "old" falls due and waits behind the replacement
    gate.resolve();
    await scheduler.timePasses(49);
    assert.equal(received.length, 0);
    await scheduler.timePasses(1);
    assert.deepEqual(received.map((r) => [r.message, r.at]), [[
      "new",
      150,
    ]]);
    await scheduler.timePasses(1_000);
    assert.equal(received.length, 1);
  });

  it("cancels every timer when the actor stops: nothing is delivered or left pending", async () => {
    const received: Received[] = [];
    const dead = collectDeadLetters(system);
    const ref = timerActor(system, received);
    ref.tell({ single: "a", message: "a", delay: 100 });
    ref.tell({ fixed: "b", message: "b", delay: 30 });
    await scheduler.timePasses(40);
    assert.equal(received.length, 1);
    ref.tell("stop");
    await scheduler.timePasses(0);
    assert.equal(scheduler.pendingTimers, 0);
    await scheduler.timePasses(1_000);
    assert.equal(received.length, 1);
    assert.equal(dead.length, 0);
  });

  it("cancels every timer when the actor restarts", async () => {
    const received: Received[] = [];
    const ref = timerActor(system, received);
    ref.tell({ single: "a", message: "a", delay: 100 });
    ref.tell({ fixed: "b", message: "b", delay: 30 });
    await scheduler.timePasses(40);
    assert.equal(received.length, 1);
    ref.tell("fail");
    await scheduler.timePasses(0);
    assert.equal(scheduler.pendingTimers, 0);
    await scheduler.timePasses(1_000);
    assert.equal(received.length, 1);
    // The restarted actor has fresh timers.
    ref.tell({ single: "a", message: "again", delay: 10 });
    await scheduler.timePasses(10);
    assert.deepEqual(received.map((r) => r.message), ["b", "again"]);
  });

  it("drops a tick that was queued when the actor restarted", async () => {
    const received: Received[] = [];
    const ref = timerActor(system, received);
    ref.tell({ single: "k", message: "before restart", delay: 100 });
    await scheduler.timePasses(0);
    const gate = deferred();
    ref.tell({ hold: gate.promise });
    ref.tell("fail");
    await scheduler.timePasses(100); // the tick waits behind "fail"
    gate.resolve();
    await scheduler.timePasses(1_000);
    assert.equal(received.length, 0);
  });

  it("rejects a delay that is negative, not finite, too long or not a number, naming it and the value", async () => {
    const errors: unknown[] = [];
    const ref = timerActor(system, []);
    const attempts: [string, (a: FnActor<Command>) => void][] = [
      ["-1", (a) => a.context.timers.startSingleTimer("k", "m", -1)],
      ["NaN", (a) => a.context.timers.startSingleTimer("k", "m", NaN)],
      [
        "Infinity",
        (a) => a.context.timers.startSingleTimer("k", "m", Infinity),
      ],
      [
        "2147483648",
        (a) => a.context.timers.startSingleTimer("k", "m", 2 ** 31),
      ],
      [
        '"5"',
        (a) =>
          a.context.timers.startSingleTimer("k", "m", "5" as unknown as number),
      ],
      ["-5", (a) => a.context.timers.startTimerWithFixedDelay("k", "m", -5)],
      [
        "-7",
        (a) => a.context.timers.startTimerWithFixedDelay("k", "m", 10, -7),
      ],
    ];
    for (const [, attempt] of attempts) {
      ref.tell({
        run: (a) => {
          try {
            attempt(a);
          } catch (error) {
            errors.push(error);
          }
        },
      });
    }
    ref.tell({
      run: (a) => {
        try {
          a.context.timers.startTimerWithFixedDelay("k", "m", 0);
        } catch (error) {
          errors.push(error);
        }
      },
    });
    await scheduler.timePasses(0);
    assert.equal(errors.length, attempts.length + 1);
    attempts.forEach(([shown], i) => {
      const error = errors[i] as Error;
      // A number out of range is a RangeError, anything else a TypeError.
      assert.ok(
        shown.startsWith('"')
          ? error instanceof TypeError
          : error instanceof RangeError,
      );
      assert.match(
        error.message,
        /"(delayMs|initialDelayMs)" must be a finite number of milliseconds from 0 to 2147483647/,
      );
      assert.ok(error.message.includes(`(got ${shown})`), error.message);
    });
    const zero = errors[attempts.length];
    assert.ok(zero instanceof RangeError);
    assert.match(zero.message, /"delayMs" must be > 0.*\(got 0\)/);
    assert.match(String(errors[6]), /"initialDelayMs"/);
    assert.equal(scheduler.pendingTimers, 0);
  });
});

describe("a stopped actor's timers", () => {
  /** A system in virtual time whose warnings are kept. */
  function stoppingSystem(options: { shutdownTimeoutMs?: number } = {}) {
    const scheduler = new ManualScheduler();
    const log = logRecorder();
    const system = createSystem({
      scheduler,
      logger: log.sink,
      logLevel: "warn",
      ...options,
    });
    const warnings = () =>
      log.records.filter((r) => /after it stopped/.test(r.message));
    return { scheduler, system, warnings };
  }

  it("a periodic timer postStop starts does not run: it is ignored, with a warning", async () => {
    const { scheduler, system, warnings } = stoppingSystem();
    class Heart extends Actor<string> {
      onReceive(): void {}
      override postStop(): void {
        this.context.timers.startTimerWithFixedDelay("beat", "beat", 50);
      }
    }
    const ref = system.actorOf(Props.create(() => new Heart()), "heart");
    await settle();
    system.stop(ref);
    await settle();
    await scheduler.timePasses(500);
    assert.equal(scheduler.pendingTimers, 0, "no timer of a stopped actor");
    assert.equal(warnings().length, 1);
    assert.match(warnings()[0].message, /\/user\/heart/);
    await system.terminate();
  });

  it("nor does one an async handler starts after the stop gave up on it, nor its receive timeout", async () => {
    const { scheduler, system, warnings } = stoppingSystem({
      shutdownTimeoutMs: 100,
    });
    const slow = deferred();
    const ref = system.actorOf(
      fnProps(async (a) => {
        await slow.promise; // a call that hangs past the stop's timeout
        a.context.timers.startTimerWithFixedDelay("poll", "poll", 50);
        a.context.setReceiveTimeout(50);
      }),
      "poller",
    );
    ref.tell("start");
    await settle();
    system.stop(ref);
    await scheduler.timePasses(150); // the stop abandons the handler
    slow.resolve(); // the hung call returns at last
    await settle();
    await scheduler.timePasses(500);
    assert.equal(scheduler.pendingTimers, 0, "no timer of a stopped actor");
    assert.equal(warnings().length, 2);
    await system.terminate();
  });
});

// A timer that falls due while a handler runs synchronously needs time moved
// from inside that handler: a ManualScheduler moves only when awaited, so
// this one test fakes the global clock and the system uses the host's timers.
describe("context.timers, time moved inside a handler", () => {
  it("a timer cancelled in the very handler that runs when it falls due does not deliver", async () => {
    const clock = installClock();
    const system = createSystem();
    try {
      const received: Received[] = [];
      const ref = timerActor(system, received);
      ref.tell({ single: "k", message: "late", delay: 100 });
      await clock.tickAsync(0);
      ref.tell({
        run: (a) => {
          clock.tick(100); // the timer falls due while this handler runs
          a.context.timers.cancel("k");
        },
      });
      await clock.tickAsync(1_000);
      assert.equal(received.length, 0);
    } finally {
      await system.terminate();
      clock.uninstall();
    }
  });
});
