// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The ground floor, under every other: checking arguments at the call that
 * takes them, and describing any value safely. It imports nothing, so the
 * backoff policies stay importable alone.
 *
 * Every message has one shape, built in one place ({@linkcode fail}): what
 * failed, the option, what it must be, and what was given, as in
 * `Cannot create exponential backoff: "maxMs" must be a number in
 * [minMs=200, 2147483647] (got 100)`. A number of the wrong size is a
 * `RangeError`; anything else of the wrong kind a `TypeError`.
 *
 * The descriptions never throw, whatever the value (a null-prototype object,
 * a revoked Proxy, an object whose `toString` or `name` getter throws),
 * because they also run on the failure path, where a second throw would
 * escape an actor's turn. Internal: not exported from the package.
 *
 * @module
 */

/**
 * The longest delay, in milliseconds, that `setTimeout` honours:
 * 2,147,483,647 (2³¹ − 1, about 24.8 days).
 *
 * Timers store the delay as a signed 32-bit integer, so a longer delay
 * overflows and the callback fires at once. Every policy clamps its delays
 * to this value, and every option that sets a timer is checked against it.
 *
 * @example Clamp a delay of your own
 * ```ts
 * import { MAX_TIMER_DELAY_MS } from "@understudy/core/backoff";
 * import assert from "node:assert/strict";
 *
 * const oneYearMs = 365 * 24 * 60 * 60 * 1000;
 * assert.equal(Math.min(oneYearMs, MAX_TIMER_DELAY_MS), 2_147_483_647);
 * ```
 */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;

/** Names of actors (and of a BackoffSupervisor's children): no `/`, no whitespace, not starting with `$`. */
export const ACTOR_NAME_PATTERN = /^[^/$\s][^/\s]*$/;

/**
 * Throws the one error shape: `Cannot ${action}: "${option}" must be
 * ${expected} (got ${value})`. A `RangeError` when `isRange` (a number out
 * of bounds), else a `TypeError`.
 */
export function fail(
  action: string,
  option: string,
  expected: string,
  value: unknown,
  isRange: boolean = false,
): never {
  throw new (isRange ? RangeError : TypeError)(
    `Cannot ${action}: "${option}" must be ${expected} (got ${
      describeValue(value)
    })`,
  );
}

/**
 * `value` if it is a number in [`lowest`, `highest`] (an integer if
 * `integer`); else a `RangeError` (a number) or `TypeError` (not a number).
 * `lowestName` names a bound that comes from another option.
 */
export function checkNumber(
  action: string,
  option: string,
  value: unknown,
  lowest: number,
  highest: number,
  integer: boolean = false,
  lowestName: string = "",
): number {
  // The comparisons are false for NaN.
  if (
    !(typeof value === "number" && value >= lowest && value <= highest &&
      (!integer || Number.isInteger(value)))
  ) {
    fail(
      action,
      option,
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
 * A delay a timer can wait: a number of milliseconds from `lowest` (default
 * 0) to 2³¹−1. `lowestName` names a bound that comes from another option, as
 * in `from minBackoff (200) to 2147483647`.
 */
export function checkDelay(
  action: string,
  option: string,
  value: unknown,
  lowest: number = 0,
  lowestName: string = "",
): number {
  if (
    !(typeof value === "number" && value >= lowest &&
      value <= MAX_TIMER_DELAY_MS)
  ) {
    fail(
      action,
      option,
      `a finite number of milliseconds from ${
        lowestName ? `${lowestName} (${lowest})` : lowest
      } to ${MAX_TIMER_DELAY_MS}`,
      value,
      typeof value === "number",
    );
  }
  return value;
}

/**
 * A time span that cannot be 0 (a window, a period): a number of
 * milliseconds > 0 and ≤ `highest`; with the default `highest`, `Infinity`
 * (never) is allowed too.
 */
export function checkDuration(
  action: string,
  option: string,
  value: unknown,
  highest: number = Infinity,
): number {
  if (!(typeof value === "number" && value > 0 && value <= highest)) {
    fail(
      action,
      option,
      `a number of milliseconds > 0 ${
        highest === Infinity ? "or Infinity" : `and <= ${highest}`
      }`,
      value,
      typeof value === "number",
    );
  }
  return value;
}

/**
 * A count: a whole number ≥ `lowest` (default 0), or `Infinity`. A `lowest`
 * of 1 is for counts where 0 would do nothing (0 attempts, a capacity of 0).
 */
export function checkCount(
  action: string,
  option: string,
  value: unknown,
  lowest: number = 0,
): number {
  if (
    typeof value !== "number" || !(value >= lowest) ||
    (value !== Infinity && !Number.isInteger(value))
  ) {
    fail(
      action,
      option,
      `a whole number >= ${lowest} or Infinity`,
      value,
      typeof value === "number",
    );
  }
  return value;
}

/**
 * What {@linkcode checkPolicy} accepts: the shape of a `BackoffPolicy`
 * (`src/backoff/backoff_policy.ts`), declared here so that this floor
 * imports nothing.
 */
export interface DelayPolicy {
  /** The delay in milliseconds before the next attempt. */
  delayFor(restartCount: number): number;
}

/**
 * A backoff policy: an object (or function) with a `delayFor` method. What
 * it returns is checked where it is used, when a delay is asked for.
 */
export function checkPolicy(
  action: string,
  option: string,
  value: unknown,
): DelayPolicy {
  let delayFor: unknown;
  try {
    delayFor = (typeof value === "object" && value !== null) ||
        typeof value === "function"
      ? (value as Partial<DelayPolicy>).delayFor
      : undefined;
  } catch {
    // A revoked Proxy, or a getter that throws: not a policy.
  }
  if (typeof delayFor !== "function") {
    fail(
      action,
      option,
      "a BackoffPolicy (an object with a delayFor(restartCount) method)",
      value,
    );
  }
  return value as DelayPolicy;
}

/**
 * An optional `AbortSignal`: `undefined`, or an object with a boolean
 * `aborted` and the two listener functions (so a signal from another realm
 * or a polyfill passes too).
 */
export function checkSignal(
  action: string,
  option: string,
  value: unknown,
): AbortSignal | undefined {
  const candidate = value as Partial<AbortSignal> | null | undefined;
  if (
    candidate !== undefined &&
    !(typeof candidate === "object" && candidate !== null &&
      typeof candidate.aborted === "boolean" &&
      typeof candidate.addEventListener === "function" &&
      typeof candidate.removeEventListener === "function")
  ) {
    fail(action, option, "an AbortSignal", value);
  }
  return candidate as AbortSignal | undefined;
}

/** An actor name: a non-empty string without `/` or whitespace, not starting with `$`. */
export function checkActorName(
  action: string,
  option: string,
  value: unknown,
): string {
  if (typeof value !== "string" || !ACTOR_NAME_PATTERN.test(value)) {
    fail(
      action,
      option,
      'a non-empty string without "/" or whitespace, not starting with "$"',
      value,
    );
  }
  return value;
}

/**
 * Whether `value` is an instance of one of `classes`, asked where a hostile
 * value may throw at the look (a revoked `Proxy` throws at `instanceof`):
 * `undefined` then, for the caller to leave the value to the boundary that
 * is made for it (an actor's turn).
 *
 * @example
 * ```ts
 * import { instanceOfAny } from "./validation.ts";
 *
 * instanceOfAny(new Date(), [Date, RegExp]); // true
 * ```
 */
export function instanceOfAny(
  value: unknown,
  // deno-lint-ignore ban-types
  classes: readonly Function[],
): boolean | undefined {
  try {
    for (const type of classes) if (value instanceof type) return true;
    return false;
  } catch {
    return undefined;
  }
}

/**
 * Shows a value in a message: strings quoted (so `"5"` is not mistaken for
 * `5`), bigints with their `n`, functions and objects by kind, numbers as
 * written. Never throws.
 */
export function describeValue(value: unknown): string {
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

/**
 * Describes a thrown or rejected value for a log line or a dead-letter
 * reason: `Name: message` for errors, the text of strings, and
 * {@linkcode describeValue} for anything else. Never throws.
 */
export function describeError(error: unknown): string {
  if (typeof error === "string") return error;
  try {
    if (error instanceof Error) {
      const name = nameOf(error) || "Error";
      const message = read(error, "message");
      return typeof message === "string" && message !== ""
        ? `${name}: ${message}`
        : name;
    }
  } catch {
    // instanceof on a revoked Proxy throws; describeValue copes.
  }
  return describeValue(error);
}

/** `value[key]`, or `undefined` when reading it throws. */
function read(value: unknown, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** The string `name` of `value`, or "" (absent, not a string, or throwing). */
function nameOf(value: unknown): string {
  const name = value == null ? undefined : read(value, "name");
  return typeof name === "string" ? name : "";
}
