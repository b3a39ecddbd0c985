// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

// One `getRandomValues` call per 256 numbers: the call itself costs far more
// than reading a typed array, and `delayFor` runs on every restart. Pure, so
// that a bundle that never draws a number drops the buffer.
const SIZE = 256;
const buffer = /* @__PURE__ */ new Uint32Array(SIZE);
let next = SIZE;

/**
 * Returns a cryptographically strong random number in [0, 1), the default
 * source of randomness for every policy in this module.
 *
 * Numbers come from `crypto.getRandomValues` (32 bits each), read 256 at a
 * time, so a call is usually just an array read. Unlike `Math.random`, whose
 * algorithm and seeding vary from engine to engine, it is unpredictable
 * everywhere, so clients that start together still draw independent delays.
 *
 * @example
 * ```ts
 * import { secureRandom } from "@understudy/core/backoff";
 * import assert from "node:assert/strict";
 *
 * const u = secureRandom();
 * assert.ok(u >= 0 && u < 1);
 * ```
 *
 * @returns A number in [0, 1).
 */
export function secureRandom(): number {
  if (next === SIZE) {
    crypto.getRandomValues(buffer);
    next = 0;
  }
  return buffer[next++]! / 2 ** 32;
}
