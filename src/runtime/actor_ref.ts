// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Actor references: the only handle user code has on an actor, and the
 * errors an `ask` can end with.
 *
 * @module
 */

import type { PoisonPill } from "./poison_pill.ts";

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
 * Options of {@linkcode ActorRef.ask}: how long to wait, and a signal that
 * cancels the wait.
 *
 * When `signal` aborts, the ask rejects at once with `signal.reason` and
 * stops timing (its timer is freed once no other ask needs it). The message
 * itself is not taken back: if it was delivered, the actor may still handle
 * it, and its reply then goes to dead letters ("ask already completed"). A
 * signal that is already aborted rejects the ask at once and the message is
 * not sent at all. The ask stops listening to the signal when it settles in
 * any way.
 *
 * @example Give up on an ask when the user navigates away
 * ```ts
 * import { Actor, ActorSystem, Props } from "@understudy/core";
 *
 * class Slow extends Actor<string> {
 *   onReceive(): void {} // never answers
 * }
 * const system = ActorSystem.create("demo");
 * const slow = system.actorOf(Props.create(() => new Slow()));
 * const controller = new AbortController();
 * const answer = slow.ask("report", { timeoutMs: 60_000, signal: controller.signal });
 * controller.abort(new Error("navigated away"));
 * await answer.catch((error) => console.log(error.message)); // "navigated away"
 * await system.terminate();
 * ```
 */
export interface AskOptions {
  /**
   * How long to wait for the reply, in milliseconds, from 0 to
   * 2,147,483,647.
   *
   * @default {5000}
   */
  readonly timeoutMs?: number;
  /** Rejects the ask with its reason as soon as it aborts. */
  readonly signal?: AbortSignal;
}

/**
 * A message that declares the type of its reply, so `ask` infers it:
 * extend it (it adds nothing at run time but an empty base class), and
 * `ref.ask(new GetBalance(id))` is a `Promise<number>` when `GetBalance
 * extends Query<number>`. The replying side is checked too when it answers
 * with {@linkcode reply}. Messages that do not extend it are asked with an
 * explicit type argument, `ref.ask<number>(message)`, as before.
 *
 * @typeParam R The reply's type.
 *
 * @example Usage
 * ```ts
 * import { Query } from "@understudy/core";
 *
 * class Ping extends Query<"pong"> {}
 * const ping = new Ping(); // asking an actor with it yields Promise<"pong">
 * ```
 */
export abstract class Query<R> {
  /** Type only: the reply's type (never set at run time). */
  declare readonly "~reply"?: R;
  // Type only: a plain object (`{}`) is no Query, though every field is optional.
  declare private readonly "~query": true;
}

/**
 * The former name of {@linkcode Query}, kept for one release.
 *
 * @deprecated Renamed {@linkcode Query} (the name `Request` hid fetch's
 * `Request`); this alias is removed in the next release.
 *
 * @example Migration
 * ```ts
 * import { Query } from "@understudy/core";
 *
 * class GetName extends Query<string> {} // was: extends Request<string>
 * ```
 */
export const Request: typeof Query = Query;
/**
 * The former name of {@linkcode Query}, kept for one release.
 *
 * @deprecated Renamed {@linkcode Query}; removed in the next release.
 *
 * @typeParam R The reply's type.
 *
 * @example Migration
 * ```ts
 * import type { Query } from "@understudy/core";
 *
 * type Asked = Query<string>; // was: Request<string>
 * ```
 */
export type Request<R> = Query<R>;

/**
 * The reply type a message declares through {@linkcode Query};
 * `unknown` for any other message.
 *
 * @example Usage
 * ```ts
 * import { Query, type ReplyOf } from "@understudy/core";
 *
 * class GetName extends Query<string> {}
 * const name: ReplyOf<GetName> = "alice";
 * ```
 */
export type ReplyOf<M> = M extends { readonly "~reply"?: infer R } ? R
  : unknown;

/**
 * Answers a {@linkcode Query} with a value of the type it declares: the
 * replying side of a typed `ask`, checked as the asking side is (answering
 * `42` to a `Query<string>` does not compile). Tells `value` to `to`, the
 * asker (`this.sender` in the handler); nothing if there is none.
 *
 * @example Usage
 * ```ts
 * import { Actor, ActorSystem, Props, Query, reply } from "@understudy/core";
 *
 * class GetName extends Query<string> {}
 * class Profile extends Actor<GetName> {
 *   onReceive(message: GetName): void {
 *     reply(this.sender, message, "alice"); // reply(this.sender, message, 42) does not compile
 *   }
 * }
 * const system = ActorSystem.create("demo");
 * const profile = system.actorOf(Props.create(() => new Profile()));
 * console.log(await profile.ask(new GetName())); // "alice"
 * await system.terminate();
 * ```
 *
 * @typeParam M The query's type; the value's type is `ReplyOf<M>`.
 * @param to Who asked (`this.sender`), or `undefined`.
 * @param query The query being answered (only its type is used).
 * @param value The answer.
 * @param sender Who the asker sees as the sender of the answer.
 */
export function reply<M extends Query<unknown>>(
  to: ActorRef<never> | undefined,
  // deno-lint-ignore no-unused-vars -- only its type is read: it types `value`
  query: M,
  value: ReplyOf<M>,
  sender?: ActorRef<never>,
): void {
  (to as ActorRef<unknown> | undefined)?.tell(value, sender);
}

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
  abstract tell(message: T | PoisonPill, sender?: ActorRef<never>): void;

  /**
   * Sends a {@linkcode Query} and waits for its reply, whose type the
   * query declares: `ref.ask(new GetBalance("alice"))` is a
   * `Promise<number>` when `GetBalance extends Query<number>`, with no
   * type argument to get wrong. Otherwise as the next signature.
   *
   * @example Usage
   * ```ts
   * import { Actor, ActorSystem, Props, Query, reply } from "@understudy/core";
   *
   * class GetBalance extends Query<number> {
   *   constructor(readonly account: string) {
   *     super();
   *   }
   * }
   * class Bank extends Actor<GetBalance> {
   *   onReceive(message: GetBalance): void {
   *     reply(this.sender, message, message.account === "alice" ? 100 : 0);
   *   }
   * }
   * const system = ActorSystem.create("demo");
   * const bank = system.actorOf(Props.create(() => new Bank()));
   * const balance: number = await bank.ask(new GetBalance("alice"));
   * console.log(balance); // 100
   * await system.terminate();
   * ```
   *
   * @typeParam M The query's type; its reply type is `ReplyOf<M>`.
   * @param message The query.
   * @param options How long to wait, in milliseconds (default 5000), or
   * {@linkcode AskOptions} (a timeout and a signal).
   * @returns The reply.
   */
  abstract ask<M extends T & object>(
    message: M,
    options?: number | AskOptions,
  ): Promise<ReplyOf<M>>;
  /**
   * Sends `message` and waits for one reply, which the receiver sends to
   * `this.sender`. Rejects with {@linkcode AskTimeoutError} if no reply comes
   * within `timeoutMs`, with {@linkcode UndeliveredError} as soon as the
   * message goes to dead letters (for instance because the actor is dead),
   * and with the signal's reason as soon as `options.signal` aborts (see
   * {@linkcode AskOptions}).
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
   * @param options How long to wait, in milliseconds (default 5000), or
   * {@linkcode AskOptions} (a timeout and a signal).
   * @returns The reply.
   * @throws {TypeError} If the timeout is not a number or the signal not an
   * `AbortSignal`.
   * @throws {RangeError} If the timeout is outside [0, 2147483647].
   */
  abstract ask<R = unknown>(
    message: T,
    options?: number | AskOptions,
  ): Promise<R>;

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

/** The registered symbols through which Node and Bun, then Deno, print an object. */
const INSPECT_SYMBOL_KEYS: readonly string[] = [
  "nodejs.util.inspect.custom",
  "Deno.customInspect",
];

let printsAsString = false;

/** What the console prints for an object with it: its `toString()`. */
function inspectAsString(this: object): string {
  return String(this);
}

/**
 * Makes `console.log` (and `util.inspect`, `Deno.inspect`, `Bun.inspect`)
 * print every ref, and each of `prototypes`' instances, as its `toString()`
 * (`ActorRef(/user/name)`) instead of the runtime's internals. Done when the
 * first actor system is created, not at import, so that importing the
 * module has no side effect; later calls do nothing. Browsers' consoles are
 * not affected.
 *
 * @param prototypes Other prototypes to print the same way.
 */
export function installInspection(...prototypes: object[]): void {
  if (printsAsString) return;
  printsAsString = true;
  for (const prototype of [ActorRef.prototype, ...prototypes]) {
    for (const key of INSPECT_SYMBOL_KEYS) {
      Object.defineProperty(prototype, Symbol.for(key), {
        value: inspectAsString,
        configurable: true,
        writable: true,
      });
    }
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
  // `declare`d and assigned: a parameter property would be emitted twice
  // (a definition, then the assignment).
  /** The path asked. */
  declare readonly path: string;
  /** How long it waited. */
  declare readonly timeoutMs: number;

  /**
   * Creates a `AskTimeoutError`.
   *
   * @param path The path asked.
   * @param timeoutMs How long it waited.
   */
  constructor(path: string, timeoutMs: number) {
    super(`Ask to ${path} timed out after ${timeoutMs} ms without a reply`);
    this.path = path;
    this.timeoutMs = timeoutMs;
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
  // `declare`d and assigned: a parameter property would be emitted twice
  // (a definition, then the assignment).
  /** The path asked. */
  declare readonly path: string;
  /** Why the message was not delivered. */
  declare readonly reason: string;

  /**
   * Creates a `UndeliveredError`.
   *
   * @param path The path asked.
   * @param reason Why the message was not delivered.
   */
  constructor(path: string, reason: string) {
    super(
      `Ask to ${path} cannot be answered: the message was not delivered (${reason})`,
    );
    this.path = path;
    this.reason = reason;
    this.name = "UndeliveredError";
  }
}
