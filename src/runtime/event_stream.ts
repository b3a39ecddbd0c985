// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The system's event stream: dead letters and lifecycle events, published
 * as class instances so any layer can add its own events and subscribers can
 * filter with `instanceof`.
 *
 * @module
 */

import type { ActorRef } from "./actor_ref.ts";
import { fail } from "../validation.ts";

/**
 * A message that was not delivered, and why. Every loss path of the library
 * publishes one: nothing disappears silently.
 *
 * @example Usage
 * ```ts
 * import { ActorSystem, DeadLetter } from "@understudy/core";
 *
 * const system = ActorSystem.create("demo");
 * const unsubscribe = system.eventStream.subscribe(DeadLetter, (dead) => {
 *   console.log(`undelivered ${String(dead.message)} to ${dead.recipient.path}: ${dead.reason}`);
 * });
 * unsubscribe();
 * await system.terminate();
 * ```
 */
export class DeadLetter {
  // `declare`d and assigned, as in every event here: a parameter property
  // would be emitted twice (a definition, then the assignment).
  /** The undelivered message. */
  declare readonly message: unknown;
  /** Who sent it, if known. */
  declare readonly sender: ActorRef<never> | undefined;
  /** Who it was for. */
  declare readonly recipient: ActorRef<never>;
  /** Why it was not delivered. */
  declare readonly reason: string;

  /**
   * Creates a `DeadLetter`.
   *
   * @param message The undelivered message.
   * @param sender Who sent it, if known.
   * @param recipient Who it was for.
   * @param reason Why it was not delivered.
   */
  constructor(
    message: unknown,
    sender: ActorRef<never> | undefined,
    recipient: ActorRef<never>,
    reason: string,
  ) {
    this.message = message;
    this.sender = sender;
    this.recipient = recipient;
    this.reason = reason;
  }
}

/**
 * A message was told to an actor (published only in a system created with
 * the `inspect` option, which sees every event; see
 * {@linkcode ActorSystemOptions.inspect}).
 *
 * @example Usage
 * ```ts
 * import { ActorSystem, MessageSent } from "@understudy/core";
 *
 * const system = ActorSystem.create("demo", {
 *   inspect: (event) => {
 *     if (event instanceof MessageSent) console.log("to", event.recipient.path, event.message);
 *   },
 * });
 * await system.terminate();
 * ```
 */
export class MessageSent {
  /** What was sent. */
  declare readonly message: unknown;
  /** Who sent it, if known. */
  declare readonly sender: ActorRef<never> | undefined;
  /** The actor it was told to. */
  declare readonly recipient: ActorRef<never>;

  /**
   * Creates a `MessageSent`.
   *
   * @param message What was sent.
   * @param sender Who sent it, if known.
   * @param recipient The actor it was told to.
   */
  constructor(
    message: unknown,
    sender: ActorRef<never> | undefined,
    recipient: ActorRef<never>,
  ) {
    this.message = message;
    this.sender = sender;
    this.recipient = recipient;
  }
}

/**
 * An actor's handler is given a message, just before it runs (published
 * only in a system created with the `inspect` option).
 *
 * @example Usage
 * ```ts
 * import { ActorSystem, MessageReceived } from "@understudy/core";
 *
 * const system = ActorSystem.create("demo", {
 *   inspect: (event) => {
 *     if (event instanceof MessageReceived) console.log(event.ref.path, "handles", event.message);
 *   },
 * });
 * await system.terminate();
 * ```
 */
export class MessageReceived {
  /** What the handler gets. */
  declare readonly message: unknown;
  /** Who sent it, if known. */
  declare readonly sender: ActorRef<never> | undefined;
  /** The actor whose handler runs. */
  declare readonly ref: ActorRef<never>;

  /**
   * Creates a `MessageReceived`.
   *
   * @param message What the handler gets.
   * @param sender Who sent it, if known.
   * @param ref The actor whose handler runs.
   */
  constructor(
    message: unknown,
    sender: ActorRef<never> | undefined,
    ref: ActorRef<never>,
  ) {
    this.message = message;
    this.sender = sender;
    this.ref = ref;
  }
}

/**
 * An actor finished starting (its `preStart` completed).
 *
 * @example Usage
 * ```ts
 * import { ActorStarted, ActorSystem } from "@understudy/core";
 *
 * const system = ActorSystem.create("demo");
 * system.eventStream.subscribe(ActorStarted, (event) => console.log(event.ref.path));
 * await system.terminate();
 * ```
 */
export class ActorStarted {
  /** The actor. */
  declare readonly ref: ActorRef<never>;

  /**
   * Creates a `ActorStarted`.
   *
   * @param ref The actor.
   */
  constructor(ref: ActorRef<never>) {
    this.ref = ref;
  }
}

/**
 * An actor stopped for good: its `postStop` ran and its watchers are told.
 *
 * @example Usage
 * ```ts
 * import { ActorStopped, ActorSystem } from "@understudy/core";
 *
 * const system = ActorSystem.create("demo");
 * system.eventStream.subscribe(ActorStopped, (event) => console.log(event.ref.path));
 * await system.terminate();
 * ```
 */
export class ActorStopped {
  /** The actor. */
  declare readonly ref: ActorRef<never>;

  /**
   * Creates a `ActorStopped`.
   *
   * @param ref The actor.
   */
  constructor(ref: ActorRef<never>) {
    this.ref = ref;
  }
}

/**
 * An actor was restarted in place with a fresh instance.
 *
 * @example Usage
 * ```ts
 * import { ActorRestarted, ActorSystem } from "@understudy/core";
 *
 * const system = ActorSystem.create("demo");
 * system.eventStream.subscribe(ActorRestarted, (event) => console.log(event.ref.path, event.reason));
 * await system.terminate();
 * ```
 */
export class ActorRestarted {
  /** The actor. */
  declare readonly ref: ActorRef<never>;
  /** The error that caused the restart. */
  declare readonly reason: unknown;

  /**
   * Creates a `ActorRestarted`.
   *
   * @param ref The actor.
   * @param reason The error that caused the restart.
   */
  constructor(ref: ActorRef<never>, reason: unknown) {
    this.ref = ref;
    this.reason = reason;
  }
}

/**
 * An actor failed: its `onReceive`, `preStart` or a lifecycle hook threw or
 * rejected. `directive` says what its supervisor decided.
 *
 * @example Usage
 * ```ts
 * import { ActorFailed, ActorSystem } from "@understudy/core";
 *
 * const system = ActorSystem.create("demo");
 * system.eventStream.subscribe(ActorFailed, (event) => console.log(event.ref.path, event.error, event.directive));
 * await system.terminate();
 * ```
 */
export class ActorFailed {
  /** The actor. */
  declare readonly ref: ActorRef<never>;
  /** What it threw. */
  declare readonly error: unknown;
  /** What its supervisor decided: `resume`, `restart`, `stop`, `escalate`, or `backoff` for a restart after a delay. */
  declare readonly directive: string;

  /**
   * Creates a `ActorFailed`.
   *
   * @param ref The actor.
   * @param error What it threw.
   * @param directive What its supervisor decided: `resume`, `restart`, `stop`,
   *   `escalate`, or `backoff` for a restart after a delay.
   */
  constructor(ref: ActorRef<never>, error: unknown, directive: string) {
    this.ref = ref;
    this.error = error;
    this.directive = directive;
  }
}

/**
 * A stop gave up waiting: an actor's async `preStart` or `postRestart`
 * (`"start"`), its async `onReceive` (`"handler"`, whose message is then a
 * dead letter) or its async `postStop` (`"postStop"`) had not settled when
 * the shutdown timeout passed (`shutdownTimeoutMs` of the system, or of the
 * actor's `Props`). The actor counts as stopped regardless; a warning is
 * logged too.
 *
 * @example Usage
 * ```ts
 * import { ActorStopTimedOut, ActorSystem } from "@understudy/core";
 *
 * const system = ActorSystem.create("demo", { shutdownTimeoutMs: 2_000 });
 * system.eventStream.subscribe(ActorStopTimedOut, (event) =>
 *   console.log(event.ref.path, "abandoned its", event.waitingFor)
 * );
 * await system.terminate();
 * ```
 */
export class ActorStopTimedOut {
  /** The actor. */
  declare readonly ref: ActorRef<never>;
  /** What the stop was waiting for. */
  declare readonly waitingFor: "start" | "handler" | "postStop";
  /** The shutdown timeout that passed. */
  declare readonly timeoutMs: number;

  /**
   * Creates an `ActorStopTimedOut`.
   *
   * @param ref The actor.
   * @param waitingFor What the stop was waiting for.
   * @param timeoutMs The shutdown timeout that passed.
   */
  constructor(
    ref: ActorRef<never>,
    waitingFor: "start" | "handler" | "postStop",
    timeoutMs: number,
  ) {
    this.ref = ref;
    this.waitingFor = waitingFor;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A listener for events of type `E`.
 *
 * @example Usage
 * ```ts
 * import type { EventListener } from "@understudy/core";
 *
 * const log: EventListener<object> = (event) => console.log(event);
 * ```
 */
export type EventListener<E> = (event: E) => void;

/**
 * A class whose instances are events, used to filter a subscription.
 *
 * @example Usage
 * ```ts
 * import { DeadLetter, type EventClass } from "@understudy/core";
 *
 * const only: EventClass<DeadLetter> = DeadLetter;
 * ```
 */
// deno-lint-ignore no-explicit-any
export type EventClass<E> = abstract new (...args: any[]) => E;

interface Subscription {
  readonly eventClass: EventClass<object> | undefined;
  readonly listener: EventListener<object>;
}

/**
 * Publishes events to subscribers, synchronously and in subscription order.
 * A listener that throws is reported through `onListenerError` and does not
 * stop the others.
 *
 * @example Usage
 * ```ts
 * import { EventStream } from "@understudy/core";
 * import assert from "node:assert/strict";
 *
 * class Ping {}
 * const stream = new EventStream();
 * const seen: object[] = [];
 * const unsubscribe = stream.subscribe(Ping, (event) => seen.push(event));
 * stream.publish(new Ping());
 * unsubscribe();
 * stream.publish(new Ping());
 * assert.equal(seen.length, 1);
 * ```
 */
export class EventStream {
  #subscriptions: Subscription[] = [];
  readonly #onListenerError: (error: unknown) => void;

  /**
   * Creates a `EventStream`.
   *
   * @param onListenerError Called when a listener throws (default: `console.error`).
   */
  constructor(onListenerError?: (error: unknown) => void) {
    this.#onListenerError = onListenerError ??
      ((error) =>
        globalThis.console?.error("understudy: event listener threw", error));
  }

  /**
   * `true` when anyone listens; publishers check it to skip building events
   * nobody will read.
   *
   * @example Usage
   * ```ts
   * import { EventStream } from "@understudy/core";
   *
   * new EventStream().hasSubscribers; // false
   * ```
   */
  get hasSubscribers(): boolean {
    return this.#subscriptions.length > 0;
  }

  /**
   * Listens to every event, or only to instances of `eventClass`.
   *
   * @example Usage
   * ```ts
   * import { ActorSystem, DeadLetter } from "@understudy/core";
   *
   * const system = ActorSystem.create("demo");
   * const stopAll = system.eventStream.subscribe((event) => console.log(event));
   * const stopDead = system.eventStream.subscribe(DeadLetter, (dead) => console.log(dead.reason));
   * stopAll();
   * stopDead();
   * await system.terminate();
   * ```
   *
   * @returns A function that unsubscribes.
   */
  subscribe(listener: EventListener<object>): () => void;
  /**
   * Listens only to instances of `eventClass`.
   *
   * @param eventClass Only instances of this class reach the listener.
   * @param listener Called with each matching event.
   */
  subscribe<E extends object>(
    eventClass: EventClass<E>,
    listener: EventListener<E>,
  ): () => void;
  subscribe<E extends object>(
    eventClassOrListener: EventClass<E> | EventListener<object>,
    maybeListener?: EventListener<E>,
  ): () => void {
    let subscription: Subscription;
    // Counted, not compared with undefined: subscribe(Cls, undefined) is a
    // mistake, not a catch-all listener.
    if (arguments.length < 2) {
      if (typeof eventClassOrListener !== "function") {
        fail("subscribe", "listener", "a function", eventClassOrListener);
      }
      subscription = {
        eventClass: undefined,
        listener: eventClassOrListener as EventListener<object>,
      };
    } else {
      if (
        typeof eventClassOrListener !== "function" ||
        typeof eventClassOrListener.prototype !== "object" ||
        eventClassOrListener.prototype === null
      ) {
        fail(
          "subscribe",
          "eventClass",
          "a class, such as DeadLetter",
          eventClassOrListener,
        );
      }
      if (typeof maybeListener !== "function") {
        fail("subscribe", "listener", "a function", maybeListener);
      }
      subscription = {
        eventClass: eventClassOrListener as EventClass<object>,
        listener: maybeListener as EventListener<object>,
      };
    }
    // Copy on write, so a listener that unsubscribes during publish is safe.
    this.#subscriptions = [...this.#subscriptions, subscription];
    return () => {
      this.#subscriptions = this.#subscriptions.filter((s) =>
        s !== subscription
      );
    };
  }

  /**
   * Delivers `event` to every matching subscriber.
   *
   * @example Usage
   * ```ts
   * import { ActorSystem } from "@understudy/core";
   *
   * class CacheWarmed {}
   * const system = ActorSystem.create("demo");
   * system.eventStream.publish(new CacheWarmed());
   * await system.terminate();
   * ```
   *
   * @param event The event.
   */
  publish(event: object): void {
    for (const { eventClass, listener } of this.#subscriptions) {
      try {
        // Inside the try: `instanceof` runs a class's Symbol.hasInstance.
        if (eventClass !== undefined && !(event instanceof eventClass)) {
          continue;
        }
        listener(event);
      } catch (error) {
        this.#onListenerError(error);
      }
    }
  }
}
