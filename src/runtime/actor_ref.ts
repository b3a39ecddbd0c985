// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Actor references: the only handle user code has on an actor, and the
 * errors an `ask` can end with.
 *
 * @module
 */

import { now } from "./timers.ts";

/**
 * The default `ask` timeout in milliseconds.
 *
 * @example Usage
 * ```ts
 * import { DEFAULT_ASK_TIMEOUT_MS } from "@understudy/core";
 *
 * DEFAULT_ASK_TIMEOUT_MS; // 5000
 * ```
 */
export const DEFAULT_ASK_TIMEOUT_MS = 5_000;

/**
 * A handle to an actor. Send it messages with `tell`, or `ask` for a reply.
 * A ref stays valid across the actor's restarts; after the actor stops,
 * messages sent to it go to dead letters.
 *
 * @example Usage
 * ```ts
 * import { Actor, ActorSystem, Props } from "@understudy/core";
 *
 * class Echo extends Actor<string> {
 *   onReceive(message: string): void {
 *     this.sender?.tell(message, this.self);
 *   }
 * }
 *
 * const system = ActorSystem.create("demo", { logLevel: "off" });
 * const echo = system.actorOf(Props.create(() => new Echo()), "echo");
 * echo.path; // "/user/echo"
 * console.log(await echo.ask<string>("hello")); // "hello"
 * await system.terminate();
 * ```
 *
 * @typeParam T The messages this actor accepts.
 */
export abstract class ActorRef<T> {
  /** Where the actor lives in its system's tree, such as `/user/parent/child`. */
  abstract get path(): string;

  /**
   * Sends `message` without waiting. The receiver never runs inside this
   * call; it processes the message later, in order with others from the
   * same sender. The message arrives as the same object (no copy).
   *
   * @example Usage
   * ```ts
   * import { Actor, ActorSystem, Props } from "@understudy/core";
   *
   * class Printer extends Actor<string> {
   *   onReceive(message: string): void {
   *     console.log(message);
   *   }
   * }
   * const system = ActorSystem.create("demo");
   * system.actorOf(Props.create(() => new Printer())).tell("hello");
   * await system.terminate();
   * ```
   *
   * @param message The message.
   * @param sender Who the receiver sees as `this.sender` (to reply to).
   */
  abstract tell(message: T, sender?: ActorRef<never>): void;

  /**
   * Sends `message` and waits for one reply, which the receiver sends to
   * `this.sender`. Rejects with {@linkcode AskTimeoutError} if no reply comes
   * within `timeoutMs`, and with {@linkcode UndeliveredError} as soon as the
   * message goes to dead letters (for instance because the actor is dead).
   *
   * @example Usage
   * ```ts
   * import { Actor, ActorSystem, Props } from "@understudy/core";
   *
   * class Doubler extends Actor<number> {
   *   onReceive(n: number): void {
   *     this.sender?.tell(n * 2);
   *   }
   * }
   * const system = ActorSystem.create("demo");
   * const doubler = system.actorOf(Props.create(() => new Doubler()));
   * console.log(await doubler.ask<number>(21, 1_000)); // 42
   * await system.terminate();
   * ```
   *
   * @typeParam R The reply's type.
   * @param message The message.
   * @param timeoutMs How long to wait, in milliseconds (default 5000).
   * @returns The reply.
   */
  abstract ask<R = unknown>(message: T, timeoutMs?: number): Promise<R>;

  /**
   * The ref's path, for logs.
   *
   * @example Usage
   * ```ts
   * import { ActorSystem } from "@understudy/core";
   *
   * const system = ActorSystem.create("demo");
   * String(system.deadLetters); // "ActorRef(/deadLetters)"
   * await system.terminate();
   * ```
   */
  toString(): string {
    return `ActorRef(${this.path})`;
  }
}

/**
 * The reply to an `ask` did not arrive in time.
 *
 * @example Usage
 * ```ts
 * import { Actor, ActorSystem, AskTimeoutError, Props } from "@understudy/core";
 *
 * class Silent extends Actor<string> {
 *   onReceive(): void {}
 * }
 * const system = ActorSystem.create("demo");
 * const silent = system.actorOf(Props.create(() => new Silent()));
 * try {
 *   await silent.ask("anyone?", 10);
 * } catch (error) {
 *   console.log(error instanceof AskTimeoutError); // true
 * }
 * await system.terminate();
 * ```
 */
export class AskTimeoutError extends Error {
  /**
   * Creates a `AskTimeoutError`.
   *
   * @param path The path asked.
   * @param timeoutMs How long it waited.
   */
  constructor(readonly path: string, readonly timeoutMs: number) {
    super(`Ask to ${path} timed out after ${timeoutMs} ms without a reply`);
    this.name = "AskTimeoutError";
  }
}

/**
 * An `ask` cannot be answered: its message went to dead letters (the actor
 * was dead or stopped before processing it, a stash overflowed, or the
 * system terminated).
 *
 * @example Usage
 * ```ts
 * import { Actor, ActorSystem, Props, UndeliveredError } from "@understudy/core";
 *
 * class Worker extends Actor<string> {
 *   onReceive(): void {}
 * }
 * const system = ActorSystem.create("demo");
 * const worker = system.actorOf(Props.create(() => new Worker()));
 * await system.terminate();
 * await worker.ask("late").catch((error) => {
 *   console.log(error instanceof UndeliveredError, error.reason);
 * });
 * ```
 */
export class UndeliveredError extends Error {
  /**
   * Creates a `UndeliveredError`.
   *
   * @param path The path asked.
   * @param reason Why the message was not delivered.
   */
  constructor(readonly path: string, readonly reason: string) {
    super(
      `Ask to ${path} cannot be answered: the message was not delivered (${reason})`,
    );
    this.name = "UndeliveredError";
  }
}

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
