// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Safe descriptions of values user code hands the runtime: bad arguments in
 * error messages, and thrown values in logs and dead-letter reasons. Neither
 * function ever throws, whatever the value (a null-prototype object, a
 * revoked Proxy, an object whose `toString` or `name` getter throws), because
 * they run on the failure path, where a second throw would escape the turn.
 * Internal; shared by every floor above backoff.
 *
 * @module
 */

/**
 * Shows a bad argument in an error message: strings quoted (so `"5"` is not
 * mistaken for `5`), bigints with their `n`, functions and objects by kind,
 * numbers as written. Never throws.
 */
export function describeValue(value: unknown): string {
  try {
    switch (typeof value) {
      case "string":
        return JSON.stringify(value);
      case "function":
        return `function ${ownString(value, "name") || "(anonymous)"}`;
      case "bigint":
        return `${value}n`;
      case "object": {
        if (value === null) return "null";
        if (Array.isArray(value)) return "an array";
        const proto = Object.getPrototypeOf(value);
        if (proto === null) return "an object (no prototype)";
        const ctor = ownString(proto, "constructor", "name");
        return `an object (${ctor || "anonymous class"})`;
      }
      case "symbol":
        return value.toString();
      default:
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
      const name = ownString(error, "name") || "Error";
      const message = ownString(error, "message");
      return message === "" ? name : `${name}: ${message}`;
    }
  } catch {
    // instanceof on a revoked Proxy throws; describeValue copes.
  }
  return describeValue(error);
}

/** Reads `value[key]` (or `value[key][key2]`) as a string; "" if absent, not a string, or throwing. */
function ownString(value: unknown, key: string, key2?: string): string {
  try {
    // deno-lint-ignore no-explicit-any
    let read = (value as any)[key];
    if (key2 !== undefined) read = read == null ? undefined : read[key2];
    return typeof read === "string" ? read : "";
  } catch {
    return "";
  }
}
