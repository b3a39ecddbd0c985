// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * understudy: an actor runtime for TypeScript whose centrepiece is
 * supervision. Actors process one message at a time; when one fails, its
 * supervisor resumes, restarts or stops it, and the `BackoffSupervisor`
 * restarts a crashed child after an exponentially growing, jittered delay,
 * keeping its messages while it is down.
 *
 * Runs unchanged in browsers, Deno, Bun, Node and edge workers: it uses only
 * web-standard APIs.
 *
 * @example A parent supervising a crashing child
 * ```ts
 * import { Actor, ActorSystem, OneForOneStrategy, Props, type ActorRef } from "@understudy/core";
 *
 * class Child extends Actor<string> {
 *   onReceive(message: string): void {
 *     if (message === "crash") throw new Error("boom");
 *     this.log.info(`handled ${message}`);
 *   }
 * }
 *
 * class Parent extends Actor<string> {
 *   override supervisorStrategy = new OneForOneStrategy(() => "restart", { maxRetries: 3, withinTimeRangeMs: 60_000 });
 *   #child!: ActorRef<string>;
 *   override preStart(): void {
 *     this.#child = this.context.actorOf(Props.create(() => new Child()), "child");
 *   }
 *   onReceive(message: string): void {
 *     this.#child.tell(message, this.self);
 *   }
 * }
 *
 * const system = ActorSystem.create("demo");
 * const parent = system.actorOf(Props.create(() => new Parent()), "parent");
 * parent.tell("crash"); // the child fails and is restarted with a fresh instance
 * parent.tell("work"); // …and handles this one
 * await new Promise((resolve) => setTimeout(resolve, 100)); // let them work
 * await system.terminate(); // stops every actor; still-queued messages go to dead letters
 * ```
 *
 * @module
 */

export {
  Actor,
  type ActorContext,
  type Behavior,
  Terminated,
} from "./src/runtime/actor.ts";
export {
  ActorRef,
  AskTimeoutError,
  DEFAULT_ASK_TIMEOUT_MS,
  UndeliveredError,
} from "./src/runtime/actor_ref.ts";
export {
  ActorSystem,
  type ActorSystemOptions,
} from "./src/runtime/actor_system.ts";
export {
  ActorFailed,
  ActorRestarted,
  ActorStarted,
  ActorStopped,
  ActorStopTimedOut,
  DeadLetter,
  type EventClass,
  type EventListener,
  EventStream,
} from "./src/runtime/event_stream.ts";
export {
  consoleSink,
  Logger,
  type LogLevel,
  type LogRecord,
  type LogSink,
} from "./src/runtime/logging.ts";
export {
  type FailureClause,
  Props,
  type PropsOptions,
  supervise,
  SupervisedProps,
} from "./src/runtime/props.ts";
export type { TimerScheduler } from "./src/runtime/timers.ts";
export {
  AllForOneStrategy,
  decideByErrorClass,
  type Decider,
  defaultStrategy,
  Directive,
  type ErrorClass,
  FaultHandlingStrategy,
  matchErrorClass,
  OneForOneStrategy,
  requestRestartPermission,
  type RestartLimits,
  type RestartStatistics,
  stoppingStrategy,
} from "./src/supervision/strategy.ts";
export {
  type RestartWithBackoffOptions,
  type StrategyKind,
  SupervisorStrategy,
  TypedStrategy,
} from "./src/supervision/supervisor_strategy.ts";
export * from "./src/backoff/mod.ts";
export { BackoffSupervisor } from "./src/patterns/backoff_supervisor.ts";
export type { BackoffOptions } from "./src/patterns/backoff_options.ts";
export {
  BackoffChildFailed,
  BackoffChildStarted,
  BackoffCounterReset,
  BackoffEvent,
  BackoffGaveUp,
  BackoffMessageDropped,
  type BackoffProtocol,
  BackoffScheduled,
  CurrentChild,
  GetCurrentChild,
  GetRestartCount,
  ResetRestartCount,
  RespawnNow,
  RestartCount,
} from "./src/patterns/backoff_protocol.ts";
export type {
  ResetCounter,
  TriggerOn,
} from "./src/supervision/backoff_decision.ts";
