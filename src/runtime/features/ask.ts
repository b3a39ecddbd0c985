// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * `ask`: a temporary ref stands in as the sender, and the first reply
 * settles the promise. Asks with the same timeout share one timer, armed for
 * the soonest deadline, so a burst of asks costs no timer each. An ask with
 * a `signal` also listens for its abort, and stops listening when it settles.
 * Internal to the runtime (`ActorRef.ask` is the API).
 *
 * @module
 */

import {
  ActorRef,
  type AskOptions,
  AskTimeoutError,
  DEFAULT_ASK_TIMEOUT_MS,
  UndeliveredError,
} from "../actor_ref.ts";
import type { Scheduler } from "../ports/scheduler.ts";
import { checkDelay, checkSignal } from "../../validation.ts";

/** What an {@linkcode AskRef} needs from its system. */
export interface AskOwner {
  readonly pendingAsks: PendingAsks;
  /** Runs the timeouts and is the clock of deadlines. */
  readonly scheduler: Scheduler;
  deadLetter(
    message: unknown,
    sender: unknown,
    recipient: ActorRef<never>,
    reason: string,
  ): void;
}

let askCounter = 0;

/** Why an answer to an ask that has ended is a dead letter. Internal. */
export const ASK_COMPLETED = "ask already completed";

/**
 * The temporary sender of an `ask`: the first message told to it settles
 * the promise. Internal to the runtime.
 *
 * The constructor reads and checks the ask's options (a timeout in
 * milliseconds, or {@linkcode AskOptions}), throwing before anything is
 * registered. If the signal is already aborted, the ask is born settled
 * (its promise rejected with the signal's reason, no timer, no listener):
 * the caller then does not send the message (`settled` is true).
 */
export class AskRef<R> extends ActorRef<unknown> {
  readonly promise: Promise<R>;
  readonly #owner: AskOwner;
  readonly #target: ActorRef<never>;
  readonly #id = ++askCounter;
  #resolve!: (value: R) => void;
  #reject!: (reason: unknown) => void;
  #settled = false;
  /** The caller's signal and its listener, while the ask is pending. */
  #signal: AbortSignal | undefined = undefined;
  #onAbort: (() => void) | undefined = undefined;
  /** When it times out, and its neighbours among the asks with its timeout (see {@linkcode PendingAsks}). */
  deadline: number;
  readonly timeoutMs: number;
  previous: AskRef<unknown> | undefined = undefined;
  next: AskRef<unknown> | undefined = undefined;

  constructor(
    owner: AskOwner,
    target: ActorRef<never>,
    options: number | AskOptions | undefined,
  ) {
    super();
    const { timeoutMs, signal } = readAskOptions(options);
    this.timeoutMs = timeoutMs;
    this.#owner = owner;
    this.#target = target;
    this.deadline = owner.scheduler.now() + this.timeoutMs;
    this.promise = new Promise<R>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    if (signal?.aborted) {
      this.#settled = true;
      this.#reject(signal.reason);
      return;
    }
    // Registered first: a scheduler that refuses the timer (a host's limit)
    // throws out of the ask with nothing left behind.
    owner.pendingAsks.add(this as AskRef<unknown>);
    if (signal !== undefined) {
      this.#signal = signal;
      this.#onAbort = () => this.fail(signal.reason);
      signal.addEventListener("abort", this.#onAbort);
    }
  }

  /** Whether the ask has ended (replied, failed, timed out or aborted). */
  get settled(): boolean {
    return this.#settled;
  }

  /** The path of the actor asked, for error messages. */
  get targetPath(): string {
    return this.#target.path;
  }

  get path(): string {
    return `/temp/ask-${this.#id}`;
  }

  tell(message: unknown, sender?: ActorRef<never>): void {
    if (this.#settled) {
      this.#owner.deadLetter(message, sender, this, ASK_COMPLETED);
      return;
    }
    this.#settled = true;
    // Resolve first: code awaiting this ask then runs before the deadline
    // bookkeeping checks whether a timer is still needed (see PendingAsks).
    this.#resolve(message as R);
    this.#release();
  }

  ask<Q>(message: unknown): Promise<Q> {
    this.#owner.deadLetter(
      message,
      undefined,
      this,
      "cannot ask a temporary ask ref",
    );
    return Promise.reject(
      new UndeliveredError(this.path, "cannot ask a temporary ask ref"),
    );
  }

  /** Rejects the pending ask (message undelivered, timeout, system terminated, or aborted). */
  fail(reason: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#reject(reason);
    this.#release();
  }

  /** Forgets the settled ask: its place among the pending, its abort listener. */
  #release(): void {
    this.#owner.pendingAsks.remove(this as AskRef<unknown>);
    if (this.#signal !== undefined) {
      this.#signal.removeEventListener("abort", this.#onAbort!);
      this.#signal = undefined;
      this.#onAbort = undefined;
    }
  }
}

/**
 * An ask's options, checked: a number is the timeout; an object may give
 * `timeoutMs` (default {@linkcode DEFAULT_ASK_TIMEOUT_MS}) and `signal`.
 * Every kind of ref reads them here (local, Durable Objects). Internal.
 */
export function readAskOptions(
  options: number | AskOptions | undefined,
): { timeoutMs: number; signal: AbortSignal | undefined } {
  let timeoutMs: unknown = options;
  let signal: AbortSignal | undefined;
  if (typeof options === "object" && options !== null) {
    timeoutMs = options.timeoutMs;
    signal = checkSignal("ask", "signal", options.signal);
  }
  return {
    timeoutMs: checkDelay(
      "ask",
      "timeoutMs",
      timeoutMs === undefined ? DEFAULT_ASK_TIMEOUT_MS : timeoutMs,
    ),
    signal,
  };
}

/** The pending asks with one timeout: soonest deadline first, and the timer for the first. */
class AskQueue {
  first: AskRef<unknown> | undefined = undefined;
  last: AskRef<unknown> | undefined = undefined;
  #timer: unknown = undefined;
  readonly #scheduler: Scheduler;
  /** Fails every ask whose deadline has come, then waits for the next. */
  readonly #expire = (): void => {
    this.#timer = undefined;
    const t = this.#scheduler.now();
    for (
      let ask = this.first;
      ask !== undefined && ask.deadline <= t;
      ask = this.first
    ) {
      ask.fail(new AskTimeoutError(ask.targetPath, ask.timeoutMs));
    }
    this.arm(t);
  };

  constructor(scheduler: Scheduler) {
    this.#scheduler = scheduler;
  }

  /** Sets the timer for the first deadline, unless it is set or nothing waits. */
  arm(t: number): void {
    if (this.#timer !== undefined || this.first === undefined) return;
    this.#timer = this.#scheduler.setTimeout(
      this.#expire,
      Math.max(0, this.first.deadline - t),
    );
  }

  /** Clears the timer, if set. */
  disarm(): void {
    if (this.#timer === undefined) return;
    this.#scheduler.clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

/**
 * A system's pending asks. Asks with the same timeout time out in the order
 * they were made, so each timeout keeps a linked list of its asks and one
 * timer, for the first: an ask costs no timer of its own (a `setTimeout`
 * and a `clearTimeout` were most of an ask's cost). A timer left with no
 * ask is cleared once the code that awaited the last one has run, so a
 * loop of sequential asks re-uses one timer, and none outlives its asks.
 * Internal to the runtime.
 */
export class PendingAsks {
  readonly #queues = new Map<number, AskQueue>();
  readonly #scheduler: Scheduler;
  #sweepQueued = false;
  readonly #sweep = (): void => {
    this.#sweepQueued = false;
    for (const [timeoutMs, queue] of this.#queues) {
      if (queue.first !== undefined) continue;
      queue.disarm();
      // Timeouts computed per call (a remaining budget) must not pile up.
      this.#queues.delete(timeoutMs);
    }
  };

  /** @param scheduler The system's: runs the timers, reads the clock. */
  constructor(scheduler: Scheduler) {
    this.#scheduler = scheduler;
  }

  /** Registers a new ask; its deadline is the latest of its timeout's. */
  add(ask: AskRef<unknown>): void {
    let queue = this.#queues.get(ask.timeoutMs);
    if (queue === undefined) {
      queue = new AskQueue(this.#scheduler);
      this.#queues.set(ask.timeoutMs, queue);
    }
    ask.previous = queue.last;
    if (queue.last === undefined) queue.first = ask;
    else queue.last.next = ask;
    queue.last = ask;
    try {
      queue.arm(this.#scheduler.now());
    } catch (error) {
      this.remove(ask); // the ask is refused, not left to fail later unheld
      throw error;
    }
  }

  /** Forgets a settled ask. */
  remove(ask: AskRef<unknown>): void {
    const queue = this.#queues.get(ask.timeoutMs)!;
    if (ask.previous === undefined) queue.first = ask.next;
    else ask.previous.next = ask.next;
    if (ask.next === undefined) queue.last = ask.previous;
    else ask.next.previous = ask.previous;
    ask.previous = undefined;
    ask.next = undefined;
    if (queue.first === undefined && !this.#sweepQueued) {
      this.#sweepQueued = true;
      queueMicrotask(this.#sweep);
    }
  }

  /** Fails every pending ask (the system terminated) and clears every timer. */
  failAll(reason: string): void {
    for (const queue of this.#queues.values()) {
      while (queue.first !== undefined) {
        const ask = queue.first;
        ask.fail(new UndeliveredError(ask.targetPath, reason));
      }
      queue.disarm();
    }
  }
}
