// Copyright 2026 the understudy authors. MIT license.
// Specification of retry: attempts, waits from the policy, maxAttempts,
// shouldRetry, the signal, and the checks of its options.

import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import * as FakeTimers from "@sinonjs/fake-timers";
import {
  type BackoffPolicy,
  exponentialBackoff,
  fullJitterBackoff,
  MAX_TIMER_DELAY_MS,
  retry,
  RetryError,
} from "../../src/backoff/mod.ts";
import { seededRandom } from "./_helpers.ts";
import { ManualScheduler } from "../../src/testing/manual_scheduler.ts";
import { countedController } from "../runtime/_helpers.ts";

type Clock = ReturnType<typeof FakeTimers.install>;

/** A function that fails its first `failures` calls, recording when each call came. */
function flaky(failures: number, value = "ok") {
  const calls: { at: number; attempt: number }[] = [];
  const errors: Error[] = [];
  const fn = (attempt: number): Promise<string> => {
    calls.push({ at: Date.now(), attempt });
    if (calls.length <= failures) {
      const error = new Error(`failure ${calls.length}`);
      errors.push(error);
      return Promise.reject(error);
    }
    return Promise.resolve(value);
  };
  return { fn, calls, errors, times: () => calls.map((c) => c.at) };
}

/** Exact delays: 100, 200, 400, … up to 1,000 ms. */
const doubling = (): BackoffPolicy =>
  exponentialBackoff({ minMs: 100, maxMs: 1_000, randomFactor: 0 });

describe("retry: attempts and waits", () => {
  let clock: Clock;
  beforeEach(() => {
    clock = FakeTimers.install({ toNotFake: ["nextTick", "queueMicrotask"] });
  });
  afterEach(() => clock.uninstall());

  it("resolves with the first success, calling fn at once with attempt 1 and starting no timer", async () => {
    const { fn, calls } = flaky(0, "first");
    const answer = retry(fn, { policy: doubling() });
    assert.deepEqual(calls, [{ at: 0, attempt: 1 }], "called within retry()");
    assert.equal(await answer, "first");
    assert.equal(clock.countTimers(), 0);
  });

  it("accepts a function that returns a plain value or throws synchronously", async () => {
    let calls = 0;
    const answer = retry((attempt) => {
      calls++;
      if (attempt < 2) throw new Error("sync failure");
      return 42;
    }, { policy: doubling() });
    await clock.tickAsync(100);
    assert.equal(await answer, 42);
    assert.equal(calls, 2);
  });

  it("waits policy.delayFor(n - 1) after failed attempt n: 100, 200, 400 ms", async () => {
    const { fn, calls } = flaky(3);
    const asked: number[] = [];
    const policy = doubling();
    const recording: BackoffPolicy = {
      delayFor: (n) => (asked.push(n), policy.delayFor(n)),
    };
    const answer = retry(fn, { policy: recording });
    await clock.tickAsync(1_000);
    assert.equal(await answer, "ok");
    assert.deepEqual(calls, [
      { at: 0, attempt: 1 },
      { at: 100, attempt: 2 },
      { at: 300, attempt: 3 },
      { at: 700, attempt: 4 },
    ]);
    assert.deepEqual(asked, [0, 1, 2]);
  });

  it("waits exactly the jittered delays of a seeded policy", async () => {
    // Whole milliseconds, so the due times compare exactly with Date.now().
    const make = (): BackoffPolicy => {
      const jittered = fullJitterBackoff({
        baseMs: 100,
        capMs: 5_000,
        random: seededRandom(7),
      });
      return { delayFor: (n) => Math.floor(jittered.delayFor(n)) };
    };
    const expected = make();
    let t = 0;
    const times = [0];
    for (let n = 0; n < 4; n++) times.push(t += expected.delayFor(n));
    const { fn, times: callTimes } = flaky(4);
    const answer = retry(fn, { policy: make(), maxAttempts: 5 });
    // One millisecond short of each due time, the next call has not come.
    for (let i = 1; i < times.length; i++) {
      await clock.tickAsync(times[i] - Date.now() - 1);
      assert.equal(callTimes().length, i, `before call ${i + 1}`);
      await clock.tickAsync(1);
      assert.equal(callTimes().length, i + 1, `call ${i + 1}`);
    }
    assert.equal(await answer, "ok");
    assert.deepEqual(callTimes(), times);
  });

  it("by default makes 5 attempts with full-jitter waits below 1, 2, 4 and 8 s", async () => {
    const { fn, times } = flaky(Infinity);
    const answer = retry(fn).catch((e: unknown) => e);
    await clock.tickAsync(15_000);
    const error = await answer;
    assert.ok(error instanceof RetryError);
    assert.equal(error.attempts, 5);
    const at = times();
    assert.equal(at.length, 5);
    for (let i = 1; i < at.length; i++) {
      const wait = at[i] - at[i - 1];
      assert.ok(wait >= 0 && wait < 1_000 * 2 ** (i - 1), `wait ${i}: ${wait}`);
    }
    assert.equal(clock.countTimers(), 0);
  });
});

describe("retry: giving up", () => {
  let clock: Clock;
  beforeEach(() => {
    clock = FakeTimers.install({ toNotFake: ["nextTick", "queueMicrotask"] });
  });
  afterEach(() => clock.uninstall());

  it("rejects with RetryError after maxAttempts failures, with the last error and the count", async () => {
    const { fn, calls, errors } = flaky(Infinity);
    const answer = retry(fn, { policy: doubling(), maxAttempts: 3 }).catch((
      e: unknown,
    ) => e);
    await clock.tickAsync(10_000);
    const error = await answer;
    assert.ok(error instanceof RetryError);
    assert.equal(error.name, "RetryError");
    assert.equal(error.attempts, 3);
    assert.equal(error.cause, errors[2], "the last attempt's error");
    assert.equal(
      error.message,
      "Retrying failed after 3 attempts: Error: failure 3",
    );
    assert.deepEqual(calls.map((c) => c.at), [0, 100, 300]);
    assert.equal(clock.countTimers(), 0, "no wait after the last attempt");
  });

  it("with maxAttempts 1 calls once and does not wait", async () => {
    const { fn, calls } = flaky(Infinity);
    const error = await retry(fn, { policy: doubling(), maxAttempts: 1 })
      .catch((e: unknown) => e);
    assert.ok(error instanceof RetryError);
    assert.equal(error.attempts, 1);
    assert.equal(
      error.message,
      "Retrying failed after 1 attempt: Error: failure 1",
    );
    assert.equal(calls.length, 1);
    assert.equal(clock.countTimers(), 0);
  });

  it("with maxAttempts Infinity keeps going until fn succeeds", async () => {
    const { fn, calls } = flaky(20);
    const answer = retry(fn, {
      policy: { delayFor: () => 10 },
      maxAttempts: Infinity,
    });
    await clock.tickAsync(200);
    assert.equal(await answer, "ok");
    assert.equal(calls.length, 21);
  });

  it("rethrows the error itself, at once, when shouldRetry says no, asking with the attempt's number", async () => {
    const { fn, errors } = flaky(Infinity);
    const asked: [unknown, number][] = [];
    const answer = retry(fn, {
      policy: doubling(),
      shouldRetry: (error, attempt) => {
        asked.push([error, attempt]);
        return attempt < 2;
      },
    }).catch((e: unknown) => e);
    await clock.tickAsync(100);
    const error = await answer;
    assert.equal(error, errors[1], "not a RetryError");
    assert.deepEqual(asked, [[errors[0], 1], [errors[1], 2]]);
    assert.equal(Date.now(), 100);
    assert.equal(clock.countTimers(), 0);
  });

  it("asks shouldRetry about the last failure too: false there gives the error, not a RetryError", async () => {
    const { fn, errors } = flaky(Infinity);
    const error = await retry(fn, {
      maxAttempts: 1,
      shouldRetry: () => false,
    }).catch((e: unknown) => e);
    assert.equal(error, errors[0]);
  });

  it("rejects with what shouldRetry throws", async () => {
    const bug = new Error("bug in shouldRetry");
    const error = await retry(() => Promise.reject(new Error("x")), {
      shouldRetry: () => {
        throw bug;
      },
    }).catch((e: unknown) => e);
    assert.equal(error, bug);
    assert.equal(clock.countTimers(), 0);
  });

  it("rejects with a RangeError naming the call when the policy returns a delay that is no delay", async () => {
    for (const bad of [-1, NaN]) {
      const error = await retry(() => Promise.reject(new Error("x")), {
        policy: { delayFor: () => bad },
      }).catch((e: unknown) => e);
      assert.ok(error instanceof RangeError, String(bad));
      assert.match(
        error.message,
        /^Cannot retry: "policy\.delayFor\(0\)" must be a finite number of milliseconds from 0 to 2147483647 \(got .+\)$/,
      );
    }
    assert.equal(clock.countTimers(), 0);
  });

  it("waits the longest a timer can when the policy asks for longer, as the supervisors do", async () => {
    for (const long of [2 ** 31, Infinity]) {
      const { fn, calls } = flaky(1);
      const answer = retry(fn, { policy: { delayFor: () => long } });
      await clock.tickAsync(MAX_TIMER_DELAY_MS - 1);
      assert.equal(calls.length, 1, String(long));
      await clock.tickAsync(1);
      assert.equal(await answer, "ok");
      assert.equal(calls.length, 2);
    }
    assert.equal(clock.countTimers(), 0);
  });
});

describe("retry: the signal", () => {
  let clock: Clock;
  beforeEach(() => {
    clock = FakeTimers.install({ toNotFake: ["nextTick", "queueMicrotask"] });
  });
  afterEach(() => clock.uninstall());

  it("aborting during a wait rejects at once with the reason and clears the timer", async () => {
    const { fn, calls } = flaky(Infinity);
    const controller = new AbortController();
    const answer = retry(fn, {
      policy: doubling(),
      signal: controller.signal,
    }).catch((e: unknown) => e);
    await clock.tickAsync(150); // attempts at 0 and 100; waiting 200 ms now
    assert.equal(calls.length, 2);
    assert.equal(clock.countTimers(), 1);
    const reason = new Error("shutting down");
    controller.abort(reason);
    assert.equal(await answer, reason);
    assert.equal(Date.now(), 150);
    assert.equal(clock.countTimers(), 0);
    await clock.tickAsync(10_000);
    assert.equal(calls.length, 2, "no attempt after the abort");
  });

  it("a signal already aborted rejects with its reason without calling fn", async () => {
    const controller = new AbortController();
    controller.abort();
    let called = false;
    const error = await retry(() => (called = true), {
      signal: controller.signal,
    }).catch((e: unknown) => e);
    assert.equal(error, controller.signal.reason);
    assert.ok(error instanceof Error && error.name === "AbortError");
    assert.equal(called, false);
    assert.equal(clock.countTimers(), 0);
  });

  it("aborting during an attempt rejects at once; what the attempt does later is ignored", async () => {
    const controller = new AbortController();
    let fail!: (error: Error) => void;
    let calls = 0;
    const answer = retry(() => {
      calls++;
      return new Promise<string>((_, reject) => (fail = reject));
    }, { policy: doubling(), signal: controller.signal }).catch((
      e: unknown,
    ) => e);
    controller.abort(new Error("stop"));
    assert.equal(((await answer) as Error).message, "stop");
    fail(new Error("late failure"));
    await clock.tickAsync(10_000);
    assert.equal(calls, 1);
    assert.equal(clock.countTimers(), 0);
  });

  it("stops listening to the signal once settled, however", async () => {
    const succeeded = countedController();
    await retry(() => "ok", { signal: succeeded.signal });
    assert.equal(succeeded.listeners(), 0);

    const gaveUp = countedController();
    await retry(() => Promise.reject(new Error("x")), {
      maxAttempts: 1,
      signal: gaveUp.signal,
    }).catch(() => {});
    assert.equal(gaveUp.listeners(), 0);

    const aborted = countedController();
    const answer = retry(() => Promise.reject(new Error("x")), {
      policy: doubling(),
      signal: aborted.signal,
    }).catch(() => {});
    await clock.tickAsync(0);
    assert.equal(aborted.listeners(), 1);
    aborted.controller.abort();
    await answer;
    assert.equal(aborted.listeners(), 0);
  });
});

describe("retry: the signal, in real time", () => {
  // No fake clock: Deno's sanitizers fail this block if the 60 s wait's
  // timer outlives the abort (and Node would hang on it).
  it("clears the wait's timer when aborted", async () => {
    const controller = new AbortController();
    let calls = 0;
    const answer = retry(() => {
      calls++;
      return Promise.reject(new Error("down"));
    }, { policy: { delayFor: () => 60_000 }, signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error("enough"));
    await assert.rejects(answer, { message: "enough" });
    assert.equal(calls, 1);
  });
});

describe("retry: checks its arguments when called", () => {
  const fn = () => "ok";

  it("maxAttempts: a whole number >= 1 or Infinity", () => {
    for (const bad of [0, -1, 1.5, NaN, -Infinity]) {
      assert.throws(() => retry(fn, { maxAttempts: bad }), {
        name: "RangeError",
        message:
          `Cannot retry: "maxAttempts" must be a whole number >= 1 or Infinity (got ${bad})`,
      });
    }
    assert.throws(() => retry(fn, { maxAttempts: "3" as unknown as number }), {
      name: "TypeError",
      message:
        `Cannot retry: "maxAttempts" must be a whole number >= 1 or Infinity (got "3")`,
    });
  });

  it("policy, shouldRetry, signal, fn and options: the right kinds", () => {
    const cases: [() => unknown, string][] = [
      [
        () => retry(fn, { policy: {} as BackoffPolicy }),
        `"policy" must be a BackoffPolicy (an object with a delayFor(restartCount) method) (got an object (Object))`,
      ],
      [
        () => retry(fn, { policy: null as unknown as BackoffPolicy }),
        `"policy" must be a BackoffPolicy (an object with a delayFor(restartCount) method) (got null)`,
      ],
      [
        () => retry(fn, { shouldRetry: true as unknown as () => boolean }),
        `"shouldRetry" must be a function (got true)`,
      ],
      [
        () => retry(fn, { signal: {} as AbortSignal }),
        `"signal" must be an AbortSignal (got an object (Object))`,
      ],
      [
        () => retry("fn" as unknown as () => string),
        `"fn" must be a function (got "fn")`,
      ],
      [
        () => retry(fn, null as unknown as undefined),
        `"options" must be an object (got null)`,
      ],
      [
        () => retry(fn, { scheduler: { setTimeout } as never }),
        `"scheduler" must be an object with setTimeout and clearTimeout functions (got an object (Object))`,
      ],
    ];
    for (const [call, message] of cases) {
      assert.throws(call, {
        name: "TypeError",
        message: `Cannot retry: ${message}`,
      });
    }
  });

  it("calls nothing when an argument is wrong", () => {
    let called = false;
    assert.throws(() => retry(() => (called = true), { maxAttempts: 0 }));
    assert.equal(called, false);
  });
});

describe("retry: on a scheduler of the caller's (virtual time)", () => {
  it("waits on the given scheduler, not the host's timers", async () => {
    const scheduler = new ManualScheduler();
    const times: number[] = [];
    const answer = retry(
      (attempt) => {
        times.push(scheduler.now());
        return attempt < 3 ? Promise.reject(new Error("busy")) : "ok";
      },
      {
        policy: exponentialBackoff({
          minMs: 100,
          maxMs: 1_000,
          randomFactor: 0,
        }),
        scheduler,
      },
    );
    await scheduler.timePasses(99);
    assert.deepEqual(times, [0]);
    await scheduler.timePasses(1);
    assert.deepEqual(times, [0, 100]);
    await scheduler.timePasses(200);
    assert.deepEqual(times, [0, 100, 300]);
    assert.equal(await answer, "ok");
    assert.equal(scheduler.pendingTimers, 0);
  });

  it("clears its wait on the given scheduler when the signal aborts", async () => {
    const scheduler = new ManualScheduler();
    const controller = new AbortController();
    const answer = retry(() => Promise.reject(new Error("busy")), {
      policy: { delayFor: () => 1_000 },
      scheduler,
      signal: controller.signal,
    });
    await scheduler.timePasses(0);
    assert.equal(scheduler.pendingTimers, 1);
    controller.abort(new Error("user left"));
    await assert.rejects(answer, { message: "user left" });
    assert.equal(scheduler.pendingTimers, 0);
  });

  it("rejects with what the scheduler's setTimeout throws, rather than hang", async () => {
    const closed = new Error("scheduler closed");
    const answer = retry(() => Promise.reject(new Error("busy")), {
      policy: { delayFor: () => 10 },
      scheduler: {
        setTimeout: () => {
          throw closed;
        },
        clearTimeout: () => {},
      },
    });
    await assert.rejects(answer, (error) => error === closed);
  });
});
