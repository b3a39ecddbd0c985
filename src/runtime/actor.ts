// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The `Actor` base class, the `ActorContext` an actor works with, and the
 * `Terminated` message of death watch.
 *
 * @module
 */

import type { FaultHandlingStrategy } from "../supervision/strategy.ts";
import type { ActorRef } from "./actor_ref.ts";
import type { ActorSystem } from "./actor_system.ts";
import type { Logger } from "./logging.ts";
import type { Props } from "./props.ts";
import type { TimerScheduler } from "./features/timers.ts";

/**
 * A message handler installed with `become`.
 *
 * @example Usage
 * ```ts
 * import type { Behavior } from "@understudy/core";
 *
 * const ignore: Behavior<string> = () => {};
 * ```
 */
export type Behavior<T> = (message: T) => void | Promise<void>;

/**
 * What an actor can do beyond handling a message: create and stop children,
 * watch other actors, change behaviour, stash messages, run timers.
 * Available as `this.context` inside an {@linkcode Actor}.
 *
 * @example Usage
 * ```ts
 * import { Actor, Props, type ActorRef } from "@understudy/core";
 *
 * class Worker extends Actor<string> {
 *   onReceive(): void {}
 * }
 * class Boss extends Actor<string> {
 *   #worker?: ActorRef<string>;
 *   override preStart(): void {
 *     this.#worker = this.context.actorOf(Props.create(() => new Worker()), "worker");
 *     this.context.watch(this.#worker);
 *   }
 *   onReceive(message: string): void {
 *     this.#worker?.tell(message, this.self);
 *   }
 * }
 * ```
 *
 * @typeParam T The messages this actor accepts.
 */
export interface ActorContext<T> {
  /** This actor's own ref. */
  readonly self: ActorRef<T>;
  /** The sender of the message being processed, if it gave one. */
  readonly sender: ActorRef<unknown> | undefined;
  /** The parent's ref (the `/user` guardian for top-level actors). */
  readonly parent: ActorRef<unknown>;
  /** The system this actor belongs to. */
  readonly system: ActorSystem;
  /** A logger whose lines carry this actor's path. */
  readonly log: Logger;
  /** This actor's timers; all are cancelled when it stops or restarts. */
  readonly timers: TimerScheduler;
  /** The live children, in creation order. */
  readonly children: readonly ActorRef<never>[];

  /**
   * Creates a child actor. Names are unique among siblings; omitted, one is
   * generated.
   *
   * @param props How to create the child.
   * @param name The child's name: no `/`, not starting with `$`.
   * @returns The child's ref.
   */
  actorOf<C>(props: Props<C>, name?: string): ActorRef<C>;
  /**
   * Finds a live child by name.
   *
   * @param name The child's name.
   * @returns Its ref, or `undefined`.
   */
  child(name: string): ActorRef<unknown> | undefined;
  /**
   * Stops this actor or one of its children, after the message being
   * processed. Messages still queued go to dead letters. (To stop another
   * actor, send it a `PoisonPill` or call `system.stop(ref)`.)
   *
   * @param ref This actor's ref or a child's.
   */
  stop(ref: ActorRef<never>): void;
  /** Stops this actor, after the message being processed. */
  stopSelf(): void;
  /**
   * Sends this actor a {@linkcode Terminated} message, exactly once, when
   * `ref` stops; at once if it is already dead.
   *
   * @param ref The actor to watch.
   * @returns `ref`.
   */
  watch<R>(ref: ActorRef<R>): ActorRef<R>;
  /**
   * Like {@linkcode ActorContext.watch}, but when `ref` stops this actor
   * receives `message` instead of a {@linkcode Terminated} (with `ref` as
   * its sender), exactly once. Watching a ref already watched with another
   * message (or with plain `watch`) throws a `TypeError`: `unwatch` it first.
   *
   * @param ref The actor to watch.
   * @param message What to receive when it stops.
   * @returns `ref`.
   */
  watchWith<R>(ref: ActorRef<R>, message: T): ActorRef<R>;
  /**
   * Stops watching `ref`; a `Terminated` (or `watchWith` message) for it
   * not yet processed is dropped.
   *
   * @param ref The watched actor.
   */
  unwatch(ref: ActorRef<never>): void;
  /**
   * Sends this actor a `ReceiveTimeout` message once `ms` have passed
   * without a message, and again after each further `ms` of silence, until
   * cancelled with `undefined`. Any message resets the period, except this
   * actor's own timers' messages. Setting it again replaces it; a stop or a
   * restart cancels it.
   *
   * @param ms Milliseconds, above 0 and at most 2³¹−1; `undefined` cancels.
   */
  setReceiveTimeout(ms: number | undefined): void;
  /** The receive timeout set with `setReceiveTimeout`, in milliseconds; `undefined` when none. */
  readonly receiveTimeout: number | undefined;
  /**
   * Handles the next messages with `behavior` instead of `onReceive`, until
   * `unbecome` or a restart.
   *
   * @param behavior The new handler.
   * @param options `discardOld: false` keeps the old handler on a stack for
   *   `unbecome` to return to (default `true`: replace it).
   */
  become(behavior: Behavior<T>, options?: { discardOld?: boolean }): void;
  /** Returns to the previous handler (`onReceive` at the bottom). */
  unbecome(): void;
  /**
   * Keeps the message being processed aside, with its sender, for
   * `unstashAll`. The stash is bounded (`Props` option `stashCapacity`,
   * default 1000); over capacity the message goes to dead letters.
   *
   * @returns `true` if stashed, `false` if it went to dead letters.
   */
  stash(): boolean;
  /** Puts every stashed message back at the front of the mailbox, in order. */
  unstashAll(): void;
}

/** The cell that is constructing an actor right now (set around the Props factory). */
let constructingContext: ActorContext<never> | undefined;

/**
 * Runs `factory` with `context` as the context for any `Actor` it constructs.
 * Internal to the runtime.
 */
export function constructWith<R>(
  context: ActorContext<never>,
  factory: () => R,
): R {
  constructingContext = context;
  try {
    return factory();
  } finally {
    constructingContext = undefined;
  }
}

/**
 * An actor: private state plus a handler that processes one message at a
 * time. Create one through `Props.create(() => new MyActor())` and
 * `system.actorOf` or `context.actorOf`; never call `new` directly.
 *
 * `onReceive` may be async: the next message waits until its promise
 * settles, and a rejection is a failure like a throw. An async `preStart`
 * holds the mailbox until it resolves.
 *
 * @example Usage
 * ```ts
 * import { Actor, ActorSystem, Props } from "@understudy/core";
 *
 * class Counter extends Actor<"inc" | "get"> {
 *   #count = 0;
 *   onReceive(message: "inc" | "get"): void {
 *     if (message === "inc") this.#count++;
 *     else this.sender?.tell(this.#count);
 *   }
 * }
 *
 * const system = ActorSystem.create("demo");
 * const counter = system.actorOf(Props.create(() => new Counter()), "counter");
 * counter.tell("inc");
 * console.log(await counter.ask<number>("get")); // 1
 * await system.terminate();
 * ```
 *
 * @typeParam T The messages this actor accepts.
 */
export abstract class Actor<T = unknown> {
  /**
   * What this actor can do besides handling messages. Once a restart has
   * replaced this instance, its context no longer has the turn: `sender` is
   * that of the message its handler left behind was handling (or none),
   * `stash()` throws, and what the restart reset (behaviour, stash, receive
   * timeout, timers) is ignored with a warning.
   */
  readonly context: ActorContext<T>;
  /**
   * The strategy this actor applies when one of its children fails.
   * Override it with a field or getter; left `undefined`, the actor uses
   * {@linkcode defaultStrategy}, which restarts a failed child up to 10
   * times a minute, then stops it.
   */
  declare readonly supervisorStrategy?: FaultHandlingStrategy;

  constructor() {
    const context = constructingContext;
    if (context === undefined) {
      throw new Error(
        "Cannot construct an Actor directly: create it with system.actorOf(Props.create(() => new MyActor())) or context.actorOf(...)",
      );
    }
    constructingContext = undefined; // one actor per factory call
    this.context = context as unknown as ActorContext<T>;
  }

  /** This actor's own ref. */
  get self(): ActorRef<T> {
    return this.context.self;
  }

  /** The sender of the message being processed, if it gave one. */
  get sender(): ActorRef<unknown> | undefined {
    return this.context.sender;
  }

  /** A logger whose lines carry this actor's path. */
  get log(): Logger {
    return this.context.log;
  }

  /**
   * Handles one message. May return a promise; the next message waits for it.
   *
   * @param message The message.
   */
  abstract onReceive(message: T): void | Promise<void>;

  /** Called before the first message, and (by default) after each restart. */
  preStart(): void | Promise<void> {}

  /** Called after the actor stopped and all its children have stopped. */
  postStop(): void | Promise<void> {}

  /**
   * Called on the failed instance before it is replaced. By default stops
   * all children and calls `postStop`.
   *
   * @param _reason The error that caused the restart.
   * @param _message The message being processed when it failed, if any.
   */
  preRestart(_reason: unknown, _message?: unknown): void | Promise<void> {
    for (const child of this.context.children) this.context.stop(child);
    return this.postStop();
  }

  /**
   * Called on the fresh instance after a restart. By default calls
   * `preStart`.
   *
   * @param _reason The error that caused the restart.
   */
  postRestart(_reason: unknown): void | Promise<void> {
    return this.preStart();
  }
}

/**
 * Sent to an actor that watches `ref` (with `context.watch`) when `ref` has
 * stopped: exactly once per watch.
 *
 * @example Usage
 * ```ts
 * import { Actor, Terminated } from "@understudy/core";
 *
 * class Watcher extends Actor<Terminated> {
 *   onReceive(message: Terminated): void {
 *     if (message instanceof Terminated) this.log.info(`${message.ref.path} is gone`);
 *   }
 * }
 * ```
 */
export class Terminated {
  // `declare`d and assigned: a parameter property would be emitted twice
  // (a definition, then the assignment).
  /** The actor that stopped. */
  declare readonly ref: ActorRef<never>;

  /**
   * Creates a `Terminated`.
   *
   * @param ref The actor that stopped.
   */
  constructor(ref: ActorRef<never>) {
    this.ref = ref;
  }
}
