// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The kernel: one actor's lifecycle and its message turn. A cell is the
 * actor's ref, its context and its state machine at once, so a local actor
 * costs one object besides its instance.
 *
 * ```
 *            ┌───────── restart, or resume¹ ─────────┐
 *            ▼                                       │
 *           NEW ──start──▶ STARTING ──failure──▶ SUSPENDED ◀──failure── RUNNING
 *                             │                    │                    ▲  ▲
 *                             │                    └────── resume ──────┘  │
 *                             └─────── preStart or postRestart done ───────┘
 *   any ──stop──▶ STOPPING (children stop, then postStop) ──▶ STOPPED
 * ```
 *
 * ¹ An actor that failed while starting has no instance to resume: it
 * starts again.
 *
 * A restart goes to NEW, and the next run starts a fresh instance; in a
 * group restart (`AllForOneStrategy`, `RestForOneStrategy`) the failed
 * child's siblings go to NEW from whatever state they are in. A typed
 * backoff leaves the actor SUSPENDED until its restart is due.
 *
 * The message path: `tell` → {@linkcode ActorCell.enqueue} → mailbox
 * (`mailbox.ts`) → dispatcher (`dispatcher.ts`) → {@linkcode ActorCell.run}
 * → `onReceive`. A throw or rejection is caught where user code is called
 * (`#receive`, `#start`, `#holdUntilSettled`; a throw from `preRestart` or
 * `postStop` is only logged), and {@linkcode ActorCell.fail} suspends the
 * actor and hands it to `handleFailure` (`../supervision/supervised.ts`),
 * which routes it: the actor's own typed handling, which `supervise()`
 * installs on its `Props` (`../supervision/typed.ts`), else its parent's
 * classic strategy (`../supervision/classic.ts`), else (a guardian) a stop.
 * Each decision acts back through the cell's lifecycle operations (restart,
 * resume, stop, and a typed backoff's delayed restart, `restart_after.ts`).
 *
 * The features live in their own files and attach here: death watch
 * (`watch.ts`), ask (`ask.ts`), timers (`timers.ts`, through the system's
 * scheduler, `scheduler.ts`), children (`children.ts`: the registry, a new
 * child's name, a group restart's start order), `become` and
 * `stash` (`stash.ts`), receive timeouts (`receive_timeout.ts`), what a
 * restart or stop does with an async handler still in flight
 * (`in_flight.ts`), and the one port for patterns (`undelivered.ts`). The
 * cell's states, flags and rarely-used state are in `cell_state.ts`. What
 * stays here is what every actor needs: delivery, the turn, start, restart,
 * failure and stop.
 *
 * @module
 */

import type { Actor, ActorContext, Behavior } from "../actor.ts";
import { ActorRef, type AskOptions } from "../actor_ref.ts";
import type { ActorSystem, SystemCore } from "../actor_system.ts";
import { AskRef } from "../ask.ts";
import { Children, holdBehind, newChildKey, releaseHeld } from "../children.ts";
import { THROUGHPUT } from "../dispatcher.ts";
import {
  ActorFailed,
  ActorRestarted,
  ActorStarted,
  ActorStopped,
  MessageReceived,
  MessageSent,
} from "../event_stream.ts";
import {
  abandonAllLeftBehind,
  abandonInFlight,
  armStopTimer,
  clearStopTimer,
  endTracked,
  leaveBehind,
  leftBehindSettled,
  replaceContext,
  reportTimedOut,
  staleFailure,
} from "../in_flight.ts";
import { Logger } from "../logging.ts";
import { Mailbox, Notice } from "./mailbox.ts";
import { isRuntimeNotice, PoisonPill } from "../poison_pill.ts";
import type { Props } from "../props.ts";
import {
  noteMessage,
  RECEIVE_TIMEOUT_KEY,
  receiveTimeoutDue,
  setReceiveTimeout,
} from "../receive_timeout.ts";
import {
  refusedWhileWaiting,
  RESTART_TIMER,
  restartDue,
  scheduleRestart,
} from "../restart_after.ts";
import { become, stash, unbecome, unstashAll } from "../stash.ts";
import { insideTracked, TrackedMessage } from "../tracked_message.ts";
import {
  AWAITING_PARENT,
  BUSY,
  CellExtras,
  HANDED,
  HELD,
  type InFlight,
  INSPECTED,
  NEW,
  NO_MESSAGE,
  POST_STOP_CALLED,
  putAside,
  RECEIVE_TIMEOUT,
  RESTART_PENDING,
  RUNNING,
  SCHEDULED,
  STARTING,
  STOP_REQUESTED,
  STOPPED,
  STOPPING,
  SUSPENDED,
  TIMER_TURN,
  TRACKED_TURN,
  UNSTARTED,
} from "./cell_state.ts";
import {
  construct,
  DONE,
  hook,
  receive,
  THREW,
  thrown,
  whenSettled,
} from "./user_code.ts";
import { ActorTimers, type TimerScheduler, TimerTicket } from "../timers.ts";
import { type Envelope, releaseUndelivered } from "../undelivered.ts";
import {
  addRemoteWatch,
  addWatch,
  announceTermination,
  isRemotelyWatchable,
  openTerminated,
  removeRemoteWatch,
  TERMINATED,
  type TerminatedNotice,
  unwatch,
} from "../watch.ts";
import type { RestartType } from "../../supervision/restart_type.ts";
import type { FaultHandlingStrategy } from "../../supervision/strategy.ts";
import {
  type FailureHandling,
  handleFailure,
  type Supervised,
  type SupervisionState,
  type Supervisor,
} from "../../supervision/supervised.ts";
import { describeError, describeValue, fail } from "../../validation.ts";

export type { Envelope };

/** Makes a child's cell: the remote port's own kind of cell (`remote.ts`). */
export type CellMaker<C> = (
  core: SystemCore,
  parent: ActorCell<never>,
  childKey: string | number,
  props: Props<C>,
) => ActorCell<C>;

/** A local actor's ref, context and state machine. Internal to the runtime. */
export class ActorCell<T> extends ActorRef<T>
  implements ActorContext<T>, Supervisor {
  readonly core: SystemCore;
  readonly parentCell: ActorCell<never> | undefined;
  /**
   * The key in the parent's children: the name given, or for a generated
   * name its sequence number, so spawning many unnamed actors makes no
   * strings.
   */
  readonly childKey: string | number;
  /** Where this cell sits in its parent's {@linkcode Children}. */
  childSlot = 0;
  readonly props: Props<T>;
  actor: Actor<T> | undefined = undefined;
  status: number = NEW;
  flags = 0;
  mailbox: Mailbox | undefined = undefined;
  /**
   * The message of the turn under way and its sender. What the message
   * slot can hold:
   * - during a turn, the message being handled, or once `stash()` took it
   *   STASHED (or STASH_OVERFLOWED: a dead letter already), so that a
   *   failure does not account for it twice (`stash.ts`);
   * - between turns, NO_MESSAGE; or, with the HANDED flag, the next
   *   message: one sent while the cell was idle with nothing queued, handed
   *   over with its turn rather than through the mailbox (see `enqueue`),
   *   logically the head of the mailbox. `context.sender` and `stash()`
   *   check the flag, so neither ever sees a message not yet processed, and
   *   whatever reorders the mailbox from outside a turn (`unstashAll`, a
   *   restart, a stop) first puts it back there (`settleHanded`).
   *
   * Decided, and measured again (November 2026, 100,000 idle actors, heap
   * after forced collections): two fields of the hand-off's own would be
   * clearer, but take an idle actor from 174.5 to 190.5 bytes on Node 20
   * (+9%) and from 166.7 to 214.8 bytes on Bun (+29%), whose objects grow
   * their property storage past the 12 fields a cell has. The slots are
   * free when the hand-off needs them (no turn is under way), so it shares
   * them.
   */
  currentMessage: unknown = NO_MESSAGE;
  currentSender: ActorRef<unknown> | undefined = undefined;
  extras: CellExtras | undefined = undefined;

  constructor(
    core: SystemCore,
    parentCell: ActorCell<never> | undefined,
    childKey: string | number,
    props: Props<T>,
  ) {
    super();
    this.core = core;
    this.parentCell = parentCell;
    this.childKey = childKey;
    this.props = props;
    if (core.inspecting) this.flags = INSPECTED;
  }

  /** The actor's name: the one given, or `$` and its sequence number in base 36. */
  get name(): string {
    const key = this.childKey;
    return typeof key === "number" ? `$${key.toString(36)}` : key;
  }

  /** Stopping, stopped, or asked to stop. */
  get isStopping(): boolean {
    return this.status >= STOPPING || (this.flags & STOP_REQUESTED) !== 0;
  }

  get isStopped(): boolean {
    return this.status === STOPPED;
  }

  /** How long a stop waits for what is in flight: the props' own, or the system's. */
  get shutdownTimeoutMs(): number {
    return this.props.shutdownTimeoutMs ?? this.core.shutdownTimeoutMs;
  }

  ensureExtras(): CellExtras {
    return this.extras ??= new CellExtras();
  }

  /**
   * This cell as the ports (`watch.ts`, `stash.ts`, `in_flight.ts` …) take
   * it, whatever its message type. The turn (`run`, `#invoke`) casts
   * instead: a call there would count against its inlining budget.
   */
  get #cell(): ActorCell<never> {
    return this as unknown as ActorCell<never>;
  }

  // ───────────────────────── ActorRef ─────────────────────────

  get path(): string {
    return this.parentCell === undefined
      ? `/${this.name}`
      : `${this.parentCell.path}/${this.name}`;
  }

  tell(message: T | PoisonPill, sender?: ActorRef<never>): void {
    this.enqueue(message, sender);
  }

  ask<R = unknown>(message: T, options?: number | AskOptions): Promise<R> {
    return this.askFor(this.#cell, message, options);
  }

  /**
   * Asks `asked`, a ref with no system of its own (a transport's), as this
   * actor's system would: the ask's temporary ref belongs to that system,
   * and the question is sent with `asked.tell`, in order with its tells.
   * Internal.
   */
  askFor<R = unknown>(
    asked: ActorRef<never>,
    message: unknown,
    options?: number | AskOptions,
  ): Promise<R> {
    // AskRef checks the options; with a signal already aborted it is born
    // settled, and the message is not sent. Sent with `tell`, so a ref
    // whose `tell` was replaced (a worker's stand-in) sends asks its way.
    const asker = new AskRef<R>(this.core, asked, options);
    if (!asker.settled) {
      (asked as ActorRef<unknown>).tell(message, asker as ActorRef<never>);
    }
    return asker.promise;
  }

  // ───────────────────────── Delivery ─────────────────────────

  /** Queues a runtime notice (a timer's tick, a Terminated): never handed, never a dead letter. */
  enqueueNotice(notice: Notice): void {
    this.#queue(notice, undefined);
  }

  /**
   * Queues a tracked message (`tracked_message.ts`), the port's one door
   * in: never handed over, so the hand-off in `run` need only know a
   * PoisonPill. Refused (a stopped actor, a full wait), it is a dead letter
   * and hears so.
   */
  enqueueTracked(message: TrackedMessage, sender: unknown): void {
    this.#queue(message, sender);
  }

  /**
   * Puts a message in this cell's mailbox and makes sure the cell will run.
   *
   * A running cell that is neither SCHEDULED nor BUSY is idle, and its
   * mailbox is empty: `run` unschedules a running cell only once its mailbox
   * is drained, and every path that queues a message schedules the cell
   * unless it is BUSY or suspended. So an idle cell needs no look at its
   * mailbox.
   */
  enqueue(message: unknown, sender: unknown): void {
    // Kept small (and written out, not behind a getter, which measured
    // slower) so that it inlines into `tell`: an idle actor gets the message
    // handed over with its turn, skipping the mailbox (the common
    // one-message-at-a-time exchange).
    if (
      (this.flags & (SCHEDULED | BUSY | INSPECTED)) === 0 &&
      this.status === RUNNING
    ) {
      this.currentMessage = message;
      this.currentSender = sender as ActorRef<unknown> | undefined;
      this.flags |= SCHEDULED | HANDED;
      this.core.dispatcher.schedule(this);
      return;
    }
    if ((this.flags & INSPECTED) !== 0) {
      this.core.eventStream.publish(
        new MessageSent(message, sender as ActorRef<never>, this.#cell),
      );
    }
    this.#queue(message, sender);
  }

  /** The general case of {@linkcode ActorCell.enqueue}: through the mailbox, or to dead letters. */
  #queue(message: unknown, sender: unknown): void {
    if (this.status >= SUSPENDED) {
      if (this.status >= STOPPING) {
        // A runtime notice for a stopping actor was never sent by anyone.
        if (!isRuntimeNotice(message)) {
          this.core.deadLetter(message, sender, this, "recipient stopped");
        }
        return;
      }
      // A typed backoff waiting to restart bounds the wait (`restart_after.ts`).
      if (
        (this.extras?.restartCapacity ?? -1) >= 0 &&
        refusedWhileWaiting(this.#cell, message, sender)
      ) {
        return;
      }
    }
    const mailbox = this.mailbox ??= new Mailbox();
    const capacity = this.props.mailboxCapacity ?? this.core.mailboxCapacity;
    // A handed message waits too: it is logically the mailbox's head.
    const waiting = mailbox.size + ((this.flags & HANDED) === 0 ? 0 : 1);
    if (waiting >= capacity && !isRuntimeNotice(message)) {
      this.core.deadLetter(
        message,
        sender,
        this,
        `mailbox full (capacity ${capacity})`,
      );
      return;
    }
    mailbox.push(message, sender);
    if ((this.flags & (SCHEDULED | BUSY)) === 0 && this.status !== SUSPENDED) {
      this.flags |= SCHEDULED;
      this.core.dispatcher.schedule(this);
    }
  }

  /** Puts a handed message back at the head of the mailbox, where it logically is. */
  settleHanded(): void {
    if ((this.flags & HANDED) === 0) return;
    this.flags &= ~HANDED;
    const message = this.currentMessage;
    const sender = this.currentSender;
    this.currentMessage = NO_MESSAGE;
    this.currentSender = undefined;
    (this.mailbox ??= new Mailbox()).unshift(message, sender);
  }

  // ───────────────────────── ActorContext ─────────────────────────

  get self(): ActorRef<T> {
    return this;
  }

  get sender(): ActorRef<unknown> | undefined {
    // Between turns the slot may hold a handed message not yet processed.
    return (this.flags & HANDED) === 0 ? this.currentSender : undefined;
  }

  get parent(): ActorRef<unknown> {
    return (this.parentCell ?? this) as ActorRef<unknown>;
  }

  get system(): ActorSystem {
    return this.core.system;
  }

  get log(): Logger {
    const extras = this.ensureExtras();
    return extras.logger ??= new Logger(
      () => this.path,
      this.core.logLevel,
      this.core.logSink,
    );
  }

  get timers(): TimerScheduler {
    return this.actorTimers();
  }

  /** The actor's timers, created on first use (closed, once it stops). */
  actorTimers(): ActorTimers {
    const extras = this.ensureExtras();
    let timers = extras.timers;
    if (timers === undefined) {
      timers = extras.timers = new ActorTimers(
        this.core.scheduler,
        // A typed backoff's pending restart is due while the actor is
        // suspended: it cannot wait its turn in the mailbox.
        (ticket) =>
          ticket.key === RESTART_TIMER
            ? restartDue(this.#cell, ticket)
            : this.enqueueNotice(ticket),
      );
      if (this.status >= STOPPING) this.#closeTimers(timers);
    }
    return timers;
  }

  /** No timer of a stopping actor runs: one started later is refused. */
  #closeTimers(timers: ActorTimers): void {
    timers.close(() =>
      this.log.warn(`ignored a timer started in ${this.path} after it stopped`)
    );
  }

  get children(): readonly ActorCell<never>[] {
    return this.extras?.children?.toArray() ?? [];
  }

  child(name: string): ActorRef<unknown> | undefined {
    let key: string | number = name;
    if (typeof name === "string" && name.startsWith("$")) {
      // A generated name: keyed by its number (only the exact form matches).
      const digits = name.slice(1);
      const n = parseInt(digits, 36);
      if (n.toString(36) === digits) key = n;
    }
    return this.extras?.children?.get(key) as ActorRef<unknown> | undefined;
  }

  stop(ref: ActorRef<never>): void {
    const self = this.#cell;
    if (
      !(ref instanceof ActorCell) ||
      (ref !== self && ref.parentCell !== self)
    ) {
      throw new TypeError(
        `Cannot stop ${
          describeValue(ref)
        } from ${this.path}: an actor can stop only itself and its own children`,
      );
    }
    ref.requestStop();
  }

  stopSelf(): void {
    this.requestStop();
  }

  watch<R>(ref: ActorRef<R>): ActorRef<R> {
    return this.#watch("watch", ref, TERMINATED);
  }

  watchWith<R>(ref: ActorRef<R>, message: T): ActorRef<R> {
    return this.#watch("watchWith", ref, message);
  }

  /** Both ways of watching: only actors can be, and watching oneself does nothing. */
  #watch<R>(action: string, ref: ActorRef<R>, message: unknown): ActorRef<R> {
    if (!(ref instanceof ActorCell)) {
      // A ref of another isolate's actor watches for itself (`watch` only).
      if (message === TERMINATED && isRemotelyWatchable(ref)) {
        addRemoteWatch(this.#cell, ref);
        return ref;
      }
      fail(
        action,
        "ref",
        "an actor's ref, as from actorOf (not dead letters or an ask's temporary ref)",
        ref,
      );
    }
    if (ref !== this.#cell) {
      addWatch(this.#cell, ref as ActorCell<never>, message);
    }
    return ref;
  }

  unwatch(ref: ActorRef<never>): void {
    if (ref instanceof ActorCell) {
      unwatch(this.#cell, ref as ActorCell<never>);
    } else removeRemoteWatch(this.#cell, ref);
  }

  get receiveTimeout(): number | undefined {
    return (this.flags & RECEIVE_TIMEOUT) === 0
      ? undefined
      : this.extras!.receiveTimeoutMs;
  }

  setReceiveTimeout(ms: number | undefined): void {
    setReceiveTimeout(this.#cell, ms);
  }

  become(behavior: Behavior<T>, options: { discardOld?: boolean } = {}): void {
    become(
      this.#cell,
      behavior as Behavior<never>,
      options,
    );
  }

  unbecome(): void {
    unbecome(this.#cell);
  }

  stash(): boolean {
    return stash(this.#cell);
  }

  unstashAll(): void {
    unstashAll(this.#cell);
  }

  // ───────────────────────── Children ─────────────────────────

  /** Creates, registers and schedules the start of a child. */
  actorOf<C>(props: Props<C>, name?: string): ActorCell<C> {
    return this.spawn(props, name, undefined);
  }

  /**
   * {@linkcode ActorCell.actorOf}, with the child's cell made by `make` (a
   * transport's, through the remote port, `remote.ts`) when given.
   */
  spawn<C>(
    props: Props<C>,
    name: string | undefined,
    make: CellMaker<C> | undefined,
  ): ActorCell<C> {
    // Throws for bad props, a bad or taken name, or a stopping parent.
    const childKey = newChildKey(this.#cell, props, name);
    const child = make === undefined
      ? new ActorCell(this.core, this.#cell, childKey, props)
      : make(this.core, this.#cell, childKey, props);
    (this.ensureExtras().children ??= new Children()).add(child.#cell);
    child.scheduleIfRunnable();
    return child;
  }

  /** A child has stopped for good. */
  childTerminated(child: ActorCell<never>): void {
    const children = this.extras?.children;
    children?.remove(child);
    if (this.status === STOPPING) {
      if (children === undefined || children.size === 0) this.#finishStop();
    } else if (
      (this.flags & RESTART_PENDING) !== 0 && !this.#hasStoppingChildren()
    ) {
      this.flags &= ~RESTART_PENDING;
      this.scheduleIfRunnable();
    }
  }

  #hasStoppingChildren(): boolean {
    return this.extras?.children?.some((child) => child.isStopping) ?? false;
  }

  // ───────────────────────── The turn ─────────────────────────

  /**
   * Called by the dispatcher: starts, stops, or processes up to THROUGHPUT
   * messages. The cell stays marked SCHEDULED while it runs, so messages it
   * sends itself do not queue it a second time.
   */
  run(): void {
    let budget = THROUGHPUT;
    if ((this.flags & HANDED) !== 0) {
      if (
        this.status === RUNNING && (this.flags & (BUSY | STOP_REQUESTED)) === 0
      ) {
        this.flags &= ~HANDED;
        budget--;
        if ((this.flags & RECEIVE_TIMEOUT) !== 0) {
          noteMessage(this as unknown as ActorCell<never>);
        }
        // Checked here, not in #receive: run() is never inlined, so the
        // check does not count against the inlining budget of the turn; and
        // `typeof` first, so that a number or a string is not compared with
        // an object (a generic comparison, measured at ~10% of a ping-pong).
        // A PoisonPill is the one notice `tell` hands over (the others come
        // by doors of their own, which queue them: enqueueNotice,
        // enqueueTracked); a queued one is opened in #invoke, by its type.
        // Sending every handed message through #invoke too, to check in one
        // place, cost 3 to 12% of a ping-pong on Node, and `instanceof` here
        // 8 to 10% of an object ping-pong on Deno.
        const message = this.currentMessage;
        if (typeof message === "object" && message === PoisonPill) {
          this.#poisoned(this.currentSender);
        } else this.#receive(message); // the handed message is already current
      } else {
        this.settleHanded();
      }
    }
    if (this.status === NEW) {
      if ((this.flags & (RESTART_PENDING | HELD)) !== 0) {
        this.flags &= ~SCHEDULED;
        return;
      }
      // Even an actor stopped before it ran is started first, so that its
      // preStart and postStop both run (as in Akka).
      const extras = this.extras;
      const restartReason = extras === undefined
        ? NO_MESSAGE
        : extras.restartReason;
      if (extras !== undefined) extras.restartReason = NO_MESSAGE;
      this.#start(restartReason);
    }
    for (;;) {
      const flags = this.flags;
      if ((flags & BUSY) !== 0) break;
      if ((flags & STOP_REQUESTED) !== 0) {
        this.flags = flags & ~SCHEDULED;
        this.#beginStop();
        return;
      }
      if (this.status !== RUNNING) break;
      const mailbox = this.mailbox;
      if (mailbox === undefined || mailbox.size === 0) break;
      if (budget-- === 0) {
        this.core.dispatcher.schedule(this); // still SCHEDULED: to the back of the queue
        return;
      }
      const message = mailbox.shift();
      // Current before anything looks at it, so that a runtime fault in
      // the looking (a revoked Proxy, at `instanceof`) dead-letters it.
      this.currentMessage = message;
      // A message other than a timer's restarts the receive timeout's period.
      if (
        (flags & RECEIVE_TIMEOUT) !== 0 && !(message instanceof TimerTicket)
      ) {
        noteMessage(this as unknown as ActorCell<never>);
      }
      this.#invoke(message, mailbox.shiftedSender);
    }
    this.flags &= ~SCHEDULED;
    // A restart or resume decided during this run may have left work to do.
    if (this.status !== RUNNING) this.scheduleIfRunnable();
  }

  /**
   * The dispatcher caught a throw escaping {@linkcode ActorCell.run}. No
   * hook or handler causes one (each throw is caught where it is called):
   * it is a fault of the runtime itself, or a message that throws at the
   * runtime's one look at it (a revoked `Proxy` taken from the mailbox, at
   * `instanceof Notice`). It is logged, the actor fails like any other, and
   * the rest of the system goes on. A message whose turn it was becomes a
   * dead letter, as when a handler throws; one handed over and not yet
   * begun stays first in the mailbox.
   */
  crashed(error: unknown): void {
    const handling = (this.flags & TRACKED_TURN) !== 0;
    this.flags &= ~(SCHEDULED | BUSY | TIMER_TURN | TRACKED_TURN);
    this.settleHanded();
    // A tracked turn's message is the tracked one (see #invoke): the hooks
    // get the message inside, as a handler's throw gives them.
    const current = this.currentMessage;
    const message = insideTracked(current);
    const sender = this.currentSender;
    this.currentMessage = NO_MESSAGE;
    this.currentSender = undefined;
    const inFlight = this.extras?.inFlight;
    if (inFlight !== undefined) {
      inFlight.abandoned = true; // its message is accounted for here
      this.extras!.inFlight = undefined;
      endTracked(inFlight, putAside(message));
    }
    this.core.log.error(
      `runtime fault in the turn of ${this.path}`,
      error,
    );
    // A stashed message is kept (its sentinel is no message for the hooks),
    // and a runtime notice was never anyone's message.
    const undelivered = message !== NO_MESSAGE && !putAside(message) &&
      !isRuntimeNotice(message);
    // A tracked turn cut short (TRACKED_TURN is set only while its message,
    // the current one, is owed an outcome): its handler ran, so it counts as
    // handled, as with a throw, and its dead letter is this side's.
    if (handling) (current as TrackedMessage).taken();
    this.fail(error, undelivered ? message : NO_MESSAGE, sender, undelivered);
    this.scheduleIfRunnable();
  }

  /**
   * Opens a message taken from the mailbox, already `currentMessage`
   * (runtime notices by their type), and handles it.
   */
  #invoke(message: unknown, sender: unknown): void {
    if (message instanceof Notice) {
      if (message instanceof TimerTicket) {
        if (
          !this.extras?.timers?.accept(message) || // cancelled or replaced
          (message.key === RECEIVE_TIMEOUT_KEY &&
            // a message came meanwhile: re-armed for the rest of the period
            !receiveTimeoutDue(this as unknown as ActorCell<never>))
        ) {
          this.currentMessage = NO_MESSAGE;
          return;
        }
        // A timer's message does not reset the receive timeout.
        this.currentMessage = message.message;
        this.currentSender = undefined;
        this.flags |= TIMER_TURN;
        if ((this.flags & INSPECTED) !== 0) this.#inspect(message.message);
        this.#receive(message.message);
        this.flags &= ~TIMER_TURN;
        return;
      }
      if ((message as unknown) === PoisonPill) return this.#poisoned(sender);
      if (message instanceof TrackedMessage) {
        // The turn's message stays the tracked one, so that stash() keeps
        // it tracked; the handler gets the message inside. It is taken when
        // the turn ends, unless stash() kept it (TRACKED_TURN cleared) or
        // its async handler holds it (taken when that ends).
        this.currentSender = sender as ActorRef<unknown> | undefined;
        this.flags |= TRACKED_TURN;
        if ((this.flags & INSPECTED) !== 0) this.#inspect(message.message);
        this.#receive(message.message);
        if ((this.flags & TRACKED_TURN) !== 0) {
          this.flags &= ~TRACKED_TURN;
          message.taken();
        }
        return;
      }
      const notice = message as TerminatedNotice;
      sender = notice.ref;
      message = openTerminated(this as unknown as ActorCell<never>, notice);
      this.currentMessage = message;
    }
    this.currentSender = sender as ActorRef<unknown> | undefined;
    if ((this.flags & INSPECTED) !== 0) this.#inspect(message);
    this.#receive(message);
  }

  /**
   * An inspecting system's cell (which never takes the hand-off, so every
   * message comes through #invoke) publishes what its handler gets next.
   */
  #inspect(message: unknown): void {
    this.core.eventStream.publish(
      new MessageReceived(message, this.currentSender as ActorRef<never>, this),
    );
  }

  /**
   * Runs the handler on `message` (the turn's, `currentMessage`, or the
   * message inside it); a throw or a rejection is a failure.
   */
  #receive(message: unknown): void {
    const sender = this.currentSender;
    const actor = this.actor!;
    const result = receive(
      actor as unknown as Actor<never>,
      this.extras?.behavior,
      message,
    );
    if (result === DONE) {
      this.currentMessage = NO_MESSAGE; // the turn is over
      this.currentSender = undefined;
    } else if (result === THREW) {
      this.#failTurn(thrown(), message, sender);
    } else this.#holdUntilSettled(result, message, sender, undefined);
  }

  /**
   * A `PoisonPill` reached the head of the mailbox: the actor never sees
   * it, and stops as with `stopSelf()` (what is queued behind it becomes
   * dead letters). The guardian is stopped by `system.terminate()` only.
   */
  #poisoned(sender: unknown): void {
    this.currentMessage = NO_MESSAGE;
    this.currentSender = undefined;
    if (this.parentCell === undefined) {
      this.core.deadLetter(
        PoisonPill,
        sender,
        this,
        "the guardian is stopped by system.terminate(), not by a PoisonPill",
      );
      return;
    }
    this.requestStop();
  }

  /**
   * The turn's handler threw or rejected. Its message becomes a dead letter
   * unless `stash()` already took it (then it is delivered again later) or
   * dead-lettered it (stash overflow).
   */
  #failTurn(error: unknown, message: unknown, sender: unknown): void {
    const current = this.currentMessage;
    this.currentMessage = NO_MESSAGE;
    this.currentSender = undefined;
    // A tracked turn's message was handled, if failed: told so before the
    // failure is handled, so that a fault in that handling cannot leave it
    // untold.
    if ((this.flags & TRACKED_TURN) !== 0) {
      this.flags &= ~TRACKED_TURN;
      (current as TrackedMessage).taken();
    }
    this.fail(
      error,
      message,
      sender,
      message !== NO_MESSAGE && !putAside(current),
    );
  }

  /**
   * Holds the mailbox (BUSY) while an async `preStart`, `postRestart` or
   * `onReceive` runs; then goes on with `next`, or fails like a throw. A
   * settlement the cell no longer waits for (a restart replaced the
   * instance, or a stop abandoned it) is stale: a stale rejection of a
   * message not yet accounted for is still a dead letter.
   */
  #holdUntilSettled(
    result: PromiseLike<unknown>,
    message: unknown,
    sender: unknown,
    next: (() => void) | undefined,
  ): void {
    const extras = this.ensureExtras();
    // A tracked turn (its message is the tracked one, see #invoke) is taken
    // when its handler ends: a stash after an `await` keeps it tracked too.
    let tracked: TrackedMessage | undefined;
    if ((this.flags & TRACKED_TURN) !== 0) {
      this.flags &= ~TRACKED_TURN;
      tracked = this.currentMessage as TrackedMessage;
    }
    const inFlight: InFlight = {
      message,
      sender,
      abandoned: false,
      timer: undefined,
      tracked,
    };
    extras.inFlight = inFlight;
    const timerTurn = (this.flags & TIMER_TURN) !== 0;
    this.flags |= BUSY;
    if ((this.flags & STOP_REQUESTED) !== 0) {
      armStopTimer(this.#cell);
    }
    whenSettled(
      result,
      () => {
        if (extras.inFlight !== inFlight) {
          leftBehindSettled(this.#cell, inFlight);
          return;
        }
        extras.inFlight = undefined;
        this.flags &= ~BUSY;
        endTracked(inFlight, putAside(this.currentMessage));
        this.currentMessage = NO_MESSAGE;
        this.currentSender = undefined;
        // An async handler's time counts as busy, not idle (but for a timer's message).
        if (!timerTurn && (this.flags & RECEIVE_TIMEOUT) !== 0) {
          noteMessage(this.#cell);
        }
        // `undefined` for a handler: no closure kept per cell for the common case.
        if (next === undefined) this.scheduleIfRunnable();
        else next();
      },
      (error) => {
        if (extras.inFlight === inFlight) {
          extras.inFlight = undefined;
          this.flags &= ~BUSY;
          endTracked(inFlight, putAside(this.currentMessage));
          this.#failTurn(error, message, sender);
        } else {
          leftBehindSettled(this.#cell, inFlight);
          // Unless it was accounted for already (abandoned, or stashed).
          if (!inFlight.abandoned) {
            staleFailure(this.#cell, error, message, sender);
          }
        }
      },
    );
  }

  /** Queues the cell on the dispatcher if it has something to do and is not queued or busy. */
  scheduleIfRunnable(): void {
    if ((this.flags & (SCHEDULED | BUSY)) !== 0) return;
    const runnable = (this.flags & STOP_REQUESTED) !== 0 ||
      (this.status === NEW && (this.flags & (RESTART_PENDING | HELD)) === 0) ||
      (this.status === RUNNING && this.mailbox !== undefined &&
        this.mailbox.size > 0);
    if (runnable) {
      this.flags |= SCHEDULED;
      this.core.dispatcher.schedule(this);
    }
  }

  // ───────────────────────── Start and restart ─────────────────────────

  /**
   * Creates a fresh instance and runs `preStart` (first start) or
   * `postRestart(reason)` (after a restart).
   */
  #start(restartReason: unknown): void {
    this.status = STARTING;
    this.flags |= UNSTARTED;
    if (this.extras !== undefined) this.extras.retired = undefined;
    releaseHeld(this.#cell); // siblings restarted after this one start after it
    const actor = construct(this, this.props.factory, this.path);
    if (actor === THREW) return this.fail(thrown());
    this.actor = actor;
    const result = restartReason === NO_MESSAGE
      ? hook(actor as unknown as Actor<never>, "preStart")
      : hook(actor as unknown as Actor<never>, "postRestart", restartReason);
    if (result === DONE) this.#started(restartReason);
    else if (result === THREW) this.fail(thrown());
    else {
      this.#holdUntilSettled(
        result,
        NO_MESSAGE,
        undefined,
        () => this.#started(restartReason),
      );
    }
  }

  #started(restartReason: unknown): void {
    if (this.status !== STARTING) return;
    this.status = RUNNING;
    this.flags &= ~UNSTARTED;
    this.props.failureHandling?.actorStarted(this);
    const events = this.core.eventStream;
    if (events.hasSubscribers) {
      events.publish(
        restartReason === NO_MESSAGE
          ? new ActorStarted(this.#cell)
          : new ActorRestarted(
            this.#cell,
            restartReason,
          ),
      );
    }
    this.scheduleIfRunnable();
  }

  /**
   * Replaces the instance: `preRestart` on the old one now, a fresh one from
   * the props on the cell's next run (through the dispatcher, so an actor
   * that fails in every start cannot recurse without bound). An async
   * handler still in flight is left behind: if it later rejects, its
   * message becomes a dead letter then. With `after` (a sibling restarted
   * in the same group restart), the fresh instance waits (HELD) until
   * `after`'s has begun to start.
   */
  restart(reason: unknown, message: unknown, after?: Supervised): void {
    this.settleHanded();
    this.status = NEW;
    // Stashed by the handler in flight: the stash (kept across the restart)
    // accounts for its message, which the fresh instance gets again.
    const keptAside = putAside(this.currentMessage);
    this.currentMessage = NO_MESSAGE;
    this.currentSender = undefined;
    // The receive timeout is the old instance's (its timer goes below).
    this.flags &= ~(BUSY | AWAITING_PARENT | RECEIVE_TIMEOUT);
    const extras = this.extras;
    const inFlight = extras?.inFlight;
    if (extras !== undefined) {
      if (inFlight !== undefined) {
        if (keptAside) {
          inFlight.abandoned = true; // owes no dead letter when it ends
          endTracked(inFlight, true);
        }
        leaveBehind(this.#cell, inFlight);
      }
      extras.inFlight = undefined;
      // The old instance's timers go, and with them a typed backoff's
      // pending restart (`restart_after.ts`): this restart replaces it.
      extras.timers?.clear();
      extras.restartCapacity = -1;
      extras.behavior = undefined;
      extras.behaviorStack = undefined;
      // Stashed messages survive a restart, ahead of the mailbox (as Akka's Stash does).
      if (extras.stash !== undefined && extras.stash.size > 0) {
        (this.mailbox ??= new Mailbox()).prependAll(extras.stash);
      }
    }
    this.retire(reason, message, inFlight);
    this.ensureExtras().restartReason = reason;
    if (after instanceof ActorCell && after !== this && after.status === NEW) {
      holdBehind(this.#cell, after as ActorCell<never>);
    }
    if (this.#hasStoppingChildren()) this.flags |= RESTART_PENDING;
    else this.scheduleIfRunnable();
  }

  /**
   * Runs `preRestart` on the instance, if there still is one, and lets it
   * go: what it does from now on is no longer the turn's. A restart does
   * this at once; a typed backoff at the failure, before its wait (as Akka
   * Typed), so the instance's children and cleanup do not wait the backoff.
   */
  retire(reason: unknown, message: unknown, inFlight?: InFlight): void {
    const old = this.actor;
    if (old === undefined) return;
    const result = hook(
      old as unknown as Actor<never>,
      "preRestart",
      reason,
      message === NO_MESSAGE ? undefined : message,
    );
    if (result === THREW) this.logError("preRestart failed", thrown());
    else if (result !== DONE) {
      whenSettled(
        result,
        () => {},
        (error) => this.logError("preRestart failed", error),
      );
    }
    this.actor = undefined;
    this.ensureExtras().retired = old;
    replaceContext(
      this.#cell,
      old,
      inFlight?.message === NO_MESSAGE ? undefined : inFlight,
    );
  }

  /**
   * A typed backoff's restart: after `delayMs`, on the actor's own timers,
   * messages waiting meanwhile at most `capacity` (`restart_after.ts`).
   */
  restartAfter(
    delayMs: number,
    reason: unknown,
    message: unknown,
    capacity: number | undefined,
  ): void {
    scheduleRestart(this.#cell, delayMs, reason, message, capacity);
  }

  /** Schedules the first start of the guardian (children are scheduled by actorOf). */
  requestStart(): void {
    this.scheduleIfRunnable();
  }

  /** Continues after a `Resume` directive. */
  resume(): void {
    if (this.status !== SUSPENDED) return;
    this.flags &= ~AWAITING_PARENT;
    // An actor that failed while starting (in its constructor, preStart or
    // postRestart) has no instance to resume: it starts again, a fresh one.
    // One whose async start was still under way (a sibling escalated) goes
    // back to finishing it.
    const flags = this.flags;
    this.status = (flags & UNSTARTED) === 0
      ? RUNNING
      : (flags & BUSY) !== 0
      ? STARTING
      : NEW;
    // Children suspended because this actor escalated for them resume too.
    for (const child of this.extras?.children?.toArray() ?? []) {
      if ((child.flags & AWAITING_PARENT) !== 0) child.resume();
    }
    this.scheduleIfRunnable();
  }

  /** Suspended until the parent's own supervisor decides (this actor escalated, or a sibling did). */
  awaitParent(): void {
    if (this.isStopping) return; // a stop, begun or asked for, goes on
    this.status = SUSPENDED;
    this.flags |= AWAITING_PARENT;
  }

  // ───────────────────────── Failure ─────────────────────────

  /**
   * The actor threw or rejected (or, with no `message`, a child escalated
   * to it): suspend it and hand it to the failure port, `handleFailure`,
   * which routes it to its typed handling, its parent's strategy, or (a
   * guardian) a stop. An actor already stopping or asked to stop only logs
   * it: the stop goes on. `undelivered` says whether `message` still needs
   * an outcome (it becomes a dead letter).
   */
  fail(
    error: unknown,
    message: unknown = NO_MESSAGE,
    sender?: unknown,
    undelivered: boolean = message !== NO_MESSAGE,
  ): void {
    if (undelivered) {
      this.core.deadLetter(
        message,
        sender,
        this,
        `processing failed: ${describeError(error)}`,
      );
    }
    if (this.status >= STOPPING) {
      this.logError("failed while stopping", error);
      return;
    }
    this.status = SUSPENDED;
    if ((this.flags & STOP_REQUESTED) !== 0) {
      this.logError("failed", error);
      this.#beginStop();
      return;
    }
    handleFailure(this, error, message);
  }

  get restartType(): RestartType {
    return this.props.restart;
  }

  get failureHandling(): FailureHandling | undefined {
    return this.props.failureHandling;
  }

  get supervisor(): ActorCell<never> | undefined {
    return this.parentCell;
  }

  get supervisorStrategy(): FaultHandlingStrategy | undefined {
    return this.actor?.supervisorStrategy;
  }

  get supervisionState(): SupervisionState | undefined {
    return this.extras?.supervisionState;
  }

  set supervisionState(state: SupervisionState | undefined) {
    this.ensureExtras().supervisionState = state;
  }

  reportFailure(
    error: unknown,
    directive: string,
    loggingEnabled: boolean,
  ): void {
    if (loggingEnabled) {
      this.log.error(`failed (${directive})`, error);
    }
    const events = this.core.eventStream;
    if (events.hasSubscribers) {
      events.publish(
        new ActorFailed(this.#cell, error, directive),
      );
    }
  }

  logError(what: string, error: unknown): void {
    this.log.error(what, error);
  }

  now(): number {
    return this.core.scheduler.now();
  }

  // ───────────────────────── Stop ─────────────────────────

  /** Asks the cell to stop after the message in flight; idempotent. */
  requestStop(): void {
    if (this.status >= STOPPING || (this.flags & STOP_REQUESTED) !== 0) return;
    this.flags |= STOP_REQUESTED;
    if ((this.flags & BUSY) !== 0) {
      armStopTimer(this.#cell);
    }
    this.scheduleIfRunnable();
  }

  /** The last handler a restart left behind ended: a stop waiting for it goes on. */
  leftBehindEnded(): void {
    if (this.status === STOPPING && (this.extras?.children?.size ?? 0) === 0) {
      this.#finishStop();
    }
  }

  /** The shutdown timeout passed: abandon what the stop still waits for. */
  stopTimedOut(timeoutMs: number): void {
    if ((this.flags & BUSY) !== 0) {
      abandonInFlight(this.#cell, timeoutMs);
      this.scheduleIfRunnable(); // STOP_REQUESTED: the stop proceeds
    } else if (
      this.status === STOPPING && (this.flags & POST_STOP_CALLED) === 0
    ) {
      // Waiting for handlers left behind (#finishStop): they are abandoned,
      // and the last one's end goes on with the stop.
      reportTimedOut(this.#cell, "handler", timeoutMs);
      abandonAllLeftBehind(
        this.#cell,
        `abandoned: a restart replaced its handler, which did not settle within the ${timeoutMs} ms shutdown timeout`,
      );
    } else if (
      this.status === STOPPING && (this.flags & POST_STOP_CALLED) !== 0
    ) {
      reportTimedOut(
        this.#cell,
        "postStop",
        timeoutMs,
      );
      this.#terminated();
    }
  }

  /** Drops timers, hands over or dead-letters the mailbox, stops the children (newest first). */
  #beginStop(): void {
    this.#enterStopping();
    const children = this.extras?.children;
    if (children === undefined || children.size === 0) {
      this.#finishStop();
    } else {
      const all = children.toArray();
      for (let i = all.length - 1; i >= 0; i--) all[i].requestStop();
    }
  }

  #enterStopping(): void {
    this.status = STOPPING;
    this.flags &= ~(STOP_REQUESTED | RESTART_PENDING);
    const extras = this.extras;
    if (extras !== undefined) {
      // A typed backoff's pending restart too (`restart_after.ts`).
      if (extras.timers !== undefined) this.#closeTimers(extras.timers);
      extras.restartCapacity = -1;
    }
    releaseUndelivered(this.#cell);
  }

  /**
   * The system's shutdown deadline passed (see `SystemCore.terminate`):
   * stop now, children first (newest first), abandoning whatever each
   * still waits for. `postStop` still runs where it has not, unawaited.
   */
  forceStop(timeoutMs: number): void {
    if (this.status === STOPPED) return;
    const children = this.extras?.children?.toArray() ?? [];
    for (let i = children.length - 1; i >= 0; i--) {
      children[i].forceStop(timeoutMs);
    }
    // The last child's end may have finished this cell's own stop.
    if (this.status === STOPPED) return;
    clearStopTimer(this.#cell);
    if ((this.flags & BUSY) !== 0) {
      abandonInFlight(this.#cell, timeoutMs);
    }
    if (this.status < STOPPING) this.#enterStopping();
    if ((this.flags & POST_STOP_CALLED) === 0) {
      this.#callPostStop(() => {});
    } else {
      reportTimedOut(
        this.#cell,
        "postStop",
        timeoutMs,
      );
    }
    this.#terminated();
  }

  #finishStop(): void {
    if ((this.flags & POST_STOP_CALLED) !== 0) return;
    // Handlers a restart left behind end first, as the one in flight does:
    // their messages were taken, and postStop cleans up after them.
    if ((this.extras?.leftBehind?.size ?? 0) > 0) {
      armStopTimer(this.#cell);
      return;
    }
    const waiting = this.#callPostStop(() => this.#terminated());
    if (waiting) armStopTimer(this.#cell);
    else this.#terminated();
  }

  /**
   * Runs `postStop` once; `true` if it returned a promise, which then calls
   * `done` when it settles (a rejection is logged first).
   */
  #callPostStop(done: () => void): boolean {
    this.flags |= POST_STOP_CALLED;
    const actor = this.actor;
    if (actor === undefined) return false;
    const result = hook(actor as unknown as Actor<never>, "postStop");
    if (result === DONE) return false;
    if (result === THREW) {
      this.logError("postStop failed", thrown());
      return false;
    }
    whenSettled(result, done, (error) => {
      if (this.status !== STOPPED) this.logError("postStop failed", error);
      done();
    });
    return true;
  }

  #terminated(): void {
    if (this.status === STOPPED) return; // a postStop that settled after its timeout
    this.status = STOPPED;
    clearStopTimer(this.#cell);
    releaseHeld(this.#cell); // stopped before it started: they wait no longer
    abandonAllLeftBehind(this.#cell);
    announceTermination(this.#cell);
    const events = this.core.eventStream;
    if (events.hasSubscribers) {
      events.publish(new ActorStopped(this.#cell));
    }
    if (this.parentCell !== undefined) {
      this.parentCell.childTerminated(this.#cell);
    } else {
      this.core.guardianTerminated();
    }
  }
}
