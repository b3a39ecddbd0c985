// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Actor references: the only handle user code has on an actor, and the
 * errors an `ask` can end with.
 *
 * @module
 */

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
