// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * What a durable {@linkcode ActorHost} adds (its `durable` option): the
 * object's storage as a {@linkcode DurableStore} (`host.store`), stored
 * timers (`host.timers`), a scheduler whose timers wake the object after an
 * eviction, and the alarm handler that runs what is due, re-arms after its
 * work, and lets a failure throw so that the platform retries it.
 *
 * @module
 */

import type { DurableStore } from "../patterns/durable_port.ts";
import type { Logger } from "../runtime/logging.ts";
import type { Scheduler } from "../runtime/ports/scheduler.ts";
import { checkCount, checkNumber, fail } from "../validation.ts";
import {
  AlarmClock,
  type AlarmInfoLike,
  AlarmScheduler,
  type DurableStorageLike,
} from "./alarm_clock.ts";
import { DurableTimers } from "./durable_timers.ts";
import { StoredDue } from "./stored_due.ts";

/**
 * Options of a durable {@linkcode ActorHost} (`durable: { … }`, or
 * `durable: true` for the defaults).
 *
 * @example Usage
 * ```ts
 * import type { DurableHostOptions } from "@understudy/core/durable";
 *
 * const options: DurableHostOptions = { lateWakeMs: 5_000, maxAlarmRetries: 6 };
 * ```
 */
export interface DurableHostOptions {
  /**
   * How long after a scheduler timer (an actor's timer, a backoff wait) is
   * due an evicted object is woken by its alarm, so that its actors start
   * again. A larger value sets the alarm less often for short timers that
   * keep running while the object is awake. Default 1,000 ms.
   */
  lateWakeMs?: number;
  /**
   * The platform's retries of a failing `alarm()` (Cloudflare: 6). On that
   * retry a failure is logged as an error and not thrown again (the stored
   * timers wait for the next activation, which re-arms the alarm). Default 6.
   */
  maxAlarmRetries?: number;
  /** Milliseconds since the epoch, for due times. Default `Date.now`. */
  wallClock?: () => number;
}

/** The durable parts of one host. Internal. */
export class DurableHost {
  readonly clock: AlarmClock;
  readonly timers: DurableTimers;
  /** The runtime's own due times (receive timeouts, typed restarts). */
  readonly due: StoredDue;
  readonly store: DurableStore;
  readonly #maxAlarmRetries: number;

  constructor(
    ctx: unknown,
    options: DurableHostOptions | true,
    log: () => Logger | undefined,
  ) {
    const action = "create durable actor host";
    const storage = (ctx as { storage?: DurableStorageLike } | undefined)
      ?.storage;
    if (
      typeof storage !== "object" || storage === null ||
      typeof storage.kv !== "object" || storage.kv === null ||
      typeof storage.setAlarm !== "function" ||
      typeof storage.getAlarm !== "function"
    ) {
      fail(
        action,
        "ctx.storage",
        "a SQLite-backed Durable Object's storage (with kv, getAlarm and setAlarm)",
        storage,
      );
    }
    const settings = options === true ? {} : options;
    if (typeof settings !== "object" || settings === null) {
      fail(action, "durable", "true or an object of options", options);
    }
    const {
      lateWakeMs = 1_000,
      maxAlarmRetries = 6,
      wallClock = Date.now,
    } = settings;
    const late = checkNumber(
      action,
      "lateWakeMs",
      lateWakeMs,
      0,
      2_147_483_647,
    );
    this.#maxAlarmRetries = checkCount(
      action,
      "maxAlarmRetries",
      maxAlarmRetries,
    );
    if (typeof wallClock !== "function") {
      fail(
        action,
        "wallClock",
        "a function returning ms since the epoch",
        wallClock,
      );
    }
    const failed = (what: string) => (error: unknown) => {
      const logger = log();
      if (logger !== undefined) logger.error(`${what} failed`, error);
      else console.error(`understudy: ${what} failed`, error);
    };
    const clock = new AlarmClock(
      storage,
      wallClock,
      late,
      failed("setting the alarm"),
    );
    this.clock = clock;
    const kv = storage.kv;
    this.store = {
      get: (key) => kv.get(key),
      put: (key, value) => kv.put(key, value),
      delete: (key) => kv.delete(key),
      wakeAt: (wallMs) => clock.wantOnce(wallMs),
    };
    this.timers = new DurableTimers(this.store, clock);
    this.due = new StoredDue(
      this.store,
      wallClock,
      failed("keeping a due time"),
    );
  }

  /** A scheduler over `inner` whose timers also wake the object, and whose due times are kept. */
  scheduler(inner: Scheduler): Scheduler {
    return new AlarmScheduler(inner, this.clock, this.due);
  }

  /**
   * One run of the alarm: `run` (which activates the system and delivers
   * what is due), then the re-arm, after the work. A throw is thrown again
   * for the platform to retry, except on the last retry.
   */
  runAlarm(
    info: unknown,
    run: () => void,
    log: () => Logger | undefined,
  ): void {
    this.clock.fired();
    const retryCount = (info as AlarmInfoLike | undefined)?.retryCount ?? 0;
    try {
      run();
    } catch (error) {
      if (retryCount >= this.#maxAlarmRetries) {
        (log() ?? consoleLogger).error(
          `alarm failed on its last retry (${retryCount}); stored timers wait for the next activation`,
          error,
        );
        return;
      }
      (log() ?? consoleLogger).warn(
        `alarm failed (retry ${retryCount} of ${this.#maxAlarmRetries}); the platform retries it`,
        error,
      );
      throw error;
    }
    this.clock.rearm(this.timers.nextDue());
  }
}

/** Where alarm failures go when no system could be made. */
const consoleLogger = {
  error: (text: string, error: unknown) =>
    console.error(`understudy: ${text}`, error),
  warn: (text: string, error: unknown) =>
    console.warn(`understudy: ${text}`, error),
};
