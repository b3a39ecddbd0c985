// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Shows a bad argument in an error message: strings quoted (so `"5"` is not
 * mistaken for `5`), functions and objects by kind, numbers as written.
 * Internal; shared by the supervision and runtime floors.
 */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "function":
      return `function ${value.name || "(anonymous)"}`;
    case "object":
      if (value === null) return "null";
      if (Array.isArray(value)) return "an array";
      return `an object (${value.constructor?.name ?? "no prototype"})`;
    case "symbol":
      return value.toString();
    default:
      return String(value);
  }
}
