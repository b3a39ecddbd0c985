// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The BackoffSupervisor: wraps one child, respawns it after an
 * exponentially growing, jittered delay when it terminates, and keeps the
 * messages sent to it while it is down.
 *
 * An ordinary actor on the public runtime API (it spawns and watches its
 * child, runs it under a stopping strategy, and keeps timers), plus the
 * runtime's one port for patterns, {@linkcode takeOverUndelivered}, through
 * which it takes over a stopping child's unprocessed messages. Three files:
 * the options are checked in `backoff_options.ts`, the events and protocol
 * are in `backoff_protocol.ts`, and this file is the actor, with its stash
 * (a small FIFO of its own, at the end). The decisions (when to respawn,
 * how long to wait, when to reset, when to give up) are functions of time
 * in `../supervision/backoff_decision.ts`, shared with the typed
 * `restartWithBackoff`; the decision also asks the policy, contained (a
 * broken policy's delay becomes `maxBackoff`, reported in the verdict and
 * logged here). Whether the child's restart type allows a respawn at all
 * is {@linkcode mayRestart}, the documented OTP rule every supervisor style
 * applies (`../supervision/restart_type.ts`).
 *
 * The child is in one of four states:
 *
 * ```
 *            spawn                   drainGraceMs later
 *   down ───────────▶ grace ──────────────────────────▶ steady
 *    ▲       (steady at once         │                     │
 *    │        if drainGraceMs is 0)  │ failure, or         │
 *    │                               │ stop begins         │
 *    │        Terminated             ▼                     │
 *    └───────────────────────────  dying ◀─────────────────┘
 * ```
 *
 * - down: no child; a respawn is due (or none, once it gave up). Messages
 *   are stashed (dropped, with `forward: "drop"`).
 * - grace: a new child, its up-time counting from the spawn; the stash
 *   waits for the end of its grace window (and then, in the child's
 *   mailbox, for the end of its `preStart`).
 * - steady: messages go straight to the child.
 * - dying: the child failed (known at once: the decider of its stopping
 *   strategy records it, in the child's turn) or began to stop (known from
 *   the port); `Terminated` is on its way, and the rest is done when it
 *   arrives. Messages are stashed as when down, and whatever had
 *   reached the child's mailbox comes back through
 *   {@linkcode takeOverUndelivered}, in front of them.
 *
 * @module
 */

import { Actor, Terminated } from "../runtime/actor.ts";
import type { ActorRef } from "../runtime/actor_ref.ts";
import { Props } from "../runtime/props.ts";
import {
  asSent,
  type Envelope,
  openDoor,
  passOn,
  sentMessage,
  takeOverUndelivered,
  type UndeliveredTaker,
} from "../runtime/ports/undelivered.ts";
import type {
  BackoffDecision,
  Termination,
} from "../supervision/backoff_decision.ts";
import { logPolicyFailure } from "../backoff/_policy.ts";
import { mayRestart } from "../supervision/restart_type.ts";
import { type Directive, OneForOneStrategy } from "../supervision/strategy.ts";
import { describeError, describeValue, instanceOfAny } from "../validation.ts";
import {
  type BackoffOptions,
  type BackoffSettings,
  backoffSettings,
} from "./backoff_options.ts";
import {
  BackoffChildFailed,
  BackoffChildStarted,
  BackoffCounterReset,
  type BackoffEvent,
  BackoffGaveUp,
  BackoffMessageDropped,
  type BackoffProtocol,
  BackoffScheduled,
  CurrentChild,
  GET_CURRENT_CHILD,
  GET_RESTART_COUNT,
  GetCurrentChild,
  GetRestartCount,
  RESET,
  ResetRestartCount,
  RESPAWN_NOW,
  RespawnNow,
  RestartCount,
} from "./backoff_protocol.ts";

// The supervisor's timer messages. Each timer's message object is its tag:
// the state that waits for it holds it, so a timer left from an earlier
// state (or from an earlier incarnation of the supervisor, after its own
// restart) matches nothing and is ignored. A respawn scheduled before a
// deliberate stop can therefore never revive the child.

/**
 * What a supervisor's own turn handles among the objects told to it (its
 * protocol, a `Terminated`): never handed to the child by its door.
 */
const OWN_MESSAGES = [
  Terminated,
  GetCurrentChild,
  GetRestartCount,
  ResetRestartCount,
  RespawnNow,
];

/** The backoff wait is over: spawn the next child. */
class Respawn {}
/** The new child's grace window is over: deliver the stash. */
class GraceElapsed {}
/** `child` may have been up long enough for the restart count to reset. */
class StabilityCheck {
  constructor(readonly child: ActorRef<never>) {}
}

/** The child's state: exactly one of these at a time (see the module doc). */
type ChildState<T> =
  | {
    readonly kind: "down";
    /** The pending respawn timer's message; `undefined` when none will come. */
    readonly respawn: Respawn | undefined;
    /** The child that died, if any: what it still sends goes up, not to the next one. */
    readonly lastChild: ActorRef<T> | undefined;
  }
  | {
    readonly kind: "grace";
    readonly child: ActorRef<T>;
    /** The grace timer's message. */
    readonly grace: GraceElapsed;
  }
  | { readonly kind: "steady"; readonly child: ActorRef<T> }
  | {
    readonly kind: "dying";
    readonly child: ActorRef<T>;
    /** A crash (recorded by the decider) or a clean stop. */
    readonly how: Termination;
    /** What the child threw (a crash only), logged when `Terminated` arrives. */
    readonly error?: unknown;
  };

/**
 * A clock reading that failed. Earlier than any start, so a child started
 * or checked at this time never counts as stable (see `BackoffDecision`).
 */
const UNKNOWN_TIME = -Infinity;

/**
 * Supervises one child with exponential backoff: when the child terminates
 * (by crashing or, depending on `triggerOn`, by stopping), it is respawned
 * after `policy.delayFor(restartCount)` (by default 200, 400, 800, … ms up
 * to `maxBackoff`, with jitter), as a fresh actor named `${childName}-N`.
 * The child's restart type (`Props.create(factory, { restart })`) is
 * honoured too: a `"transient"` child is respawned only after a crash, a
 * `"temporary"` one never; when the child will not come back, the
 * supervisor stops.
 *
 * Messages sent to the supervisor are forwarded to the child with their
 * original sender. While no child runs they are stashed (bounded) and
 * delivered in arrival order once a new child was spawned `drainGraceMs`
 * ago, so an `ask` made while the child was down still gets its answer.
 * Messages the crashed child had not processed yet are kept too. Anything
 * that is not delivered goes to dead letters, with a reason.
 *
 * A message the child sends to its parent with itself as the sender
 * (`this.context.parent.tell(message, this.self)`) is not sent back to it:
 * as in Akka, the supervisor passes it on to its own parent, with itself as
 * the sender (so a reply comes back through the supervisor to the current
 * child). The protocol messages ({@linkcode BackoffProtocol}: `Reset`,
 * `GetRestartCount`, …) are handled by the supervisor whoever sends them.
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
 *
 * @typeParam T The messages the child accepts.
 */
export class BackoffSupervisor<T> extends Actor<unknown> {
  // Getters over module constants, not static fields: a static field's
  // initializer counts as a side effect, so bundlers would keep this whole
  // class (and its events) in programs that never use it.

  /** Ask for the current child: the reply is a {@linkcode CurrentChild} (`ask` infers it). */
  static get GetCurrentChild(): GetCurrentChild {
    return GET_CURRENT_CHILD;
  }
  /** Ask for the restart count: the reply is a {@linkcode RestartCount} (`ask` infers it). */
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
   * checked here, so a bad one throws at this call. The supervisor's ref
   * accepts the child's messages and the {@linkcode BackoffProtocol}.
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
   * connection.tell(BackoffSupervisor.Reset); // handled by the supervisor
   * await system.terminate();
   * ```
   *
   * @typeParam T The messages the child accepts.
   * @param options Child, delays and policies.
   * @returns Props for the supervisor.
   */
  static props<T>(options: BackoffOptions<T>): Props<T | BackoffProtocol> {
    const settings = backoffSettings(options);
    return Props.create(() => new BackoffSupervisor(settings)) as Props<
      T | BackoffProtocol
    >;
  }

  readonly #settings: BackoffSettings<T>;
  readonly #decision: BackoffDecision;
  /** Messages waiting for a child, oldest first. */
  readonly #stash = new Stash();
  /** A restart let this instance go (`preRestart`): it keeps nothing more. */
  #restarted = false;
  #state: ChildState<T> = {
    kind: "down",
    respawn: undefined,
    lastChild: undefined,
  };
  /** Children spawned by this incarnation, for their names. */
  #spawned = 0;

  /** A crash stops the child (or escalates, with `triggerOn: "stop"`); the backoff does the rest. */
  override readonly supervisorStrategy: OneForOneStrategy;

  /**
   * The runtime's port ({@linkcode UndeliveredTaker}): takes over a
   * stopping child's unprocessed messages. Internal.
   *
   * @ignore
   */
  declare readonly [takeOverUndelivered]: UndeliveredTaker[
    typeof takeOverUndelivered
  ];

  private constructor(settings: BackoffSettings<T>) {
    super();
    this.#settings = settings;
    this.#decision = settings.decision();
    this.supervisorStrategy = new OneForOneStrategy(
      (error) => this.#childFailed(error),
      { loggingEnabled: false },
    );
    // An own property set here, not a method under a computed key: a class
    // member keyed by a symbol of ours counts as a side effect to bundlers
    // (esbuild keeps such a class), so every program importing the package
    // would carry the supervisor.
    this[takeOverUndelivered] = (child, undelivered) =>
      this.#takeOver(child, undelivered);
  }

  get #me(): ActorRef<never> {
    return this.self as ActorRef<never>;
  }

  /**
   * Spawns the first child at once, or, with a stored record (`durable`),
   * restores the restart count and the stash and respawns on the stored
   * schedule.
   */
  override preStart(): void {
    openDoor(this.context, (message, sender) => this.#door(message, sender));
    const saved = this.#settings.durable?.load();
    if (saved !== undefined) {
      this.#decision.restartCount = saved.restartCount;
      for (const message of saved.stash) this.#stash.push(message, undefined);
      if (saved.respawnInMs !== undefined) {
        return this.#respawnIn(saved.respawnInMs, undefined);
      }
    }
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
    this.#restarted = true;
    return super.preRestart(reason, message);
  }

  /**
   * Handles the protocol, its timers and its child's `Terminated`; passes
   * what the child sends it on to its own parent; forwards every other
   * message to the child (or stashes or drops it while there is none).
   *
   * @param message The message.
   */
  onReceive(message: unknown): void {
    if (typeof message === "object" && message !== null) {
      if (message instanceof Terminated) {
        return this.#childTerminated(message.ref);
      }
      if (message instanceof GetCurrentChild) {
        const state = this.#state;
        return this.sender?.tell(
          new CurrentChild(
            state.kind === "grace" || state.kind === "steady"
              ? state.child
              : undefined,
          ),
        );
      }
      if (message instanceof GetRestartCount) {
        return this.sender?.tell(new RestartCount(this.#decision.restartCount));
      }
      if (message instanceof ResetRestartCount) {
        if (this.#decision.reset()) {
          this.#publish(new BackoffCounterReset(this.#me));
          this.#save();
        }
        return;
      }
      if (message instanceof RespawnNow) {
        const state = this.#state;
        if (state.kind === "down" && state.respawn !== undefined) {
          this.context.timers.cancel("respawn");
          this.#spawn();
        }
        return;
      }
      if (message instanceof Respawn) {
        const state = this.#state;
        if (state.kind === "down" && state.respawn === message) this.#spawn();
        return;
      }
      if (message instanceof GraceElapsed) {
        const state = this.#state;
        if (state.kind === "grace" && state.grace === message) {
          this.#graceOver(state.child);
        }
        return;
      }
      if (message instanceof StabilityCheck) {
        const state = this.#state;
        if (
          (state.kind === "grace" || state.kind === "steady") &&
          state.child === message.child &&
          this.#decision.resetIfStable(this.#now())
        ) {
          this.#publish(new BackoffCounterReset(this.#me));
          this.#save();
        }
        return;
      }
    }
    const sender = this.sender as ActorRef<never> | undefined;
    const state = this.#state;
    // What the child sends its parent is meant for the parent's parent, as
    // in Akka: passed on with this supervisor as the sender (the parent's
    // reply then comes back through here to whichever child is current, and
    // a BackoffSupervisor nested in another passes it on upward instead of
    // back down).
    if (
      sender !== undefined &&
      sender === (state.kind === "down" ? state.lastChild : state.child)
    ) {
      this.context.parent.tell(message, this.#me);
      return;
    }
    // As sent: a worker's tracked message stays tracked to the child's turn.
    this.#forward(asSent(this.context, message), sender);
  }

  /**
   * The runtime's one port for patterns: `child` began to stop, and
   * `undelivered` are the messages it will never process, oldest first.
   * They were sent before anything now in the stash (which only fills while
   * the child is down, in its grace window, or dying), so they go in front
   * of it. Internal.
   */
  #takeOver(child: ActorRef<never>, undelivered: Envelope[]): void {
    const state = this.#state;
    // A clean stop is first known here; a crash was known to the decider.
    if (
      (state.kind === "grace" || state.kind === "steady") &&
      state.child === child
    ) {
      this.#state = { kind: "dying", child: state.child, how: "stop" };
    }
    if (undelivered.length === 0) return;
    // After a restart let this instance go, its child's messages come here
    // still (the runtime's port): no next child of this instance takes them.
    const ended = this.#restarted;
    if (this.#settings.forward === "drop" || ended) {
      for (const { message, sender } of undelivered) {
        this.#undeliverable(
          message,
          sender,
          ended ? "supervisor restarted" : "child stopped (forward: drop)",
        );
      }
      return;
    }
    this.#stash.prepend(undelivered);
    this.#stash.trimTo(
      this.#settings.maxStashSize,
      (message, sender) =>
        this.#undeliverable(message, sender, this.#stashFullReason()),
    );
    this.#save();
  }

  // ───────────── the transitions, one place each ─────────────

  /** down → grace (or steady, with no grace window): a fresh child, its up-time counting from now. */
  #spawn(): void {
    const { childProps, childName, drainGraceMs } = this.#settings;
    const child = this.context.actorOf(
      childProps,
      `${childName}-${++this.#spawned}`,
    );
    this.context.watch(child);
    const decision = this.#decision;
    decision.childStarted(this.#now());
    this.#publish(
      new BackoffChildStarted(this.#me, child, decision.restartCount),
    );
    const stableAfterMs = decision.stableAfterMs;
    if (Number.isFinite(stableAfterMs) && decision.restartCount > 0) {
      this.context.timers.startSingleTimer(
        "stability",
        new StabilityCheck(child),
        Math.max(stableAfterMs, 1), // up 0 ms is not stable (BackoffDecision)
      );
    }
    // A child still in preStart keeps what it is sent in its mailbox, so
    // the stash need not wait for its start, only for the grace window.
    if (drainGraceMs === 0) {
      this.#graceOver(child);
    } else {
      const grace = new GraceElapsed();
      this.#state = { kind: "grace", child, grace };
      this.context.timers.startSingleTimer("grace", grace, drainGraceMs);
      this.#save();
    }
  }

  /** down, a respawn due in `delayMs` (at once if 0 or less). */
  #respawnIn(delayMs: number, lastChild: ActorRef<T> | undefined): void {
    // No backoff: respawn now, not after a setTimeout(0) (1 ms or more).
    if (delayMs <= 0) return this.#spawn();
    const respawn = new Respawn();
    this.#state = { kind: "down", respawn, lastChild };
    this.context.timers.startSingleTimer(
      "respawn",
      respawn,
      delayMs,
    );
    this.#settings.durable?.respawnIn(delayMs);
    this.#save();
  }

  /**
   * Told while this supervisor is idle with nothing queued (the runtime's
   * door, `openDoor`): a message its own turn would pass straight on to a
   * running child goes to the child now, without that turn, so a tell
   * through it costs about one direct tell. Whatever its turn decides
   * otherwise (its protocol, a child's message to it, a `Terminated`,
   * anything while the child is down, or in its grace window with messages
   * stashed) waits for it.
   */
  #door(message: unknown, sender: ActorRef<never> | undefined): boolean {
    const state = this.#state;
    if (
      !(state.kind === "steady" ||
        // as #forward does: the grace window with nothing stashed
        (state.kind === "grace" && this.#settings.forwardDuringGrace &&
          this.#stash.size === 0)) ||
      sender === state.child
    ) return false;
    // Its own messages, and one that throws at the look (a revoked Proxy),
    // wait for its turn, whose boundary is made for them.
    if (
      typeof message === "object" && message !== null &&
      instanceOfAny(message, OWN_MESSAGES) !== false
    ) return false;
    state.child.tell(message as T, sender);
    return true;
  }

  /** grace → steady: the stash goes to the child, in order, before anything newer. */
  #graceOver(child: ActorRef<T>): void {
    this.#state = { kind: "steady", child };
    this.#stash.drain((message, sender) => passOn(child, message, sender));
    this.#save();
  }

  /**
   * The decider of the stopping strategy: grace or steady → dying, recorded
   * the moment the child fails, and the directive. The runtime runs it
   * synchronously in the child's turn, not in this supervisor's; everything
   * else about the failure (the log line, the verdict, the respawn) waits
   * for `Terminated`, in this supervisor's own turn. Two things cannot wait
   * without changing documented behaviour, because nothing else tells this
   * supervisor of the failure before `Terminated`, which comes only after
   * the child's `postStop` (however long that takes):
   * - the state: the child counts as down from the moment its failure is
   *   known (README), so nothing is forwarded to it and `GetCurrentChild`
   *   answers `undefined`;
   * - `BackoffChildFailed`: published at that moment, before the runtime's
   *   `ActorFailed` and before the dying child's messages come back (and,
   *   with `triggerOn: "stop"`, before the parent decides, when this
   *   supervisor may get no turn at all).
   */
  #childFailed(error: unknown): Directive {
    const state = this.#state;
    if (state.kind === "down") return "stop"; // not this supervisor's child
    const child = state.child;
    this.#publish(new BackoffChildFailed(this.#me, child, error));
    if (this.#settings.triggerOn === "stop") {
      // The parent decides for this supervisor and its child together. The
      // child is not marked dying: if the parent resumes, it goes on as
      // before (and this supervisor with it); if it restarts or stops this
      // supervisor, the child is stopped anyway.
      return "escalate";
    }
    this.#state = { kind: "dying", child, how: "failure", error };
    return "stop";
  }

  /** dying (or grace or steady) → down: respawn after a delay, at once, or give up. */
  #childTerminated(ref: ActorRef<never>): void {
    const state = this.#state;
    // An earlier child's, or a stranger's.
    if (state.kind === "down" || state.child !== ref) return;
    const how = state.kind === "dying" ? state.how : "stop";
    if (state.kind === "dying" && how === "failure") {
      this.log.warn(`child ${ref.path} failed: ${describeError(state.error)}`);
    }
    this.context.timers.cancel("grace");
    this.context.timers.cancel("stability");
    const now = this.#now();
    // A child that was stable but died before its stability check ran still resets the count.
    if (this.#decision.resetIfStable(now)) {
      this.#publish(new BackoffCounterReset(this.#me));
    }
    // The child's restart type may forbid a respawn: the work is over.
    const verdict = mayRestart(this.#settings.childProps.restart, how)
      ? this.#decision.childTerminated(how, now)
      : { action: "complete" } as const;
    this.#state = { kind: "down", respawn: undefined, lastChild: ref };
    switch (verdict.action) {
      case "respawn": {
        const failure = verdict.policyFailure;
        // A throw is logged with what was thrown; a bad value is in the text.
        if (failure !== undefined) logPolicyFailure(this.log, failure);
        this.#publish(
          new BackoffScheduled(this.#me, verdict.restartCount, verdict.delayMs),
        );
        return this.#respawnIn(verdict.delayMs, ref);
      }
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

  // ───────────── plumbing ─────────────

  #forward(message: unknown, sender: ActorRef<never> | undefined): void {
    const state = this.#state;
    if (state.kind === "steady") {
      passOn(state.child, message, sender);
      return;
    }
    const stash = this.#stash;
    const { forward, forwardDuringGrace, maxStashSize } = this.#settings;
    if (state.kind === "grace") {
      // With a non-empty stash, newer messages queue behind it: order holds.
      if (forwardDuringGrace && stash.size === 0) {
        passOn(state.child, message, sender);
        return;
      }
    } else if (forward === "drop") {
      this.#undeliverable(message, sender, "no child running (forward: drop)");
      return;
    }
    if (stash.size >= maxStashSize) {
      // The newest message is the one over the limit: no need to touch the stash.
      this.#undeliverable(message, sender, this.#stashFullReason());
    } else {
      stash.push(message, sender);
      this.#save();
    }
  }

  /**
   * With `durable`, writes the record: in this turn, so that a Durable
   * Object's output gate holds the turn's output until it is stored.
   */
  #save(): void {
    this.#settings.durable?.save(
      this.#decision.restartCount,
      this.#stash.items,
      this.#state.kind === "down",
    );
  }

  #stashFullReason(): string {
    return `stash full (maxStashSize ${this.#settings.maxStashSize})`;
  }

  #releaseStash(reason: string): void {
    this.#settings.durable?.clear();
    this.#stash.drain((message, sender) =>
      this.#undeliverable(message, sender, reason)
    );
  }

  /**
   * The user's clock, contained: a reading that throws or is not a finite
   * number is logged and becomes {@linkcode UNKNOWN_TIME}, which never
   * makes a child count as stable.
   */
  #now(): number {
    let reading: unknown;
    try {
      const clock = this.#settings.clock;
      reading = clock === undefined
        ? this.context.system.scheduler.now()
        : clock();
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

  #undeliverable(
    message: unknown,
    sender: ActorRef<never> | undefined,
    reason: string,
  ): void {
    // A tracked message (a worker's) is told so by the dead letter; the
    // event shows what was sent, as the dead letter does.
    this.#publish(
      new BackoffMessageDropped(this.#me, sentMessage(message), reason),
    );
    this.context.system.publishDeadLetter(message, sender, this.#me, reason);
  }

  #publish(event: BackoffEvent): void {
    const stream = this.context.system.eventStream;
    if (stream.hasSubscribers) stream.publish(event);
  }
}

// ───────────── the stash ─────────────

/** Receives one message taken out of a {@linkcode Stash}, with its sender. */
type StashVisitor = (
  message: unknown,
  sender: ActorRef<never> | undefined,
) => void;

/**
 * Messages with their senders, oldest first. Its own small FIFO, not the
 * runtime's mailbox: it is only ever filled one message at a time, put in
 * front of (a stopping child's unprocessed messages), cut at its limit and
 * emptied whole, so a flat array of message, sender pairs does it all.
 */
class Stash {
  /** Message, sender, message, sender, …: one array for both halves. */
  items: unknown[] = [];

  /** How many messages it holds. */
  get size(): number {
    return this.items.length / 2;
  }

  /** Adds a message at the end. */
  push(message: unknown, sender: ActorRef<never> | undefined): void {
    this.items.push(message, sender);
  }

  /** Puts `envelopes` in front, in their order: they were sent before anything here. */
  prepend(envelopes: readonly Envelope[]): void {
    const items: unknown[] = [];
    for (const { message, sender } of envelopes) items.push(message, sender);
    this.items = items.concat(this.items);
  }

  /** Keeps the oldest `limit` messages; the newer ones go to `dropped`, oldest first. */
  trimTo(limit: number, dropped: StashVisitor): void {
    if (this.size <= limit) return;
    const over = this.items.splice(limit * 2);
    visit(over, dropped);
  }

  /**
   * Empties it, then hands each message to `visitor`, oldest first. Emptied
   * first, so whatever `visitor` causes never sees the messages twice.
   */
  drain(visitor: StashVisitor): void {
    const items = this.items;
    if (items.length === 0) return;
    this.items = [];
    visit(items, visitor);
  }
}

function visit(items: readonly unknown[], visitor: StashVisitor): void {
  for (let i = 0; i < items.length; i += 2) {
    visitor(items[i], items[i + 1] as ActorRef<never> | undefined);
  }
}
