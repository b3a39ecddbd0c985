// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The scheduler port: every timer the library starts (actor timers,
 * backoff waits, grace windows, ask timeouts, receive timeouts, shutdown
 * deadlines, WebSocket deadlines) and every reading of its clock goes
 * through one {@linkcode Scheduler}, given to
 * `ActorSystem.create(name, { scheduler })`. The default,
 * {@linkcode realScheduler}, is the host's `setTimeout` and
 * `performance.now()`; a test hands the system a manual one
 * (`@understudy/core/testing`) and moves time itself, with no global faked.
 *
 * The dispatcher's own yield (a `setTimeout(0)` that lets the host's timers
 * and I/O run during a long drain) is not a timer of the library's: it
 * always uses the host's, so message processing never waits for a manual
 * clock.
 *
 * @module
 */

import type { DueKeeper } from "./due_keeper.ts";

/**
 * What the runtime needs of time: start and cancel a one-shot timer, and
 * read a monotonic clock in milliseconds.
 *
 * @example A scheduler that logs every timer it starts
 * ```ts
 * import { ActorSystem, realScheduler, type Scheduler } from "@understudy/core";
 *
 * const started: number[] = [];
 * const logging: Scheduler = {
 *   setTimeout(callback, delayMs) {
 *     started.push(delayMs);
 *     return realScheduler.setTimeout(callback, delayMs);
 *   },
 *   clearTimeout: (handle) => realScheduler.clearTimeout(handle),
 *   now: () => realScheduler.now(),
 * };
 * const system = ActorSystem.create("app", { scheduler: logging });
 * await system.terminate();
 * ```
 */
export interface Scheduler {
  /**
   * Calls `callback` once, `delayMs` milliseconds from now (0 to
   * 2,147,483,647; the runtime validates delays before they get here).
   * Returns a handle for {@linkcode Scheduler.clearTimeout}.
   */
  setTimeout(callback: () => void, delayMs: number): unknown;
  /** Cancels a timer; a handle already fired or cancelled is ignored. */
  clearTimeout(handle: unknown): void;
  /** A monotonic clock in milliseconds. */
  now(): number;
  /**
   * Where the due times of the runtime's own timers that must outlive the
   * system's memory are kept (receive timeouts, typed backoff restarts);
   * a durable Actor host's scheduler has one. Absent: nothing is kept.
   */
  readonly dueKeeper?: DueKeeper;
}

/**
 * The host's timers and clock: `setTimeout`, `clearTimeout`, and
 * `performance.now()` where it exists (else `Date.now()`). Each is read
 * from `globalThis` at the call, so fake timers installed by a test take
 * effect. The default of `ActorSystemOptions.scheduler`.
 *
 * @example Reading the clock
 * ```ts
 * import { realScheduler } from "@understudy/core";
 *
 * const start = realScheduler.now();
 * const handle = realScheduler.setTimeout(() => {}, 1_000);
 * realScheduler.clearTimeout(handle);
 * console.log(realScheduler.now() - start >= 0); // true
 * ```
 */
export const realScheduler: Scheduler = {
  setTimeout: (callback, delayMs) => globalThis.setTimeout(callback, delayMs),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as number),
  now: () => globalThis.performance?.now() ?? Date.now(),
};

/** Whether `value` has the three functions of a {@linkcode Scheduler}. */
export function isScheduler(value: unknown): value is Scheduler {
  const candidate = value as Partial<Scheduler> | null | undefined;
  return typeof candidate === "object" && candidate !== null &&
    typeof candidate.setTimeout === "function" &&
    typeof candidate.clearTimeout === "function" &&
    typeof candidate.now === "function";
}
