// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The BackoffSupervisor: wraps one child, respawns it after an
 * exponentially growing, jittered delay when it terminates, and keeps the
 * messages sent to it while it is down.
 *
 * This file is the message plumbing (stash, forward, protocol, timers); the
 * decisions (when to respawn, how long to wait, when to reset, when to give
 * up) live in `../supervision/backoff_decision.ts`, shared with the typed
 * `restartWithBackoff`.
 *
 * @module
 */

import type { BackoffPolicy } from "../backoff/backoff_policy.ts";
import { exponentialBackoff } from "../backoff/exponential.ts";
import { MAX_TIMER_DELAY_MS } from "../backoff/max_timer_delay.ts";
import { Actor, Terminated } from "../runtime/actor.ts";
import {
  childLifecycle,
  type ChildLifecycleHooks,
  type Envelope,
} from "../runtime/actor_cell.ts";
import type { ActorRef } from "../runtime/actor_ref.ts";
import { Mailbox } from "../runtime/mailbox.ts";
import { Props } from "../runtime/props.ts";
import { now } from "../runtime/timers.ts";
import { describeValue } from "../supervision/describe_value.ts";
import { Directive, OneForOneStrategy } from "../supervision/strategy.ts";
import {
  BackoffDecision,
  type ResetCounter,
  type Termination,
  type TriggerOn,
} from "../supervision/backoff_decision.ts";

/**
 * Options of {@linkcode BackoffSupervisor.props}.
 *
 * @example Usage
 * ```ts
 * import { Actor, BackoffSupervisor, Props, type BackoffOptions } from "@understudy/core";
 *
 * class Connection extends Actor<string> {
 *   onReceive(): void {}
 * }
 * const options: BackoffOptions<string> = {
 *   childProps: Props.create(() => new Connection()),
 *   childName: "connection",
 *   minBackoff: 200,
 *   maxBackoff: 10_000,
 * };
 * BackoffSupervisor.props(options);
 * ```
 *
 * @typeParam T The messages the child accepts.
 */
export interface BackoffOptions<T> {
  /** How to create each child. */
  childProps: Props<T>;
  /** Children are named `${childName}-1`, `-2`, …. Default `"child"`. */
  childName?: string;
  /** The first delay, in milliseconds. */
  minBackoff: number;
  /** The longest delay, in milliseconds. */
  maxBackoff: number;
  /** Jitter of the default policy: each delay times `1 + u × randomFactor`, `u` in [-1, 1]. Default 0.2. */
  randomFactor?: number;
  /**
   * The delays: an object with a `delayFor(restartCount)` method. Default
   * `exponentialBackoff({ minMs: minBackoff, maxMs: maxBackoff, randomFactor })`.
   * A delay that cannot be used (the method throws, or returns anything but a
   * number >= 0) becomes `maxBackoff`, logged as an error, so a broken policy
   * can neither cause a restart storm nor stop the supervisor; one over
   * 2³¹ − 1 ms is clamped.
   */
  policy?: BackoffPolicy;
  /**
   * When the restart count goes back to 0. Default `"after-min-stable"`.
   * With `{ kind: "after-time", ms }`, `ms` is at most 2³¹ − 1.
   */
  resetCounter?: ResetCounter;
  /** What happens to messages while no child runs: kept (`"stash"`, default) or dropped to dead letters. */
  forward?: "stash" | "drop";
  /** Which terminations lead to a respawn. Default `"any"`. */
  triggerOn?: TriggerOn;
  /** How many messages the stash keeps; the rest go to dead letters. Default 1000. */
  maxStashSize?: number;
  /** How long a new child must live before the stash is delivered to it, from 0 to 2³¹ − 1 ms. Default `min(50, minBackoff)`. */
  drainGraceMs?: number;
  /** Whether messages arriving in the grace window go straight to the child (when nothing is stashed). Default `true`. */
  forwardDuringGrace?: boolean;
  /** After this many respawns without a reset, the supervisor gives up and stops. Default `Infinity`; 0 never respawns. */
  maxRestarts?: number;
  /**
   * The clock for alive times, in milliseconds. Default `performance.now`.
   * A reading that fails (the function throws, or returns anything but a
   * finite number) is logged as an error and leaves that child's up-time
   * unknown: the count does not reset by time for it (`Reset` still works),
   * so delays keep growing toward `maxBackoff` rather than a broken clock
   * causing a restart storm or stopping the supervisor.
   */
  clock?: () => number;
}

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
 * A child finished starting (its `preStart` completed).
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
 * {@linkcode CurrentChild}. Send {@linkcode BackoffSupervisor.GetCurrentChild}.
 *
 * @example Usage
 * ```ts
 * import { BackoffSupervisor, GetCurrentChild } from "@understudy/core";
 *
 * BackoffSupervisor.GetCurrentChild instanceof GetCurrentChild; // true
 * ```
 */
export class GetCurrentChild {}

/**
 * Asks a BackoffSupervisor for its restart count; the reply is a
 * {@linkcode RestartCount}. Send {@linkcode BackoffSupervisor.GetRestartCount}.
 *
 * @example Usage
 * ```ts
 * import { BackoffSupervisor, GetRestartCount } from "@understudy/core";
 *
 * BackoffSupervisor.GetRestartCount instanceof GetRestartCount; // true
 * ```
 */
export class GetRestartCount {}

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
export class ResetRestartCount {}

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
export class RespawnNow {}

/**
 * The reply to `GetCurrentChild`: the running child, or `undefined` while
 * the supervisor waits to respawn.
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
 * const reply = await supervisor.ask<CurrentChild>(BackoffSupervisor.GetCurrentChild);
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
 * const { count } = await supervisor.ask<RestartCount>(BackoffSupervisor.GetRestartCount);
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

// Timer messages, tagged with the child they belong to so a stale one is ignored.
class Respawn {
  constructor(readonly generation: number) {}
}
class GraceElapsed {
  constructor(readonly child: ActorRef<unknown>) {}
}
class StabilityCheck {
  constructor(readonly child: ActorRef<unknown>) {}
}

const GET_CURRENT_CHILD = /* @__PURE__ */ new GetCurrentChild();
const GET_RESTART_COUNT = /* @__PURE__ */ new GetRestartCount();
const RESET = /* @__PURE__ */ new ResetRestartCount();
const RESPAWN_NOW = /* @__PURE__ */ new RespawnNow();

/** Messages the supervisor handles itself, never forwarding them. */
function isControl(message: unknown): boolean {
  return typeof message === "object" && message !== null &&
    (message instanceof Terminated || message instanceof GetCurrentChild ||
      message instanceof GetRestartCount ||
      message instanceof ResetRestartCount || message instanceof RespawnNow ||
      message instanceof Respawn || message instanceof GraceElapsed ||
      message instanceof StabilityCheck);
}

const NAME_PATTERN = /^[^/$\s][^/\s]*$/;

/**
 * A clock reading that failed. Earlier than any start, so a child started
 * or checked at this time never counts as stable (see `BackoffDecision`).
 */
const UNKNOWN_TIME = -Infinity;

/** Options after defaults and validation. */
interface Settings<T> {
  readonly childProps: Props<T>;
  readonly childName: string;
  readonly forward: "stash" | "drop";
  readonly triggerOn: TriggerOn;
  readonly maxStashSize: number;
  readonly drainGraceMs: number;
  readonly forwardDuringGrace: boolean;
  readonly clock: () => number;
  readonly policy: BackoffPolicy;
  /** A fresh decision per incarnation, asking `policy` (the supervisor's guarded wrapper) for delays. */
  readonly decision: (policy: BackoffPolicy) => BackoffDecision;
}

function invalid(option: string, expected: string, value: unknown): never {
  throw new (typeof value === "number" ? RangeError : TypeError)(
    `Cannot create BackoffSupervisor: "${option}" must be ${expected} (got ${
      describeValue(value)
    })`,
  );
}

function checkCount(option: string, value: unknown): number {
  if (
    typeof value !== "number" || !(value >= 0) ||
    (value !== Infinity && !Number.isInteger(value))
  ) {
    invalid(option, "a whole number >= 0 or Infinity", value);
  }
  return value;
}

function settingsFrom<T>(options: BackoffOptions<T>): Settings<T> {
  if (typeof options !== "object" || options === null) {
    invalid("options", "an object", options);
  }
  const {
    childProps,
    childName = "child",
    minBackoff,
    maxBackoff,
    randomFactor = 0.2,
    resetCounter = "after-min-stable",
    forward = "stash",
    triggerOn = "any",
    maxStashSize = 1000,
    forwardDuringGrace = true,
    maxRestarts = Infinity,
    clock = now,
  } = options;
  if (!(childProps instanceof Props)) {
    invalid(
      "childProps",
      "Props, as made by Props.create(() => new MyActor())",
      childProps,
    );
  }
  if (typeof childName !== "string" || !NAME_PATTERN.test(childName)) {
    invalid(
      "childName",
      'a non-empty name without "/" or whitespace, not starting with "$"',
      childName,
    );
  }
  // Checked under the names the caller used (the policy calls them minMs and
  // maxMs), also when a custom policy is given: minBackoff still drives the
  // grace window and the stability reset.
  if (
    typeof minBackoff !== "number" ||
    !(minBackoff >= 0 && minBackoff <= MAX_TIMER_DELAY_MS)
  ) {
    invalid(
      "minBackoff",
      `a number of milliseconds from 0 to ${MAX_TIMER_DELAY_MS}`,
      minBackoff,
    );
  }
  if (
    typeof maxBackoff !== "number" ||
    !(maxBackoff >= minBackoff && maxBackoff <= MAX_TIMER_DELAY_MS)
  ) {
    invalid(
      "maxBackoff",
      `a number of milliseconds from minBackoff (${minBackoff}) to ${MAX_TIMER_DELAY_MS}`,
      maxBackoff,
    );
  }
  if (
    typeof randomFactor !== "number" ||
    !(randomFactor >= 0 && randomFactor <= 1)
  ) {
    invalid("randomFactor", "a number from 0 to 1", randomFactor);
  }
  // Only `undefined` means "the default", as for every other option: a
  // `null` policy or grace is a mistake to report, not a default to apply.
  const policy = options.policy === undefined
    ? exponentialBackoff({ minMs: minBackoff, maxMs: maxBackoff, randomFactor })
    : options.policy;
  if (
    typeof policy !== "object" || policy === null ||
    typeof policy.delayFor !== "function"
  ) {
    invalid("policy", "an object with a delayFor(restartCount) method", policy);
  }
  if (
    typeof resetCounter === "object" && resetCounter !== null &&
    resetCounter.kind === "after-time"
  ) {
    // The stability check is a timer of `ms`: one over 2^31 - 1 would fire at once.
    const { ms } = resetCounter;
    if (typeof ms !== "number" || !(ms >= 0 && ms <= MAX_TIMER_DELAY_MS)) {
      invalid(
        "resetCounter.ms",
        `a finite number of milliseconds from 0 to ${MAX_TIMER_DELAY_MS}`,
        ms,
      );
    }
  } else if (
    resetCounter !== "after-min-stable" && resetCounter !== "never" &&
    resetCounter !== "manual"
  ) {
    invalid(
      "resetCounter",
      '"after-min-stable", "never", "manual" or { kind: "after-time", ms }',
      resetCounter,
    );
  }
  if (forward !== "stash" && forward !== "drop") {
    invalid("forward", '"stash" or "drop"', forward);
  }
  if (triggerOn !== "any" && triggerOn !== "failure" && triggerOn !== "stop") {
    invalid("triggerOn", '"any", "failure" or "stop"', triggerOn);
  }
  checkCount("maxStashSize", maxStashSize);
  checkCount("maxRestarts", maxRestarts);
  const drainGraceMs = options.drainGraceMs === undefined
    ? Math.min(50, minBackoff)
    : options.drainGraceMs;
  // The grace window is a timer: a delay over 2^31 - 1 would fire at once.
  if (
    typeof drainGraceMs !== "number" ||
    !(drainGraceMs >= 0 && drainGraceMs <= MAX_TIMER_DELAY_MS)
  ) {
    invalid(
      "drainGraceMs",
      `a finite number of milliseconds from 0 to ${MAX_TIMER_DELAY_MS}`,
      drainGraceMs,
    );
  }
  if (typeof forwardDuringGrace !== "boolean") {
    invalid("forwardDuringGrace", "true or false", forwardDuringGrace);
  }
  if (typeof clock !== "function") {
    invalid("clock", "a function returning milliseconds", clock);
  }
  return {
    childProps,
    childName,
    forward,
    triggerOn,
    maxStashSize,
    drainGraceMs,
    forwardDuringGrace,
    clock,
    policy,
    decision: (policy) =>
      new BackoffDecision({
        policy,
        minBackoff,
        maxBackoff,
        resetCounter,
        triggerOn,
        maxRestarts,
      }),
  };
}

/**
 * Supervises one child with exponential backoff: when the child terminates
 * (by crashing or, depending on `triggerOn`, by stopping), it is respawned
 * after `policy.delayFor(restartCount)` (by default 200, 400, 800, … ms up
 * to `maxBackoff`, with jitter), as a fresh actor named `${childName}-N`.
 *
 * Messages sent to the supervisor are forwarded to the child with their
 * original sender. While no child runs they are stashed (bounded) and
 * delivered in arrival order once a new child has lived `drainGraceMs`, so
 * an `ask` made while the child was down still gets its answer. Messages the
 * crashed child had not processed yet are kept too. Anything that is not
 * delivered goes to dead letters, with a reason.
 *
 * A message the child sends to its parent with itself as the sender
 * (`this.context.parent.tell(message, this.self)`) is not sent back to it:
 * as in Akka, the supervisor passes it on to its own parent, with itself as
 * the sender (so a reply comes back through the supervisor to the current
 * child). The protocol messages (`Reset`, `GetRestartCount`, …) are handled
 * by the supervisor whoever sends them.
 *
 * @example Usage
 * ```ts
 * import { Actor, ActorSystem, BackoffSupervisor, Props } from "@understudy/core";
 *
 * class Flaky extends Actor<{ kind: "do-it" }> {
 *   override preStart(): void {
 *     if (Math.random() < 0.7) throw new Error("upstream not ready");
 *   }
 *   onReceive(): void {
 *     this.log.info("did it");
 *   }
 * }
 *
 * const system = ActorSystem.create("demo", { logLevel: "off" });
 * const supervisor = system.actorOf(
 *   BackoffSupervisor.props({
 *     childProps: Props.create(() => new Flaky()),
 *     minBackoff: 200,
 *     maxBackoff: 10_000,
 *     randomFactor: 0.2,
 *   }),
 *   "flaky-supervisor",
 * );
 * supervisor.tell({ kind: "do-it" }); // stashed until a child starts
 * await system.terminate();
 * ```
 */
export class BackoffSupervisor<T> extends Actor<unknown> {
  // Getters over module constants, not static fields: a static field's
  // initializer counts as a side effect, so bundlers would keep this whole
  // class (and its events) in programs that never use it.

  /** Ask for the current child: the reply is a {@linkcode CurrentChild}. */
  static get GetCurrentChild(): GetCurrentChild {
    return GET_CURRENT_CHILD;
  }
  /** Ask for the restart count: the reply is a {@linkcode RestartCount}. */
  static get GetRestartCount(): GetRestartCount {
    return GET_RESTART_COUNT;
  }
  /** Resets the restart count (what a child sends after real success with `resetCounter: "manual"`). */
  static get Reset(): ResetRestartCount {
    return RESET;
  }
  /** Ends a pending backoff wait and respawns the child at once. */
  static get RespawnNow(): RespawnNow {
    return RESPAWN_NOW;
  }

  /**
   * Props for a BackoffSupervisor of `options.childProps`. Options are
   * checked here, so a bad one throws at this call.
   *
   * @example Usage
   * ```ts
   * import { Actor, ActorSystem, BackoffSupervisor, Props } from "@understudy/core";
   *
   * class Connection extends Actor<string> {
   *   onReceive(): void {}
   * }
   * const system = ActorSystem.create("demo");
   * const connection = system.actorOf(
   *   BackoffSupervisor.props({
   *     childProps: Props.create(() => new Connection()),
   *     childName: "connection",
   *     minBackoff: 200,
   *     maxBackoff: 10_000,
   *     maxRestarts: 20,
   *   }),
   *   "connection-supervisor",
   * );
   * connection.tell("hello"); // forwarded to /user/connection-supervisor/connection-1
   * await system.terminate();
   * ```
   *
   * @typeParam T The messages the child accepts.
   * @param options Child, delays and policies.
   * @returns Props for the supervisor.
   */
  static props<T>(options: BackoffOptions<T>): Props<unknown> {
    const settings = settingsFrom(options);
    return Props.create(() => new BackoffSupervisor(settings));
  }

  readonly #settings: Settings<T>;
  readonly #decision: BackoffDecision;
  /** Messages waiting for a child, oldest first. */
  readonly #stash = new Mailbox();
  /** The child that receives forwarded messages; `undefined` while it is down. */
  #child: ActorRef<T> | undefined = undefined;
  /** The newest child, alive or dying; Terminated for any other is stale. */
  #lastChild: ActorRef<T> | undefined = undefined;
  #failedChild: ActorRef<T> | undefined = undefined;
  /** Children spawned by this incarnation; also the respawn timer's tag. */
  #generation = 0;
  /**
   * The current child is up, past its grace window, and the stash was
   * delivered to it: forward directly. False whenever the child is down.
   */
  #graceOver = false;

  /** A crash stops the child (or escalates, with `triggerOn: "stop"`); the backoff does the rest. */
  override readonly supervisorStrategy: OneForOneStrategy;

  private constructor(settings: Settings<T>) {
    super();
    this.#settings = settings;
    this.#decision = settings.decision({
      delayFor: (restartCount) => this.#delayFor(restartCount),
    });
    this.supervisorStrategy = new OneForOneStrategy((error) => {
      const child = this.#child ?? this.#lastChild!;
      if (settings.triggerOn === "stop") {
        // The parent decides for this supervisor and its child together. The
        // child is not marked down: if the parent resumes, it goes on as
        // before (and this supervisor with it); if it restarts or stops this
        // supervisor, the child is stopped anyway.
        this.#publish(
          new BackoffChildFailed(this.#me, child as ActorRef<never>, error),
        );
        return Directive.Escalate;
      }
      // Mark the child down the moment its failure is known, so nothing is
      // forwarded to a dying child.
      this.#failedChild = child;
      this.#childDown();
      this.#publish(
        new BackoffChildFailed(this.#me, child as ActorRef<never>, error),
      );
      this.log.warn(
        `child ${child.path} failed: ${
          error instanceof Error ? error.message : String(error)
        }`,
      );
      return Directive.Stop;
    }, { loggingEnabled: false });
    // The runtime's one internal hook (see actor_cell.ts), kept off the public type.
    const hooks: ChildLifecycleHooks = {
      childStarted: (child) => this.#childStarted(child),
      childStopping: (child, undelivered) =>
        this.#childStopping(child, undelivered),
      // Only the steady state takes the shortcut; anything else (a child
      // down, in its grace window, a stash to drain, a protocol message, a
      // message from the child itself, which goes to this actor's parent)
      // goes through onReceive. The sender is needed to tell the child's own
      // messages apart: a runtime that does not pass it gets no shortcut
      // (every message takes its turn here, which is correct, only slower).
      forwardTarget: (message: unknown, ...sender: unknown[]) =>
        this.#graceOver && sender.length > 0 && sender[0] !== this.#child &&
          !isControl(message)
          ? this.#child
          : undefined,
    };
    Object.defineProperty(this, childLifecycle, { value: hooks });
  }

  get #me(): ActorRef<never> {
    return this.self as ActorRef<never>;
  }

  /** Spawns the first child at once. */
  override preStart(): void {
    this.#spawn();
  }

  /** Publishes whatever is still stashed as dead letters: nothing is lost silently. */
  override postStop(): void {
    this.#releaseStash("supervisor stopped");
  }

  /**
   * Before this supervisor is restarted (by its parent's strategy), its
   * stash goes to dead letters: the new incarnation starts empty, and
   * nothing is lost silently. Then, as by default, the child is stopped.
   *
   * @param reason The error that caused the restart.
   * @param message The message being processed when it failed, if any.
   */
  override preRestart(
    reason: unknown,
    message?: unknown,
  ): void | Promise<void> {
    this.#releaseStash("supervisor restarted");
    return super.preRestart(reason, message);
  }

  /**
   * Handles the protocol and the child's lifecycle; forwards every other
   * message to the child (or stashes or drops it while there is none).
   *
   * @param message The message.
   */
  onReceive(message: unknown): void {
    if (isControl(message)) {
      if (message instanceof Terminated) {
        return this.#childTerminated(message.ref);
      }
      if (message instanceof GetCurrentChild) {
        return this.sender?.tell(new CurrentChild(this.#child));
      }
      if (message instanceof GetRestartCount) {
        return this.sender?.tell(new RestartCount(this.#decision.restartCount));
      }
      if (message instanceof ResetRestartCount) {
        if (this.#decision.reset()) {
          this.#publish(new BackoffCounterReset(this.#me));
        }
        return;
      }
      if (message instanceof RespawnNow) {
        if (this.context.timers.isTimerActive("respawn")) {
          this.context.timers.cancel("respawn");
          this.#spawn();
        }
        return;
      }
      if (message instanceof Respawn) {
        if (message.generation === this.#generation) this.#spawn();
        return;
      }
      if (message instanceof GraceElapsed) {
        if (message.child === this.#child) this.#drainStash();
        return;
      }
      if (message instanceof StabilityCheck) {
        if (
          message.child === this.#child &&
          this.#decision.resetIfStable(this.#now())
        ) {
          this.#publish(new BackoffCounterReset(this.#me));
        }
        return;
      }
    }
    const sender = this.sender as ActorRef<never> | undefined;
    // What the child sends its parent is meant for the parent's parent, as
    // in Akka: passed on with this supervisor as the sender (the parent's
    // reply then comes back through here to whichever child is current, and
    // a BackoffSupervisor nested in another passes it on upward instead of
    // back down).
    if (sender !== undefined && sender === (this.#lastChild as unknown)) {
      this.context.parent.tell(message, this.#me);
      return;
    }
    this.#forward(message, sender);
  }

  // ───────────── the runtime's childLifecycle hook ─────────────

  #childStarted(child: ActorRef<never>): void {
    if (child !== (this.#child as unknown)) return;
    const { drainGraceMs } = this.#settings;
    this.#decision.childStarted(this.#now());
    this.#publish(
      new BackoffChildStarted(this.#me, child, this.#decision.restartCount),
    );
    const stableAfterMs = this.#decision.stableAfterMs;
    if (Number.isFinite(stableAfterMs) && this.#decision.restartCount > 0) {
      this.context.timers.startSingleTimer(
        "stability",
        new StabilityCheck(child),
        stableAfterMs,
      );
    }
    if (drainGraceMs === 0) {
      this.#drainStash();
    } else {
      this.context.timers.startSingleTimer(
        "grace",
        new GraceElapsed(child),
        drainGraceMs,
      );
    }
  }

  #childStopping(child: ActorRef<never>, undelivered: Envelope[]): void {
    if (child === (this.#child as unknown)) this.#childDown();
    // Messages the child never processed were sent before anything now in
    // the stash (which only fills while the child is down or in its grace),
    // so they go in front.
    if (undelivered.length === 0) return;
    if (this.#settings.forward === "drop") {
      for (const { message, sender } of undelivered) {
        this.#undeliverable(message, sender, "child stopped (forward: drop)");
      }
      return;
    }
    const earlier = new Mailbox();
    for (const { message, sender } of undelivered) {
      earlier.push(message, sender);
    }
    this.#stash.prependAll(earlier);
    this.#trimStash();
  }

  // ───────────── plumbing ─────────────

  #spawn(): void {
    this.#generation++;
    this.#graceOver = false;
    this.#failedChild = undefined;
    const child = this.context.actorOf(
      this.#settings.childProps,
      `${this.#settings.childName}-${this.#generation}`,
    );
    this.context.watch(child);
    this.#child = child;
    this.#lastChild = child;
  }

  /** From now on messages wait in the stash (or are dropped). */
  #childDown(): void {
    this.#child = undefined;
    this.#graceOver = false;
  }

  #forward(message: unknown, sender: ActorRef<never> | undefined): void {
    const child = this.#child;
    const { forward, forwardDuringGrace } = this.#settings;
    if (
      child !== undefined && this.#stash.size === 0 &&
      (this.#graceOver || forwardDuringGrace)
    ) {
      child.tell(message as T, sender);
    } else if (child === undefined && forward === "drop") {
      this.#undeliverable(message, sender, "no child running (forward: drop)");
    } else if (this.#stash.size >= this.#settings.maxStashSize) {
      // The newest message is the one over the limit: no need to touch the stash.
      this.#undeliverable(message, sender, this.#stashFullReason());
    } else {
      this.#stash.push(message, sender);
    }
  }

  /** Keeps the stash within maxStashSize; the newest messages over the limit go to dead letters. */
  #trimStash(): void {
    const { maxStashSize } = this.#settings;
    if (this.#stash.size <= maxStashSize) return;
    const all = this.#stash.drain();
    for (let i = 0; i < all.length; i += 2) {
      if (i / 2 < maxStashSize) {
        this.#stash.push(all[i], all[i + 1]);
      } else {
        this.#undeliverable(all[i], all[i + 1], this.#stashFullReason());
      }
    }
  }

  #stashFullReason(): string {
    return `stash full (maxStashSize ${this.#settings.maxStashSize})`;
  }

  #drainStash(): void {
    const child = this.#child;
    if (child === undefined) return;
    this.#graceOver = true;
    while (this.#stash.size > 0) {
      const message = this.#stash.shift();
      child.tell(
        message as T,
        this.#stash.shiftedSender as ActorRef<never> | undefined,
      );
    }
  }

  #childTerminated(ref: ActorRef<never>): void {
    if (ref !== (this.#lastChild as unknown)) return; // an earlier child's, or a stranger's
    this.#childDown();
    this.context.timers.cancel("grace");
    this.context.timers.cancel("stability");
    const how: Termination = ref === (this.#failedChild as unknown)
      ? "failure"
      : "stop";
    const now = this.#now();
    // A child that was stable but died before its stability check ran still resets the count.
    if (this.#decision.resetIfStable(now)) {
      this.#publish(new BackoffCounterReset(this.#me));
    }
    const verdict = this.#decision.childTerminated(how, now);
    switch (verdict.action) {
      case "respawn":
        if (verdict.policyFailure !== undefined) {
          this.log.error(
            `policy.delayFor(${verdict.restartCount}) threw; waiting maxBackoff instead`,
            verdict.policyFailure.error,
          );
        }
        this.#publish(
          new BackoffScheduled(this.#me, verdict.restartCount, verdict.delayMs),
        );
        // No backoff: respawn now, not after a setTimeout(0) (1 ms or more).
        if (verdict.delayMs === 0) this.#spawn();
        else {
          this.context.timers.startSingleTimer(
            "respawn",
            new Respawn(this.#generation),
            verdict.delayMs,
          );
        }
        return;
      case "give-up":
        this.log.warn(`giving up after ${verdict.restartCount} restarts`);
        this.#publish(new BackoffGaveUp(this.#me, verdict.restartCount));
        this.context.stopSelf();
        return;
      case "complete":
        this.context.stopSelf();
        return;
    }
  }

  #releaseStash(reason: string): void {
    const left = this.#stash.drain();
    for (let i = 0; i < left.length; i += 2) {
      this.#undeliverable(left[i], left[i + 1], reason);
    }
  }

  /**
   * The user's clock, contained: a reading that throws or is not a finite
   * number is logged and becomes {@linkcode UNKNOWN_TIME}, which never
   * makes a child count as stable.
   */
  #now(): number {
    let reading: unknown;
    try {
      reading = this.#settings.clock();
    } catch (error) {
      this.log.error(
        "clock threw; up-time unknown, the restart count does not reset by time for this child",
        error,
      );
      return UNKNOWN_TIME;
    }
    if (typeof reading === "number" && Number.isFinite(reading)) {
      return reading;
    }
    this.log.error(
      `clock returned ${
        describeValue(reading)
      }, not a finite number of milliseconds; up-time unknown, the restart count does not reset by time for this child`,
    );
    return UNKNOWN_TIME;
  }

  /**
   * The user's policy, watched: a delay that is not a number >= 0 is logged
   * and becomes NaN, which the decision turns into `maxBackoff`. A throw
   * goes through to the decision, which contains it (see `policyFailure`).
   */
  #delayFor(restartCount: number): number {
    const delayMs: unknown = this.#settings.policy.delayFor(restartCount);
    if (typeof delayMs === "number" && delayMs >= 0) return delayMs;
    this.log.error(
      `policy.delayFor(${restartCount}) returned ${
        describeValue(delayMs)
      }, not a number of milliseconds >= 0; waiting maxBackoff instead`,
    );
    return NaN;
  }

  #undeliverable(message: unknown, sender: unknown, reason: string): void {
    this.#publish(new BackoffMessageDropped(this.#me, message, reason));
    this.context.system.publishDeadLetter(
      message,
      sender as ActorRef<never> | undefined,
      this.#me,
      reason,
    );
  }

  #publish(event: BackoffEvent): void {
    const stream = this.context.system.eventStream;
    if (stream.hasSubscribers) stream.publish(event);
  }
}
