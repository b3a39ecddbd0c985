// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * `Props`: the recipe for creating (and re-creating, on restart) an actor,
 * and `supervise`, which attaches per-actor supervision to it.
 *
 * @module
 */

import type { ErrorClass } from "../supervision/strategy.ts";
import {
  checkRestartType,
  type RestartType,
} from "../supervision/restart_type.ts";
import { TypedStrategy } from "../supervision/supervisor_strategy.ts";
import {
  type FailureClause,
  TypedFailureHandling,
} from "../supervision/typed.ts";
import { checkCount, checkDelay, fail } from "../validation.ts";
import type { Actor } from "./actor.ts";

/**
 * Options of {@linkcode Props.create}.
 *
 * @example Usage
 * ```ts
 * import { Props, type PropsOptions, Actor } from "@understudy/core";
 *
 * class Buffer extends Actor<string> {
 *   onReceive(): void {
 *     this.context.stash();
 *   }
 * }
 * const options: PropsOptions = { stashCapacity: 10_000 };
 * Props.create(() => new Buffer(), options);
 * ```
 */
export interface PropsOptions {
  /** How many messages `context.stash()` keeps; past that they go to dead letters. Default 1000. */
  stashCapacity?: number;
  /**
   * How long stopping this actor waits for its async handler in flight and
   * its async `postStop` before abandoning them, in milliseconds (0 to
   * 2³¹−1). Default: the system's `shutdownTimeoutMs`.
   */
  shutdownTimeoutMs?: number;
  /**
   * Whether the actor is brought back after it ended (OTP's restart type):
   * `"permanent"` always (the default), `"transient"` only after a failure,
   * `"temporary"` never. Under a classic or typed strategy a `"temporary"`
   * actor is stopped where it would be restarted; a `BackoffSupervisor`
   * respawns a `"transient"` child only after a crash and a `"temporary"`
   * one never.
   */
  restart?: RestartType;
  /**
   * How many messages may wait in this actor's mailbox; one sent past that
   * is a dead letter ("mailbox full"), and the sender goes on. A whole
   * number >= 1 or `Infinity`. Default: the system's `mailboxCapacity`.
   */
  mailboxCapacity?: number;
}

export type { FailureClause, RestartType };

/**
 * How to create an actor. The factory is called again for every restart, so
 * it must return a new instance each time.
 *
 * @example Usage
 * ```ts
 * import { Actor, ActorSystem, Props } from "@understudy/core";
 *
 * class Greeter extends Actor<string> {
 *   constructor(private readonly greeting: string) {
 *     super();
 *   }
 *   onReceive(name: string): void {
 *     this.log.info(`${this.greeting}, ${name}`);
 *   }
 * }
 *
 * const system = ActorSystem.create("demo");
 * const greeter = system.actorOf(Props.create(() => new Greeter("hello")), "greeter");
 * greeter.tell("world");
 * await system.terminate();
 * ```
 *
 * @typeParam T The messages the actor accepts.
 */
export class Props<T> {
  // `declare`d: the constructor assigns them (a field would be emitted
  // once more, as a definition).
  /** Creates a fresh actor instance. */
  declare readonly factory: () => Actor<T>;
  /** Capacity of `context.stash()`. */
  declare readonly stashCapacity: number;
  /**
   * The failure port: the typed handling `supervise(...).onFailure(...)`
   * installs; `undefined` means the parent's strategy decides. Internal.
   *
   * @ignore
   */
  declare readonly failureHandling: TypedFailureHandling | undefined;
  /** The actor's shutdown timeout; `undefined` means the system's. */
  declare readonly shutdownTimeoutMs: number | undefined;
  /** Whether the actor is brought back after it ended (see {@linkcode PropsOptions.restart}). */
  declare readonly restart: RestartType;
  /** The actor's mailbox capacity; `undefined` means the system's. */
  declare readonly mailboxCapacity: number | undefined;

  /** Use {@linkcode Props.create}. */
  protected constructor(
    factory: () => Actor<T>,
    stashCapacity: number,
    failureHandling: TypedFailureHandling | undefined,
    shutdownTimeoutMs: number | undefined,
    restart: RestartType = "permanent",
    mailboxCapacity?: number,
  ) {
    this.factory = factory;
    this.stashCapacity = stashCapacity;
    this.failureHandling = failureHandling;
    this.shutdownTimeoutMs = shutdownTimeoutMs;
    this.restart = restart;
    this.mailboxCapacity = mailboxCapacity;
  }

  /**
   * Props whose actors are made by `factory`.
   *
   * @example Usage
   * ```ts
   * import { Actor, Props } from "@understudy/core";
   *
   * class Worker extends Actor<string> {
   *   onReceive(): void {}
   * }
   * const props = Props.create(() => new Worker());
   * ```
   *
   * @typeParam T The messages the actor accepts.
   * @param factory Returns a new actor instance on each call.
   * @param options Stash capacity, shutdown timeout, restart type, mailbox capacity.
   * @returns The props.
   */
  static create<T>(
    factory: () => Actor<T>,
    options: PropsOptions = {},
  ): Props<T> {
    const action = "create Props";
    if (typeof options !== "object" || options === null) {
      fail(action, "options", "an object", options);
    }
    if (typeof factory !== "function") {
      fail(
        action,
        "factory",
        "a function returning a new Actor, as in Props.create(() => new MyActor())",
        factory,
      );
    }
    const { stashCapacity = 1000 } = options;
    checkCount(action, "stashCapacity", stashCapacity);
    const { shutdownTimeoutMs } = options;
    if (shutdownTimeoutMs !== undefined) {
      checkDelay("create Props", "shutdownTimeoutMs", shutdownTimeoutMs);
    }
    const { restart = "permanent", mailboxCapacity } = options;
    checkRestartType("create Props", restart);
    if (mailboxCapacity !== undefined) {
      checkCount(action, "mailboxCapacity", mailboxCapacity, 1);
    }
    return new Props(
      factory,
      stashCapacity,
      undefined,
      shutdownTimeoutMs,
      restart,
      mailboxCapacity,
    );
  }

  /**
   * The typed strategy for `error`: the clause with the most specific
   * matching class; `stop` when none matches. `undefined` when these props
   * have no clauses (the parent's strategy decides).
   */
  strategyFor(error: unknown): TypedStrategy | undefined {
    return this.failureHandling?.strategyFor(error);
  }

  /** Per-actor failure clauses added by `supervise(...).onFailure(...)`. */
  get failureClauses(): readonly FailureClause[] {
    return this.failureHandling?.clauses ?? [];
  }
}

/**
 * Props with per-actor supervision; add clauses with `onFailure`.
 *
 * @example Usage
 * ```ts
 * import { Actor, Props, supervise, SupervisorStrategy, type SupervisedProps } from "@understudy/core";
 *
 * class Worker extends Actor<string> {
 *   onReceive(): void {}
 * }
 * const props: SupervisedProps<string> = supervise(Props.create(() => new Worker()))
 *   .onFailure(Error, SupervisorStrategy.restart);
 * ```
 *
 * @typeParam T The messages the actor accepts.
 */
export class SupervisedProps<T> extends Props<T> {
  /** Use {@linkcode supervise}. */
  constructor(
    props: Props<T>,
    failureClauses: readonly FailureClause[] = props.failureClauses,
  ) {
    super(
      props.factory,
      props.stashCapacity,
      // No clause yet: the parent's strategy still decides.
      failureClauses.length === 0
        ? undefined
        : new TypedFailureHandling(failureClauses),
      props.shutdownTimeoutMs,
      props.restart,
      props.mailboxCapacity,
    );
  }

  /**
   * Applies `strategy` when the actor fails with an instance of
   * `errorClass`. Clauses chain; when several match, the most specific class
   * wins (a `TypeError` clause beats an `Error` clause, in either order); an
   * error that matches none stops the actor.
   *
   * @example Usage
   * ```ts
   * import { Actor, Props, supervise, SupervisorStrategy } from "@understudy/core";
   *
   * class Worker extends Actor<string> {
   *   onReceive(): void {}
   * }
   * supervise(Props.create(() => new Worker()))
   *   .onFailure(Error, SupervisorStrategy.restartWithLimit(3, 60_000))
   *   .onFailure(TypeError, SupervisorStrategy.resume);
   * ```
   *
   * @param errorClass The error class to match.
   * @param strategy What to do.
   * @returns New props with the clause added.
   */
  onFailure(
    errorClass: ErrorClass,
    strategy: TypedStrategy,
  ): SupervisedProps<T> {
    if (
      typeof errorClass !== "function" ||
      typeof errorClass.prototype !== "object" || errorClass.prototype === null
    ) {
      fail(
        "add failure clause",
        "errorClass",
        "an error class such as Error",
        errorClass,
      );
    }
    if (!(strategy instanceof TypedStrategy)) {
      fail(
        "add failure clause",
        "strategy",
        "a strategy from SupervisorStrategy, such as SupervisorStrategy.restart",
        strategy,
      );
    }
    return new SupervisedProps(this, [...this.failureClauses, [
      errorClass,
      strategy,
    ]]);
  }
}

/**
 * Starts attaching supervision to `props`: the actor is restarted, resumed
 * or stopped in place by the strategies of its `onFailure` clauses, keeping
 * its `ActorRef` across restarts.
 *
 * @example Usage
 * ```ts
 * import { Actor, ActorSystem, Props, supervise, SupervisorStrategy } from "@understudy/core";
 *
 * class Flaky extends Actor<string> {
 *   onReceive(): void {
 *     throw new Error("upstream not ready");
 *   }
 * }
 * const system = ActorSystem.create("demo", { logLevel: "off" });
 * const flaky = system.actorOf(
 *   supervise(Props.create(() => new Flaky()))
 *     .onFailure(Error, SupervisorStrategy.restartWithBackoff({ minBackoff: 200, maxBackoff: 10_000 })),
 *   "flaky",
 * );
 * await system.terminate();
 * ```
 *
 * @typeParam T The messages the actor accepts.
 * @param props The props to supervise.
 * @returns Props to which `onFailure` clauses can be added.
 */
export function supervise<T>(props: Props<T>): SupervisedProps<T> {
  if (!(props instanceof Props)) {
    fail("supervise", "props", "Props, as made by Props.create", props);
  }
  return new SupervisedProps(props);
}
