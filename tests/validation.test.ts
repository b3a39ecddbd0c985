// Copyright 2026 the understudy authors. MIT license.
// The shared argument checks of src/validation.ts, on their own: what each
// accepts, and the one message shape for what it rejects. (Each call site's
// own test checks that it names its action and option.)
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  checkCount,
  checkDelay,
  checkDuration,
  checkPolicy,
  checkSignal,
} from "../src/validation.ts";

/** Asserts that `call` throws exactly `error` with exactly `message`. */
function rejects(
  call: () => unknown,
  error: typeof TypeError | typeof RangeError,
  message: string,
): void {
  assert.throws(call, (e: unknown) => {
    assert.ok(e instanceof error, `expected ${error.name}, got ${e}`);
    assert.equal(e.constructor, error);
    assert.equal(e.message, message);
    return true;
  });
}

describe("checkPolicy", () => {
  const expected =
    'Cannot do it: "policy" must be a BackoffPolicy (an object with a delayFor(restartCount) method)';

  it("returns the value itself when it has a delayFor method, an object or a function", () => {
    const plain = { delayFor: (n: number) => n * 10 };
    assert.equal(checkPolicy("do it", "policy", plain), plain);
    class Fixed {
      delayFor(): number {
        return 5;
      }
    }
    const instance = new Fixed();
    assert.equal(checkPolicy("do it", "policy", instance), instance);
    assert.equal(checkPolicy("do it", "policy", instance).delayFor(0), 5);
    const callable = Object.assign(() => 0, { delayFor: () => 1 });
    assert.equal(checkPolicy("do it", "policy", callable), callable);
  });

  it("rejects anything else with a TypeError naming the option and the value", () => {
    const cases: [unknown, string][] = [
      [undefined, "undefined"],
      [null, "null"],
      [5, "5"],
      ["exponential", '"exponential"'],
      [{}, "an object (Object)"],
      [{ delayFor: 100 }, "an object (Object)"],
      [(n: number) => n, "function (anonymous)"],
      [[], "an array"],
    ];
    for (const [value, shown] of cases) {
      rejects(
        () => checkPolicy("do it", "policy", value),
        TypeError,
        `${expected} (got ${shown})`,
      );
    }
  });

  it("rejects, with the same TypeError, an object that throws when read", () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    rejects(
      () => checkPolicy("do it", "policy", proxy),
      TypeError,
      `${expected} (got an object (unreadable))`,
    );
    const throwing = {
      get delayFor(): never {
        throw new Error("no");
      },
    };
    rejects(
      () => checkPolicy("do it", "policy", throwing),
      TypeError,
      `${expected} (got an object (Object))`,
    );
  });
});

describe("checkCount", () => {
  it("accepts whole numbers from lowest (0 by default) and Infinity", () => {
    for (const n of [0, 1, 7, 2 ** 53, Infinity]) {
      assert.equal(checkCount("do it", "n", n), n);
    }
    for (const n of [1, 2, Infinity]) {
      assert.equal(checkCount("do it", "n", n, 1), n);
    }
  });

  it("with lowest 1, rejects 0 and fractions with a RangeError, and a non-number with a TypeError", () => {
    for (
      const [n, shown] of [[0, "0"], [0.5, "0.5"], [-1, "-1"], [NaN, "NaN"]]
    ) {
      rejects(
        () => checkCount("do it", "maxAttempts", n, 1),
        RangeError,
        `Cannot do it: "maxAttempts" must be a whole number >= 1 or Infinity (got ${shown})`,
      );
    }
    rejects(
      () => checkCount("do it", "maxAttempts", "3", 1),
      TypeError,
      'Cannot do it: "maxAttempts" must be a whole number >= 1 or Infinity (got "3")',
    );
    rejects(
      () => checkCount("do it", "n", -1),
      RangeError,
      'Cannot do it: "n" must be a whole number >= 0 or Infinity (got -1)',
    );
  });
});

describe("checkDelay", () => {
  it("accepts [lowest, 2^31 - 1] and names a lowest that comes from another option", () => {
    assert.equal(checkDelay("do it", "ms", 0), 0);
    assert.equal(checkDelay("do it", "ms", 2_147_483_647), 2_147_483_647);
    assert.equal(checkDelay("do it", "ms", 200, 200, "minMs"), 200);
    rejects(
      () => checkDelay("do it", "maxMs", 199, 200, "minMs"),
      RangeError,
      'Cannot do it: "maxMs" must be a finite number of milliseconds from minMs (200) to 2147483647 (got 199)',
    );
    rejects(
      () => checkDelay("do it", "ms", 0, 1),
      RangeError,
      'Cannot do it: "ms" must be a finite number of milliseconds from 1 to 2147483647 (got 0)',
    );
    rejects(
      () => checkDelay("do it", "ms", Infinity),
      RangeError,
      'Cannot do it: "ms" must be a finite number of milliseconds from 0 to 2147483647 (got Infinity)',
    );
    rejects(
      () => checkDelay("do it", "ms", null),
      TypeError,
      'Cannot do it: "ms" must be a finite number of milliseconds from 0 to 2147483647 (got null)',
    );
  });
});

describe("checkDuration", () => {
  it("accepts a number > 0, and Infinity only when there is no highest", () => {
    assert.equal(checkDuration("do it", "withinMs", 0.5), 0.5);
    assert.equal(checkDuration("do it", "withinMs", Infinity), Infinity);
    assert.equal(checkDuration("do it", "ms", 10, 10), 10);
    for (const [n, shown] of [[0, "0"], [-1, "-1"], [NaN, "NaN"]]) {
      rejects(
        () => checkDuration("do it", "withinMs", n),
        RangeError,
        `Cannot do it: "withinMs" must be a number of milliseconds > 0 or Infinity (got ${shown})`,
      );
    }
    rejects(
      () => checkDuration("do it", "ms", 11, 10),
      RangeError,
      'Cannot do it: "ms" must be a number of milliseconds > 0 and <= 10 (got 11)',
    );
    rejects(
      () => checkDuration("do it", "ms", "5"),
      TypeError,
      'Cannot do it: "ms" must be a number of milliseconds > 0 or Infinity (got "5")',
    );
  });
});

describe("checkSignal", () => {
  it("returns undefined or the signal itself", () => {
    assert.equal(checkSignal("ask", "signal", undefined), undefined);
    const { signal } = new AbortController();
    assert.equal(checkSignal("ask", "signal", signal), signal);
  });

  it("rejects what is not a signal (an object with only addEventListener too)", () => {
    for (
      const [value, shown] of [
        [null, "null"],
        ["abort", '"abort"'],
        [{ addEventListener() {} }, "an object (Object)"],
      ] as const
    ) {
      rejects(
        () => checkSignal("ask", "signal", value),
        TypeError,
        `Cannot ask: "signal" must be an AbortSignal (got ${shown})`,
      );
    }
  });
});
