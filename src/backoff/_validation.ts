// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

// How the policy factories read their options and `delayFor` its random
// source, on the package's one validation module (`../validation.ts`, which
// also gives every message its shape).

import { checkNumber, fail, MAX_TIMER_DELAY_MS } from "../validation.ts";
import { secureRandom } from "./secure_random.ts";

// The policies and the WebSocket options validate through these.
export { checkNumber, fail };

/** Reads one policy's options, each checked as it is read. */
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
    // Exactly 1 stands for the largest number secureRandom returns,
    // 1 − 2⁻³², far enough below 1 that `1 + u` and `u × v` still round
    // below 2 and `v`. (Written here, not as a module constant: esbuild keeps
    // a top-level `1 - 2 ** -32` in every bundle that imports this file.)
    return u < 1 ? u : 1 - 2 ** -32;
  };
}
