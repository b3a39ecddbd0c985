// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * A circuit breaker, with Akka's semantics: it lets calls to a failing
 * dependency fail fast for a while instead of piling up, then lets one
 * trial call through to see whether the dependency is back.
 *
 * ```
 *            maxFailures consecutive failures or timeouts
 *   closed ─────────────────────────────────────────────▶ open ◀──┐
 *     ▲                                                   │       │ the trial
 *     │ the trial succeeds          resetTimeoutMs later  │       │ fails
 *     └──────────────────── half-open ◀───────────────────┘       │
 *                               └─────────────────────────────────┘
 * ```
 *
 * - closed: calls run; each failure (a throw, a rejection, or no answer
 *   within `callTimeoutMs`) counts, each success resets the count; at
 *   `maxFailures` the breaker opens.
 * - open: calls fail fast with {@linkcode CircuitBreakerOpenError}; after
 *   the reset timeout the breaker turns half-open. The reset timeout starts
 *   at `resetTimeoutMs` and, each time the trial fails, is multiplied by
 *   `exponentialBackoffFactor`, up to `maxResetTimeoutMs`; closing brings it
 *   back to `resetTimeoutMs`.
 * - half-open: the first call is the trial and runs; others fail fast until
 *   it ends. Its success closes the breaker; its failure opens it again.
 *
 * A plain object, no actor: it needs no actor system, and an actor uses it
 * as any other code does (see {@linkcode CircuitBreaker}). It keeps one
 * timer while open and one per call in flight, on the host's timers or the
 * `scheduler` given (an actor passes its system's, so that a test's manual
 * scheduler moves the breaker too); {@linkcode CircuitBreaker.dispose}
 * clears them (an actor calls it in `postStop`).
 *
 * @module
 */

import {
  isScheduler,
  realScheduler,
  type Scheduler,
} from "../runtime/ports/scheduler.ts";
import {
  checkDelay,
  checkNumber,
  fail,
  MAX_TIMER_DELAY_MS,
} from "../validation.ts";

/**
 * The state of a {@linkcode CircuitBreaker}.
 *
 * @example Usage
 * ```ts
 * import { CircuitBreaker, type CircuitBreakerState } from "@understudy/core";
 *
 * const breaker = new CircuitBreaker({ maxFailures: 3, callTimeoutMs: 1_000, resetTimeoutMs: 10_000 });
 * const state: CircuitBreakerState = breaker.state; // "closed"
 * breaker.dispose();
 * ```
 */
export type CircuitBreakerState = "closed" | "open" | "half-open";

/**
 * Options of a {@linkcode CircuitBreaker}. The three times are milliseconds
 * from 0 to 2,147,483,647 (the longest a timer can wait).
 *
 * @example A breaker whose reset timeout doubles, up to a minute, while the dependency stays down
 * ```ts
 * import { CircuitBreaker, type CircuitBreakerOptions } from "@understudy/core";
 *
 * const options: CircuitBreakerOptions = {
 *   maxFailures: 5,
 *   callTimeoutMs: 2_000,
 *   resetTimeoutMs: 5_000,
 *   maxResetTimeoutMs: 60_000,
 *   onOpen: ({ resetTimeoutMs }) => console.log(`open for ${resetTimeoutMs} ms`),
 *   onClose: () => console.log("closed"),
 * };
 * const breaker = new CircuitBreaker(options);
 * breaker.dispose();
 * ```
 */
export interface CircuitBreakerOptions {
  /** How many consecutive failures (or call timeouts) open the breaker: a
   * whole number ≥ 1. */
  maxFailures: number;
  /**
   * How long a call may take. One that has not settled by then counts as a
   * failure, and its caller gets a {@linkcode CircuitBreakerTimeoutError}
   * at once; what the call does afterwards is ignored.
   */
  callTimeoutMs: number;
  /** How long the breaker stays open the first time, before it lets a trial
   * call through. */
  resetTimeoutMs: number;
  /**
   * The longest the breaker stays open: the reset timeout grows by
   * `exponentialBackoffFactor` each time a trial call fails, up to this
   * (Akka's exponential backoff of the reset timeout). From
   * `resetTimeoutMs`.
   *
   * @default {resetTimeoutMs} (no growth)
   */
  maxResetTimeoutMs?: number;
  /**
   * What the reset timeout is multiplied by each time a trial call fails
   * (before the cap, `maxResetTimeoutMs`): a finite number ≥ 1.
   *
   * @default {2}
   */
  exponentialBackoffFactor?: number;
  /**
   * Called when the breaker opens, with how long it will stay open and the
   * failure that opened it (a {@linkcode CircuitBreakerTimeoutError} for a
   * timeout). The listeners run after the state has changed; one that
   * throws does not disturb the breaker, and its error is reported as
   * uncaught, as an `EventTarget` listener's would be.
   */
  onOpen?: (
    event: { readonly resetTimeoutMs: number; readonly cause: unknown },
  ) => void;
  /** Called when the breaker turns half-open: the next call is the trial. */
  onHalfOpen?: () => void;
  /** Called when the breaker closes again after a successful trial. */
  onClose?: () => void;
  /**
   * Runs the breaker's timers and is its clock. Inside an actor, pass
   * `this.context.system.scheduler`, so that a test that gives the system a
   * manual scheduler moves the breaker's time too.
   *
   * @default {realScheduler} (the host's `setTimeout` and `performance.now()`)
   */
  scheduler?: Scheduler;
}

/**
 * The breaker is open (or half-open with its trial call in flight): the
 * call failed fast without running. `remainingMs` is how long until the
 * breaker turns half-open (0 when it already is).
 *
 * @example Usage
 * ```ts
 * import { CircuitBreaker, CircuitBreakerOpenError } from "@understudy/core";
 *
 * const breaker = new CircuitBreaker({ maxFailures: 1, callTimeoutMs: 1_000, resetTimeoutMs: 30_000 });
 * await breaker.call(() => Promise.reject(new Error("down"))).catch(() => {});
 * await breaker.call(() => "not run").catch((error) => {
 *   if (error instanceof CircuitBreakerOpenError) console.log(error.remainingMs <= 30_000); // true
 * });
 * breaker.dispose();
 * ```
 */
export class CircuitBreakerOpenError extends Error {
  /**
   * Creates a `CircuitBreakerOpenError`.
   *
   * @param remainingMs Milliseconds until the breaker turns half-open.
   */
  constructor(readonly remainingMs: number) {
    super(
      remainingMs > 0
        ? `Circuit breaker is open: calls fail fast for another ${
          Math.ceil(remainingMs)
        } ms`
        : "Circuit breaker is half-open: calls fail fast until its trial call ends",
    );
    this.name = "CircuitBreakerOpenError";
  }
}

/**
 * A call through a {@linkcode CircuitBreaker} did not settle within its
 * `callTimeoutMs`; it counted as a failure.
 *
 * @example Usage
 * ```ts
 * import { CircuitBreaker, CircuitBreakerTimeoutError } from "@understudy/core";
 *
 * const breaker = new CircuitBreaker({ maxFailures: 3, callTimeoutMs: 10, resetTimeoutMs: 1_000 });
 * const never = () => new Promise(() => {}); // a call that never answers
 * await breaker.call(never).catch((error) => {
 *   console.log(error instanceof CircuitBreakerTimeoutError, breaker.failures); // true 1
 * });
 * breaker.dispose();
 * ```
 */
export class CircuitBreakerTimeoutError extends Error {
  /**
   * Creates a `CircuitBreakerTimeoutError`.
   *
   * @param timeoutMs The call timeout that elapsed.
   */
  constructor(readonly timeoutMs: number) {
    super(`Call through circuit breaker timed out after ${timeoutMs} ms`);
    this.name = "CircuitBreakerTimeoutError";
  }
}

const CREATE = "create circuit breaker";

/**
 * A circuit breaker (see the module documentation for its states): wrap
 * each call to a fragile dependency in {@linkcode CircuitBreaker.call}.
 *
 * Inside an actor, keep the breaker in a field, send the outcome of each
 * call back to the actor as a message (the actor then handles it in its
 * own turn), and dispose of the breaker in `postStop`. From plain code,
 * call `dispose()` when done with it.
 *
 * A call's outcome counts only in the state it began in: a call that
 * began while the breaker was closed and ends after it opened changes
 * nothing, and in half-open only the trial's outcome decides.
 *
 * @example From plain code
 * ```ts
 * import { CircuitBreaker, CircuitBreakerOpenError } from "@understudy/core";
 *
 * const breaker = new CircuitBreaker({ maxFailures: 2, callTimeoutMs: 1_000, resetTimeoutMs: 5_000 });
 * const down = () => Promise.reject(new Error("connection refused"));
 * for (let i = 0; i < 3; i++) {
 *   await breaker.call(down).catch((error) =>
 *     console.log(error instanceof CircuitBreakerOpenError ? "failed fast" : error.message)
 *   );
 * }
 * console.log(breaker.state); // "open"
 * breaker.dispose();
 * ```
 *
 * @example In an actor: the outcome comes back as a message
 * ```ts
 * import { Actor, ActorSystem, CircuitBreaker, Props } from "@understudy/core";
 *
 * type Msg = { kind: "fetch" } | { kind: "got"; body: string } | { kind: "failed"; error: unknown };
 *
 * class Client extends Actor<Msg> {
 *   readonly #breaker = new CircuitBreaker({
 *     maxFailures: 3,
 *     callTimeoutMs: 2_000,
 *     resetTimeoutMs: 10_000,
 *     scheduler: this.context.system.scheduler,
 *   });
 *   onReceive(message: Msg): void {
 *     if (message.kind === "fetch") {
 *       const self = this.self;
 *       this.#breaker.call(() => Promise.resolve("pretend this is fetch()"))
 *         .then((body) => self.tell({ kind: "got", body }), (error) => self.tell({ kind: "failed", error }));
 *     } else if (message.kind === "got") {
 *       this.log.info(message.body);
 *     }
 *   }
 *   override postStop(): void {
 *     this.#breaker.dispose();
 *   }
 * }
 *
 * const system = ActorSystem.create("demo");
 * system.actorOf(Props.create(() => new Client())).tell({ kind: "fetch" });
 * await new Promise((resolve) => setTimeout(resolve, 10));
 * await system.terminate();
 * ```
 */
export class CircuitBreaker {
  readonly #maxFailures: number;
  readonly #callTimeoutMs: number;
  readonly #resetTimeoutMs: number;
  readonly #maxResetTimeoutMs: number;
  readonly #factor: number;
  readonly #onOpen: CircuitBreakerOptions["onOpen"];
  readonly #onHalfOpen: (() => void) | undefined;
  readonly #onClose: (() => void) | undefined;
  readonly #scheduler: Scheduler;

  #state: CircuitBreakerState = "closed";
  /** Counts transitions: a call's outcome counts only in the state it began in. */
  #generation = 0;
  #failures = 0;
  /** How long the next opening lasts. */
  #nextResetTimeoutMs: number;
  /** While open: when it turns half-open, and the timer that does it. */
  #openUntil = 0;
  #resetTimer: unknown = undefined;
  /** While half-open: whether the trial call is in flight. */
  #trialInFlight = false;
  /** The timeouts of the calls in flight. */
  readonly #callTimers = new Set<unknown>();
  #disposed = false;

  /**
   * Creates a closed breaker.
   *
   * @param options See {@linkcode CircuitBreakerOptions}.
   * @throws {TypeError} If `options` is not an object, an option is not a
   * number, a listener is not a function, or `scheduler` not a
   * {@linkcode Scheduler}.
   * @throws {RangeError} If `maxFailures` is not a whole number ≥ 1, a time
   * is outside [0, 2147483647], `maxResetTimeoutMs` < `resetTimeoutMs`, or
   * `exponentialBackoffFactor` is not a finite number ≥ 1.
   */
  constructor(options: CircuitBreakerOptions) {
    if (typeof options !== "object" || options === null) {
      fail(CREATE, "options", "an object", options);
    }
    this.#maxFailures = checkNumber(
      CREATE,
      "maxFailures",
      options.maxFailures,
      1,
      Number.MAX_SAFE_INTEGER,
      true,
    );
    this.#callTimeoutMs = checkDelay(
      CREATE,
      "callTimeoutMs",
      options.callTimeoutMs,
    );
    this.#resetTimeoutMs = checkDelay(
      CREATE,
      "resetTimeoutMs",
      options.resetTimeoutMs,
    );
    this.#maxResetTimeoutMs = options.maxResetTimeoutMs === undefined
      ? this.#resetTimeoutMs
      : checkNumber(
        CREATE,
        "maxResetTimeoutMs",
        options.maxResetTimeoutMs,
        this.#resetTimeoutMs,
        MAX_TIMER_DELAY_MS,
        false,
        "resetTimeoutMs",
      );
    const factor = options.exponentialBackoffFactor ?? 2;
    if (
      !(typeof factor === "number" && factor >= 1 && Number.isFinite(factor))
    ) {
      fail(
        CREATE,
        "exponentialBackoffFactor",
        "a finite number >= 1",
        factor,
        typeof factor === "number",
      );
    }
    this.#factor = factor;
    for (const name of ["onOpen", "onHalfOpen", "onClose"] as const) {
      const listener = options[name];
      if (listener !== undefined && typeof listener !== "function") {
        fail(CREATE, name, "a function", listener);
      }
    }
    const scheduler = options.scheduler ?? realScheduler;
    if (!isScheduler(scheduler)) {
      fail(
        CREATE,
        "scheduler",
        "an object with setTimeout, clearTimeout and now functions",
        scheduler,
      );
    }
    this.#scheduler = scheduler;
    this.#onOpen = options.onOpen;
    this.#onHalfOpen = options.onHalfOpen;
    this.#onClose = options.onClose;
    this.#nextResetTimeoutMs = this.#resetTimeoutMs;
  }

  /**
   * The breaker's state now.
   *
   * @example Usage
   * ```ts
   * import { CircuitBreaker } from "@understudy/core";
   *
   * const breaker = new CircuitBreaker({ maxFailures: 1, callTimeoutMs: 100, resetTimeoutMs: 1_000 });
   * console.log(breaker.state); // "closed"
   * breaker.dispose();
   * ```
   */
  get state(): CircuitBreakerState {
    return this.#state;
  }

  /**
   * The consecutive failures counted while closed (0 in the other states).
   *
   * @example Usage
   * ```ts
   * import { CircuitBreaker } from "@understudy/core";
   *
   * const breaker = new CircuitBreaker({ maxFailures: 3, callTimeoutMs: 100, resetTimeoutMs: 1_000 });
   * await breaker.call(() => Promise.reject(new Error("x"))).catch(() => {});
   * console.log(breaker.failures); // 1
   * breaker.dispose();
   * ```
   */
  get failures(): number {
    return this.#failures;
  }

  /**
   * Runs `body` through the breaker, and settles as it does; or fails fast.
   *
   * While closed (or for the trial call when half-open) `body` is called at
   * once. The promise then settles with its outcome, or rejects with
   * {@linkcode CircuitBreakerTimeoutError} if it has not settled within
   * `callTimeoutMs`. While open, or half-open with the trial in flight,
   * `body` is not called and the promise rejects with
   * {@linkcode CircuitBreakerOpenError}. The breaker's state is updated
   * before the caller sees the outcome.
   *
   * @example Usage
   * ```ts
   * import { CircuitBreaker } from "@understudy/core";
   *
   * const breaker = new CircuitBreaker({ maxFailures: 3, callTimeoutMs: 1_000, resetTimeoutMs: 10_000 });
   * console.log(await breaker.call(() => Promise.resolve(42))); // 42
   * breaker.dispose();
   * ```
   *
   * @typeParam T What `body` resolves with.
   * @param body The call to protect; it may return a value or a promise.
   * @returns What `body` returned.
   * @throws {TypeError} If `body` is not a function (thrown by the call).
   * The promise rejects with a plain `Error` once the breaker is disposed.
   */
  call<T>(body: () => T | PromiseLike<T>): Promise<T> {
    if (typeof body !== "function") {
      fail("call through circuit breaker", "body", "a function", body);
    }
    if (this.#disposed) {
      return Promise.reject(
        new Error("Cannot call through a disposed circuit breaker"),
      );
    }
    if (this.#state === "open") {
      return Promise.reject(
        new CircuitBreakerOpenError(
          Math.max(0, this.#openUntil - this.#scheduler.now()),
        ),
      );
    }
    if (this.#state === "half-open") {
      if (this.#trialInFlight) {
        return Promise.reject(new CircuitBreakerOpenError(0));
      }
      this.#trialInFlight = true;
    }
    const generation = this.#generation;
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const timers = this.#callTimers;
      const scheduler = this.#scheduler;
      const timer = scheduler.setTimeout(() => {
        timers.delete(timer);
        if (settled) return;
        settled = true;
        const error = new CircuitBreakerTimeoutError(this.#callTimeoutMs);
        reject(error);
        this.#failed(generation, error);
      }, this.#callTimeoutMs);
      timers.add(timer);
      const end = (): boolean => {
        if (settled) return false;
        settled = true;
        if (timers.delete(timer)) scheduler.clearTimeout(timer);
        return true;
      };
      const succeeded = (value: T): void => {
        if (!end()) return;
        resolve(value);
        this.#succeeded(generation);
      };
      const failed = (error: unknown): void => {
        if (!end()) return;
        reject(error);
        this.#failed(generation, error);
      };
      let result: T | PromiseLike<T>;
      try {
        result = body();
      } catch (error) {
        failed(error);
        return;
      }
      Promise.resolve(result).then(succeeded, failed);
    });
  }

  /**
   * Clears the breaker's timers (the reset timer and the timeouts of the
   * calls in flight) and retires it: later calls reject, and the outcomes
   * of calls still in flight reach their callers when they settle, but no
   * longer change the state or call listeners. A call whose body never
   * settles is no longer timed out, so its caller waits for the body.
   * Idempotent. In an actor, call it in `postStop`.
   *
   * @example Usage
   * ```ts
   * import { CircuitBreaker } from "@understudy/core";
   *
   * const breaker = new CircuitBreaker({ maxFailures: 1, callTimeoutMs: 100, resetTimeoutMs: 60_000 });
   * await breaker.call(() => Promise.reject(new Error("down"))).catch(() => {});
   * breaker.dispose(); // the 60 s reset timer is gone
   * ```
   */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#generation++;
    if (this.#resetTimer !== undefined) {
      this.#scheduler.clearTimeout(this.#resetTimer);
      this.#resetTimer = undefined;
    }
    for (const timer of this.#callTimers) {
      this.#scheduler.clearTimeout(timer);
    }
    this.#callTimers.clear();
  }

  #succeeded(generation: number): void {
    if (generation !== this.#generation) return;
    if (this.#state === "half-open") this.#close();
    else this.#failures = 0;
  }

  #failed(generation: number, cause: unknown): void {
    if (generation !== this.#generation) return;
    if (this.#state === "half-open") this.#open(cause);
    else if (++this.#failures >= this.#maxFailures) this.#open(cause);
  }

  /** Opens for the current reset timeout, and makes the next one longer. */
  #open(cause: unknown): void {
    const resetTimeoutMs = this.#nextResetTimeoutMs;
    this.#nextResetTimeoutMs = Math.min(
      resetTimeoutMs * this.#factor,
      this.#maxResetTimeoutMs,
    );
    this.#enter("open");
    this.#openUntil = this.#scheduler.now() + resetTimeoutMs;
    this.#resetTimer = this.#scheduler.setTimeout(() => {
      this.#resetTimer = undefined;
      this.#enter("half-open");
      this.#notify(this.#onHalfOpen, undefined);
    }, resetTimeoutMs);
    this.#notify(this.#onOpen, { resetTimeoutMs, cause });
  }

  #close(): void {
    this.#nextResetTimeoutMs = this.#resetTimeoutMs;
    this.#enter("closed");
    this.#notify(this.#onClose, undefined);
  }

  #enter(state: CircuitBreakerState): void {
    this.#state = state;
    this.#generation++;
    this.#failures = 0;
    this.#trialInFlight = false;
  }

  /** Calls a listener; what it throws is reported as uncaught, not lost, and does not reach the breaker. */
  #notify<E>(listener: ((event: E) => void) | undefined, event: E): void {
    if (listener === undefined) return;
    try {
      listener(event);
    } catch (error) {
      queueMicrotask(() => {
        throw error;
      });
    }
  }
}
