// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The object's one alarm, shared by everything that needs the object to run
 * again at a time, evicted or not: the scheduler's timers, the stored
 * timers, the patterns' respawns. Each asks for a wake-up; the alarm is set
 * to the earliest, and written only when that moves earlier (one
 * `setAlarm`, one storage write, per move). When the alarm runs, the
 * handler re-arms for the earliest wake-up still wanted, after its work.
 *
 * @module
 */

import type { Scheduler } from "../runtime/ports/scheduler.ts";
import type { DueKeeper } from "../runtime/ports/due_keeper.ts";

/**
 * The part of a Durable Object's `ctx.storage` the durable host uses: the
 * synchronous KV API of SQLite-backed objects, and the alarm. Cloudflare's
 * `DurableObjectStorage` fits.
 *
 * @example Usage
 * ```ts
 * import type { DurableStorageLike } from "@understudy/core/durable";
 *
 * function hasAlarm(storage: DurableStorageLike): Promise<boolean> {
 *   return storage.getAlarm().then((at) => at !== null);
 * }
 * ```
 */
export interface DurableStorageLike {
  /** Synchronous key-value storage (SQLite-backed objects). */
  readonly kv: {
    get(key: string): unknown;
    put(key: string, value: unknown): unknown;
    delete(key: string): unknown;
  };
  /** When the alarm is set for (ms since the epoch), or `null`. */
  getAlarm(): Promise<number | null>;
  /** Sets the object's one alarm. */
  setAlarm(scheduledTimeMs: number): Promise<void> | void;
}

/**
 * What the platform passes to `alarm()`: whether this run is a retry, and
 * how many retries came before.
 *
 * @example Usage
 * ```ts
 * import type { AlarmInfoLike } from "@understudy/core/durable";
 *
 * const first: AlarmInfoLike = { retryCount: 0, isRetry: false };
 * ```
 */
export interface AlarmInfoLike {
  /** Retries before this run (0 on the first run). */
  readonly retryCount: number;
  /** Whether this run is a retry. */
  readonly isRetry: boolean;
}

/** Multiplexes wake-ups on the object's alarm. Internal. */
export class AlarmClock {
  readonly #storage: DurableStorageLike;
  readonly #onError: (error: unknown) => void;
  /** When the alarm is set for, as far as this object knows; `null` if not set. */
  #armedAt: number | null = null;
  /** Wake-ups wanted by scheduler timers, by timer, until each fires or is cleared. */
  readonly #wakes = new Map<object, number>();
  /** One-off wake-ups (the store's `wakeAt`), by time, until past. */
  readonly #once = new Set<number>();
  readonly wallNow: () => number;
  readonly lateWakeMs: number;

  constructor(
    storage: DurableStorageLike,
    wallNow: () => number,
    lateWakeMs: number,
    onError: (error: unknown) => void,
  ) {
    this.#storage = storage;
    this.wallNow = wallNow;
    this.lateWakeMs = lateWakeMs;
    this.#onError = onError;
  }

  /** Reads when the alarm is set for (at activation). */
  async load(): Promise<void> {
    this.#armedAt = await this.#storage.getAlarm();
  }

  /** The alarm has run: it is spent until set again. */
  fired(): void {
    this.#armedAt = null;
  }

  /** Sets the alarm for `wallMs` if it is not set, or set later. */
  arm(wallMs: number): void {
    const armedAt = this.#armedAt;
    if (armedAt !== null && armedAt <= wallMs) return;
    this.#armedAt = wallMs;
    // A failed write leaves the alarm unknown: the next wake-up sets it.
    const failed = (error: unknown) => {
      if (this.#armedAt === wallMs) this.#armedAt = null;
      this.#onError(error);
    };
    try {
      const done = this.#storage.setAlarm(wallMs);
      if (done instanceof Promise) done.catch(failed);
    } catch (error) {
      failed(error);
    }
  }

  /** Wants a wake-up at `wallMs` for `token`, until {@linkcode AlarmClock.forget}. */
  want(token: object, wallMs: number): void {
    this.#wakes.set(token, wallMs);
    this.arm(wallMs);
  }

  /** Wants a wake-up at `wallMs`, until it is past. */
  wantOnce(wallMs: number): void {
    this.#once.add(wallMs);
    this.arm(wallMs);
  }

  /** No longer wants the wake-up of `token`. */
  forget(token: object): void {
    this.#wakes.delete(token);
  }

  /**
   * Re-arms for the earliest wake-up still wanted, or `extra`. A one-off
   * wake-up now past is dropped; a timer still pending past its wake-up
   * (the object is awake, its callback yet to run) wants another,
   * `lateWakeMs` from now.
   */
  rearm(extra: number | undefined): void {
    const now = this.wallNow();
    let earliest = extra ?? Infinity;
    for (const at of this.#once) {
      if (at <= now) this.#once.delete(at);
      else if (at < earliest) earliest = at;
    }
    for (const wanted of this.#wakes.values()) {
      const at = wanted > now ? wanted : now + Math.max(this.lateWakeMs, 1);
      if (at < earliest) earliest = at;
    }
    if (earliest !== Infinity) this.arm(earliest);
  }
}

/** A timer of the {@linkcode AlarmScheduler}: the inner handle, and the token of its wake-up. */
class AlarmTimer {
  constructor(public handle: unknown) {}
}

/**
 * A {@linkcode Scheduler} whose timers run in memory (on `inner`) while the
 * object is awake, and each of which also wants the object woken a little
 * after it is due (`lateWakeMs` later), so that after an eviction the
 * object is activated again and its actors, re-created by `createActors`,
 * start their timers anew in `preStart`. The callback itself cannot
 * survive an eviction (it is a closure); what the actor does at its start,
 * or what it stored, is what comes back; the runtime's own due times
 * (receive timeouts, typed restarts) are kept by its `dueKeeper`. Internal.
 */
export class AlarmScheduler implements Scheduler {
  readonly #inner: Scheduler;
  readonly #clock: AlarmClock;
  readonly dueKeeper: DueKeeper;

  constructor(inner: Scheduler, clock: AlarmClock, dueKeeper: DueKeeper) {
    this.#inner = inner;
    this.#clock = clock;
    this.dueKeeper = dueKeeper;
  }

  setTimeout(callback: () => void, delayMs: number): unknown {
    const clock = this.#clock;
    const timer = new AlarmTimer(undefined);
    timer.handle = this.#inner.setTimeout(() => {
      clock.forget(timer);
      callback();
    }, delayMs);
    clock.want(timer, clock.wallNow() + delayMs + clock.lateWakeMs);
    return timer;
  }

  clearTimeout(handle: unknown): void {
    if (handle instanceof AlarmTimer) {
      this.#clock.forget(handle);
      this.#inner.clearTimeout(handle.handle);
    }
  }

  now(): number {
    return this.#inner.now();
  }
}
