// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * `ask`: a temporary ref stands in as the sender, and the first reply
 * settles the promise. Asks with the same timeout share one timer, armed for
 * the soonest deadline, so a burst of asks costs no timer each. Internal to
 * the runtime (`ActorRef.ask` is the API).
 *
 * @module
 */

import { ActorRef, AskTimeoutError, UndeliveredError } from "./actor_ref.ts";
import { now } from "./timers.ts";

/** What an {@linkcode AskRef} needs from its system. */
export interface AskOwner {
  readonly pendingAsks: PendingAsks;
  deadLetter(
    message: unknown,
    sender: unknown,
    recipient: ActorRef<never>,
    reason: string,
  ): void;
}

let askCounter = 0;

/**
 * The temporary sender of an `ask`: the first message told to it settles
 * the promise. Internal to the runtime.
 */
export class AskRef<R> extends ActorRef<unknown> {
  readonly promise: Promise<R>;
  readonly #owner: AskOwner;
  readonly #target: ActorRef<never>;
  readonly #id = ++askCounter;
  #resolve!: (value: R) => void;
  #reject!: (error: Error) => void;
  #settled = false;
  /** When it times out, and its neighbours among the asks with its timeout (see {@linkcode PendingAsks}). */
  deadline: number;
  readonly timeoutMs: number;
  previous: AskRef<unknown> | undefined = undefined;
  next: AskRef<unknown> | undefined = undefined;

  constructor(owner: AskOwner, target: ActorRef<never>, timeoutMs: number) {
    super();
    this.#owner = owner;
    this.#target = target;
    this.timeoutMs = timeoutMs;
    this.deadline = now() + timeoutMs;
    this.promise = new Promise<R>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    owner.pendingAsks.add(this as AskRef<unknown>);
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
      this.#owner.deadLetter(message, sender, this, "ask already completed");
      return;
    }
    this.#settled = true;
    // Resolve first: code awaiting this ask then runs before the deadline
    // bookkeeping checks whether a timer is still needed (see PendingAsks).
    this.#resolve(message as R);
    this.#owner.pendingAsks.remove(this as AskRef<unknown>);
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

  /** Rejects the pending ask (message undelivered, timeout, or system terminated). */
  fail(error: Error): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#reject(error);
    this.#owner.pendingAsks.remove(this as AskRef<unknown>);
  }
}

/** The pending asks with one timeout: soonest deadline first, and the timer for the first. */
class AskQueue {
  first: AskRef<unknown> | undefined = undefined;
  last: AskRef<unknown> | undefined = undefined;
  #timer: unknown = undefined;
  /** Fails every ask whose deadline has come, then waits for the next. */
  readonly #expire = (): void => {
    this.#timer = undefined;
    const t = now();
    for (
      let ask = this.first;
      ask !== undefined && ask.deadline <= t;
      ask = this.first
    ) {
      ask.fail(new AskTimeoutError(ask.targetPath, ask.timeoutMs));
    }
    this.arm(t);
  };

  /** Sets the timer for the first deadline, unless it is set or nothing waits. */
  arm(t: number): void {
    if (this.#timer !== undefined || this.first === undefined) return;
    this.#timer = globalThis.setTimeout(
      this.#expire,
      Math.max(0, this.first.deadline - t),
    );
  }

  /** Clears the timer, if set. */
  disarm(): void {
    if (this.#timer === undefined) return;
    globalThis.clearTimeout(this.#timer as number);
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

  /** Registers a new ask; its deadline is the latest of its timeout's. */
  add(ask: AskRef<unknown>): void {
    let queue = this.#queues.get(ask.timeoutMs);
    if (queue === undefined) {
      queue = new AskQueue();
      this.#queues.set(ask.timeoutMs, queue);
    }
    ask.previous = queue.last;
    if (queue.last === undefined) queue.first = ask;
    else queue.last.next = ask;
    queue.last = ask;
    queue.arm(now());
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
