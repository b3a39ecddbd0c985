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
  // Strings are quoted so that `minMs="5"` is not mistaken for `minMs=5`.
  const shown = typeof value === "string" ? `"${value}"` : String(value);
  throw new (isRange ? RangeError : TypeError)(
    `Cannot ${action}: "${name}" must be ${expected} (got ${name}=${shown})`,
  );
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
  /** The `random` option, or {@linkcode secureRandom} if absent. */
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
    random: random as () => number,
    invalid,
  };
}
