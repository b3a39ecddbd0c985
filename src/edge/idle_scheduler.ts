// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * A {@linkcode Scheduler} that knows when its system has nothing due: it
 * counts the timers it has pending and settles {@linkcode IdleScheduler.whenIdle}
 * once none is. On a stateless Worker that promise is what `ctx.waitUntil`
 * needs, so that a timer started during a request (a respawn after a
 * backoff, a retry) still fires after the response went out: workerd
 * cancels whatever a finished request left pending.
 *
 * Messages need no timer: the dispatcher drains them in microtasks, and the
 * check that settles the promise runs a macrotask later (twice over), after
 * the drain and the timers it started. What the tracker cannot see is an
 * async handler awaiting I/O with no timer of the library's running (a
 * `fetch` without a timeout): await that in the handler itself.
 *
 * It also turns the two ways a Worker's timers go wrong into errors at the
 * call that started the timer: a timer in the Worker's global scope (the
 * platform's "Disallowed operation called within global scope") becomes a
 * `TypeError` that says where to create the system, and a timer longer than
 * `maxDelayMs` (what can keep it alive) a `RangeError` that names the fix.
 *
 * @module
 */

import { realScheduler, type Scheduler } from "../runtime/ports/scheduler.ts";
import { checkDelay, describeValue, fail } from "../validation.ts";

/**
 * Options of {@linkcode IdleScheduler}.
 *
 * @example A tracker over a manual clock, refusing timers over 30 s
 * ```ts
 * import { IdleScheduler, type IdleSchedulerOptions } from "@understudy/core/edge";
 * import { ManualScheduler } from "@understudy/core/testing";
 *
 * const options: IdleSchedulerOptions = { base: new ManualScheduler(), maxDelayMs: 30_000 };
 * const scheduler = new IdleScheduler(options);
 * console.log(scheduler.pending); // 0
 * ```
 */
export interface IdleSchedulerOptions {
  /** The scheduler that runs the timers. Default {@linkcode realScheduler}. */
  base?: Scheduler;
  /**
   * The longest timer it starts, in milliseconds (0 to 2³¹ − 1); a longer
   * one is refused with a `RangeError` at the call that asked for it.
   * Default 2³¹ − 1 (none refused).
   */
  maxDelayMs?: number;
}

/** A timer the tracker has pending: the base scheduler's handle. */
interface Pending {
  handle: unknown;
}

/** The platform's refusal of a timer in a Worker's global scope. */
function isGlobalScopeRefusal(error: unknown): boolean {
  return error instanceof Error && /global scope/i.test(error.message);
}

/**
 * The error a timer in a Worker's global scope gets, naming where the
 * system belongs.
 */
function globalScopeError(cause: unknown): TypeError {
  return new TypeError(
    "Cannot start a timer in a Worker's global scope: workerd allows timers " +
      "only while a handler runs. Create the actor system inside the fetch " +
      "handler (once per request, or once per isolate with edgeSystem() and " +
      "keepAlive()/handle() from @understudy/core/edge), or in a Durable " +
      "Object (withActors from @understudy/core/durable)",
    { cause },
  );
}

/**
 * A scheduler that counts its pending timers and tells when none is.
 *
 * @example Waiting until a backoff's respawn has happened
 * ```ts
 * import { Actor, ActorSystem, BackoffSupervisor, Props } from "@understudy/core";
 * import { IdleScheduler } from "@understudy/core/edge";
 *
 * let starts = 0;
 * class Worker extends Actor<string> {
 *   override preStart(): void {
 *     starts++;
 *   }
 *   onReceive(): void {
 *     throw new Error("boom");
 *   }
 * }
 * const scheduler = new IdleScheduler();
 * const system = ActorSystem.create("app", { scheduler });
 * const supervisor = system.actorOf(BackoffSupervisor.props({
 *   childProps: Props.create(() => new Worker()),
 *   childName: "worker",
 *   minBackoff: 20,
 *   maxBackoff: 20,
 *   maxRestarts: 1,
 * }));
 * supervisor.tell("fail");
 * await scheduler.whenIdle(); // the 20 ms respawn has run
 * console.log(starts); // 2
 * await system.terminate();
 * ```
 */
export class IdleScheduler implements Scheduler {
  readonly #base: Scheduler;
  readonly #maxDelayMs: number;
  readonly #pending = new Set<Pending>();
  #waiters: (() => void)[] = [];
  /** A settle check is armed (a host macrotask). */
  #checking = false;

  /**
   * Makes a tracker over `options.base`.
   *
   * @example Usage
   * ```ts
   * import { IdleScheduler } from "@understudy/core/edge";
   *
   * const scheduler = new IdleScheduler({ maxDelayMs: 30_000 });
   * await scheduler.whenIdle(); // nothing pending: settles at once
   * ```
   */
  constructor(options: IdleSchedulerOptions = {}) {
    const action = "create IdleScheduler";
    if (typeof options !== "object" || options === null) {
      fail(action, "options", "an object", options);
    }
    const base = options.base ?? realScheduler;
    if (
      typeof base?.setTimeout !== "function" ||
      typeof base.clearTimeout !== "function" || typeof base.now !== "function"
    ) {
      fail(
        action,
        "base",
        "an object with setTimeout, clearTimeout and now functions",
        base,
      );
    }
    this.#base = base;
    this.#maxDelayMs = checkDelay(
      action,
      "maxDelayMs",
      options.maxDelayMs ?? 2_147_483_647,
    );
  }

  /**
   * How many timers are pending (started, neither fired nor cancelled).
   *
   * @example Usage
   * ```ts
   * import { IdleScheduler } from "@understudy/core/edge";
   *
   * const scheduler = new IdleScheduler();
   * const handle = scheduler.setTimeout(() => {}, 1_000);
   * console.log(scheduler.pending); // 1
   * scheduler.clearTimeout(handle);
   * console.log(scheduler.pending); // 0
   * ```
   */
  get pending(): number {
    return this.#pending.size;
  }

  /**
   * Starts a timer on the base scheduler and counts it until it fires or
   * is cancelled. Throws a `RangeError` for a delay over `maxDelayMs`, and a
   * `TypeError` naming the fix where the platform refuses timers (a
   * Worker's global scope).
   *
   * @example Usage
   * ```ts
   * import { IdleScheduler } from "@understudy/core/edge";
   *
   * const scheduler = new IdleScheduler();
   * scheduler.setTimeout(() => console.log("fired"), 10);
   * await scheduler.whenIdle(); // logs "fired" first
   * ```
   */
  setTimeout(callback: () => void, delayMs: number): unknown {
    if (delayMs > this.#maxDelayMs) {
      throw new RangeError(
        `Cannot start a timer of ${
          describeValue(delayMs)
        } ms: "maxDelayMs" is ${this.#maxDelayMs}, the longest a stateless ` +
          "Worker can keep a timer alive after its response (ctx.waitUntil). " +
          "Keep an actor system whose timers are longer in a Durable Object " +
          "(withActors from @understudy/core/durable), or shorten the delay",
      );
    }
    const timer: Pending = { handle: undefined };
    try {
      timer.handle = this.#base.setTimeout(() => {
        this.#pending.delete(timer);
        try {
          callback();
        } finally {
          this.#check();
        }
      }, delayMs);
    } catch (error) {
      throw isGlobalScopeRefusal(error) ? globalScopeError(error) : error;
    }
    this.#pending.add(timer);
    return timer;
  }

  /**
   * Cancels a timer it started; any other handle, or one fired or
   * cancelled already, is ignored.
   *
   * @example Usage
   * ```ts
   * import { IdleScheduler } from "@understudy/core/edge";
   *
   * const scheduler = new IdleScheduler();
   * scheduler.clearTimeout(scheduler.setTimeout(() => {}, 1_000));
   * console.log(scheduler.pending); // 0
   * ```
   */
  clearTimeout(handle: unknown): void {
    const timer = handle as Pending;
    if (!this.#pending.delete(timer)) return;
    this.#base.clearTimeout(timer.handle);
    this.#check();
  }

  /**
   * The base scheduler's clock.
   *
   * @example Usage
   * ```ts
   * import { IdleScheduler } from "@understudy/core/edge";
   * import { ManualScheduler } from "@understudy/core/testing";
   *
   * console.log(new IdleScheduler({ base: new ManualScheduler(500) }).now()); // 500
   * ```
   */
  now(): number {
    return this.#base.now();
  }

  /**
   * Settles once no timer is pending, as seen by two host macrotasks in a
   * row with none pending in between (so the messages queued before, and
   * the timers they start, are counted). Never rejects; pending timers that
   * repeat for ever (a heartbeat) keep it from settling.
   *
   * @example Usage
   * ```ts
   * import { IdleScheduler } from "@understudy/core/edge";
   *
   * const scheduler = new IdleScheduler();
   * let fired = false;
   * scheduler.setTimeout(() => (fired = true), 5);
   * await scheduler.whenIdle();
   * console.log(fired); // true
   * ```
   */
  whenIdle(): Promise<void> {
    return new Promise((resolve) => {
      this.#waiters.push(resolve);
      this.#check();
    });
  }

  /** Arms the settle check if someone waits and nothing is pending. */
  #check(): void {
    if (this.#checking || this.#waiters.length === 0 || this.#pending.size) {
      return;
    }
    this.#checking = true;
    // The host's timer, not the base's: a manual clock must not hold it.
    globalThis.setTimeout(() => {
      if (this.#pending.size > 0) {
        this.#checking = false;
        return; // that timer's firing or cancelling checks again
      }
      globalThis.setTimeout(() => {
        this.#checking = false;
        if (this.#pending.size > 0) return;
        const waiters = this.#waiters;
        this.#waiters = [];
        for (const resolve of waiters) resolve();
      }, 0);
    }, 0);
  }
}
