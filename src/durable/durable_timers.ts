// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Stored timers: a timer named by the actor it is for (its path) and a key,
 * whose message is stored data, not a closure, so that it survives an
 * eviction or a restart: the object's alarm delivers it to the actor at
 * that path, re-created by `createActors` first. Kept in one storage
 * record, rewritten at each change (one row written).
 *
 * @module
 */

import type { DurableStore } from "../patterns/durable_port.ts";
import { storeWriter } from "../patterns/durable_port.ts";
import { fail } from "../validation.ts";
import type { AlarmClock } from "./alarm_clock.ts";

/** Where the table of stored timers is kept. */
export const TIMERS_KEY = "understudy/timers";

/** One stored timer: path, key, message, due (wall ms), interval (0: single). */
type StoredTimer = [string, string, unknown, number, number];

/**
 * Timers kept in the object's storage, by (actor path, key): each delivers
 * its stored message to the actor exposed at that path, once per due time,
 * even after an eviction or a workerd restart (the object's alarm wakes
 * it). Reached as `host.timers` of a durable {@linkcode ActorHost}.
 *
 * Each start or cancel writes the table (one storage write, made durable
 * before the turn's output leaves the object). A due timer is removed from
 * the table (or moved to its next due time) before its message is
 * delivered: at most once per due time, as the actor sees it.
 *
 * @example A reminder in a day, whatever happens to the object meanwhile
 * ```ts no-run: needs a Durable Object's storage
 * import type { ActorHost } from "@understudy/core/durable";
 *
 * declare const host: ActorHost;
 * host.timers.startSingle("/user/billing", "invoice", { kind: "send-invoice" }, 86_400_000);
 * ```
 */
export class DurableTimers {
  readonly #store: DurableStore;
  readonly #put: (key: string, value: unknown) => void;
  readonly #clock: AlarmClock;
  #table: StoredTimer[] | undefined = undefined;

  /** @ignore Made by the durable host. */
  constructor(store: DurableStore, clock: AlarmClock) {
    this.#store = store;
    this.#put = storeWriter("make durable timers", store);
    this.#clock = clock;
  }

  /**
   * Delivers `message` to the actor at `path` in `delayMs` (replacing a
   * timer of the same path and key).
   *
   * @example Usage
   * ```ts no-run: needs a Durable Object's storage
   * import type { ActorHost } from "@understudy/core/durable";
   *
   * declare const host: ActorHost;
   * host.timers.startSingle("/user/room", "close", "close", 60_000);
   * ```
   *
   * @param path The actor's path (an exposed actor: `host.expose(ref)`).
   * @param key The timer's name, unique for that actor.
   * @param message What to deliver: structured-cloneable data.
   * @param delayMs In how long, in milliseconds.
   * @throws {TypeError} If `path` or `key` is not a string, or `message` cannot be stored (DataCloneError).
   * @throws {RangeError} If `delayMs` is not a finite number >= 0.
   */
  startSingle(
    path: string,
    key: string,
    message: unknown,
    delayMs: number,
  ): void {
    this.#start("start durable timer", path, key, message, delayMs, 0);
  }

  /**
   * Delivers `message` to the actor at `path` every `intervalMs`, the first
   * time in `intervalMs`. Due times missed while the object was down are
   * delivered once, not once each.
   *
   * @example Usage
   * ```ts no-run: needs a Durable Object's storage
   * import type { ActorHost } from "@understudy/core/durable";
   *
   * declare const host: ActorHost;
   * host.timers.startPeriodic("/user/report", "hourly", "report", 3_600_000);
   * ```
   *
   * @param path The actor's path.
   * @param key The timer's name.
   * @param message What to deliver.
   * @param intervalMs How often, in milliseconds (> 0).
   * @throws {TypeError} If `path` or `key` is not a string, or `message` cannot be stored.
   * @throws {RangeError} If `intervalMs` is not a finite number > 0.
   */
  startPeriodic(
    path: string,
    key: string,
    message: unknown,
    intervalMs: number,
  ): void {
    const action = "start periodic durable timer";
    if (!(intervalMs > 0)) {
      fail(action, "intervalMs", "a finite number > 0", intervalMs, true);
    }
    this.#start(action, path, key, message, intervalMs, intervalMs);
  }

  /**
   * Cancels the timer of `path` and `key`, if any.
   *
   * @example Usage
   * ```ts no-run: needs a Durable Object's storage
   * import type { ActorHost } from "@understudy/core/durable";
   *
   * declare const host: ActorHost;
   * host.timers.cancel("/user/room", "close");
   * ```
   *
   * @param path The actor's path.
   * @param key The timer's name.
   * @returns Whether there was one.
   */
  cancel(path: string, key: string): boolean {
    const table = this.#load();
    const index = table.findIndex((t) => t[0] === path && t[1] === key);
    if (index < 0) return false;
    table.splice(index, 1);
    this.#save();
    return true;
  }

  /**
   * When the timer of `path` and `key` is next due (ms since the epoch), or
   * `undefined` if there is none.
   *
   * @example Usage
   * ```ts no-run: needs a Durable Object's storage
   * import type { ActorHost } from "@understudy/core/durable";
   *
   * declare const host: ActorHost;
   * console.log(host.timers.dueAt("/user/room", "close"));
   * ```
   *
   * @param path The actor's path.
   * @param key The timer's name.
   * @returns The due time.
   */
  dueAt(path: string, key: string): number | undefined {
    return this.#load().find((t) => t[0] === path && t[1] === key)?.[3];
  }

  /** The earliest due time, if any. Internal. @ignore */
  nextDue(): number | undefined {
    let earliest: number | undefined;
    for (const timer of this.#load()) {
      if (earliest === undefined || timer[3] < earliest) earliest = timer[3];
    }
    return earliest;
  }

  /**
   * Takes the timers due at `now` out of the table (or moves periodic ones
   * on), stores the table, then hands each to `deliver`, earliest first.
   * Internal. @ignore
   */
  runDue(
    now: number,
    deliver: (path: string, key: string, message: unknown) => void,
  ): number {
    const table = this.#load();
    const due = table.filter((t) => t[3] <= now).sort((a, b) => a[3] - b[3]);
    if (due.length === 0) return 0;
    this.#table = table.filter((t) => t[3] > now);
    for (const timer of due) {
      const interval = timer[4];
      if (interval > 0) {
        const missed = Math.floor((now - timer[3]) / interval) + 1;
        this.#table.push([
          timer[0],
          timer[1],
          timer[2],
          timer[3] + missed * interval,
          interval,
        ]);
      }
    }
    // Stored before any delivery: at most once per due time.
    this.#save();
    for (const timer of due) deliver(timer[0], timer[1], timer[2]);
    return due.length;
  }

  #start(
    action: string,
    path: string,
    key: string,
    message: unknown,
    delayMs: number,
    intervalMs: number,
  ): void {
    if (typeof path !== "string" || !path.startsWith("/")) {
      fail(action, "path", 'an actor path starting with "/"', path);
    }
    if (typeof key !== "string") fail(action, "key", "a string", key);
    if (
      typeof delayMs !== "number" || !Number.isFinite(delayMs) || delayMs < 0
    ) {
      fail(action, "delayMs", "a finite number >= 0", delayMs, true);
    }
    const dueAt = this.#clock.wallNow() + delayMs;
    const table = this.#load();
    const kept = table.filter((t) => t[0] !== path || t[1] !== key);
    kept.push([path, key, message, dueAt, intervalMs]);
    const before = this.#table;
    this.#table = kept;
    try {
      this.#save();
    } catch (error) {
      this.#table = before; // a message that cannot be stored is refused whole
      throw error;
    }
    this.#clock.arm(dueAt);
  }

  #load(): StoredTimer[] {
    return this.#table ??=
      (this.#store.get(TIMERS_KEY) as StoredTimer[] | undefined) ?? [];
  }

  #save(): void {
    const table = this.#load();
    if (table.length === 0) this.#store.delete(TIMERS_KEY);
    else this.#put(TIMERS_KEY, table);
  }
}
