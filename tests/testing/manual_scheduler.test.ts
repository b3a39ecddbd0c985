// Copyright 2026 the understudy authors. MIT license.
/**
 * The manual scheduler, and the scheduler port it plugs into: every timer
 * the library starts runs on the system's scheduler, so virtual time moves
 * actor timers, backoff waits, grace windows, restart windows and shutdown
 * deadlines, with no global faked.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  ActorStopTimedOut,
  ActorSystem,
  BackoffSupervisor,
  OneForOneStrategy,
  Props,
  realScheduler,
  type Scheduler,
} from "../../mod.ts";
import { ManualScheduler } from "../../src/testing/mod.ts";

describe("ManualScheduler", () => {
  it("fires timers in due order, reading the due time on its clock", async () => {
    const scheduler = new ManualScheduler();
    const seen: string[] = [];
    scheduler.setTimeout(() => seen.push(`b@${scheduler.now()}`), 20);
    scheduler.setTimeout(() => seen.push(`a@${scheduler.now()}`), 10);
    scheduler.setTimeout(() => seen.push(`c@${scheduler.now()}`), 20);
    await scheduler.timePasses(15);
    assert.deepEqual(seen, ["a@10"]);
    assert.equal(scheduler.now(), 15);
    await scheduler.timePasses(5);
    assert.deepEqual(seen, ["a@10", "b@20", "c@20"]);
    assert.equal(scheduler.pendingTimers, 0);
  });

  it("fires timers started by a timer if they fall due in the same stretch", async () => {
    const scheduler = new ManualScheduler(100);
    const seen: number[] = [];
    scheduler.setTimeout(() => {
      seen.push(scheduler.now());
      scheduler.setTimeout(() => seen.push(scheduler.now()), 5);
    }, 5);
    await scheduler.timePasses(10);
    assert.deepEqual(seen, [105, 110]);
  });

  it("cancels, and tells what is pending", async () => {
    const scheduler = new ManualScheduler();
    let fired = false;
    const handle = scheduler.setTimeout(() => (fired = true), 1);
    assert.equal(scheduler.nextDueInMs(), 1);
    scheduler.clearTimeout(handle);
    scheduler.clearTimeout("not a handle");
    assert.equal(scheduler.nextDueInMs(), undefined);
    await scheduler.timePasses(10);
    assert.equal(fired, false);
  });

  it("advanceUntil stops when the condition holds", async () => {
    const scheduler = new ManualScheduler();
    let count = 0;
    for (const ms of [10, 20, 30]) scheduler.setTimeout(() => count++, ms);
    assert.equal(await scheduler.advanceUntil(() => count === 2, 100), true);
    assert.equal(scheduler.now(), 20);
    assert.equal(await scheduler.advanceUntil(() => count === 9, 50), false);
    assert.equal(scheduler.now(), 70);
  });

  it("rejects bad input with the option's name", async () => {
    assert.throws(() => new ManualScheduler(Number.NaN), {
      name: "RangeError",
      message:
        'Cannot create ManualScheduler: "startMs" must be a finite number of milliseconds (got NaN)',
    });
    assert.throws(() => new ManualScheduler("0" as unknown as number), {
      name: "TypeError",
      message: /"startMs" must be a finite number of milliseconds \(got "0"\)/,
    });
    const scheduler = new ManualScheduler();
    assert.throws(
      () => scheduler.setTimeout("tick" as unknown as () => void, 10),
      {
        name: "TypeError",
        message:
          'Cannot setTimeout: "callback" must be a function (got "tick")',
      },
    );
    assert.throws(() => scheduler.setTimeout(() => {}, -1), {
      name: "RangeError",
      message: /"delayMs"/,
    });
    await assert.rejects(scheduler.timePasses(Number.NaN), {
      name: "RangeError",
      message: /"ms"/,
    });
  });
});

describe("the scheduler port", () => {
  it("rejects a scheduler that is not one", () => {
    assert.throws(
      () =>
        ActorSystem.create("bad", {
          scheduler: { now: () => 0 } as unknown as Scheduler,
        }),
      {
        name: "TypeError",
        message:
          /"scheduler" must be an object with setTimeout, clearTimeout and now functions/,
      },
    );
  });

  it("the real scheduler is the default", async () => {
    const system = ActorSystem.create("real");
    assert.equal(system.scheduler, realScheduler);
    await system.terminate();
  });

  it("runs actor timers in virtual time", async () => {
    const scheduler = new ManualScheduler();
    const system = ActorSystem.create("timers", { scheduler });
    const ticks: number[] = [];
    class Poller extends Actor<"tick"> {
      override preStart(): void {
        this.context.timers.startTimerWithFixedDelay("poll", "tick", 1_000);
      }
      onReceive(): void {
        ticks.push(this.context.system.scheduler.now());
      }
    }
    system.actorOf(Props.create(() => new Poller()));
    await scheduler.timePasses(3_500);
    assert.deepEqual(ticks, [1_000, 2_000, 3_000]);
    await system.terminate();
    assert.equal(scheduler.pendingTimers, 0, "stopping cleared the timer");
  });

  it("runs a BackoffSupervisor's wait and its stability reset in virtual time", async () => {
    const scheduler = new ManualScheduler();
    const system = ActorSystem.create("backoff", {
      scheduler,
      logLevel: "off",
    });
    const starts: number[] = [];
    class Flaky extends Actor<string> {
      override preStart(): void {
        starts.push(scheduler.now());
      }
      onReceive(): void {
        throw new Error("flaky");
      }
    }
    const supervisor = system.actorOf(BackoffSupervisor.props({
      childProps: Props.create(() => new Flaky()),
      minBackoff: 100,
      maxBackoff: 10_000,
      randomFactor: 0,
    }));
    await scheduler.timePasses(0);
    supervisor.tell("fail");
    await scheduler.timePasses(99);
    assert.deepEqual(starts, [0]);
    await scheduler.timePasses(1);
    assert.deepEqual(starts, [0, 100]);
    supervisor.tell("fail");
    await scheduler.timePasses(200); // the second wait doubles
    assert.deepEqual(starts, [0, 100, 300]);
    await system.terminate();
    assert.equal(scheduler.pendingTimers, 0);
  });

  it("counts a strategy's restart window in virtual time", async () => {
    const scheduler = new ManualScheduler();
    const system = ActorSystem.create("window", {
      scheduler,
      logLevel: "off",
      guardianStrategy: new OneForOneStrategy(() => "restart", {
        maxRetries: 1,
        withinTimeRangeMs: 1_000,
      }),
    });
    let starts = 0;
    class Failing extends Actor<string> {
      override preStart(): void {
        starts++;
      }
      onReceive(): void {
        throw new Error("no");
      }
    }
    const ref = system.actorOf(Props.create(() => new Failing()), "failing");
    ref.tell("1");
    await scheduler.timePasses(0);
    assert.equal(starts, 2, "one restart granted");
    await scheduler.timePasses(1_001); // the window passed in virtual time
    ref.tell("2");
    await scheduler.timePasses(0);
    assert.equal(starts, 3, "a new window grants another");
    await system.terminate();
  });

  it("bounds terminate() by the shutdown timeout in virtual time", async () => {
    const scheduler = new ManualScheduler();
    const system = ActorSystem.create("stuck", {
      scheduler,
      logLevel: "off",
      shutdownTimeoutMs: 5_000,
    });
    const timedOut: string[] = [];
    system.eventStream.subscribe(
      ActorStopTimedOut,
      (event) => timedOut.push(event.waitingFor),
    );
    class Stuck extends Actor<string> {
      override postStop(): Promise<void> {
        return new Promise(() => {}); // never settles
      }
      onReceive(): void {}
    }
    system.actorOf(Props.create(() => new Stuck()));
    await scheduler.timePasses(0);
    let terminated = false;
    system.terminate().then(() => (terminated = true));
    await scheduler.timePasses(4_999);
    assert.equal(terminated, false);
    await scheduler.timePasses(1);
    assert.equal(terminated, true);
    assert.deepEqual(timedOut, ["postStop"]);
    assert.equal(scheduler.pendingTimers, 0);
  });
});
