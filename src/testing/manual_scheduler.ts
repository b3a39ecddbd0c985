// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * A {@linkcode Scheduler} whose time moves only when a test says so.
 *
 * @module
 */

import type { Scheduler } from "../runtime/ports/scheduler.ts";
import { checkDelay, fail } from "../validation.ts";

/** One pending timer. */
interface ManualTimer {
  readonly dueMs: number;
  readonly callback: () => void;
}

/** `setImmediate` where the host has one (Node, Deno, Bun). */
const setImmediate = (globalThis as {
  setImmediate?: (callback: () => void) => unknown;
}).setImmediate;

/** The part of a `MessageChannel` used here (no DOM types in `src/`). */
interface Channel {
  readonly port1: { onmessage: (() => void) | null };
  readonly port2: { postMessage(message: unknown): void };
}

/** Settles waiting for a `MessageChannel` message, oldest first. */
const waiting: (() => void)[] = [];
let channel: Channel | undefined;

/**
 * A macrotask by a `MessageChannel` message, in a browser: the channel is
 * made on first use and kept (an open port keeps no page alive).
 */
function afterChannelMessage(resolve: () => void): boolean {
  if (channel === undefined) {
    const MessageChannel = (globalThis as {
      MessageChannel?: new () => Channel;
    }).MessageChannel;
    if (MessageChannel === undefined) return false;
    channel = new MessageChannel();
    channel.port1.onmessage = () => waiting.shift()?.();
  }
  waiting.push(resolve);
  channel.port2.postMessage(0);
  return true;
}

/**
 * Lets queued messages be processed: the runtime's dispatcher drains in
 * microtasks, and a macrotask runs after all of them. `setImmediate` (Node,
 * Deno, Bun) and, in a browser, a `MessageChannel` message are such
 * macrotasks without the host's minimum timer delay (a `setTimeout(0)`
 * costs 1 ms in Node, up to 3 ms in a loaded Deno, 4 ms nested in a
 * browser; a `setImmediate` about 0.02 ms), so a test that fires hundreds
 * of timers stays fast; elsewhere (workerd), `setTimeout(0)`. (Not a
 * channel message where there is `setImmediate`: Deno delivers those
 * between microtasks.)
 */
function settle(): Promise<void> {
  return new Promise((resolve) => {
    if (setImmediate !== undefined) setImmediate(resolve);
    else if (!afterChannelMessage(resolve)) globalThis.setTimeout(resolve, 0);
  });
}

/**
 * A scheduler for tests: virtual time that moves only through
 * {@linkcode ManualScheduler.timePasses}, which runs each timer that falls
 * due, in order, and lets the actors process what that timer sent before
 * the next one fires. Give it to `ActorSystem.create(name, { scheduler })`
 * and every timer the library starts (actor timers, backoff waits, grace
 * windows, ask timeouts, receive timeouts, shutdown deadlines, WebSocket
 * deadlines) runs on it; no global is faked.
 *
 * @example A backoff wait, without waiting
 * ```ts
 * import { Actor, ActorSystem, BackoffSupervisor, Props } from "@understudy/core";
 * import { ManualScheduler } from "@understudy/core/testing";
 *
 * let starts = 0;
 * class Flaky extends Actor<string> {
 *   override preStart(): void {
 *     starts++;
 *   }
 *   onReceive(): void {
 *     throw new Error("flaky");
 *   }
 * }
 *
 * const scheduler = new ManualScheduler();
 * const system = ActorSystem.create("test", { scheduler, logLevel: "off" });
 * const supervisor = system.actorOf(
 *   BackoffSupervisor.props({
 *     childProps: Props.create(() => new Flaky()),
 *     minBackoff: 1_000,
 *     maxBackoff: 1_000,
 *     randomFactor: 0,
 *   }),
 * );
 * supervisor.tell("work");
 * await scheduler.timePasses(0); // the child starts and fails
 * await scheduler.timePasses(999);
 * console.log(starts); // 1: still waiting
 * await scheduler.timePasses(1);
 * console.log(starts); // 2: respawned after exactly 1,000 virtual ms
 * await system.terminate();
 * ```
 */
export class ManualScheduler implements Scheduler {
  #nowMs: number;
  #sequence = 0;
  /** Pending timers by handle. */
  readonly #pending = new Map<number, ManualTimer>();

  /**
   * Creates a manual scheduler whose clock reads `startMs`.
   *
   * @param startMs Where the clock starts, in milliseconds. Default 0.
   *
   * @example Usage
   * ```ts
   * import { ManualScheduler } from "@understudy/core/testing";
   *
   * const scheduler = new ManualScheduler(1_000);
   * console.log(scheduler.now()); // 1000
   * ```
   */
  constructor(startMs: number = 0) {
    if (typeof startMs !== "number" || !Number.isFinite(startMs)) {
      fail(
        "create ManualScheduler",
        "startMs",
        "a finite number of milliseconds",
        startMs,
        typeof startMs === "number",
      );
    }
    this.#nowMs = startMs;
  }

  /**
   * Virtual milliseconds since the clock started (plus `startMs`).
   *
   * @example Usage
   * ```ts
   * import { ManualScheduler } from "@understudy/core/testing";
   *
   * const scheduler = new ManualScheduler();
   * await scheduler.timePasses(250);
   * console.log(scheduler.now()); // 250
   * ```
   */
  now(): number {
    return this.#nowMs;
  }

  /**
   * Starts a virtual timer, due `delayMs` from the current virtual time.
   * Called by the runtime; tests rarely call it themselves.
   *
   * @example Usage
   * ```ts
   * import { ManualScheduler } from "@understudy/core/testing";
   *
   * const scheduler = new ManualScheduler();
   * let fired = false;
   * scheduler.setTimeout(() => (fired = true), 10);
   * await scheduler.timePasses(10);
   * console.log(fired); // true
   * ```
   */
  setTimeout(callback: () => void, delayMs: number): number {
    if (typeof callback !== "function") {
      fail("setTimeout", "callback", "a function", callback);
    }
    const delay = checkDelay("setTimeout", "delayMs", delayMs);
    const handle = ++this.#sequence;
    this.#pending.set(handle, {
      dueMs: this.#nowMs + delay,
      callback,
    });
    return handle;
  }

  /**
   * Cancels a virtual timer; an unknown handle is ignored.
   *
   * @example Usage
   * ```ts
   * import { ManualScheduler } from "@understudy/core/testing";
   *
   * const scheduler = new ManualScheduler();
   * const handle = scheduler.setTimeout(() => console.log("never"), 10);
   * scheduler.clearTimeout(handle);
   * await scheduler.timePasses(10); // prints nothing
   * ```
   */
  clearTimeout(handle: unknown): void {
    this.#pending.delete(handle as number);
  }

  /**
   * How many timers are pending: after `system.terminate()` this is 0, which
   * is how a test proves its actors left no timer running.
   *
   * @example Usage
   * ```ts
   * import { ActorSystem } from "@understudy/core";
   * import { ManualScheduler } from "@understudy/core/testing";
   *
   * const scheduler = new ManualScheduler();
   * const system = ActorSystem.create("test", { scheduler });
   * await system.terminate();
   * console.log(scheduler.pendingTimers); // 0
   * ```
   */
  get pendingTimers(): number {
    return this.#pending.size;
  }

  /**
   * When the next pending timer is due, in virtual milliseconds from now;
   * `undefined` when none is pending.
   *
   * @example Usage
   * ```ts
   * import { ManualScheduler } from "@understudy/core/testing";
   *
   * const scheduler = new ManualScheduler();
   * scheduler.setTimeout(() => {}, 30);
   * console.log(scheduler.nextDueInMs()); // 30
   * ```
   */
  nextDueInMs(): number | undefined {
    const next = this.#next();
    return next === undefined ? undefined : next[1].dueMs - this.#nowMs;
  }

  /**
   * Moves virtual time forward by `ms`: each timer due meanwhile fires in
   * order (at its own due time, so the clock reads what it would have),
   * and the actors process what it sent before the next one fires (one
   * macrotask: enough while what a timer sets off fits in the
   * dispatcher's 3 ms slice, as in tests it does). Timers
   * started meanwhile fire too if they fall due within `ms`. Resolves once
   * the clock reads `now() + ms` and the actors are idle.
   *
   * @example Usage
   * ```ts
   * import { ManualScheduler } from "@understudy/core/testing";
   *
   * const scheduler = new ManualScheduler();
   * const seen: number[] = [];
   * scheduler.setTimeout(() => seen.push(scheduler.now()), 20);
   * scheduler.setTimeout(() => seen.push(scheduler.now()), 10);
   * await scheduler.timePasses(30);
   * console.log(seen); // [10, 20]
   * ```
   */
  async timePasses(ms: number): Promise<void> {
    await this.#advance("timePasses", () => false, ms);
  }

  /**
   * Like {@linkcode ManualScheduler.timePasses}, but stops as soon as
   * `done()` returns true (checked before anything fires, and after each
   * timer's work); `true` if it did, `false` if `ms` passed first. What
   * `TestProbe` waits with.
   *
   * @example Usage
   * ```ts
   * import { ManualScheduler } from "@understudy/core/testing";
   *
   * const scheduler = new ManualScheduler();
   * let fired = false;
   * scheduler.setTimeout(() => (fired = true), 40);
   * console.log(await scheduler.advanceUntil(() => fired, 100)); // true
   * console.log(scheduler.now()); // 40
   * ```
   */
  advanceUntil(done: () => boolean, ms: number): Promise<boolean> {
    return this.#advance("advanceUntil", done, ms);
  }

  /** Both ways of moving time; `action` names the call in an error. */
  async #advance(
    action: string,
    done: () => boolean,
    ms: number,
  ): Promise<boolean> {
    const targetMs = this.#nowMs + checkDelay(action, "ms", ms);
    await settle();
    for (;;) {
      if (done()) return true;
      const next = this.#next();
      if (next === undefined || next[1].dueMs > targetMs) break;
      const [handle, timer] = next;
      this.#pending.delete(handle);
      this.#nowMs = Math.max(this.#nowMs, timer.dueMs);
      timer.callback();
      await settle();
    }
    // Settled after the last timer fired (or at the start): nothing has run since.
    this.#nowMs = targetMs;
    return done();
  }

  /**
   * The pending timer that fires first; of timers due at the same time, the
   * one started first (a Map iterates in insertion order, and only a strictly
   * earlier timer replaces the one found).
   */
  #next(): [number, ManualTimer] | undefined {
    let first: [number, ManualTimer] | undefined;
    for (const entry of this.#pending) {
      if (first === undefined || entry[1].dueMs < first[1].dueMs) {
        first = entry;
      }
    }
    return first;
  }
}
