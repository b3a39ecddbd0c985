/**
 * A browser stand-in for `node:assert/strict`, used by the Chromium run of
 * `scripts/test.mjs` (esbuild aliases `node:assert/strict` to this file).
 *
 * Implements the strict-mode API that tests use: `assert()` / `ok`, `equal` /
 * `strictEqual`, `notEqual` / `notStrictEqual`, `deepEqual` /
 * `deepStrictEqual` (structural: primitives by `Object.is`, arrays, plain
 * objects, class instances by own enumerable properties plus prototype, Map,
 * Set, Date, RegExp, Error, boxed primitives, typed arrays, cycles),
 * `notDeepEqual` / `notDeepStrictEqual`, `throws` / `rejects` (expected may be
 * an Error class, a RegExp, a validation object or a validation function),
 * `doesNotThrow` / `doesNotReject`, `match` / `doesNotMatch`, `fail`,
 * `ifError` and `AssertionError`.
 *
 * `tests/meta/assert_shim.test.ts` checks it against the real module.
 *
 * @module
 */

/** Thrown by every failing assertion. */
export class AssertionError extends Error {
  override name = "AssertionError";
  readonly code = "ERR_ASSERTION";
  readonly actual: unknown;
  readonly expected: unknown;
  readonly operator: string;
  readonly generatedMessage: boolean;
  constructor(options: {
    message?: string | undefined;
    actual?: unknown;
    expected?: unknown;
    operator?: string;
    generated?: string;
  }) {
    super(options.message ?? options.generated ?? "Assertion failed");
    this.actual = options.actual;
    this.expected = options.expected;
    this.operator = options.operator ?? "fail";
    this.generatedMessage = options.message === undefined;
  }
}

type Message = string | Error | undefined;

function raise(
  message: Message,
  generated: string,
  details: { actual?: unknown; expected?: unknown; operator: string },
): never {
  if (message instanceof Error) throw message;
  throw new AssertionError({ message, generated, ...details });
}

// ---------------------------------------------------------------------------
// inspect

/** A compact, cycle-safe rendering of a value for assertion messages. */
export function inspect(value: unknown, depth = 2, maxLength = 2_000): string {
  const text = inspectDeep(value, depth);
  return text.length > maxLength
    ? `${text.slice(0, maxLength)} … (${
      text.length - maxLength
    } more characters)`
    : text;
}

function inspectDeep(value: unknown, depth: number): string {
  const seen = new Set<unknown>();
  const render = (v: unknown, d: number): string => {
    switch (typeof v) {
      case "string":
        return JSON.stringify(v);
      case "bigint":
        return `${v}n`;
      case "symbol":
        return v.toString();
      case "function":
        return `[Function: ${v.name || "(anonymous)"}]`;
      case "undefined":
        return "undefined";
      case "number":
        return Object.is(v, -0) ? "-0" : String(v);
      case "boolean":
        return String(v);
    }
    if (v === null) return "null";
    const obj = v as object;
    if (seen.has(obj)) return "[Circular]";
    if (obj instanceof Date) return `Date(${obj.toISOString?.() ?? "?"})`;
    if (obj instanceof RegExp) return String(obj);
    if (obj instanceof Error) return `[${obj.name}: ${obj.message}]`;
    if (d < 0) return Array.isArray(obj) ? "[Array]" : "[Object]";
    seen.add(obj);
    try {
      if (Array.isArray(obj)) {
        return `[${obj.map((x) => render(x, d - 1)).join(", ")}]`;
      }
      if (obj instanceof Map) {
        const parts = [...obj].map(([k, x]) =>
          `${render(k, d - 1)} => ${render(x, d - 1)}`
        );
        return `Map(${obj.size}) {${parts.join(", ")}}`;
      }
      if (obj instanceof Set) {
        const parts = [...obj].map((x) => render(x, d - 1));
        return `Set(${obj.size}) {${parts.join(", ")}}`;
      }
      if (ArrayBuffer.isView(obj)) {
        const name = obj.constructor?.name ?? "TypedArray";
        const items = Array.from(obj as unknown as ArrayLike<number>);
        return `${name}(${items.length}) [${items.join(", ")}]`;
      }
      const proto = Object.getPrototypeOf(obj);
      const ctor = proto === null
        ? "[Object: null prototype] "
        : proto === Object.prototype
        ? ""
        : `${proto.constructor?.name ?? "Object"} `;
      const keys: (string | symbol)[] = [
        ...Object.keys(obj),
        ...Object.getOwnPropertySymbols(obj).filter((s) =>
          Object.prototype.propertyIsEnumerable.call(obj, s)
        ),
      ];
      const rec = obj as Record<string | symbol, unknown>;
      const parts = keys.map((k) =>
        `${typeof k === "symbol" ? `[${k.toString()}]` : k}: ${
          render(rec[k], d - 1)
        }`
      );
      return `${ctor}{${parts.length ? ` ${parts.join(", ")} ` : ""}}`;
    } finally {
      seen.delete(obj);
    }
  };
  return render(value, depth);
}

// ---------------------------------------------------------------------------
// deep strict equality

const tagOf = (v: object) => Object.prototype.toString.call(v);

const BOXED_TAGS = new Set([
  "[object Number]",
  "[object String]",
  "[object Boolean]",
  "[object BigInt]",
  "[object Symbol]",
]);

function ownEnumerableKeys(v: object): (string | symbol)[] {
  return [
    ...Object.keys(v),
    ...Object.getOwnPropertySymbols(v).filter((s) =>
      Object.prototype.propertyIsEnumerable.call(v, s)
    ),
  ];
}

type Memo = Map<object, Set<object>>;

/** Node's `isDeepStrictEqual` semantics (the parts tests rely on). */
export function isDeepStrictEqual(a: unknown, b: unknown): boolean {
  return deepEq(a, b, new Map());
}

function deepEq(a: unknown, b: unknown, memo: Memo): boolean {
  if (Object.is(a, b)) return true;
  if (
    typeof a !== "object" || typeof b !== "object" || a === null || b === null
  ) {
    return false;
  }
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (tagOf(a) !== tagOf(b)) return false;

  // Cycles: assume equal while a pair is being compared.
  let seen = memo.get(a);
  if (seen?.has(b)) return true;
  if (!seen) memo.set(a, seen = new Set());
  seen.add(b);
  try {
    return deepEqObjects(a, b, memo);
  } finally {
    seen.delete(b);
  }
}

function deepEqObjects(a: object, b: object, memo: Memo): boolean {
  if (a instanceof Date) {
    if (!Object.is(a.getTime(), (b as Date).getTime())) return false;
  } else if (a instanceof RegExp) {
    const r = b as RegExp;
    if (
      a.source !== r.source || a.flags !== r.flags ||
      a.lastIndex !== r.lastIndex
    ) return false;
  } else if (a instanceof Error) {
    const e = b as Error;
    if (a.name !== e.name || a.message !== e.message) return false;
  } else if (BOXED_TAGS.has(tagOf(a))) {
    const x = (a as { valueOf(): unknown }).valueOf();
    const y = (b as { valueOf(): unknown }).valueOf();
    if (!Object.is(x, y)) return false;
  } else if (a instanceof ArrayBuffer) {
    const x = new Uint8Array(a);
    const y = new Uint8Array(b as ArrayBuffer);
    if (x.length !== y.length || x.some((v, i) => v !== y[i])) return false;
  } else if (ArrayBuffer.isView(a)) {
    if (a instanceof DataView) {
      const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
      const d = b as DataView;
      const y = new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
      if (x.length !== y.length || x.some((v, i) => v !== y[i])) return false;
    } else {
      const x = a as unknown as ArrayLike<unknown>;
      const y = b as unknown as ArrayLike<unknown>;
      if (x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) {
        if (!Object.is(x[i], y[i])) return false;
      }
      // Indices are own enumerable keys of typed arrays; skip them below.
      return sameKeys(a, b, memo, (k) => !/^\d+$/.test(String(k)));
    }
  } else if (Array.isArray(a)) {
    const y = b as unknown[];
    if (a.length !== y.length) return false;
    for (let i = 0; i < a.length; i++) {
      if ((i in a) !== (i in y)) return false;
      if (!deepEq(a[i], y[i], memo)) return false;
    }
    return sameKeys(a, b, memo, (k) => !/^\d+$/.test(String(k)));
  } else if (a instanceof Map) {
    if (!mapsEqual(a, b as Map<unknown, unknown>, memo)) return false;
  } else if (a instanceof Set) {
    if (!setsEqual(a, b as Set<unknown>, memo)) return false;
  }
  // Anything else (plain objects, class instances, WeakMap, ...): same
  // prototype (checked above) and deeply equal own enumerable properties.
  return sameKeys(a, b, memo, () => true);
}

function sameKeys(
  a: object,
  b: object,
  memo: Memo,
  include: (k: string | symbol) => boolean,
): boolean {
  const ka = ownEnumerableKeys(a).filter(include);
  const kb = ownEnumerableKeys(b).filter(include);
  if (ka.length !== kb.length) return false;
  const bKeys = new Set(kb);
  const ra = a as Record<string | symbol, unknown>;
  const rb = b as Record<string | symbol, unknown>;
  for (const k of ka) {
    if (!bKeys.has(k)) return false;
    if (!deepEq(ra[k], rb[k], memo)) return false;
  }
  return true;
}

function isObjectLike(v: unknown): v is object {
  return (typeof v === "object" && v !== null) || typeof v === "function";
}

function setsEqual(a: Set<unknown>, b: Set<unknown>, memo: Memo): boolean {
  if (a.size !== b.size) return false;
  const pending: unknown[] = [];
  for (const v of a) {
    if (b.has(v)) continue;
    if (!isObjectLike(v)) return false;
    pending.push(v);
  }
  if (pending.length === 0) return true;
  const candidates = [...b].filter((v) => isObjectLike(v) && !a.has(v));
  for (const v of pending) {
    const i = candidates.findIndex((c) => deepEq(v, c, memo));
    if (i < 0) return false;
    candidates.splice(i, 1);
  }
  return true;
}

function mapsEqual(
  a: Map<unknown, unknown>,
  b: Map<unknown, unknown>,
  memo: Memo,
): boolean {
  if (a.size !== b.size) return false;
  const pending: [unknown, unknown][] = [];
  for (const [k, v] of a) {
    if (b.has(k)) {
      if (!deepEq(v, b.get(k), memo)) return false;
      continue;
    }
    if (!isObjectLike(k)) return false;
    pending.push([k, v]);
  }
  if (pending.length === 0) return true;
  const candidates = [...b].filter(([k]) => isObjectLike(k) && !a.has(k));
  for (const [k, v] of pending) {
    const i = candidates.findIndex(([ck, cv]) =>
      deepEq(k, ck, memo) && deepEq(v, cv, memo)
    );
    if (i < 0) return false;
    candidates.splice(i, 1);
  }
  return true;
}

// ---------------------------------------------------------------------------
// assertions

/** Fails unless `value` is truthy. */
export function ok(value: unknown, message?: Message): asserts value {
  if (!value) {
    raise(
      message,
      `The expression evaluated to a falsy value: ${inspect(value)}`,
      {
        actual: value,
        expected: true,
        operator: "==",
      },
    );
  }
}

/** Fails unless `Object.is(actual, expected)`. */
export function strictEqual<T>(
  actual: unknown,
  expected: T,
  message?: Message,
): asserts actual is T {
  if (!Object.is(actual, expected)) {
    raise(
      message,
      `Expected values to be strictly equal:\n\n  actual: ${
        inspect(actual)
      }\nexpected: ${inspect(expected)}`,
      { actual, expected, operator: "strictEqual" },
    );
  }
}

/** Fails if `Object.is(actual, expected)`. */
export function notStrictEqual(
  actual: unknown,
  expected: unknown,
  message?: Message,
): void {
  if (Object.is(actual, expected)) {
    raise(
      message,
      `Expected "actual" to be strictly unequal to: ${inspect(expected)}`,
      { actual, expected, operator: "notStrictEqual" },
    );
  }
}

/** Fails unless `actual` and `expected` are deeply, strictly equal. */
export function deepStrictEqual<T>(
  actual: unknown,
  expected: T,
  message?: Message,
): asserts actual is T {
  if (!isDeepStrictEqual(actual, expected)) {
    raise(
      message,
      `Expected values to be strictly deep-equal:\n${
        firstDifference(actual, expected)
      }\n  actual: ${inspect(actual)}\nexpected: ${inspect(expected)}`,
      { actual, expected, operator: "deepStrictEqual" },
    );
  }
}

/** Describes where two deeply unequal values first differ. */
function firstDifference(a: unknown, b: unknown, path = "", depth = 0): string {
  const at = path || "(root)";
  if (
    depth > 20 || typeof a !== "object" || typeof b !== "object" ||
    a === null || b === null ||
    Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)
  ) {
    return `first difference at ${at}: ${inspect(a, 1, 300)} !== ${
      inspect(b, 1, 300)
    }\n`;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      if (!isDeepStrictEqual(a[i], b[i])) {
        return firstDifference(a[i], b[i], `${path}[${i}]`, depth + 1);
      }
    }
    if (a.length !== b.length) {
      return `first difference at ${at}: length ${a.length} !== ${b.length}\n`;
    }
  } else if (!(a instanceof Map) && !(a instanceof Set)) {
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    for (const key of new Set([...Object.keys(ra), ...Object.keys(rb)])) {
      if (!(key in ra) || !(key in rb)) {
        return `first difference at ${at}: key "${key}" is only in ${
          key in ra ? "actual" : "expected"
        }\n`;
      }
      if (!isDeepStrictEqual(ra[key], rb[key])) {
        return firstDifference(ra[key], rb[key], `${path}.${key}`, depth + 1);
      }
    }
  }
  return `values differ at ${at}\n`;
}

/** Fails if `actual` and `expected` are deeply, strictly equal. */
export function notDeepStrictEqual(
  actual: unknown,
  expected: unknown,
  message?: Message,
): void {
  if (isDeepStrictEqual(actual, expected)) {
    raise(
      message,
      `Expected "actual" not to be strictly deep-equal to: ${
        inspect(expected)
      }`,
      { actual, expected, operator: "notDeepStrictEqual" },
    );
  }
}

/** Strict mode: same as {@linkcode strictEqual}. */
export const equal: typeof strictEqual = strictEqual;
/** Strict mode: same as {@linkcode notStrictEqual}. */
export const notEqual: typeof notStrictEqual = notStrictEqual;
/** Strict mode: same as {@linkcode deepStrictEqual}. */
export const deepEqual: typeof deepStrictEqual = deepStrictEqual;
/** Strict mode: same as {@linkcode notDeepStrictEqual}. */
export const notDeepEqual: typeof notDeepStrictEqual = notDeepStrictEqual;

/** What `throws` / `rejects` accept as the expected error. */
export type ErrorExpectation =
  | RegExp
  | ((err: unknown) => unknown)
  | (abstract new (...args: never[]) => unknown)
  | Record<string | symbol, unknown>
  | Error;

function validateError(
  actual: unknown,
  expected: ErrorExpectation | undefined,
  operator: string,
  message: Message,
): void {
  if (expected === undefined) return;
  if (expected instanceof RegExp) {
    const str = String(actual);
    if (expected.test(str)) return;
    raise(
      message,
      `The input did not match the regular expression ${
        String(expected)
      }. Input:\n\n${inspect(str)}\n`,
      { actual, expected, operator },
    );
  }
  if (typeof expected === "function") {
    const fn = expected as { prototype?: unknown; name?: string };
    if (fn.prototype !== undefined && isObjectLike(actual)) {
      if (actual instanceof (expected as new () => unknown)) return;
    }
    if (
      (expected as unknown) === Error ||
      Object.prototype.isPrototypeOf.call(Error, expected)
    ) {
      const actualName = isObjectLike(actual)
        ? (actual as { constructor?: { name?: string } }).constructor?.name
        : typeof actual;
      raise(
        message,
        `The error is expected to be an instance of "${fn.name}". Received "${actualName}"\n\nError message:\n\n${
          actual instanceof Error ? actual.message : inspect(actual)
        }`,
        { actual, expected, operator },
      );
    }
    const result = (expected as (err: unknown) => unknown)(actual);
    if (result === true) return;
    raise(
      message,
      `The ${
        fn.name ? `"${fn.name}" validation function` : "validation function"
      } is expected to return "true". Received ${
        inspect(result)
      }\n\nCaught error:\n\n${inspect(actual)}`,
      { actual, expected, operator },
    );
  }
  // Validation object (or an Error instance): every listed key must match.
  const keys: (string | symbol)[] = ownEnumerableKeys(expected as object);
  if (expected instanceof Error) keys.push("name", "message");
  if (!isObjectLike(actual)) {
    raise(
      message,
      `Expected an error object, got ${inspect(actual)}`,
      { actual, expected, operator },
    );
  }
  const act = actual as Record<string | symbol, unknown>;
  const exp = expected as Record<string | symbol, unknown>;
  for (const key of keys) {
    const want = exp[key];
    const got = act[key];
    if (want instanceof RegExp && typeof got === "string") {
      if (want.test(got)) continue;
    } else if (key in act && isDeepStrictEqual(got, want)) {
      continue;
    }
    raise(
      message,
      `Expected values to be strictly deep-equal at key ${
        String(key)
      }:\n\n  actual: ${inspect(got)}\nexpected: ${inspect(want)}`,
      { actual, expected, operator },
    );
  }
}

function splitArgs(
  expected: ErrorExpectation | string | undefined,
  message: Message,
): [ErrorExpectation | undefined, Message] {
  if (typeof expected === "string") return [undefined, expected];
  return [expected, message];
}

const NOTHING = Symbol("nothing thrown");

/** Fails unless `fn` throws an error matching `expected` (if given). */
export function throws(
  fn: () => unknown,
  expected?: ErrorExpectation | string,
  message?: Message,
): void {
  if (typeof fn !== "function") {
    throw new TypeError('The "fn" argument must be of type function');
  }
  const [exp, msg] = splitArgs(expected, message);
  let caught: unknown = NOTHING;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  if (caught === NOTHING) {
    raise(
      msg,
      `Missing expected exception${typeof msg === "string" ? `: ${msg}` : "."}`,
      { actual: undefined, expected: exp, operator: "throws" },
    );
  }
  validateError(caught, exp, "throws", msg);
}

/** Fails unless the promise (or the one `fn` returns) rejects as expected. */
export async function rejects(
  promiseOrFn: PromiseLike<unknown> | (() => PromiseLike<unknown>),
  expected?: ErrorExpectation | string,
  message?: Message,
): Promise<void> {
  const [exp, msg] = splitArgs(expected, message);
  let caught: unknown = NOTHING;
  try {
    const promise = typeof promiseOrFn === "function"
      ? promiseOrFn()
      : promiseOrFn;
    if (
      !isObjectLike(promise) ||
      typeof (promise as { then?: unknown }).then !== "function"
    ) {
      throw new TypeError(
        'The "promiseFn" argument must return a promise (thenable)',
      );
    }
    await promise;
  } catch (err) {
    if (err instanceof TypeError && /must return a promise/.test(err.message)) {
      throw err;
    }
    caught = err;
  }
  if (caught === NOTHING) {
    raise(
      msg,
      `Missing expected rejection${typeof msg === "string" ? `: ${msg}` : "."}`,
      { actual: undefined, expected: exp, operator: "rejects" },
    );
  }
  validateError(caught, exp, "rejects", msg);
}

/** Fails if `fn` throws. */
export function doesNotThrow(
  fn: () => unknown,
  expected?: ErrorExpectation | string,
  message?: Message,
): void {
  const [, msg] = splitArgs(expected, message);
  try {
    fn();
  } catch (err) {
    raise(
      msg,
      `Got unwanted exception.\nActual message: "${
        err instanceof Error ? err.message : inspect(err)
      }"`,
      { actual: err, expected, operator: "doesNotThrow" },
    );
  }
}

/** Fails if the promise (or the one `fn` returns) rejects. */
export async function doesNotReject(
  promiseOrFn: PromiseLike<unknown> | (() => PromiseLike<unknown>),
  expected?: ErrorExpectation | string,
  message?: Message,
): Promise<void> {
  const [, msg] = splitArgs(expected, message);
  try {
    await (typeof promiseOrFn === "function" ? promiseOrFn() : promiseOrFn);
  } catch (err) {
    raise(
      msg,
      `Got unwanted rejection.\nActual message: "${
        err instanceof Error ? err.message : inspect(err)
      }"`,
      { actual: err, expected, operator: "doesNotReject" },
    );
  }
}

/** Fails unless `string` matches `regexp`. */
export function match(string: string, regexp: RegExp, message?: Message): void {
  if (typeof string !== "string" || !regexp.test(string)) {
    raise(
      message,
      typeof string !== "string"
        ? `The "string" argument must be of type string. Received ${
          inspect(string)
        }`
        : `The input did not match the regular expression ${
          String(regexp)
        }. Input:\n\n${inspect(string)}\n`,
      { actual: string, expected: regexp, operator: "match" },
    );
  }
}

/** Fails if `string` matches `regexp`. */
export function doesNotMatch(
  string: string,
  regexp: RegExp,
  message?: Message,
): void {
  if (typeof string !== "string" || regexp.test(string)) {
    raise(
      message,
      typeof string !== "string"
        ? `The "string" argument must be of type string. Received ${
          inspect(string)
        }`
        : `The input was expected to not match the regular expression ${
          String(regexp)
        }. Input:\n\n${inspect(string)}\n`,
      { actual: string, expected: regexp, operator: "doesNotMatch" },
    );
  }
}

/** Always fails. */
export function fail(message?: Message): never {
  raise(message, "Failed", { operator: "fail" });
}

/** Fails if `value` is neither `null` nor `undefined`. */
export function ifError(value: unknown): void {
  if (value === null || value === undefined) return;
  if (value instanceof Error) throw value;
  raise(undefined, `ifError got unwanted exception: ${inspect(value)}`, {
    actual: value,
    expected: null,
    operator: "ifError",
  });
}

/** The strict `assert` function, carrying every assertion as a property. */
export interface StrictAssert {
  (value: unknown, message?: Message): asserts value;
  ok: typeof ok;
  equal: typeof strictEqual;
  notEqual: typeof notStrictEqual;
  strictEqual: typeof strictEqual;
  notStrictEqual: typeof notStrictEqual;
  deepEqual: typeof deepStrictEqual;
  notDeepEqual: typeof notDeepStrictEqual;
  deepStrictEqual: typeof deepStrictEqual;
  notDeepStrictEqual: typeof notDeepStrictEqual;
  throws: typeof throws;
  rejects: typeof rejects;
  doesNotThrow: typeof doesNotThrow;
  doesNotReject: typeof doesNotReject;
  match: typeof match;
  doesNotMatch: typeof doesNotMatch;
  fail: typeof fail;
  ifError: typeof ifError;
  AssertionError: typeof AssertionError;
  strict: StrictAssert;
}

function assertFn(value: unknown, message?: Message): asserts value {
  ok(value, message);
}

/** `node:assert/strict`'s default export. */
export const strict: StrictAssert = Object.assign(assertFn, {
  ok,
  equal,
  notEqual,
  strictEqual,
  notStrictEqual,
  deepEqual,
  notDeepEqual,
  deepStrictEqual,
  notDeepStrictEqual,
  throws,
  rejects,
  doesNotThrow,
  doesNotReject,
  match,
  doesNotMatch,
  fail,
  ifError,
  AssertionError,
}) as StrictAssert;
strict.strict = strict;

export default strict;
