// Copyright 2026 the understudy authors. MIT license.
// The typed strategies' argument checks: every option is checked at the call
// that takes it, with the error class and a message naming the call, the
// option, what was expected and the value given. (What the strategies do is
// in tests/runtime/typed_supervision.test.ts.)
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  restartActor,
  restartWithBackoff,
  type RestartWithBackoffOptions,
  restartWithLimit,
  resumeActor,
  stopActor,
  SupervisorStrategy,
  TypedStrategy,
} from "../../src/supervision/supervisor_strategy.ts";
import type { BackoffPolicy } from "../../src/backoff/backoff_policy.ts";

interface BadCall {
  call: () => unknown;
  error: typeof TypeError | typeof RangeError;
  message: string;
}

const WITH_BACKOFF = "Cannot create SupervisorStrategy.restartWithBackoff";
const WITH_LIMIT = "Cannot create SupervisorStrategy.restartWithLimit";
const POLICY =
  "a BackoffPolicy (an object with a delayFor(restartCount) method)";
const valid = { minBackoff: 100, maxBackoff: 1_000 };
const backoff = (options: Record<string, unknown>) => () =>
  SupervisorStrategy.restartWithBackoff(
    { ...valid, ...options } as RestartWithBackoffOptions,
  );

const cases: Record<string, BadCall> = {
  "TypedStrategy kind": {
    call: () => new TypedStrategy("Restart" as never),
    error: TypeError,
    message:
      `Cannot create TypedStrategy: "kind" must be "restart", "resume", "stop" or "backoff" (use SupervisorStrategy.restart and its siblings) (got "Restart")`,
  },
  "TypedStrategy backoff without a policy": {
    call: () => new TypedStrategy("backoff"),
    error: TypeError,
    message:
      `Cannot create a "backoff" TypedStrategy: "policy" must be ${POLICY} (got undefined)`,
  },
  "restartWithLimit maxRetries": {
    call: () => SupervisorStrategy.restartWithLimit(-1),
    error: RangeError,
    message:
      `${WITH_LIMIT}: "maxRetries" must be a whole number >= 0 or Infinity (got -1)`,
  },
  "restartWithLimit maxRetries of the wrong type": {
    call: () => SupervisorStrategy.restartWithLimit("3" as never),
    error: TypeError,
    message:
      `${WITH_LIMIT}: "maxRetries" must be a whole number >= 0 or Infinity (got "3")`,
  },
  "restartWithLimit withinMs": {
    call: () => SupervisorStrategy.restartWithLimit(3, 0),
    error: RangeError,
    message:
      `${WITH_LIMIT}: "withinMs" must be a number of milliseconds > 0 or Infinity (got 0)`,
  },
  "restartWithBackoff options": {
    call: () => SupervisorStrategy.restartWithBackoff(null as never),
    error: TypeError,
    message: `${WITH_BACKOFF}: "options" must be an object (got null)`,
  },
  "restartWithBackoff minBackoff 0": {
    call: backoff({ minBackoff: 0 }),
    error: RangeError,
    message:
      `${WITH_BACKOFF}: "minBackoff" must be a number of milliseconds > 0 and <= 2147483647 (got 0)`,
  },
  "restartWithBackoff minBackoff a string": {
    call: backoff({ minBackoff: "100" }),
    error: TypeError,
    message:
      `${WITH_BACKOFF}: "minBackoff" must be a number of milliseconds > 0 and <= 2147483647 (got "100")`,
  },
  "restartWithBackoff maxBackoff below minBackoff": {
    call: backoff({ maxBackoff: 99 }),
    error: RangeError,
    message:
      `${WITH_BACKOFF}: "maxBackoff" must be a finite number of milliseconds from minBackoff (100) to 2147483647 (got 99)`,
  },
  "restartWithBackoff maxBackoff over 2^31 - 1": {
    call: backoff({ maxBackoff: 2 ** 31 }),
    error: RangeError,
    message:
      `${WITH_BACKOFF}: "maxBackoff" must be a finite number of milliseconds from minBackoff (100) to 2147483647 (got 2147483648)`,
  },
  "restartWithBackoff randomFactor": {
    call: backoff({ randomFactor: 1.5 }),
    error: RangeError,
    message:
      `${WITH_BACKOFF}: "randomFactor" must be a number in [0, 1] (got 1.5)`,
  },
  "restartWithBackoff policy": {
    call: backoff({ policy: { delay: () => 1 } }),
    error: TypeError,
    message:
      `${WITH_BACKOFF}: "policy" must be ${POLICY} (got an object (Object))`,
  },
  "restartWithBackoff policy null": {
    call: backoff({ policy: null }),
    error: TypeError,
    message: `${WITH_BACKOFF}: "policy" must be ${POLICY} (got null)`,
  },
  "restartWithBackoff resetBackoffAfter": {
    call: backoff({ resetBackoffAfter: -1 }),
    error: RangeError,
    message:
      `${WITH_BACKOFF}: "resetBackoffAfter" must be a number of milliseconds > 0 or Infinity (got -1)`,
  },
  "restartWithBackoff maxRestarts": {
    call: backoff({ maxRestarts: 1.5 }),
    error: RangeError,
    message:
      `${WITH_BACKOFF}: "maxRestarts" must be a whole number >= 0 or Infinity (got 1.5)`,
  },
  "restartWithBackoff stashCapacity": {
    call: backoff({ stashCapacity: NaN }),
    error: RangeError,
    message:
      `${WITH_BACKOFF}: "stashCapacity" must be a whole number >= 0 or Infinity (got NaN)`,
  },
};

describe("SupervisorStrategy: bad arguments are rejected at the call", () => {
  for (const [what, { call, error, message }] of Object.entries(cases)) {
    it(`rejects a bad ${what} with a ${error.name} naming it`, () => {
      assert.throws(call, (e: unknown) => {
        assert.ok(e instanceof error, `expected ${error.name}, got ${e}`);
        assert.equal(e.message, message);
        return true;
      });
    });
  }

  it("accepts what the messages allow: the bounds, Infinity where named, and any object or function with delayFor", () => {
    SupervisorStrategy.restartWithLimit(0, Infinity);
    SupervisorStrategy.restartWithLimit(Infinity, 0.5);
    const delayFor = Object.assign(() => 0, { delayFor: () => 5 });
    const strategy = SupervisorStrategy.restartWithBackoff({
      minBackoff: 0.5,
      maxBackoff: 0.5,
      randomFactor: 1,
      resetBackoffAfter: Infinity,
      maxRestarts: 0,
      stashCapacity: 0,
      policy: delayFor as BackoffPolicy,
    });
    assert.equal(strategy.kind, "backoff");
    assert.equal(strategy.policy, delayFor);
    assert.equal(strategy.resetBackoffAfter, Infinity);
    assert.equal(
      SupervisorStrategy.restartWithBackoff({
        minBackoff: 1,
        maxBackoff: 2_147_483_647,
      }).maxBackoff,
      2_147_483_647,
    );
  });

  it("exports each strategy on its own, the same values as SupervisorStrategy's members", () => {
    assert.equal(restartActor, SupervisorStrategy.restart);
    assert.equal(resumeActor, SupervisorStrategy.resume);
    assert.equal(stopActor, SupervisorStrategy.stop);
    assert.equal(restartWithLimit, SupervisorStrategy.restartWithLimit);
    assert.equal(restartWithBackoff, SupervisorStrategy.restartWithBackoff);
    assert.deepEqual(
      [restartActor.kind, resumeActor.kind, stopActor.kind],
      ["restart", "resume", "stop"],
    );
    const limited = restartWithLimit(3, 60_000);
    assert.deepEqual([limited.kind, limited.maxRestarts, limited.withinMs], [
      "restart",
      3,
      60_000,
    ]);
    assert.throws(() => restartWithLimit(-1), {
      name: "RangeError",
      message:
        'Cannot create SupervisorStrategy.restartWithLimit: "maxRetries" must be a whole number >= 0 or Infinity (got -1)',
    });
  });
});
