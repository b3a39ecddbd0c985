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
  type AskOptions,
  AskTimeoutError,
  DEFAULT_ASK_TIMEOUT_MS,
  Query,
  reply,
  type ReplyOf,
  Request,
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
  MessageReceived,
  MessageSent,
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
export { PoisonPill } from "./src/runtime/poison_pill.ts";
export { ReceiveTimeout } from "./src/runtime/features/receive_timeout.ts";
export type { RestartType } from "./src/supervision/restart_type.ts";
export type { TimerScheduler } from "./src/runtime/features/timers.ts";
export {
  realScheduler,
  type Scheduler,
} from "./src/runtime/ports/scheduler.ts";
export type { DueKeeper, EarlierDue } from "./src/runtime/ports/due_keeper.ts";
export {
  AllForOneStrategy,
  decideByErrorClass,
  type Decider,
  defaultStrategy,
  Directive,
  type ErrorClass,
  FaultHandlingStrategy,
  type LimitExceeded,
  matchErrorClass,
  OneForOneStrategy,
  requestRestartPermission,
  RestartLimitExceeded,
  type RestartLimits,
  type RestartStatistics,
  RestForOneStrategy,
  stoppingStrategy,
} from "./src/supervision/strategy.ts";
export {
  restartActor,
  restartWithBackoff,
  type RestartWithBackoffOptions,
  restartWithLimit,
  resumeActor,
  stopActor,
  type StrategyKind,
  SupervisorStrategy,
  TypedStrategy,
} from "./src/supervision/supervisor_strategy.ts";
export * from "./src/backoff/mod.ts";
export { BackoffSupervisor } from "./src/patterns/backoff_supervisor.ts";
export { BackoffSender } from "./src/patterns/backoff_sender.ts";
export {
  BACKOFF_SENDER_FALLBACK_DELAY_MS,
  type BackoffSenderOptions,
} from "./src/patterns/backoff_sender_options.ts";
export {
  BackoffSenderAck,
  BackoffSenderAcknowledged,
  BackoffSenderEvent,
  BackoffSenderGaveUp,
  type BackoffSenderProtocol,
  BackoffSenderResent,
  BackoffSenderRetryScheduled,
  BackoffSenderTracked,
} from "./src/patterns/backoff_sender_protocol.ts";
export {
  CircuitBreaker,
  CircuitBreakerOpenError,
  type CircuitBreakerOptions,
  type CircuitBreakerState,
  CircuitBreakerTimeoutError,
} from "./src/patterns/circuit_breaker.ts";
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
