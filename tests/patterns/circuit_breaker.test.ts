// Copyright 2026 the understudy authors. MIT license.
// Specification of the CircuitBreaker: closed → open after maxFailures
// consecutive failures or timeouts, fail-fast while open, half-open after
// the reset timeout (growing while trials fail), one trial call, the
// listeners, dispose, and the checks of its options. In virtual time: the
// breakers run on a ManualScheduler (their `scheduler` option, or their
// actor system's), so no global timer is faked.

import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  CircuitBreaker,
  CircuitBreakerOpenError,
  type CircuitBreakerOptions,
  CircuitBreakerTimeoutError,
} from "../../src/patterns/circuit_breaker.ts";
import { Actor, type ActorRef, Props } from "../../mod.ts";
import { ManualScheduler } from "../../src/testing/manual_scheduler.ts";
import { createSystem } from "../runtime/_helpers.ts";

/** A promise settled from outside, for calls that end when the test says. */
function pending<T = string>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const down = () => Promise.reject(new Error("down"));
const up = () => Promise.resolve("up");

/** A breaker on `scheduler` whose transitions are recorded as [virtual time, what]. */
function recordedBreaker(
  scheduler: ManualScheduler,
  options: Partial<CircuitBreakerOptions> = {},
): { breaker: CircuitBreaker; log: [number, string][]; causes: unknown[] } {
  const log: [number, string][] = [];
  const causes: unknown[] = [];
  const breaker = new CircuitBreaker({
    maxFailures: 3,
    callTimeoutMs: 500,
    resetTimeoutMs: 1_000,
    scheduler,
    onOpen: ({ resetTimeoutMs, cause }) => {
      log.push([scheduler.now(), `open ${resetTimeoutMs}`]);
      causes.push(cause);
    },
    onHalfOpen: () => log.push([scheduler.now(), "half-open"]),
    onClose: () => log.push([scheduler.now(), "closed"]),
    ...options,
  });
  return { breaker, log, causes };
}

/** The outcome of a call, without an unhandled rejection. */
function outcome<T>(promise: Promise<T>): Promise<T | unknown> {
  return promise.catch((error: unknown) => error);
}

describe("CircuitBreaker: closed", () => {
  let scheduler: ManualScheduler;
  let breaker: CircuitBreaker;
  beforeEach(() => {
    scheduler = new ManualScheduler();
  });
  afterEach(() => {
    breaker?.dispose();
  });

  it("passes values and errors through as they are, and leaves no timer", async () => {
    ({ breaker } = recordedBreaker(scheduler));
    assert.equal(breaker.state, "closed");
    assert.equal(await breaker.call(() => Promise.resolve(42)), 42);
    assert.equal(await breaker.call(() => "plain value"), "plain value");
    const error = new Error("boom");
    assert.equal(
      await outcome(breaker.call(() => Promise.reject(error))),
      error,
    );
    const thrown = new Error("sync");
    assert.equal(
      await outcome(breaker.call(() => {
        throw thrown;
      })),
      thrown,
    );
    assert.equal(scheduler.pendingTimers, 0);
  });

  it("counts consecutive failures; a success resets the count", async () => {
    let log: [number, string][];
    ({ breaker, log } = recordedBreaker(scheduler));
    await outcome(breaker.call(down));
    await outcome(breaker.call(() => {
      throw new Error("sync failures count too");
    }));
    assert.equal(breaker.failures, 2);
    await breaker.call(up);
    assert.equal(breaker.failures, 0);
    await outcome(breaker.call(down));
    await outcome(breaker.call(down));
    assert.equal(breaker.state, "closed");
    assert.deepEqual(log, []);
  });

  it("opens at maxFailures consecutive failures, telling onOpen the failure and how long", async () => {
    let log: [number, string][];
    let causes: unknown[];
    ({ breaker, log, causes } = recordedBreaker(scheduler));
    const third = new Error("third");
    await outcome(breaker.call(down));
    await outcome(breaker.call(down));
    await scheduler.timePasses(50);
    const seen = await outcome(breaker.call(() => Promise.reject(third)));
    assert.equal(
      seen,
      third,
      "the call that trips the breaker gets its own error",
    );
    assert.equal(breaker.state, "open");
    assert.deepEqual(log, [[50, "open 1000"]]);
    assert.deepEqual(causes, [third]);
  });

  it("counts a call that outlives callTimeoutMs as a failure, rejecting it then with CircuitBreakerTimeoutError", async () => {
    let causes: unknown[];
    ({ breaker, causes } = recordedBreaker(scheduler, { maxFailures: 2 }));
    const settledAt: number[] = [];
    const slow = pending();
    const first = outcome(breaker.call(() => slow.promise));
    first.then(() => settledAt.push(scheduler.now()));
    await scheduler.timePasses(499);
    assert.deepEqual(settledAt, []);
    await scheduler.timePasses(1);
    assert.deepEqual(settledAt, [500]);
    const error = await first;
    assert.ok(error instanceof CircuitBreakerTimeoutError);
    assert.equal(error.timeoutMs, 500);
    assert.equal(
      error.message,
      "Call through circuit breaker timed out after 500 ms",
    );
    assert.equal(breaker.failures, 1);
    slow.resolve("too late");
    await scheduler.timePasses(0);
    assert.equal(breaker.failures, 1, "the late success is ignored");
    const second = outcome(breaker.call(() => new Promise(() => {})));
    await scheduler.timePasses(500);
    assert.ok((await second) instanceof CircuitBreakerTimeoutError);
    assert.equal(breaker.state, "open");
    assert.ok(causes[0] instanceof CircuitBreakerTimeoutError);
  });

  it("clears a call's timeout when the call settles first", async () => {
    ({ breaker } = recordedBreaker(scheduler));
    const call = pending();
    const answer = breaker.call(() => call.promise);
    assert.equal(scheduler.pendingTimers, 1);
    call.resolve("in time");
    assert.equal(await answer, "in time");
    assert.equal(scheduler.pendingTimers, 0);
  });
});

describe("CircuitBreaker: open and half-open", () => {
  let scheduler: ManualScheduler;
  let breaker: CircuitBreaker;
  beforeEach(() => {
    scheduler = new ManualScheduler();
  });
  afterEach(() => {
    breaker?.dispose();
  });

  async function trip(times = 3): Promise<void> {
    for (let i = 0; i < times; i++) await outcome(breaker.call(down));
  }

  it("fails fast while open, without calling, with the time left until half-open", async () => {
    ({ breaker } = recordedBreaker(scheduler));
    await trip();
    await scheduler.timePasses(300);
    let called = false;
    const error = await outcome(breaker.call(() => (called = true)));
    assert.equal(called, false);
    assert.ok(error instanceof CircuitBreakerOpenError);
    assert.equal(error.name, "CircuitBreakerOpenError");
    assert.equal(error.remainingMs, 700);
    assert.equal(
      error.message,
      "Circuit breaker is open: calls fail fast for another 700 ms",
    );
  });

  it("turns half-open exactly resetTimeoutMs after opening", async () => {
    let log: [number, string][];
    ({ breaker, log } = recordedBreaker(scheduler));
    await trip();
    await scheduler.timePasses(999);
    assert.equal(breaker.state, "open");
    await scheduler.timePasses(1);
    assert.equal(breaker.state, "half-open");
    assert.deepEqual(log, [[0, "open 1000"], [1_000, "half-open"]]);
    assert.equal(
      scheduler.pendingTimers,
      0,
      "no timer while half-open and idle",
    );
  });

  it("lets one trial call through; others fail fast until it ends; its success closes", async () => {
    let log: [number, string][];
    ({ breaker, log } = recordedBreaker(scheduler));
    await trip();
    await scheduler.timePasses(1_000);
    const trial = pending();
    let trialCalls = 0;
    const answer = breaker.call(() => (trialCalls++, trial.promise));
    let otherCalled = false;
    const other = await outcome(breaker.call(() => (otherCalled = true)));
    assert.equal(trialCalls, 1);
    assert.equal(otherCalled, false);
    assert.ok(other instanceof CircuitBreakerOpenError);
    assert.equal(other.remainingMs, 0);
    assert.equal(
      other.message,
      "Circuit breaker is half-open: calls fail fast until its trial call ends",
    );
    await scheduler.timePasses(100);
    trial.resolve("back");
    assert.equal(await answer, "back");
    assert.equal(breaker.state, "closed");
    assert.equal(breaker.failures, 0);
    assert.deepEqual(log, [
      [0, "open 1000"],
      [1_000, "half-open"],
      [1_100, "closed"],
    ]);
    assert.equal(await breaker.call(up), "up");
  });

  it("reopens when the trial fails, or times out", async () => {
    let log: [number, string][];
    let causes: unknown[];
    ({ breaker, log, causes } = recordedBreaker(scheduler));
    await trip();
    await scheduler.timePasses(1_000);
    const trialError = new Error("still down");
    assert.equal(
      await outcome(breaker.call(() => Promise.reject(trialError))),
      trialError,
    );
    assert.equal(breaker.state, "open");
    await scheduler.timePasses(1_000);
    assert.equal(breaker.state, "half-open");
    const timedOut = outcome(breaker.call(() => new Promise(() => {})));
    await scheduler.timePasses(500);
    assert.ok((await timedOut) instanceof CircuitBreakerTimeoutError);
    assert.equal(breaker.state, "open");
    assert.deepEqual(log, [
      [0, "open 1000"],
      [1_000, "half-open"],
      [1_000, "open 1000"],
      [2_000, "half-open"],
      [2_500, "open 1000"],
    ]);
    assert.equal(causes[1], trialError);
    assert.ok(causes[2] instanceof CircuitBreakerTimeoutError);
  });

  it("grows the reset timeout by exponentialBackoffFactor while trials fail, up to maxResetTimeoutMs, and resets it on closing", async () => {
    let log: [number, string][];
    ({ breaker, log } = recordedBreaker(scheduler, {
      maxResetTimeoutMs: 5_000,
    }));
    await trip();
    const openings: number[] = [];
    for (let i = 0; i < 4; i++) {
      await scheduler.timePasses(scheduler.nextDueInMs()!); // to half-open
      openings.push(scheduler.now());
      await outcome(breaker.call(down)); // the trial fails
    }
    assert.deepEqual(openings, [1_000, 3_000, 7_000, 12_000]);
    assert.deepEqual(
      log.filter(([, what]) => what.startsWith("open")).map(([, what]) => what),
      ["open 1000", "open 2000", "open 4000", "open 5000", "open 5000"],
    );
    await scheduler.timePasses(scheduler.nextDueInMs()!);
    assert.equal(await breaker.call(up), "up");
    assert.equal(breaker.state, "closed");
    await trip();
    assert.equal(log.at(-1)![1], "open 1000");
  });

  it("grows by the given factor", async () => {
    let log: [number, string][];
    ({ breaker, log } = recordedBreaker(scheduler, {
      maxResetTimeoutMs: 100_000,
      exponentialBackoffFactor: 3,
    }));
    await trip();
    for (let i = 0; i < 2; i++) {
      await scheduler.timePasses(scheduler.nextDueInMs()!);
      await outcome(breaker.call(down));
    }
    assert.deepEqual(
      log.filter(([, what]) => what.startsWith("open")).map(([, what]) => what),
      ["open 1000", "open 3000", "open 9000"],
    );
  });

  it("does not grow without maxResetTimeoutMs", async () => {
    let log: [number, string][];
    ({ breaker, log } = recordedBreaker(scheduler));
    await trip();
    await scheduler.timePasses(scheduler.nextDueInMs()!);
    await outcome(breaker.call(down));
    assert.deepEqual(log.map(([, what]) => what), [
      "open 1000",
      "half-open",
      "open 1000",
    ]);
  });

  it("ignores the outcome of a call that began in an earlier state", async () => {
    ({ breaker } = recordedBreaker(scheduler));
    const early = pending();
    const earlyAnswer = breaker.call(() => early.promise);
    await trip();
    assert.equal(breaker.state, "open");
    early.resolve("late success");
    assert.equal(await earlyAnswer, "late success", "its caller still gets it");
    assert.equal(breaker.state, "open", "a success from closed does not close");
    await scheduler.timePasses(1_000);
    const stale = pending();
    // A call that began while closed, ending in half-open, is not the trial.
    const { breaker: second, log } = recordedBreaker(scheduler, {
      maxFailures: 1,
      callTimeoutMs: 5_000,
    });
    const staleAnswer = outcome(second.call(() => stale.promise));
    await outcome(second.call(down));
    await scheduler.timePasses(1_000);
    assert.equal(second.state, "half-open");
    stale.reject(new Error("stale failure"));
    await staleAnswer;
    assert.equal(second.state, "half-open");
    assert.deepEqual(log, [[1_000, "open 1000"], [2_000, "half-open"]]);
    second.dispose();
  });
});

describe("CircuitBreaker: dispose", () => {
  let scheduler: ManualScheduler;
  beforeEach(() => {
    scheduler = new ManualScheduler();
  });

  it("clears the reset timer and the calls' timeouts; later calls reject; calls in flight still settle", async () => {
    const { breaker, log } = recordedBreaker(scheduler, { maxFailures: 1 });
    const inFlight = pending();
    const answer = breaker.call(() => inFlight.promise);
    const second = breaker.call(() => new Promise(() => {}));
    await outcome(breaker.call(down)); // opens
    assert.equal(
      scheduler.pendingTimers,
      3,
      "two call timeouts and the reset timer",
    );
    breaker.dispose();
    breaker.dispose();
    assert.equal(scheduler.pendingTimers, 0);
    await scheduler.timePasses(10_000);
    inFlight.resolve("finished anyway");
    assert.equal(await answer, "finished anyway");
    let called = false;
    await assert.rejects(breaker.call(() => (called = true)), {
      message: "Cannot call through a disposed circuit breaker",
    });
    assert.equal(called, false);
    assert.deepEqual(log, [[0, "open 1000"]], "no transition after dispose");
    void second;
  });
});

describe("CircuitBreaker on a given scheduler", () => {
  it("runs its timers and reads its clock there, with no global faked", async () => {
    const scheduler = new ManualScheduler(5_000);
    const { breaker, log } = recordedBreaker(scheduler, { maxFailures: 1 });
    const slow = outcome(breaker.call(() => new Promise(() => {})));
    assert.equal(scheduler.pendingTimers, 1, "the call's timeout");
    await scheduler.timePasses(500);
    assert.ok((await slow) instanceof CircuitBreakerTimeoutError);
    assert.equal(breaker.state, "open");
    assert.equal(scheduler.pendingTimers, 1, "the reset timer");
    await scheduler.timePasses(400);
    const error = await outcome(breaker.call(up));
    assert.ok(error instanceof CircuitBreakerOpenError);
    assert.equal(error.remainingMs, 600);
    await scheduler.timePasses(600);
    assert.equal(breaker.state, "half-open");
    assert.equal(await breaker.call(up), "up");
    assert.equal(breaker.state, "closed");
    assert.equal(scheduler.pendingTimers, 0);
    assert.equal(log.length, 3);
    await outcome(breaker.call(down));
    assert.equal(scheduler.pendingTimers, 1);
    breaker.dispose();
    assert.equal(scheduler.pendingTimers, 0);
  });
});

describe("CircuitBreaker in real time", () => {
  // No fake clock: Deno's sanitizers fail this block if a timer survives.
  it("leaves no timer after dispose, or once its calls have settled", async () => {
    const breaker = new CircuitBreaker({
      maxFailures: 1,
      callTimeoutMs: 60_000,
      resetTimeoutMs: 60_000,
    });
    assert.equal(await breaker.call(() => Promise.resolve("quick")), "quick");
    await outcome(breaker.call(down));
    assert.equal(breaker.state, "open");
    breaker.dispose();
  });
});

describe("CircuitBreaker in an actor", () => {
  let scheduler: ManualScheduler;
  beforeEach(() => {
    scheduler = new ManualScheduler();
  });

  it("protects the actor's calls, sends the outcomes back as messages, and is disposed in postStop", async () => {
    type Msg =
      | { kind: "fetch"; ok: boolean; replyTo: ActorRef<string> }
      | { kind: "done"; text: string; replyTo: ActorRef<string> };
    class Client extends Actor<Msg> {
      readonly breaker = new CircuitBreaker({
        maxFailures: 2,
        callTimeoutMs: 1_000,
        resetTimeoutMs: 30_000,
        scheduler: this.context.system.scheduler,
      });
      onReceive(message: Msg): void {
        if (message.kind === "fetch") {
          const { self } = this;
          const { replyTo } = message;
          this.breaker.call(() =>
            message.ok
              ? Promise.resolve("data")
              : Promise.reject(new Error("503"))
          ).then(
            (text) => self.tell({ kind: "done", text, replyTo }),
            (error: Error) =>
              self.tell({
                kind: "done",
                text: error.name + ": " + error.message,
                replyTo,
              }),
          );
        } else {
          message.replyTo.tell(message.text);
        }
      }
      override postStop(): void {
        this.breaker.dispose();
      }
    }
    const system = createSystem({ scheduler });
    try {
      const client = system.actorOf(Props.create(() => new Client()), "client");
      const fetch = async (ok: boolean) => {
        const answer = await new Promise<string>((resolve) => {
          class Reply extends Actor<string> {
            onReceive(text: string): void {
              resolve(text);
              this.context.stopSelf();
            }
          }
          const replyTo = system.actorOf(Props.create(() => new Reply()));
          client.tell({ kind: "fetch", ok, replyTo });
        });
        return answer;
      };
      assert.equal(await fetch(true), "data");
      assert.equal(await fetch(false), "Error: 503");
      assert.equal(await fetch(false), "Error: 503");
      assert.equal(
        await fetch(true),
        "CircuitBreakerOpenError: Circuit breaker is open: calls fail fast for another 30000 ms",
      );
      assert.ok(scheduler.pendingTimers >= 1, "the breaker's reset timer runs");
      await scheduler.timePasses(29_999);
      assert.equal(
        await fetch(true),
        "CircuitBreakerOpenError: Circuit breaker is open: calls fail fast for another 1 ms",
      );
      await scheduler.timePasses(1);
      assert.equal(await fetch(true), "data", "half-open: the trial closes it");
      assert.equal(await fetch(false), "Error: 503");
      assert.equal(await fetch(false), "Error: 503");
      assert.ok(
        scheduler.pendingTimers >= 1,
        "open again: its reset timer runs",
      );
    } finally {
      await system.terminate();
    }
    assert.equal(
      scheduler.pendingTimers,
      0,
      "postStop disposed of the breaker",
    );
  });
});

describe("CircuitBreaker: checks its options when created", () => {
  const valid: CircuitBreakerOptions = {
    maxFailures: 3,
    callTimeoutMs: 500,
    resetTimeoutMs: 1_000,
  };
  const make = (changes: Record<string, unknown>) => () =>
    new CircuitBreaker({ ...valid, ...changes } as CircuitBreakerOptions);
  const action = "Cannot create circuit breaker";

  it("maxFailures: a whole number >= 1", () => {
    for (const bad of [0, -1, 1.5, NaN, Infinity]) {
      assert.throws(make({ maxFailures: bad }), {
        name: "RangeError",
        message:
          `${action}: "maxFailures" must be an integer in [1, 9007199254740991] (got ${bad})`,
      });
    }
    assert.throws(make({ maxFailures: undefined }), {
      name: "TypeError",
      message:
        `${action}: "maxFailures" must be an integer in [1, 9007199254740991] (got undefined)`,
    });
  });

  it("callTimeoutMs and resetTimeoutMs: delays a timer can wait", () => {
    for (const option of ["callTimeoutMs", "resetTimeoutMs"]) {
      for (const bad of [-1, NaN, 2 ** 31]) {
        assert.throws(make({ [option]: bad }), {
          name: "RangeError",
          message:
            `${action}: "${option}" must be a finite number of milliseconds from 0 to 2147483647 (got ${bad})`,
        });
      }
      assert.throws(make({ [option]: "1000" }), {
        name: "TypeError",
        message:
          `${action}: "${option}" must be a finite number of milliseconds from 0 to 2147483647 (got "1000")`,
      });
    }
  });

  it("maxResetTimeoutMs: from resetTimeoutMs to 2147483647", () => {
    assert.throws(make({ maxResetTimeoutMs: 999 }), {
      name: "RangeError",
      message:
        `${action}: "maxResetTimeoutMs" must be a number in [resetTimeoutMs=1000, 2147483647] (got 999)`,
    });
    assert.throws(make({ maxResetTimeoutMs: 2 ** 31 }), RangeError);
  });

  it("exponentialBackoffFactor: a finite number >= 1", () => {
    for (const bad of [0.5, -2, NaN, Infinity]) {
      assert.throws(make({ exponentialBackoffFactor: bad }), {
        name: "RangeError",
        message:
          `${action}: "exponentialBackoffFactor" must be a finite number >= 1 (got ${bad})`,
      });
    }
    assert.throws(make({ exponentialBackoffFactor: "2" }), TypeError);
  });

  it("listeners: functions", () => {
    for (const name of ["onOpen", "onHalfOpen", "onClose"]) {
      assert.throws(make({ [name]: "log" }), {
        name: "TypeError",
        message: `${action}: "${name}" must be a function (got "log")`,
      });
    }
  });

  it("scheduler: setTimeout, clearTimeout and now", () => {
    assert.throws(make({ scheduler: { setTimeout() {} } }), {
      name: "TypeError",
      message:
        `${action}: "scheduler" must be an object with setTimeout, clearTimeout and now functions (got an object (Object))`,
    });
  });

  it("options: an object; call's body: a function", () => {
    assert.throws(
      () => new CircuitBreaker(null as unknown as CircuitBreakerOptions),
      {
        name: "TypeError",
        message: `${action}: "options" must be an object (got null)`,
      },
    );
    const breaker = new CircuitBreaker(valid);
    assert.throws(() => breaker.call("fetch" as unknown as () => string), {
      name: "TypeError",
      message:
        `Cannot call through circuit breaker: "body" must be a function (got "fetch")`,
    });
    breaker.dispose();
  });
});
