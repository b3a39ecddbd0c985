// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The actor system: the root of an actor tree, its dispatcher, event stream
 * and dead letters.
 *
 * @module
 */

import {
  checkStrategy,
  defaultStrategy,
  type FaultHandlingStrategy,
} from "../supervision/strategy.ts";
import { describeValue, fail } from "../validation.ts";
import { Actor } from "./actor.ts";
import { ActorCell } from "./kernel/cell.ts";
import { ActorRef, installInspection, UndeliveredError } from "./actor_ref.ts";
import { type AskOwner, AskRef, PendingAsks } from "./features/ask.ts";
import { Dispatcher } from "./dispatcher.ts";
import { DeadLetter, type EventListener, EventStream } from "./event_stream.ts";
import {
  checkLogLevel,
  consoleSink,
  Logger,
  type LogLevel,
  type LogSink,
} from "./logging.ts";
import { Props } from "./props.ts";
import {
  isScheduler,
  realScheduler,
  type Scheduler,
} from "./ports/scheduler.ts";
import { ForwardedMessage, isTracked } from "./ports/tracked_message.ts";
import { checkCount, checkDelay } from "../validation.ts";

/** The default of {@linkcode ActorSystemOptions.shutdownTimeoutMs}. */
const DEFAULT_SHUTDOWN_TIMEOUT_MS = 5_000;

/**
 * Options of {@linkcode ActorSystem.create}.
 *
 * @example Usage
 * ```ts
 * import { ActorSystem, OneForOneStrategy, type ActorSystemOptions } from "@understudy/core";
 *
 * const options: ActorSystemOptions = {
 *   logLevel: "warn",
 *   logger: (record) => console.log(JSON.stringify(record)),
 *   guardianStrategy: new OneForOneStrategy(() => "restart", { maxRetries: 3, withinTimeRangeMs: 10_000 }),
 * };
 * const system = ActorSystem.create("app", options);
 * await system.terminate();
 * ```
 */
export interface ActorSystemOptions {
  /** The least severe level logged. Default `"info"`. */
  logLevel?: LogLevel;
  /** Where log records go. Default: the console. */
  logger?: LogSink;
  /**
   * How the `/user` guardian treats failing top-level actors. Default
   * {@linkcode defaultStrategy} (restart up to 10 times a minute, then stop);
   * `Escalate` at the top means `Stop`.
   */
  guardianStrategy?: FaultHandlingStrategy;
  /**
   * How long stopping an actor waits for its async handler in flight and
   * its async `postStop` before abandoning them (with an
   * {@linkcode ActorStopTimedOut} event and a warning), and how long
   * `terminate()` waits for the whole tree. A `Props` may set its own.
   * Milliseconds, 0 to 2³¹−1. Default 5000.
   */
  shutdownTimeoutMs?: number;
  /**
   * Runs every timer the library starts and is the clock it reads (see
   * {@linkcode Scheduler}). Default {@linkcode realScheduler}; tests pass
   * `ManualScheduler` from `@understudy/core/testing` to move time
   * themselves.
   */
  scheduler?: Scheduler;
  /**
   * How many messages may wait in an actor's mailbox, for actors whose
   * `Props` set none; one sent past that is a dead letter ("mailbox full"),
   * and the sender goes on. A whole number >= 1 or `Infinity`. Default
   * `Infinity`, as in Akka and OTP: a bound drops messages of a burst the
   * actor would have caught up with, so it is a choice of the application's.
   * Set one where a flood must not take the whole process down: each waiting
   * message holds memory until it is handled.
   */
  mailboxCapacity?: number;
  /**
   * How many dead letters are logged (at `"info"`, with the recipient, the
   * reason and the message) before the log falls silent for five minutes;
   * then as many again. Default 10, as in Akka; `0` logs none (all are
   * still published as {@linkcode DeadLetter} events, and logged at
   * `"debug"`). Those of a `terminate()` are not logged: a shutdown's are
   * expected.
   */
  logDeadLetters?: number;
  /**
   * Sees everything the system does, for devtools and tests (as XState's
   * `inspect`): called with every event the system publishes (lifecycle
   * steps, `ActorFailed` with its supervisor's decision, dead letters, the
   * patterns' events), and with a `MessageSent` for every tell to
   * an actor and a `MessageReceived` for every message a handler
   * gets. A throw from it is logged, as an event listener's. Without it,
   * sends and receives cost nothing extra.
   */
  inspect?: EventListener<object>;
}

/** The guardian of `/user`: parent of every top-level actor. */
class Guardian extends Actor<never> {
  constructor(override readonly supervisorStrategy: FaultHandlingStrategy) {
    super();
  }
  onReceive(message: never): void {
    this.context.system.deadLetters.tell(
      message,
      this.sender as ActorRef<never>,
    );
  }
}

/** The sink for undeliverable messages, as a ref one can send to. */
class DeadLettersRef extends ActorRef<unknown> {
  // Public, as a cell's is: the runtime's ports reach a system's core
  // through it (`ports/dispatcher_idle.ts`).
  declare readonly core: SystemCore;
  constructor(core: SystemCore) {
    super();
    (this as { core: SystemCore }).core = core;
  }
  get path(): string {
    return "/deadLetters";
  }
  tell(message: unknown, sender?: ActorRef<never>): void {
    this.core.deadLetter(message, sender, this, "sent to deadLetters");
  }
  ask<R>(message: unknown): Promise<R> {
    this.core.deadLetter(message, undefined, this, "sent to deadLetters");
    return Promise.reject(
      new UndeliveredError(this.path, "sent to deadLetters"),
    );
  }
}

/** What every cell of a system shares. Internal to the runtime. */
export class SystemCore implements AskOwner {
  // The fields the constructor assigns are `declare`d: a field would be
  // emitted once more, as a definition (undefined) before the assignment.
  declare readonly system: ActorSystem;
  readonly dispatcher: Dispatcher = new Dispatcher();
  declare readonly eventStream: EventStream;
  declare readonly logLevel: LogLevel;
  declare readonly logSink: LogSink;
  declare readonly log: Logger;
  declare readonly pendingAsks: PendingAsks;
  declare readonly deadLetters: DeadLettersRef;
  declare readonly guardian: ActorCell<never>;
  declare readonly shutdownTimeoutMs: number;
  declare readonly mailboxCapacity: number;
  /** Dead letters logged per allowance (`logDeadLetters`). */
  readonly #deadLetterAllowance: number;
  #deadLettersLogged = 0;
  #deadLetterLogPausedUntil = -Infinity;
  declare readonly scheduler: Scheduler;
  /** Created with `inspect`: its cells publish their sends and receives. */
  declare readonly inspecting: boolean;
  terminating = false;
  declare readonly whenTerminated: Promise<void>;
  #resolveTerminated!: () => void;
  /** Ends a `terminate()` that outlives the shutdown timeout. */
  #shutdownDeadline: unknown = undefined;

  constructor(system: ActorSystem, options: ActorSystemOptions) {
    this.system = system;
    this.logLevel = checkLogLevel(options.logLevel ?? "info");
    const sink = options.logger ?? consoleSink;
    if (typeof sink !== "function") {
      fail(
        "create actor system",
        "logger",
        "a function receiving log records",
        sink,
      );
    }
    this.logSink = sink;
    this.shutdownTimeoutMs = checkDelay(
      "create actor system",
      "shutdownTimeoutMs",
      options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS,
    );
    this.mailboxCapacity = checkCount(
      "create actor system",
      "mailboxCapacity",
      options.mailboxCapacity ?? Infinity,
      1,
    );
    this.#deadLetterAllowance = checkCount(
      "create actor system",
      "logDeadLetters",
      options.logDeadLetters ?? 10,
    );
    const scheduler = options.scheduler ?? realScheduler;
    if (!isScheduler(scheduler)) {
      fail(
        "create actor system",
        "scheduler",
        "an object with setTimeout, clearTimeout and now functions",
        scheduler,
      );
    }
    this.scheduler = scheduler;
    // A host that refuses timers (a Worker's global scope) refuses the
    // system here, at the call, not its actors' first timers later on. Only
    // the host's own timers are probed: a scheduler given (a test's, a
    // Durable Object's alarm) is asked for nothing it was not asked for.
    if (scheduler === realScheduler) {
      scheduler.clearTimeout(scheduler.setTimeout(() => {}, 0));
    }
    this.pendingAsks = new PendingAsks(scheduler);
    const strategy = options.guardianStrategy ?? defaultStrategy;
    checkStrategy("create actor system", "guardianStrategy", strategy);
    this.log = new Logger(() => `/${system.name}`, this.logLevel, sink);
    this.eventStream = new EventStream((error) =>
      this.log.error("event stream listener threw", error)
    );
    const { inspect } = options;
    if (inspect !== undefined && typeof inspect !== "function") {
      fail("create actor system", "inspect", "a function", inspect);
    }
    this.inspecting = inspect !== undefined;
    // Before the guardian: the inspector sees the whole life of the system.
    if (inspect !== undefined) this.eventStream.subscribe(inspect);
    this.deadLetters = new DeadLettersRef(this);
    this.whenTerminated = new Promise((
      resolve,
    ) => (this.#resolveTerminated = resolve));
    this.guardian = new ActorCell(
      this,
      undefined,
      "user",
      Props.create(() => new Guardian(strategy)) as Props<never>,
    );
    this.guardian.requestStart();
  }

  /**
   * Publishes an undelivered message. If its sender is a pending `ask`, that
   * ask fails at once instead of waiting for its timeout. A tracked message
   * (`tracked_message.ts`) hears of it, and the message inside is published;
   * a forwarded one too, to the ref it was for (or nothing, if its sender
   * sends it again).
   */
  deadLetter(
    message: unknown,
    sender: unknown,
    recipient: ActorRef<never>,
    reason: string,
  ): void {
    if (isTracked(message)) {
      message.undelivered(reason);
      message = message.message;
    } else if (ForwardedMessage.is(message)) {
      if (!message.undelivered(reason)) return; // it will be sent again
      recipient = message.recipient;
      message = message.message;
    }
    if (sender instanceof AskRef) {
      sender.fail(new UndeliveredError(recipient.path, reason));
    }
    this.#logDeadLetter(
      `dead letter to ${recipient.path} (${reason})`,
      message,
    );
    if (this.eventStream.hasSubscribers) {
      this.eventStream.publish(
        new DeadLetter(
          message,
          sender as ActorRef<never> | undefined,
          recipient,
          reason,
        ),
      );
    }
  }

  /**
   * The first dead letters of each allowance at `"info"` (a mistyped
   * message should not vanish without a word), then a pause that says so;
   * the rest, and a shutdown's, at `"debug"`. Rate-limited by the
   * scheduler's clock, so it starts no timer.
   */
  #logDeadLetter(text: string, message: unknown): void {
    const allowance = this.#deadLetterAllowance;
    const now = this.scheduler.now();
    if (
      allowance === 0 || this.terminating ||
      now < this.#deadLetterLogPausedUntil
    ) return this.log.debug(text, message);
    this.log.info(text, message);
    if (++this.#deadLettersLogged % allowance === 0) {
      this.#deadLetterLogPausedUntil = now + 300_000;
      this.log.info("further dead letters not logged for 5 min");
    }
  }

  /**
   * Stops every actor. Each actor's own stop is bounded by its shutdown
   * timeout, but a tree of them (a parent waits for its children) could add
   * those up; one deadline for the whole tree keeps `terminate()` bounded.
   */
  terminate(): void {
    if (this.terminating) return;
    this.terminating = true;
    this.guardian.requestStop();
    const timeoutMs = this.shutdownTimeoutMs;
    this.#shutdownDeadline = this.scheduler.setTimeout(() => {
      this.#shutdownDeadline = undefined;
      this.guardian.forceStop(timeoutMs);
    }, timeoutMs);
  }

  /** The guardian stopped: the whole tree is down. */
  guardianTerminated(): void {
    if (this.#shutdownDeadline !== undefined) {
      this.scheduler.clearTimeout(this.#shutdownDeadline);
      this.#shutdownDeadline = undefined;
    }
    this.dispatcher.close();
    this.pendingAsks.failAll("actor system terminated");
    this.#resolveTerminated();
  }
}

const SYSTEM_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/**
 * An actor system: create top-level actors with `actorOf`, watch the event
 * stream, and `terminate` when done (which stops every actor and clears
 * every timer the library started).
 *
 * @example Usage
 * ```ts
 * import { Actor, ActorSystem, Props } from "@understudy/core";
 *
 * class Hello extends Actor<string> {
 *   onReceive(name: string): void {
 *     console.log(`hello, ${name}`);
 *   }
 * }
 *
 * const system = ActorSystem.create("hello");
 * system.actorOf(Props.create(() => new Hello()), "greeter").tell("world");
 * await system.terminate();
 * ```
 */
export class ActorSystem {
  /** The system's name. */
  readonly name: string;
  readonly #core: SystemCore;

  private constructor(name: string, options: ActorSystemOptions) {
    this.name = name;
    this.#core = new SystemCore(this, options);
    // Refs and systems print as `ActorRef(/user/a)` and `ActorSystem(name)`.
    installInspection(ActorSystem.prototype);
  }

  /**
   * The system's name, for logs: `ActorSystem(name)`. `console.log` prints
   * a system (and a ref) this way in Node, Deno and Bun.
   *
   * @example Usage
   * ```ts
   * import { ActorSystem } from "@understudy/core";
   *
   * const system = ActorSystem.create("shop");
   * console.log(String(system)); // "ActorSystem(shop)"
   * await system.terminate();
   * ```
   *
   * @returns `ActorSystem(name)`.
   */
  toString(): string {
    return `ActorSystem(${this.name})`;
  }

  /**
   * Creates an actor system.
   *
   * @example Usage
   * ```ts
   * import { ActorSystem } from "@understudy/core";
   *
   * const system = ActorSystem.create("orders", { logLevel: "warn" });
   * await system.terminate();
   * ```
   *
   * @param name Letters, digits, `-` and `_`, starting with a letter or digit.
   * @param options Logging and the guardian's strategy.
   * @returns The system.
   */
  static create(name: string, options: ActorSystemOptions = {}): ActorSystem {
    if (typeof name !== "string" || !SYSTEM_NAME_PATTERN.test(name)) {
      fail(
        "create actor system",
        "name",
        'a string of letters, digits, "-" and "_", starting with a letter or digit',
        name,
      );
    }
    if (typeof options !== "object" || options === null) {
      fail("create actor system", "options", "an object", options);
    }
    return new ActorSystem(name, options);
  }

  /**
   * Dead letters and lifecycle events; anyone may publish their own.
   *
   * @example Usage
   * ```ts
   * import { ActorSystem, DeadLetter } from "@understudy/core";
   *
   * const system = ActorSystem.create("demo");
   * system.eventStream.subscribe(DeadLetter, (dead) => console.log(dead.reason));
   * await system.terminate();
   * ```
   */
  get eventStream(): EventStream {
    return this.#core.eventStream;
  }

  /**
   * The scheduler that runs this system's timers and is its clock
   * ({@linkcode ActorSystemOptions.scheduler}); actors that time things
   * themselves read it, so a manual scheduler in a test moves them too.
   *
   * @example Usage
   * ```ts
   * import { ActorSystem } from "@understudy/core";
   *
   * const system = ActorSystem.create("demo");
   * const startedAt = system.scheduler.now();
   * await system.terminate();
   * console.log(system.scheduler.now() >= startedAt); // true
   * ```
   */
  get scheduler(): Scheduler {
    return this.#core.scheduler;
  }

  /**
   * A ref whose messages go straight to dead letters.
   *
   * @example Usage
   * ```ts
   * import { ActorSystem } from "@understudy/core";
   *
   * const system = ActorSystem.create("demo");
   * system.deadLetters.tell("nobody wants this");
   * await system.terminate();
   * ```
   */
  get deadLetters(): ActorRef<unknown> {
    return this.#core.deadLetters;
  }

  /**
   * The system's own logger.
   *
   * @example Usage
   * ```ts
   * import { ActorSystem } from "@understudy/core";
   *
   * const system = ActorSystem.create("demo");
   * system.log.info("ready");
   * await system.terminate();
   * ```
   */
  get log(): Logger {
    return this.#core.log;
  }

  /**
   * Resolves once the system has terminated.
   *
   * @example Usage
   * ```ts
   * import { ActorSystem } from "@understudy/core";
   *
   * const system = ActorSystem.create("demo");
   * system.whenTerminated.then(() => console.log("bye"));
   * await system.terminate();
   * ```
   */
  get whenTerminated(): Promise<void> {
    return this.#core.whenTerminated;
  }

  /**
   * Publishes a {@linkcode DeadLetter} for a message that will not be
   * delivered, for actors that drop or discard messages themselves (as the
   * BackoffSupervisor does). If the message's sender is a pending `ask`, the
   * ask fails at once with {@linkcode UndeliveredError}.
   *
   * @example Usage
   * ```ts
   * import { Actor, ActorSystem, Props } from "@understudy/core";
   *
   * class Bouncer extends Actor<string> {
   *   onReceive(message: string): void {
   *     this.context.system.publishDeadLetter(message, this.sender, this.self, "closed for the night");
   *   }
   * }
   * const system = ActorSystem.create("demo");
   * system.actorOf(Props.create(() => new Bouncer())).tell("let me in");
   * await system.terminate();
   * ```
   *
   * @param message The undelivered message.
   * @param sender Its sender, if any.
   * @param recipient Who it was for.
   * @param reason Why it is not delivered.
   */
  publishDeadLetter(
    message: unknown,
    sender: ActorRef<never> | undefined,
    recipient: ActorRef<never>,
    reason: string,
  ): void {
    this.#core.deadLetter(message, sender, recipient, reason);
  }

  /**
   * Creates a top-level actor, a child of `/user`.
   *
   * @example Usage
   * ```ts
   * import { Actor, ActorSystem, Props } from "@understudy/core";
   *
   * class Worker extends Actor<string> {
   *   onReceive(): void {}
   * }
   * const system = ActorSystem.create("demo");
   * const worker = system.actorOf(Props.create(() => new Worker()), "worker");
   * worker.path; // "/user/worker"
   * await system.terminate();
   * ```
   *
   * @typeParam T The messages the actor accepts.
   * @param props How to create it.
   * @param name Unique among top-level actors; generated when omitted.
   * @returns Its ref.
   */
  actorOf<T>(props: Props<T>, name?: string): ActorRef<T> {
    if (this.#core.terminating) {
      throw new Error(
        `Cannot create actor: actor system "${this.name}" is terminated`,
      );
    }
    return this.#core.guardian.actorOf(props, name);
  }

  /**
   * Stops an actor of this system from outside, as `context.stop` does
   * from inside: after the message it is processing, its children first;
   * the messages still queued become dead letters. Meant for top-level
   * actors, but any actor of this system may be stopped (as in Akka); to
   * stop one after the messages already sent to it, send it a
   * {@linkcode PoisonPill} instead. Stopping an actor that has stopped
   * already does nothing.
   *
   * @example Usage
   * ```ts
   * import { Actor, ActorSystem, Props } from "@understudy/core";
   *
   * class Worker extends Actor<string> {
   *   onReceive(): void {}
   * }
   * const system = ActorSystem.create("demo");
   * const worker = system.actorOf(Props.create(() => new Worker()), "worker");
   * system.stop(worker);
   * await system.terminate();
   * ```
   *
   * @param ref An actor of this system.
   */
  stop(ref: ActorRef<never>): void {
    const core = this.#core;
    if (
      !(ref instanceof ActorCell) || ref.core !== core || ref === core.guardian
    ) {
      throw new TypeError(
        `Cannot stop ${
          ref instanceof ActorRef ? ref.toString() : describeValue(ref)
        }: "ref" must be an actor of actor system "${this.name}" (as returned by its actorOf or a context's actorOf)`,
      );
    }
    ref.requestStop();
  }

  /**
   * Stops every actor (children before parents, siblings newest first, each
   * `postStop` run), cancels every timer and pending `ask`, and resolves
   * when done. Calling it again returns the same promise. It always
   * resolves: whatever is still pending after `shutdownTimeoutMs` (an async
   * handler or `postStop` that never settles) is abandoned, with an
   * {@linkcode ActorStopTimedOut} event for each actor concerned.
   *
   * @example Usage
   * ```ts
   * import { ActorSystem } from "@understudy/core";
   *
   * const system = ActorSystem.create("demo");
   * await system.terminate();
   * ```
   *
   * @returns Resolves once everything has stopped.
   */
  terminate(): Promise<void> {
    this.#core.terminate();
    return this.#core.whenTerminated;
  }
}
