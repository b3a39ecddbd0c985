// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * What a BackoffSupervisor says and understands besides its child's
 * messages: the events it publishes on the event stream (all subclasses of
 * {@linkcode BackoffEvent}), the protocol messages it handles itself and
 * never forwards ({@linkcode BackoffProtocol}), and their replies.
 *
 * The protocol classes carry a type-only brand, so they are told apart from
 * each other and from a child's messages when type-checking:
 * `BackoffSupervisor.props` types the supervisor's ref as the child's
 * messages plus {@linkcode BackoffProtocol}, and an empty class would
 * otherwise accept any value.
 *
 * @module
 */

import { type ActorRef, Query } from "../runtime/actor_ref.ts";

/**
 * Base of the BackoffSupervisor's events on the event stream; subscribe to
 * it for all of them.
 *
 * @example Usage
 * ```ts
 * import { ActorSystem, BackoffEvent } from "@understudy/core";
 *
 * const system = ActorSystem.create("demo");
 * system.eventStream.subscribe(BackoffEvent, (event) => console.log(event.constructor.name, event.supervisor.path));
 * await system.terminate();
 * ```
 */
export abstract class BackoffEvent {
  /**
   * Creates a `BackoffEvent`.
   *
   * @param supervisor The supervisor that published it.
   */
  constructor(readonly supervisor: ActorRef<never>) {}
}

/**
 * The child crashed (threw or rejected).
 *
 * @example Usage
 * ```ts
 * import { ActorSystem, BackoffChildFailed } from "@understudy/core";
 *
 * const system = ActorSystem.create("demo");
 * system.eventStream.subscribe(BackoffChildFailed, (event) => console.log(event.child.path, event.error));
 * await system.terminate();
 * ```
 */
export class BackoffChildFailed extends BackoffEvent {
  /**
   * Creates a `BackoffChildFailed`.
   *
   * @param supervisor The supervisor.
   * @param child The child that failed.
   * @param error What it threw.
   */
  constructor(
    supervisor: ActorRef<never>,
    readonly child: ActorRef<never>,
    readonly error: unknown,
  ) {
    super(supervisor);
  }
}

/**
 * A respawn is scheduled after `delayMs`; `restartCount` is the count the
 * policy was asked for (0 for the first respawn since a reset).
 *
 * @example Usage
 * ```ts
 * import { ActorSystem, BackoffScheduled } from "@understudy/core";
 *
 * const system = ActorSystem.create("demo");
 * system.eventStream.subscribe(BackoffScheduled, (event) => console.log(event.restartCount, event.delayMs));
 * await system.terminate();
 * ```
 */
export class BackoffScheduled extends BackoffEvent {
  /**
   * Creates a `BackoffScheduled`.
   *
   * @param supervisor The supervisor.
   * @param restartCount Respawns since the last reset, before this one.
   * @param delayMs The delay chosen.
   */
  constructor(
    supervisor: ActorRef<never>,
    readonly restartCount: number,
    readonly delayMs: number,
  ) {
    super(supervisor);
  }
}

/**
 * A child was spawned; its up-time counts from now. Its `preStart` may
 * still be running (and may fail): messages delivered to it wait in its
 * mailbox until it is done.
 *
 * @example Usage
 * ```ts
 * import { ActorSystem, BackoffChildStarted } from "@understudy/core";
 *
 * const system = ActorSystem.create("demo");
 * system.eventStream.subscribe(BackoffChildStarted, (event) => console.log(event.child.path));
 * await system.terminate();
 * ```
 */
export class BackoffChildStarted extends BackoffEvent {
  /**
   * Creates a `BackoffChildStarted`.
   *
   * @param supervisor The supervisor.
   * @param child The new child.
   * @param restartCount Respawns since the last reset.
   */
  constructor(
    supervisor: ActorRef<never>,
    readonly child: ActorRef<never>,
    readonly restartCount: number,
  ) {
    super(supervisor);
  }
}

/**
 * The restart count went back to 0 (a stable child, or a `Reset`).
 *
 * @example Usage
 * ```ts
 * import { ActorSystem, BackoffCounterReset } from "@understudy/core";
 *
 * const system = ActorSystem.create("demo");
 * system.eventStream.subscribe(BackoffCounterReset, (event) => console.log(event.supervisor.path));
 * await system.terminate();
 * ```
 */
export class BackoffCounterReset extends BackoffEvent {}

/**
 * A message was not delivered (dropped, over the stash limit, or left when
 * the supervisor stopped). A {@linkcode DeadLetter} is published for it too.
 *
 * @example Usage
 * ```ts
 * import { ActorSystem, BackoffMessageDropped } from "@understudy/core";
 *
 * const system = ActorSystem.create("demo");
 * system.eventStream.subscribe(BackoffMessageDropped, (event) => console.log(event.reason));
 * await system.terminate();
 * ```
 */
export class BackoffMessageDropped extends BackoffEvent {
  /**
   * Creates a `BackoffMessageDropped`.
   *
   * @param supervisor The supervisor.
   * @param message The message.
   * @param reason Why.
   */
  constructor(
    supervisor: ActorRef<never>,
    readonly message: unknown,
    readonly reason: string,
  ) {
    super(supervisor);
  }
}

/**
 * `maxRestarts` respawns without a reset: the supervisor stops for good.
 *
 * @example Usage
 * ```ts
 * import { ActorSystem, BackoffGaveUp } from "@understudy/core";
 *
 * const system = ActorSystem.create("demo");
 * system.eventStream.subscribe(BackoffGaveUp, (event) => console.log(`gave up after ${event.restartCount}`));
 * await system.terminate();
 * ```
 */
export class BackoffGaveUp extends BackoffEvent {
  /**
   * Creates a `BackoffGaveUp`.
   *
   * @param supervisor The supervisor.
   * @param restartCount Respawns made since the last reset.
   */
  constructor(supervisor: ActorRef<never>, readonly restartCount: number) {
    super(supervisor);
  }
}

/**
 * Asks a BackoffSupervisor for its current child; the reply is a
 * {@linkcode CurrentChild}, and `ask` infers it (a
 * {@linkcode Query}`<CurrentChild>`). Send
 * {@linkcode BackoffSupervisor.GetCurrentChild}.
 *
 * @example Usage
 * ```ts
 * import { BackoffSupervisor, GetCurrentChild } from "@understudy/core";
 *
 * BackoffSupervisor.GetCurrentChild instanceof GetCurrentChild; // true
 * ```
 */
export class GetCurrentChild extends Query<CurrentChild> {
  declare private readonly brand: "get-current-child";
}

/**
 * Asks a BackoffSupervisor for its restart count; the reply is a
 * {@linkcode RestartCount}, and `ask` infers it (a
 * {@linkcode Query}`<RestartCount>`). Send
 * {@linkcode BackoffSupervisor.GetRestartCount}.
 *
 * @example Usage
 * ```ts
 * import { BackoffSupervisor, GetRestartCount } from "@understudy/core";
 *
 * BackoffSupervisor.GetRestartCount instanceof GetRestartCount; // true
 * ```
 */
export class GetRestartCount extends Query<RestartCount> {
  declare private readonly brand: "get-restart-count";
}

/**
 * Resets a BackoffSupervisor's restart count. A child sends
 * {@linkcode BackoffSupervisor.Reset} to its parent after real success.
 *
 * @example Usage
 * ```ts
 * import { Actor, BackoffSupervisor } from "@understudy/core";
 *
 * class Worker extends Actor<string> {
 *   onReceive(): void {
 *     this.context.parent.tell(BackoffSupervisor.Reset);
 *   }
 * }
 * ```
 */
export class ResetRestartCount {
  declare private readonly brand: "reset-restart-count";
}

/**
 * Ends a pending backoff wait: the child is respawned at once. Ignored while
 * a child runs. The restart count is kept (send `Reset` too to reset it).
 * What a reconnecting client sends when it learns the network is back.
 * Send {@linkcode BackoffSupervisor.RespawnNow}.
 *
 * @example Usage
 * ```ts
 * import { BackoffSupervisor, RespawnNow } from "@understudy/core";
 *
 * BackoffSupervisor.RespawnNow instanceof RespawnNow; // true
 * ```
 */
export class RespawnNow {
  declare private readonly brand: "respawn-now";
}

// The protocol's messages carry nothing: one instance each, shared by the
// BackoffSupervisor and the BackoffSender (matched by class). Internal.
/** @internal */
export const GET_CURRENT_CHILD: GetCurrentChild =
  /* @__PURE__ */ new GetCurrentChild();
/** @internal */
export const GET_RESTART_COUNT: GetRestartCount =
  /* @__PURE__ */ new GetRestartCount();
/** @internal */
export const RESET: ResetRestartCount = /* @__PURE__ */ new ResetRestartCount();
/** @internal */
export const RESPAWN_NOW: RespawnNow = /* @__PURE__ */ new RespawnNow();

/**
 * The reply to `GetCurrentChild`: the running child, or `undefined` while
 * there is none (the child is stopping, or the supervisor waits to respawn).
 *
 * @example Usage
 * ```ts
 * import { Actor, ActorSystem, BackoffSupervisor, CurrentChild, Props } from "@understudy/core";
 *
 * class Worker extends Actor<string> {
 *   onReceive(): void {}
 * }
 * const system = ActorSystem.create("demo");
 * const supervisor = system.actorOf(
 *   BackoffSupervisor.props({ childProps: Props.create(() => new Worker()), minBackoff: 100, maxBackoff: 1_000 }),
 * );
 * const reply: CurrentChild = await supervisor.ask(BackoffSupervisor.GetCurrentChild);
 * console.log(reply.ref?.path); // "/user/$0/child-1"
 * await system.terminate();
 * ```
 */
export class CurrentChild {
  /**
   * Creates a `CurrentChild`.
   *
   * @param ref The child, or `undefined`.
   */
  constructor(readonly ref: ActorRef<unknown> | undefined) {}
}

/**
 * The reply to `GetRestartCount`.
 *
 * @example Usage
 * ```ts
 * import { Actor, ActorSystem, BackoffSupervisor, Props, RestartCount } from "@understudy/core";
 *
 * class Worker extends Actor<string> {
 *   onReceive(): void {}
 * }
 * const system = ActorSystem.create("demo");
 * const supervisor = system.actorOf(
 *   BackoffSupervisor.props({ childProps: Props.create(() => new Worker()), minBackoff: 100, maxBackoff: 1_000 }),
 * );
 * const { count }: RestartCount = await supervisor.ask(BackoffSupervisor.GetRestartCount);
 * console.log(count); // 0
 * await system.terminate();
 * ```
 */
export class RestartCount {
  /**
   * Creates a `RestartCount`.
   *
   * @param count Respawns since the last reset.
   */
  constructor(readonly count: number) {}
}

/**
 * The messages a BackoffSupervisor handles itself, whoever sends them, and
 * never forwards to its child. Its ref accepts these and its child's
 * messages.
 *
 * @example Usage
 * ```ts
 * import { BackoffSupervisor, type BackoffProtocol } from "@understudy/core";
 *
 * const reset: BackoffProtocol = BackoffSupervisor.Reset;
 * ```
 */
export type BackoffProtocol =
  | GetCurrentChild
  | GetRestartCount
  | ResetRestartCount
  | RespawnNow;
