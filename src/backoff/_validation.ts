// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

// Validation shared by the policy factories and `delayFor`. Every message has
// the same shape, built in one place (`fail`): what failed, the option, what
// it must be, and what was given, e.g. `Cannot create exponential backoff:
// "maxMs" must be a number in [minMs=200, 2147483647] (got maxMs=100)`.

import { MAX_TIMER_DELAY_MS } from "./max_timer_delay.ts";
import { secureRandom } from "./secure_random.ts";

/**
 * Returns `value` if it is a number from `lowest` to `highest` (an integer if
 * `integer` is set), else throws a RangeError, or a TypeError if it is not a
 * number at all, whose message names `name`, `value` and the range.
 *
 * @param action What cannot be done if it throws, such as "create
 * exponential backoff".
 * @param lowestName The option `lowest` comes from, if any, for the message.
 */
export function checkNumber(
  action: string,
  name: string,
  value: unknown,
  lowest: number,
  highest: number,
  integer?: boolean,
  lowestName?: string,
): number {
  // The comparisons are false for NaN.
  if (
    !(typeof value === "number" && value >= lowest && value <= highest &&
      (!integer || Number.isInteger(value)))
  ) {
    fail(
      action,
      name,
      `${integer ? "an integer" : "a number"} in [${
        lowestName ? lowestName + "=" : ""
      }${lowest}, ${highest}]`,
      value,
      typeof value === "number",
    );
  }
  return value;
}

/**
 * Throws a RangeError if `isRange` (the value has the right type but is out
 * of range), else a TypeError, naming `name`, `value` and what was expected.
 */
export function fail(
  action: string,
  name: string,
  expected: string,
  value: unknown,
  isRange?: boolean,
): never {
  throw new (isRange ? RangeError : TypeError)(
    `Cannot ${action}: "${name}" must be ${expected} (got ${name}=${
      describe(value)
    })`,
  );
}

/**
 * Shows a bad value in an error message, and never throws, whatever the value
 * (a null-prototype object, a revoked Proxy, a `toString` or `name` getter
 * that throws): a throw here would replace the error being reported. Strings
 * are quoted so that `minMs="5"` is not mistaken for `minMs=5`; bigints keep
 * their `n`; functions and objects are shown by kind. The same format as the
 * runtime's `describeValue`, which this module may not import.
 */
export function describe(value: unknown): string {
  try {
    switch (typeof value) {
      case "string":
        return JSON.stringify(value);
      case "bigint":
        return `${value}n`;
      case "function":
        return `function ${nameOf(value) || "(anonymous)"}`;
      case "object": {
        if (value === null) return "null";
        if (Array.isArray(value)) return "an array";
        const proto = Object.getPrototypeOf(value);
        return proto === null
          ? "an object (no prototype)"
          : `an object (${
            nameOf(read(proto, "constructor")) || "anonymous class"
          })`;
      }
      default: // numbers, booleans, undefined; String() never throws for a symbol
        return String(value);
    }
  } catch {
    // A revoked Proxy throws on every inspection, even Array.isArray.
    return "an object (unreadable)";
  }
}

/** `value[key]`, or undefined if reading it throws. */
function read(value: unknown, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** `value.name` if it is a string, else "" (also if reading it throws). */
function nameOf(value: unknown): string {
  const name = value == null ? undefined : read(value, "name");
  return typeof name === "string" ? name : "";
}

/** The validated options a policy's setup works from. */
export interface OptionReader {
  /**
   * Reads a numeric option: a number from `lowest` to `highest` (an integer
   * if `integer` is set), `fallback` if absent. `lowest` may name an option
   * read before, such as `"minMs"`. The default range, [0,
   * MAX_TIMER_DELAY_MS], is that of a time in milliseconds: a longer time
   * could never be waited for.
   */
  read(
    name: string,
    lowest?: number | string,
    highest?: number,
    fallback?: number,
    integer?: boolean,
  ): number;
  /**
   * The `random` option, checked at each call (see {@linkcode checkedRandom}),
   * or {@linkcode secureRandom} if absent.
   */
  random: () => number;
  /** Throws a TypeError for option `name`. */
  invalid(name: string, expected: string, value: unknown): never;
}

/**
 * Checks that `options` is an object and that its `random` option, if given,
 * is a function, and returns the reader for the other options.
 *
 * @param kind The policy, such as "exponential", for messages.
 */
export function readOptions(kind: string, options: unknown): OptionReader {
  const action = `create ${kind} backoff`;
  const invalid = (name: string, expected: string, value: unknown): never =>
    fail(action, name, expected, value);

  if (typeof options !== "object" || options === null) {
    invalid("options", "an object", options);
  }
  const raw = options as Record<string, unknown>;
  // Only `undefined` means absent: a null is reported as given.
  const random = raw.random === undefined ? secureRandom : raw.random;
  if (typeof random !== "function") invalid("random", "a function", random);

  return {
    read(name, lowest = 0, highest = MAX_TIMER_DELAY_MS, fallback, integer) {
      const isNamed = typeof lowest === "string";
      return checkNumber(
        action,
        name,
        raw[name] === undefined ? fallback : raw[name],
        isNamed ? raw[lowest] as number : lowest,
        highest,
        integer,
        isNamed ? lowest : "",
      );
    },
    random: random === secureRandom
      ? secureRandom
      : checkedRandom(kind, random as () => number),
    invalid,
  };
}

/**
 * What a custom `random` returning exactly 1 stands for: the largest number
 * {@linkcode secureRandom} returns, 1 − 2⁻³², far enough below 1 that
 * `1 + u` and `u × v` still round below 2 and `v`.
 */
const BELOW_ONE = 1 - 2 ** -32;

/**
 * Wraps a custom `random` so that what it returns is checked where it is
 * used, at delay time (it cannot be checked when the policy is created): a
 * number in [0, 1) is used as is; exactly 1 (as from a generator dividing by
 * 2³² − 1) stands for 1 − 2⁻³², so every documented bound holds; anything
 * else (NaN, ±Infinity, a number outside [0, 1], a non-number) throws a
 * RangeError (a TypeError for a non-number) naming `random()` and the value. Clamping such a value instead would hide a broken
 * generator behind delays that are always the longest or always the shortest,
 * with no jitter left: the synchronised retries jitter exists to prevent. If
 * `random` itself throws, the error propagates unchanged.
 *
 * @param kind The policy, such as "exponential", for messages.
 */
export function checkedRandom(
  kind: string,
  random: () => number,
): () => number {
  const action = `compute ${kind} backoff delay`;
  return () => {
    const u = random();
    // The comparisons are false for NaN and for a non-number.
    if (!(typeof u === "number" && u >= 0 && u <= 1)) {
      fail(action, "random()", "a number in [0, 1)", u, typeof u === "number");
    }
    return u < 1 ? u : BELOW_ONE;
  };
}
