// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The BackoffSender: at-least-once delivery to a child that may crash, the
 * pattern of the Akka article "Supervisor strategy using an exponential back
 * off algorithm" (2012). Every message is tracked, with its original sender,
 * until the child acknowledges it; when the child terminates, a fresh one is
 * created and, after a delay from the policy (by default a truncated binary
 * exponential backoff), every unacknowledged message is sent again, in the
 * original order.
 *
 * An ordinary actor on the public runtime API (it spawns and watches its
 * child, runs it under a stopping strategy, and keeps one timer), plus the
 * runtime's one port for patterns, {@linkcode takeOverUndelivered}, through
 * which it learns which deliveries a dying child never began to process
 * (those do not use up a try, and are not dead letters). The options are
 * checked in `backoff_sender_options.ts`, the messages and events are in
 * `backoff_sender_protocol.ts`, and the bookkeeping of the unacknowledged
 * messages (ids, tries, who holds what) is in `backoff_sender_ledger.ts`.
 *
 * The sender is in one of three states:
 *
 * ```
 *                  failure, or stop begins
 *   delivering ─────────────────────────────▶ dying
 *        ▲                                      │ Terminated: next delay;
 *        │ the wait ends (or RespawnNow):       │ a fresh child at once if the
 *        │ a child (spawned now if there is     │ dead one had begun work, else
 *        │ none), then every unacked message    ▼ at the end of the wait
 *        └──────────────────────────────────  waiting ──▶ dying (the fresh
 *                                                        child failed too)
 * ```
 *
 * - delivering: a child runs and no failure is pending: a message goes to
 *   it at once.
 * - dying: the child failed (known at once, from the decider of its
 *   stopping strategy, in the child's turn) or began to stop; `Terminated`
 *   is on its way. Messages wait.
 * - waiting: the backoff timer runs. A fresh child may already run (it is
 *   given nothing yet); messages wait.
 *
 * The retry count (the `n` the policy is asked for) goes up by one at each
 * termination and back to 0 on an `Ack` or a `Reset`.
 *
 * @module
 */

import { loggedDelay } from "../backoff/_policy.ts";
import { Actor, Terminated } from "../runtime/actor.ts";
import type { ActorRef } from "../runtime/actor_ref.ts";
import { Props } from "../runtime/props.ts";
import {
  type Envelope,
  takeOverUndelivered,
  type UndeliveredTaker,
} from "../runtime/ports/undelivered.ts";
import type { Termination } from "../supervision/backoff_decision.ts";
import { type Directive, OneForOneStrategy } from "../supervision/strategy.ts";
import { describeError } from "../validation.ts";
import {
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
import { type Entry, Ledger } from "./backoff_sender_ledger.ts";
import {
  BACKOFF_SENDER_FALLBACK_DELAY_MS,
  type BackoffSenderOptions,
  type BackoffSenderSettings,
  backoffSenderSettings,
} from "./backoff_sender_options.ts";
import {
  BackoffSenderAck,
  BackoffSenderAcknowledged,
  type BackoffSenderEvent,
  BackoffSenderGaveUp,
  type BackoffSenderProtocol,
  BackoffSenderResent,
  BackoffSenderRetryScheduled,
  BackoffSenderTracked,
} from "./backoff_sender_protocol.ts";

/**
 * The backoff wait is over: re-send. Each wait's message object is its tag:
 * only the waiting state that holds it accepts it, so a stale tick matches
 * nothing.
 */
class ResendDue {}

/** The sender's state: exactly one of these at a time (see the module doc). */
type SenderState =
  | { readonly kind: "delivering"; readonly child: ActorRef<never> }
  | {
    readonly kind: "dying";
    readonly child: ActorRef<never>;
    /** A crash (recorded by the decider) or a clean stop. */
    readonly how: Termination;
    /** What the child threw (a crash only), logged when `Terminated` arrives. */
    readonly error?: unknown;
  }
  | {
    readonly kind: "waiting";
    /** A fresh child, given nothing yet; `undefined`: spawn one when the wait ends. */
    readonly child: ActorRef<never> | undefined;
    /** The timer's message. */
    readonly due: ResendDue;
  };

/** The timer's key. */
const RESEND = "resend";

/**
 * Delivers every message at least once to a child that may crash: the
 * article's `BackOffSender`. Each message goes to the child wrapped in a
 * {@linkcode BackoffSenderTracked} (`{ id, message, sender, attempt }`) and
 * is kept until the child answers with
 * `this.context.parent.tell(new BackoffSender.Ack(tracked.id))`.
 *
 * When the child terminates (it crashed: it runs under a stopping strategy;
 * or it stopped), a fresh child is created, the policy gives the next delay
 * (`policy.delayFor(n)`, `n` the terminations since the last `Ack` or
 * `Reset`), and then every unacknowledged message is sent again in the
 * original order, with its original sender. Messages that arrive meanwhile
 * wait behind them. A child that dies before it began to process anything
 * (its `preStart` failed) is not replaced at once: the next one is created
 * when the wait ends, so a child that cannot start is retried with backoff
 * too.
 *
 * At least once: the child may have done the work and crashed before its
 * `Ack`, so the same message (same `id`) can come again; the child or the
 * receiver drops the ids it has seen. Nothing is lost silently: a message
 * tried `maxAttempts` times, pushed out of the `maxUnacked` bound (the
 * oldest goes), or left when the BackoffSender stops is published as a
 * {@linkcode BackoffSenderGaveUp} and a `DeadLetter` with its original
 * sender (a pending `ask` fails at once).
 *
 * @example The article's story, shortened
 * ```ts
 * import { Actor, ActorSystem, BackoffSender, Props } from "@understudy/core";
 *
 * let calls = 0;
 * class Dangerous extends Actor<BackoffSender.Tracked<string>> {
 *   onReceive(tracked: BackoffSender.Tracked<string>): void {
 *     if (++calls <= 2) throw new Error("resource unavailable"); // the first 2 calls fail
 *     this.context.parent.tell(new BackoffSender.Ack(tracked.id));
 *     tracked.sender?.tell(`done: ${tracked.message}`);
 *   }
 * }
 *
 * const system = ActorSystem.create("demo", { logLevel: "off" });
 * const sender = system.actorOf(
 *   BackoffSender.props({ childProps: Props.create(() => new Dangerous()) }),
 *   "sender",
 * );
 * console.log(await sender.ask<string>("job")); // "done: job", on the third try
 * await system.terminate();
 * ```
 *
 * @typeParam M The messages sent through it.
 */
export class BackoffSender<M> extends Actor<unknown> {
  // Getters over module constants and classes, not static fields: a static
  // field's initializer counts as a side effect, so bundlers would keep this
  // class in programs that never use it.

  /**
   * The acknowledgement class: the child sends
   * `new BackoffSender.Ack(tracked.id)` to its parent.
   */
  static get Ack(): typeof BackoffSenderAck {
    return BackoffSenderAck;
  }
  /** The class of what the child receives (for `instanceof`). */
  static get Tracked(): typeof BackoffSenderTracked {
    return BackoffSenderTracked;
  }
  /** Ask for the retry count: the reply is a {@linkcode RestartCount} (terminations since the last `Ack` or `Reset`). */
  static get GetRestartCount(): GetRestartCount {
    return GET_RESTART_COUNT;
  }
  /** Sets the retry count to 0 (the next delay is `delayFor(0)`); a pending wait and the messages' tries are kept. */
  static get Reset(): ResetRestartCount {
    return RESET;
  }
  /** Ends a pending wait: the unacknowledged messages are re-sent at once (the count is kept). */
  static get RespawnNow(): RespawnNow {
    return RESPAWN_NOW;
  }
  /** Ask for the current child: the reply is a {@linkcode CurrentChild} (`undefined` while it is dying or none runs). */
  static get GetCurrentChild(): GetCurrentChild {
    return GET_CURRENT_CHILD;
  }

  /**
   * Props for a BackoffSender to children made by `options.childProps`.
   * Options are checked here, so a bad one throws at this call. The
   * sender's ref accepts the messages it carries and the
   * {@linkcode BackoffSenderProtocol}.
   *
   * @example Usage
   * ```ts
   * import { Actor, ActorSystem, BackoffSender, Props } from "@understudy/core";
   * import { truncatedBinaryBackoff } from "@understudy/core/backoff";
   *
   * class Writer extends Actor<BackoffSender.Tracked<string>> {
   *   onReceive(tracked: BackoffSender.Tracked<string>): void {
   *     this.context.parent.tell(new BackoffSender.Ack(tracked.id));
   *   }
   * }
   * const system = ActorSystem.create("demo");
   * const writer = system.actorOf(
   *   BackoffSender.props<string>({
   *     childProps: Props.create(() => new Writer()),
   *     childName: "writer",
   *     policy: truncatedBinaryBackoff({ slotMs: 50, ceiling: 6 }),
   *     maxUnacked: 100,
   *     maxAttempts: 5,
   *   }),
   *   "writer-sender",
   * );
   * writer.tell("line 1"); // to /user/writer-sender/writer-1 as Tracked { id: 1, … }
   * await system.terminate();
   * ```
   *
   * @typeParam M The messages sent through it.
   * @param options Child, policy and bounds.
   * @returns Props for the BackoffSender.
   */
  static props<M>(
    options: BackoffSenderOptions<M>,
  ): Props<M | BackoffSenderProtocol> {
    const settings = backoffSenderSettings(options);
    return Props.create(() => new BackoffSender(settings)) as Props<
      M | BackoffSenderProtocol
    >;
  }

  readonly #settings: BackoffSenderSettings<M>;
  /** The unacknowledged messages. */
  readonly #ledger = new Ledger();
  /**
   * Deliveries still held by a child when their message was given up (a
   * dead letter already): found in that child's mailbox, they are nothing.
   */
  readonly #givenUp = new WeakSet<object>();
  #state: SenderState;
  /** Terminations since the last `Ack` or `Reset`: the policy's `n`. */
  #retries = 0;
  /** Children spawned, for their names. */
  #spawned = 0;
  /** The latest child: what it sends (other than an `Ack`) goes up to this actor's parent. */
  #child: ActorRef<never> | undefined;

  /** A crash stops the child; the backoff does the rest. */
  override readonly supervisorStrategy: OneForOneStrategy;

  /**
   * The runtime's port ({@linkcode UndeliveredTaker}): learns which
   * deliveries a stopping child never processed. Internal.
   *
   * @ignore
   */
  declare readonly [takeOverUndelivered]: UndeliveredTaker[
    typeof takeOverUndelivered
  ];

  private constructor(settings: BackoffSenderSettings<M>) {
    super();
    this.#settings = settings;
    // Replaced in preStart, which spawns the first child.
    this.#state = { kind: "waiting", child: undefined, due: new ResendDue() };
    this.supervisorStrategy = new OneForOneStrategy(
      (error) => this.#childFailed(error),
      { loggingEnabled: false },
    );
    // An own property, not a method under a computed key (which bundlers
    // count as a side effect): see the BackoffSupervisor.
    this[takeOverUndelivered] = (child, undelivered) =>
      this.#takeOver(child, undelivered);
  }

  get #me(): ActorRef<never> {
    return this.self as ActorRef<never>;
  }

  /**
   * Spawns the first child; with a stored record (`durable`), restores the
   * ledger and the retry count and re-sends on the stored schedule.
   */
  override preStart(): void {
    const saved = this.#settings.durable?.load();
    if (saved !== undefined) {
      this.#retries = saved.retries;
      this.#ledger.restore(saved.nextId, saved.entries);
      return this.#resendIn(undefined, saved.resendInMs ?? 0);
    }
    this.#state = { kind: "delivering", child: this.#spawn() };
  }

  /** Every unacknowledged message goes to dead letters: nothing is lost silently. */
  override postStop(): void {
    this.#giveUpAll("BackoffSender stopped");
  }

  /**
   * Before this actor is restarted (by its parent's strategy), its
   * unacknowledged messages go to dead letters (the new incarnation starts
   * empty, its ids from 1); then, as by default, the child is stopped.
   *
   * @param reason The error that caused the restart.
   * @param message The message being processed when it failed, if any.
   */
  override preRestart(
    reason: unknown,
    message?: unknown,
  ): void | Promise<void> {
    this.#giveUpAll("BackoffSender restarted");
    return super.preRestart(reason, message);
  }

  /**
   * Handles acknowledgements, the protocol, its timer and its child's
   * `Terminated`; passes what the child sends it on to its own parent;
   * tracks every other message and delivers it (or keeps it waiting).
   *
   * @param message The message.
   */
  onReceive(message: unknown): void {
    if (typeof message === "object" && message !== null) {
      if (message instanceof BackoffSenderAck) return this.#acked(message.id);
      if (message instanceof Terminated) {
        return this.#childTerminated(message.ref);
      }
      if (message instanceof ResendDue) {
        const state = this.#state;
        if (state.kind === "waiting" && state.due === message) {
          this.#resend(state.child);
        }
        return;
      }
      if (message instanceof GetRestartCount) {
        return this.sender?.tell(new RestartCount(this.#retries));
      }
      if (message instanceof ResetRestartCount) {
        this.#retries = 0;
        return this.#save();
      }
      if (message instanceof RespawnNow) {
        const state = this.#state;
        if (state.kind === "waiting") {
          this.context.timers.cancel(RESEND);
          this.#resend(state.child);
        }
        return;
      }
      if (message instanceof GetCurrentChild) {
        const state = this.#state;
        return this.sender?.tell(
          new CurrentChild(state.kind === "dying" ? undefined : state.child),
        );
      }
    }
    const sender = this.sender as ActorRef<never> | undefined;
    // As in the BackoffSupervisor (and Akka): what the child sends its
    // parent with itself as the sender is meant for the parent's parent.
    if (sender !== undefined && sender === this.#child) {
      this.context.parent.tell(message, this.#me);
      return;
    }
    const entry = this.#ledger.add(message, sender);
    const state = this.#state;
    if (state.kind === "delivering") this.#deliver(entry, state.child);
    const { maxUnacked } = this.#settings;
    if (this.#ledger.size > maxUnacked) {
      this.#giveUp(
        this.#ledger.remove(this.#ledger.oldest()!.id)!,
        `unacknowledged messages over maxUnacked (${maxUnacked}): the oldest is dropped`,
      );
    }
    this.#save();
  }

  // ───────────── the transitions, one place each ─────────────

  /** An `Ack`: the message is done, and the retry count goes back to 0 (real success). */
  #acked(id: number): void {
    const entry = this.#ledger.remove(id);
    if (entry === undefined) return; // acknowledged already, or dropped
    this.#retries = 0;
    this.#publish(
      new BackoffSenderAcknowledged(this.#me, id, entry.message, entry.tries),
    );
    this.#save();
  }

  /**
   * delivering or waiting → dying, told by the decider of the stopping
   * strategy the moment the child fails (in the child's turn), so that
   * nothing more is delivered to a dying child. The failure is logged in
   * this actor's own turn, when `Terminated` arrives (as the
   * BackoffSupervisor does).
   */
  #childFailed(error: unknown): Directive {
    const state = this.#state;
    if (state.kind !== "dying" && state.child !== undefined) {
      this.#dying(state.child, "failure", error);
    }
    return "stop";
  }

  /** The child is going: no more deliveries to it, and no re-send while it goes. */
  #dying(child: ActorRef<never>, how: Termination, error?: unknown): void {
    if (this.#state.kind === "waiting") this.context.timers.cancel(RESEND);
    this.#state = { kind: "dying", child, how, error };
  }

  /**
   * The runtime's port: `child` began to stop, and `undelivered` are the
   * messages it will never process. Our deliveries among them are not
   * tries (they wait for the next child, as the ledger still holds them);
   * anything else sent to the child directly is a dead letter, as it would
   * be without this port. Internal.
   */
  #takeOver(child: ActorRef<never>, undelivered: Envelope[]): void {
    const state = this.#state;
    // A clean stop is first known here; a crash was known to the decider.
    if (state.kind !== "dying" && state.child === child) {
      this.#dying(child, "stop");
    }
    for (const { message, sender } of undelivered) {
      if (this.#ledger.returned(child, message)) continue;
      if (this.#givenUp.has(message as object)) continue;
      this.context.system.publishDeadLetter(
        message,
        sender,
        child,
        "recipient stopped",
      );
    }
  }

  /**
   * dying → waiting: the messages out of tries go to dead letters, the
   * policy gives the next delay, and a fresh child is spawned at once if
   * the dead one had begun to process a message (else when the wait ends).
   */
  #childTerminated(ref: ActorRef<never>): void {
    const state = this.#state;
    if (state.child !== ref) return; // an earlier child's, or a stranger's
    if (state.kind === "dying" && state.how === "failure") {
      this.log.warn(`child ${ref.path} failed: ${describeError(state.error)}`);
    }
    if (state.kind === "waiting") this.context.timers.cancel(RESEND);
    const { maxAttempts } = this.#settings;
    const { tried, exhausted } = this.#ledger.settle(ref, maxAttempts);
    for (const entry of exhausted) {
      this.#giveUp(
        entry,
        `not acknowledged after ${entry.tries} attempt${
          entry.tries === 1 ? "" : "s"
        } (maxAttempts ${maxAttempts})`,
      );
    }
    const retryCount = this.#retries++;
    const delayMs = this.#delayFor(retryCount);
    this.#publish(
      new BackoffSenderRetryScheduled(
        this.#me,
        retryCount,
        delayMs,
        this.#ledger.size,
      ),
    );
    this.#resendIn(tried > 0 ? this.#spawn() : undefined, delayMs);
  }

  /** → waiting, a re-send due in `delayMs` (at once if 0). */
  #resendIn(child: ActorRef<never> | undefined, delayMs: number): void {
    // No backoff: re-send now, not after a setTimeout(0).
    if (delayMs === 0) return this.#resend(child);
    const due = new ResendDue();
    this.#state = { kind: "waiting", child, due };
    this.context.timers.startSingleTimer(RESEND, due, delayMs);
    this.#settings.durable?.resendIn(delayMs);
    this.#save();
  }

  /**
   * With `durable`, writes the record, in this turn (a Durable Object's
   * output gate then holds the turn's output until it is stored).
   */
  #save(): void {
    const ledger = this.#ledger;
    this.#settings.durable?.save(
      this.#retries,
      ledger.nextId,
      ledger.all(),
      this.#state.kind === "waiting",
    );
  }

  /** waiting → delivering: every unacknowledged message, in order, to the child (spawned now if none runs). */
  #resend(child: ActorRef<never> | undefined): void {
    const to = child ?? this.#spawn();
    this.#state = { kind: "delivering", child: to };
    for (const entry of this.#ledger.unheld()) {
      this.#deliver(entry, to);
      if (entry.sends > 1) {
        this.#publish(
          new BackoffSenderResent(
            this.#me,
            entry.id,
            entry.message,
            entry.tries,
          ),
        );
      }
    }
    this.#save();
  }

  // ───────────── plumbing ─────────────

  #spawn(): ActorRef<never> {
    const { childProps, childName } = this.#settings;
    const child = this.context.actorOf(
      childProps,
      `${childName}-${++this.#spawned}`,
    ) as ActorRef<never>;
    this.context.watch(child);
    this.#child = child;
    return child;
  }

  #deliver(entry: Entry, child: ActorRef<never>): void {
    (child as ActorRef<unknown>).tell(
      this.#ledger.handTo(entry, child),
      this.#me,
    );
  }

  #giveUpAll(reason: string): void {
    this.#settings.durable?.clear();
    for (const entry of this.#ledger.drain()) this.#giveUp(entry, reason);
  }

  #giveUp(entry: Entry, reason: string): void {
    if (entry.delivery !== undefined) this.#givenUp.add(entry.delivery);
    this.#publish(
      new BackoffSenderGaveUp(
        this.#me,
        entry.id,
        entry.message,
        entry.tries,
        reason,
      ),
    );
    this.context.system.publishDeadLetter(
      entry.message,
      entry.sender,
      this.#me,
      reason,
    );
  }

  /**
   * The user's policy, contained: a throw, or a delay that is not a number
   * >= 0, is logged and becomes the fallback delay, so a broken policy can
   * neither cause a retry storm nor stop the sender. Clamped to what a
   * timer can wait.
   */
  #delayFor(retryCount: number): number {
    return loggedDelay(
      this.log,
      this.#settings.policy,
      retryCount,
      BACKOFF_SENDER_FALLBACK_DELAY_MS,
    );
  }

  #publish(event: BackoffSenderEvent): void {
    const stream = this.context.system.eventStream;
    if (stream.hasSubscribers) stream.publish(event);
  }
}

/**
 * The types reached through `BackoffSender`: `BackoffSender.Tracked<M>`
 * (what the child receives), `BackoffSender.Ack` and
 * `BackoffSender.Options<M>`. Types only: nothing here exists at run time.
 *
 * @example Usage
 * ```ts
 * import { Actor, BackoffSender } from "@understudy/core";
 *
 * class Worker extends Actor<BackoffSender.Tracked<number>> {
 *   onReceive(tracked: BackoffSender.Tracked<number>): void {
 *     const ack: BackoffSender.Ack = new BackoffSender.Ack(tracked.id);
 *     this.context.parent.tell(ack);
 *   }
 * }
 * ```
 */
export declare namespace BackoffSender {
  /** What the child receives: `{ id, message, sender, attempt }`. */
  export type Tracked<M> = BackoffSenderTracked<M>;
  /** The child's acknowledgement of one message. */
  export type Ack = BackoffSenderAck;
  /** The options of `BackoffSender.props`. */
  export type Options<M> = BackoffSenderOptions<M>;
}
