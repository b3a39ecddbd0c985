/**
 * The Chromium run replaces `node:assert/strict` with
 * `tests/_shims/assert_strict_browser.ts`. These tests run the same checks
 * through the shim and through the runtime's real `node:assert/strict`, and
 * require identical pass/fail outcomes, so the browser run judges tests the
 * way Deno, Node and Bun do. (In the browser run both sides are the shim, and
 * the tests still check the expected outcomes.)
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import * as shim from "../_shims/assert_strict_browser.ts";

type Outcome = "pass" | "fail";

function outcome(fn: () => unknown): Outcome {
  try {
    fn();
    return "pass";
  } catch {
    return "fail";
  }
}

async function asyncOutcome(fn: () => Promise<unknown>): Promise<Outcome> {
  try {
    await fn();
    return "pass";
  } catch {
    return "fail";
  }
}

class Point {
  constructor(public x: number, public y: number) {}
}

function cyclic(): Record<string, unknown> {
  const o: Record<string, unknown> = { name: "node" };
  o.self = o;
  return o;
}

const sym = Symbol("k");

// [label, actual, expected, should deepStrictEqual pass?]
const DEEP_CASES: [string, unknown, unknown, boolean][] = [
  ["same number", 1, 1, true],
  ["number vs string", 1, "1", false],
  ["NaN", NaN, NaN, true],
  ["0 vs -0", 0, -0, false],
  ["null vs undefined", null, undefined, false],
  ["plain objects", { a: 1, b: [1, 2] }, { b: [1, 2], a: 1 }, true],
  ["extra undefined key", { a: 1 }, { a: 1, b: undefined }, false],
  ["nested difference", { a: { b: [1, 2] } }, { a: { b: [1, 3] } }, false],
  ["arrays", [1, [2, 3]], [1, [2, 3]], true],
  ["array order", [1, 2], [2, 1], false],
  ["array length", [1, 2], [1, 2, 3], false],
  ["array vs object", [1], { 0: 1 }, false],
  [
    "maps",
    new Map<number, unknown>([[1, { a: 1 }], [2, "x"]]),
    new Map<number, unknown>([[2, "x"], [1, { a: 1 }]]),
    true,
  ],
  [
    "map values differ",
    new Map([[1, { a: 1 }]]),
    new Map([[1, { a: 2 }]]),
    false,
  ],
  [
    "map object keys",
    new Map([[{ k: 1 }, "v"]]),
    new Map([[{ k: 1 }, "v"]]),
    true,
  ],
  ["map vs object", new Map(), {}, false],
  ["sets", new Set([1, 2, 3]), new Set([3, 2, 1]), true],
  ["sets differ", new Set([1, 2]), new Set([1, 3]), false],
  [
    "set of objects",
    new Set([{ a: 1 }, { b: 2 }]),
    new Set([{ b: 2 }, { a: 1 }]),
    true,
  ],
  ["set of objects differ", new Set([{ a: 1 }]), new Set([{ a: 2 }]), false],
  ["class instances", new Point(1, 2), new Point(1, 2), true],
  ["class instances differ", new Point(1, 2), new Point(1, 3), false],
  ["class vs plain object", new Point(1, 2), { x: 1, y: 2 }, false],
  ["null prototype vs plain", Object.create(null), {}, false],
  ["dates", new Date(5), new Date(5), true],
  ["dates differ", new Date(5), new Date(6), false],
  ["regexps", /a+/g, /a+/g, true],
  ["regexp flags", /a+/g, /a+/i, false],
  ["errors", new Error("x"), new Error("x"), true],
  ["error messages", new Error("x"), new Error("y"), false],
  ["error classes", new TypeError("x"), new Error("x"), false],
  ["cycles", cyclic(), cyclic(), true],
  ["typed arrays", new Uint8Array([1, 2]), new Uint8Array([1, 2]), true],
  [
    "typed arrays differ",
    new Uint8Array([1, 2]),
    new Uint8Array([1, 3]),
    false,
  ],
  ["typed array kinds", new Uint8Array([1]), new Int8Array([1]), false],
  ["symbol keys", { [sym]: 1 }, { [sym]: 1 }, true],
  ["symbol key missing", { [sym]: 1 }, {}, false],
  ["boxed numbers", Object(1), Object(1), true],
  ["boxed numbers differ", Object(1), Object(2), false],
  ["functions by identity", () => 1, () => 1, false],
];

describe("browser assert shim agrees with node:assert/strict", () => {
  it("deepStrictEqual / deepEqual / notDeepStrictEqual", () => {
    for (const [label, a, b, expected] of DEEP_CASES) {
      const want: Outcome = expected ? "pass" : "fail";
      const opposite: Outcome = expected ? "fail" : "pass";
      assert.equal(outcome(() => assert.deepStrictEqual(a, b)), want, label);
      assert.equal(outcome(() => shim.deepStrictEqual(a, b)), want, label);
      assert.equal(outcome(() => shim.deepEqual(a, b)), want, label);
      assert.equal(outcome(() => shim.notDeepEqual(a, b)), opposite, label);
      assert.equal(shim.isDeepStrictEqual(a, b), expected, label);
    }
  });

  it("equal / notEqual / strictEqual / ok / match / fail", () => {
    const checks: [string, (a: typeof assert) => unknown][] = [
      ["equal same", (a) => a.equal(1, 1)],
      ["equal loose", (a) => a.equal(1, "1" as unknown as number)],
      ["equal NaN", (a) => a.equal(NaN, NaN)],
      ["notEqual", (a) => a.notEqual(1, 2)],
      ["notEqual same", (a) => a.notEqual("x", "x")],
      ["strictEqual objects", (a) => a.strictEqual({}, {})],
      ["ok truthy", (a) => a.ok("x")],
      ["ok falsy", (a) => a.ok(0)],
      ["assert() falsy", (a) => a("")],
      ["match", (a) => a.match("actor-1", /^actor-\d$/)],
      ["match fails", (a) => a.match("actor-x", /^actor-\d$/)],
      ["doesNotMatch", (a) => a.doesNotMatch("abc", /z/)],
      ["fail", (a) => a.fail("boom")],
      ["ifError null", (a) => a.ifError(null)],
      ["ifError value", (a) => a.ifError(new Error("e"))],
      ["doesNotThrow", (a) => a.doesNotThrow(() => 1)],
      ["doesNotThrow throws", (a) =>
        a.doesNotThrow(() => {
          throw new Error("x");
        })],
    ];
    for (const [label, check] of checks) {
      assert.equal(
        outcome(() => check(shim.strict as unknown as typeof assert)),
        outcome(() => check(assert)),
        label,
      );
    }
  });

  it("throws with classes, regexps, validation objects and functions", () => {
    const thrower = () => {
      const err = new RangeError("delay out of range: 5");
      (err as RangeError & { code: string }).code = "E_RANGE";
      throw err;
    };
    const expectations: [string, unknown, Outcome][] = [
      ["no expectation", undefined, "pass"],
      ["same class", RangeError, "pass"],
      ["base class", Error, "pass"],
      ["other class", TypeError, "fail"],
      ["regexp match", /out of range/, "pass"],
      ["regexp miss", /in range: 6/, "fail"],
      ["object match", { name: "RangeError", code: "E_RANGE" }, "pass"],
      ["object regexp", { message: /range: \d/ }, "pass"],
      ["object miss", { code: "E_OTHER" }, "fail"],
      ["object missing key", { missing: undefined }, "fail"],
      ["validator true", (e: unknown) => e instanceof RangeError, "pass"],
      ["validator false", () => false, "fail"],
    ];
    type Throws = (fn: () => unknown, expected?: unknown) => void;
    for (const [label, expected, want] of expectations) {
      const args = expected === undefined ? [] : [expected];
      const real = assert.throws as unknown as Throws;
      const fake = shim.throws as unknown as Throws;
      assert.equal(outcome(() => real(thrower, ...args)), want, label);
      assert.equal(outcome(() => fake(thrower, ...args)), want, label);
    }
    assert.equal(outcome(() => shim.throws(() => 1)), "fail", "no throw");
    assert.equal(outcome(() => assert.throws(() => 1)), "fail", "no throw");
  });

  it("rejects and doesNotReject", async () => {
    const failing = () => Promise.reject(new TypeError("nope"));
    const passing = () => Promise.resolve(1);
    type Rejects = (
      fn: Promise<unknown> | (() => Promise<unknown>),
      expected?: unknown,
    ) => Promise<void>;
    for (const impl of [assert.rejects, shim.rejects] as unknown as Rejects[]) {
      assert.equal(await asyncOutcome(() => impl(failing)), "pass");
      assert.equal(await asyncOutcome(() => impl(failing, TypeError)), "pass");
      assert.equal(await asyncOutcome(() => impl(failing, /nope/)), "pass");
      assert.equal(
        await asyncOutcome(() => impl(failing, { message: "nope" })),
        "pass",
      );
      assert.equal(await asyncOutcome(() => impl(failing, RangeError)), "fail");
      assert.equal(await asyncOutcome(() => impl(passing)), "fail");
      assert.equal(await asyncOutcome(() => impl(failing())), "pass");
    }
    assert.equal(await asyncOutcome(() => shim.doesNotReject(passing)), "pass");
    assert.equal(await asyncOutcome(() => shim.doesNotReject(failing)), "fail");
  });

  it("throws AssertionError with actual, expected and operator", () => {
    try {
      shim.deepStrictEqual({ a: 1 }, { a: 2 });
      assert.fail("expected an AssertionError");
    } catch (err) {
      assert.ok(err instanceof shim.AssertionError);
      assert.equal(err.code, "ERR_ASSERTION");
      assert.equal(err.operator, "deepStrictEqual");
      assert.deepEqual(err.actual, { a: 1 });
      assert.deepEqual(err.expected, { a: 2 });
      assert.match(err.message, /strictly deep-equal/);
    }
    assert.throws(() => shim.equal(1, 2, "custom message"), {
      message: "custom message",
    });
  });
});
