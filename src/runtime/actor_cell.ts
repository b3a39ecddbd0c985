// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The kernel: one actor's lifecycle and its message turn. A cell is the
 * actor's ref, its context and its state machine at once, so a local actor
 * costs one object besides its instance.
 *
 * ```
 *   NEW ──start──▶ STARTING ──preStart done──▶ RUNNING ◀──resume──┐
 *                      ▲                          │ failure       │
 *                      └──────── restart ──── SUSPENDED ──────────┘
 *   any ──stop──▶ STOPPING (children stop, then postStop) ──▶ STOPPED
 * ```
 *
 * The message path: `tell` → {@linkcode ActorCell.enqueue} → mailbox
 * (`mailbox.ts`) → dispatcher (`dispatcher.ts`) → {@linkcode ActorCell.run}
 * → `onReceive`. A failure leaves that path for the failure port
 * (`../supervision/supervised.ts`): the actor's own typed handling, which
 * `supervise()` installs on its `Props` (`../supervision/typed.ts`), or else
 * its parent's classic strategy (`../supervision/classic.ts`). Each decision
 * acts back through the cell's lifecycle operations (restart, resume, stop).
 *
 * The features live in their own files and attach here: death watch
 * (`watch.ts`), ask (`ask.ts`), timers (`timers.ts`), children
 * (`children.ts`), and the one port for patterns (`undelivered.ts`). What
 * stays here is what every actor needs: delivery, the turn, start, restart,
 * failure and stop, plus `become` and `stash`, which are the turn's own state.
 *
 * @module
 */

import {
  Actor,
  type ActorContext,
  type Behavior,
  constructWith,
} from "./actor.ts";
import { ActorRef, type AskOptions } from "./actor_ref.ts";
import type { ActorSystem, SystemCore } from "./actor_system.ts";
import { AskRef } from "./ask.ts";
import { Children } from "./children.ts";
import { THROUGHPUT } from "./dispatcher.ts";
import {
  ActorFailed,
  ActorRestarted,
  ActorStarted,
  ActorStopped,
  ActorStopTimedOut,
} from "./event_stream.ts";
import { Logger } from "./logging.ts";
import { Mailbox, Notice } from "./mailbox.ts";
import { PoisonPill } from "./poison_pill.ts";
import type { Props } from "./props.ts";
import {
  checkReceiveTimeout,
  RECEIVE_TIMEOUT_KEY,
  ReceiveTimeout,
} from "./receive_timeout.ts";
import { ActorTimers, type TimerScheduler, TimerTicket } from "./timers.ts";
import {
  type Envelope,
  takeOverUndelivered,
  type UndeliveredTaker,
} from "./undelivered.ts";
import {
  announceTermination,
  type DeathWatch,
  openTerminated,
  type TerminatedNotice,
  unwatch,
  watch,
  watchWith,
} from "./watch.ts";
import { superviseChild } from "../supervision/classic.ts";
import type { RestartType } from "../supervision/restart_type.ts";
import {
  ACTOR_NAME_PATTERN,
  describeError,
  describeValue,
} from "../validation.ts";
import {
  defaultStrategy,
  FaultHandlingStrategy,
  requestRestartPermission,
  type RestartStatistics,
} from "../supervision/strategy.ts";
import type { Supervised } from "../supervision/supervised.ts";

// Lifecycle states, in order: a state >= SUSPENDED processes no messages.
const NEW = 0;
const STARTING = 1;
const RUNNING = 2;
const SUSPENDED = 3;
const STOPPING = 4;
const STOPPED = 5;

// Flags, independent of the state.
const SCHEDULED = 1; // in the dispatcher's ready queue
const BUSY = 2; // an async preStart or onReceive is in flight
const STOP_REQUESTED = 4; // stop once the message in flight is done
const RESTART_PENDING = 8; // restart once the children being stopped are gone
const AWAITING_PARENT = 16; // suspended after escalating; follows the parent's fate
const HANDED = 32; // the next message waits in currentMessage/currentSender, ahead of the mailbox
const POST_STOP_CALLED = 64; // postStop has run or is running: never call it twice
const HELD = 128; // restarted with a group: starts once the sibling before it has begun to start
const RECEIVE_TIMEOUT = 256; // a receive timeout is set: messages note their arrival
const TIMER_TURN = 512; // the turn under way handles a timer's message (no activity for the receive timeout)

/**
 * Marks a failure that happened outside any message (in start or restart);
 * as `currentMessage`, it means no turn is under way.
 */
const NO_MESSAGE: unique symbol = Symbol("no message");
/** `currentMessage` after `stash()` took it: it is not this turn's to lose. */
const STASHED: unique symbol = Symbol("stashed");
/** `currentMessage` after `stash()` overflowed: already a dead letter. */
const STASH_OVERFLOWED: unique symbol = Symbol("stash overflowed");
/** The key of a typed backoff's pending restart among the actor's timers. */
const RESTART_TIMER: unique symbol = Symbol("restart");

/**
 * Whether a hook's result is to be awaited. Reading `then` is user code (a
 * getter, a Proxy), so it may throw: that is the hook's failure, reported
 * by the caller's `catch`.
 */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== undefined && value !== null &&
    (typeof value === "object" || typeof value === "function") &&
    typeof (value as PromiseLike<unknown>).then === "function";
}

/**
 * Runs `onFulfilled` or `onRejected` once `result` settles. Through
 * `Promise.resolve`, a hostile thenable (a `then` that throws, calls back
 * twice, or never calls back) can only reject or stay pending: it never
 * throws into the runtime, and one callback runs at most once.
 */
function whenSettled(
  result: PromiseLike<unknown>,
  onFulfilled: () => void,
  onRejected: (error: unknown) => void,
): void {
  Promise.resolve(result).then(onFulfilled, onRejected);
}

/**
 * An async handler or start hook in flight. The cell keeps the one it
 * waits for; the settlement of any other (abandoned at a stop, or left
 * behind by a restart) is stale.
 */
interface InFlight {
  readonly message: unknown;
  readonly sender: unknown;
  /** The cell gave up on it (and dead-lettered its message). */
  abandoned: boolean;
  /** Left behind by a restart: abandons it after the shutdown timeout. */
  timer: unknown;
}

/** What the timer of a typed backoff's pending restart carries. */
interface RestartDue {
  readonly reason: unknown;
  readonly message: unknown;
}

/** What a stop waited for when its shutdown timeout passed. */
type StopWait = ActorStopTimedOut["waitingFor"];

export type { Envelope };

/** Per-cell state most actors never need, allocated on first use to keep idle actors small. */
class CellExtras {
  deathWatch: DeathWatch | undefined = undefined;
  /** The handler installed by `become`; `undefined` means `onReceive`. */
  behavior: Behavior<never> | undefined = undefined;
  behaviorStack: (Behavior<never> | undefined)[] | undefined = undefined;
  stash: Mailbox | undefined = undefined;
  timers: ActorTimers | undefined = undefined;
  logger: Logger | undefined = undefined;
  /** Classic and typed restart limits: restarts granted in the current window. */
  restartStats: RestartStatistics | undefined = undefined;
  /** What the failure handling keeps across restarts (see {@linkcode Supervised.supervisionState}). */
  supervisionState: unknown = undefined;
  /** While a typed backoff waits to restart: how many messages may wait; -1 otherwise. */
  restartCapacity = -1;
  /** Live children, in creation order. */
  children: Children<ActorCell<never>> | undefined = undefined;
  generatedNames = 0;
  /** Why the next start is a restart; NO_MESSAGE for a first start. */
  restartReason: unknown = NO_MESSAGE;
  /** The async hook or handler the cell waits for (with the BUSY flag). */
  inFlight: InFlight | undefined = undefined;
  /** Async handlers of replaced instances, not settled yet: each still owes its message an outcome. */
  leftBehind: Set<InFlight> | undefined = undefined;
  /** Bounds a stop's wait for the handler in flight or for `postStop`. */
  stopTimer: unknown = undefined;
  /** Siblings restarted after this one in a group restart, HELD until it begins to start. */
  heldBehind: ActorCell<never>[] | undefined = undefined;
  /** The receive timeout (with the RECEIVE_TIMEOUT flag), in milliseconds. */
  receiveTimeoutMs = 0;
  /** When the last message (not a timer's) arrived, with the RECEIVE_TIMEOUT flag. */
  lastMessageAt = 0;
}

/** A local actor's ref, context and state machine. Internal to the runtime. */
export class ActorCell<T> extends ActorRef<T>
  implements ActorContext<T>, Supervised {
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
   * The message of the turn under way and its sender; NO_MESSAGE between
   * turns. With the HANDED flag, between turns, they hold the next message
   * instead: one sent while the cell was idle with nothing queued, handed
   * over with its turn rather than through the mailbox (see `enqueue`),
   * logically the head of the mailbox. `context.sender` and `stash()` check
   * the flag, so neither ever sees a message not yet processed. (Two fields
   * of its own would be clearer, but cost 31% more heap per idle actor on
   * Bun, whose objects grow their property storage past 12 fields.)
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

  ensureExtras(): CellExtras {
    return this.extras ??= new CellExtras();
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
    // AskRef checks the options; with a signal already aborted it is born
    // settled, and the message is not sent.
    const asker = new AskRef<R>(
      this.core,
      this as unknown as ActorRef<never>,
      options,
    );
    if (!asker.settled) {
      this.enqueue(message, asker as unknown as ActorRef<never>);
    }
    return asker.promise;
  }

  // ───────────────────────── Delivery ─────────────────────────

  /** Queues a runtime notice (a timer's tick, a Terminated): never handed, never a dead letter. */
  enqueueNotice(notice: Notice): void {
    this.#queue(notice, undefined);
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
    if ((this.flags & (SCHEDULED | BUSY)) === 0 && this.status === RUNNING) {
      this.currentMessage = message;
      this.currentSender = sender as ActorRef<unknown> | undefined;
      this.flags |= SCHEDULED | HANDED;
      this.core.dispatcher.schedule(this);
      return;
    }
    this.#queue(message, sender);
  }

  /** The general case of {@linkcode ActorCell.enqueue}: through the mailbox, or to dead letters. */
  #queue(message: unknown, sender: unknown): void {
    if (this.status >= SUSPENDED) {
      if (this.status >= STOPPING) {
        // A runtime notice for a stopping actor was never sent by anyone.
        if (!(message instanceof Notice)) {
          this.core.deadLetter(message, sender, this, "recipient stopped");
        }
        return;
      }
      const capacity = this.extras?.restartCapacity ?? -1;
      if (
        capacity >= 0 && !(message instanceof Notice) &&
        (this.mailbox?.size ?? 0) >= capacity
      ) {
        this.core.deadLetter(
          message,
          sender,
          this,
          "stash full while waiting to restart",
        );
        return;
      }
    }
    (this.mailbox ??= new Mailbox()).push(message, sender);
    if ((this.flags & (SCHEDULED | BUSY)) === 0 && this.status !== SUSPENDED) {
      this.flags |= SCHEDULED;
      this.core.dispatcher.schedule(this);
    }
  }

  /** Puts a handed message back at the head of the mailbox, where it logically is. */
  #settleHanded(): void {
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
    return this.#timers();
  }

  #timers(): ActorTimers {
    const extras = this.ensureExtras();
    return extras.timers ??= new ActorTimers(
      this.core.scheduler,
      (ticket) =>
        ticket.key === RESTART_TIMER
          ? this.#restartDue(ticket)
          : this.enqueueNotice(ticket),
    );
  }

  get children(): readonly ActorRef<never>[] {
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
    const cell = ref as unknown as ActorCell<never>;
    if (cell !== (this as unknown) && cell.parentCell !== (this as unknown)) {
      throw new TypeError(
        `Cannot stop ${
          describeValue(ref)
        } from ${this.path}: an actor can stop only itself and its own children`,
      );
    }
    cell.requestStop();
  }

  stopSelf(): void {
    this.requestStop();
  }

  watch<R>(ref: ActorRef<R>): ActorRef<R> {
    if (!(ref instanceof ActorCell)) {
      throw new TypeError(
        `Cannot watch ${describeValue(ref)}: only actor refs can be watched`,
      );
    }
    if (ref !== (this as unknown)) {
      watch(this as unknown as ActorCell<never>, ref as ActorCell<never>);
    }
    return ref;
  }

  watchWith<R>(ref: ActorRef<R>, message: T): ActorRef<R> {
    if (!(ref instanceof ActorCell)) {
      throw new TypeError(
        `Cannot watchWith ${
          describeValue(ref)
        }: only actor refs can be watched`,
      );
    }
    if (ref !== (this as unknown)) {
      watchWith(
        this as unknown as ActorCell<never>,
        ref as ActorCell<never>,
        message,
      );
    }
    return ref;
  }

  unwatch(ref: ActorRef<never>): void {
    if (ref instanceof ActorCell) {
      unwatch(this as unknown as ActorCell<never>, ref as ActorCell<never>);
    }
  }

  get receiveTimeout(): number | undefined {
    return (this.flags & RECEIVE_TIMEOUT) === 0
      ? undefined
      : this.extras!.receiveTimeoutMs;
  }

  setReceiveTimeout(ms: number | undefined): void {
    if (ms === undefined) {
      if ((this.flags & RECEIVE_TIMEOUT) === 0) return;
      this.flags &= ~RECEIVE_TIMEOUT;
      this.#timers().cancel(RECEIVE_TIMEOUT_KEY);
      return;
    }
    const extras = this.ensureExtras();
    extras.receiveTimeoutMs = checkReceiveTimeout(ms);
    extras.lastMessageAt = this.now();
    this.flags |= RECEIVE_TIMEOUT;
    this.#timers().startSingleTimer(RECEIVE_TIMEOUT_KEY, ReceiveTimeout, ms);
  }

  /** A message (not a timer's) arrives: the receive timeout's period starts again. */
  #noteMessage(): void {
    const extras = this.extras!;
    extras.lastMessageAt = this.now();
    // `timers.cancelAll()` cancels the timeout's timer too: re-armed here.
    const timers = this.#timers();
    if (!timers.isTimerActive(RECEIVE_TIMEOUT_KEY)) {
      timers.startSingleTimer(
        RECEIVE_TIMEOUT_KEY,
        ReceiveTimeout,
        extras.receiveTimeoutMs,
      );
    }
  }

  /**
   * The receive timeout's timer fell due and its ticket came out of the
   * mailbox: `true` if the actor has been idle the whole period (deliver
   * `ReceiveTimeout`); either way the timer is armed for the next due time.
   */
  #receiveTimeoutDue(): boolean {
    if ((this.flags & RECEIVE_TIMEOUT) === 0) return false;
    const extras = this.extras!;
    const ms = extras.receiveTimeoutMs;
    const now = this.now();
    const idle = now - extras.lastMessageAt;
    const due = idle >= ms;
    if (due) extras.lastMessageAt = now; // the next period starts now
    this.#timers().startSingleTimer(
      RECEIVE_TIMEOUT_KEY,
      ReceiveTimeout,
      due ? ms : Math.min(ms, ms - idle),
    );
    return due;
  }

  become(behavior: Behavior<T>, options: { discardOld?: boolean } = {}): void {
    if (typeof behavior !== "function") {
      throw new TypeError(
        `Cannot become: "behavior" must be a function handling one message (got ${
          describeValue(behavior)
        })`,
      );
    }
    const extras = this.ensureExtras();
    if (options.discardOld === false) {
      (extras.behaviorStack ??= []).push(extras.behavior);
    }
    extras.behavior = behavior as Behavior<never>;
  }

  unbecome(): void {
    const extras = this.extras;
    if (extras === undefined) return;
    extras.behavior = extras.behaviorStack?.pop();
  }

  stash(): boolean {
    const message = this.currentMessage;
    // A second stash() in the same turn changes nothing.
    if (message === STASHED) return true;
    if (message === STASH_OVERFLOWED) return false;
    if (message === NO_MESSAGE || (this.flags & HANDED) !== 0) {
      throw new TypeError(
        `Cannot stash in ${this.path}: no message is being processed (call stash() while handling one, in onReceive or a become behavior)`,
      );
    }
    const stash = this.ensureExtras().stash ??= new Mailbox();
    if (stash.size >= this.props.stashCapacity) {
      this.core.deadLetter(message, this.currentSender, this, "stash overflow");
      this.currentMessage = STASH_OVERFLOWED;
      return false;
    }
    stash.push(message, this.currentSender);
    this.currentMessage = STASHED;
    return true;
  }

  unstashAll(): void {
    const stash = this.extras?.stash;
    if (stash === undefined || stash.size === 0) return;
    (this.mailbox ??= new Mailbox()).prependAll(stash);
    this.#scheduleIfRunnable();
  }

  // ───────────────────────── Children ─────────────────────────

  /** Creates, registers and schedules the start of a child. */
  actorOf<C>(props: Props<C>, name?: string): ActorCell<C> {
    if (
      props === null || typeof props !== "object" ||
      typeof props.factory !== "function"
    ) {
      throw new TypeError(
        `Cannot create actor: "props" must be Props, as made by Props.create(() => new MyActor()) (got ${
          describeValue(props)
        })`,
      );
    }
    // Asked to stop but not stopping yet (a preStart running when the stop
    // came): the child is created and stopped with this actor.
    if (this.status >= STOPPING) {
      throw new Error(`Cannot create actor under ${this.path}: it is stopping`);
    }
    const extras = this.ensureExtras();
    const children = extras.children ??= new Children();
    let childKey: string | number;
    if (name === undefined) {
      childKey = extras.generatedNames++;
    } else {
      if (typeof name !== "string" || !ACTOR_NAME_PATTERN.test(name)) {
        throw new TypeError(
          `Cannot create actor: invalid name ${
            describeValue(name)
          } (expected a non-empty string without "/" or whitespace, not starting with "$")`,
        );
      }
      if (children.has(name)) {
        throw new TypeError(
          `Cannot create actor: the name "${name}" is already taken by a live child of ${this.path} (expected a name unique among its children)`,
        );
      }
      childKey = name;
    }
    const child = new ActorCell(
      this.core,
      this as unknown as ActorCell<never>,
      childKey,
      props,
    );
    children.add(child as unknown as ActorCell<never>);
    child.#scheduleIfRunnable();
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
      this.#scheduleIfRunnable();
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
      // RECEIVE_TIMEOUT in the mask keeps its check off the common path.
      if (
        this.status === RUNNING &&
        (this.flags & (BUSY | STOP_REQUESTED | RECEIVE_TIMEOUT)) === 0
      ) {
        this.flags &= ~HANDED;
        budget--;
        this.#receive(); // the handed message is already current
      } else if (
        this.status === RUNNING && (this.flags & (BUSY | STOP_REQUESTED)) === 0
      ) {
        this.flags &= ~HANDED;
        budget--;
        this.#noteMessage(); // a receive timeout is set
        this.#receive();
      } else {
        this.#settleHanded();
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
      // A message other than a timer's restarts the receive timeout's period.
      if (
        (flags & RECEIVE_TIMEOUT) !== 0 && !(message instanceof TimerTicket)
      ) {
        this.#noteMessage();
      }
      this.#invoke(message, mailbox.shiftedSender);
    }
    this.flags &= ~SCHEDULED;
    // A restart or resume decided during this run may have left work to do.
    if (this.status !== RUNNING) this.#scheduleIfRunnable();
  }

  /**
   * The dispatcher caught a throw escaping {@linkcode ActorCell.run}. User
   * code cannot cause one (every hook's throw is caught where it is called),
   * so this is a fault of the runtime itself: it is logged, the actor fails
   * like any other, and the rest of the system goes on.
   */
  crashed(error: unknown): void {
    this.flags &= ~(SCHEDULED | BUSY);
    this.#settleHanded();
    this.currentMessage = NO_MESSAGE;
    this.currentSender = undefined;
    if (this.extras !== undefined) this.extras.inFlight = undefined;
    this.core.log.error(
      `runtime fault in the turn of ${this.path}`,
      error,
    );
    if (this.status < STOPPING) this.fail(error, NO_MESSAGE, undefined);
    this.#scheduleIfRunnable();
  }

  /** Opens a message taken from the mailbox (runtime notices by their type) and handles it. */
  #invoke(message: unknown, sender: unknown): void {
    if (message instanceof Notice) {
      if (message instanceof TimerTicket) {
        if (!this.extras?.timers?.accept(message)) return; // cancelled or replaced
        if (
          message.key === RECEIVE_TIMEOUT_KEY && !this.#receiveTimeoutDue()
        ) {
          return; // a message came meanwhile: re-armed for the rest of the period
        }
        // A timer's message does not reset the receive timeout.
        this.currentMessage = message.message;
        this.currentSender = undefined;
        this.flags |= TIMER_TURN;
        this.#receive();
        this.flags &= ~TIMER_TURN;
        return;
      }
      const notice = message as TerminatedNotice;
      sender = notice.ref;
      message = openTerminated(this as unknown as ActorCell<never>, notice);
    }
    this.currentMessage = message;
    this.currentSender = sender as ActorRef<unknown> | undefined;
    this.#receive();
  }

  /** Runs the handler on `currentMessage`; a throw or a rejection is a failure. */
  #receive(): void {
    const message = this.currentMessage;
    const sender = this.currentSender;
    if (message === PoisonPill) return this.#poisoned(sender);
    const actor = this.actor!;
    let result: unknown;
    try {
      const behavior = this.extras?.behavior;
      result = behavior === undefined
        ? actor.onReceive(message as T)
        : (behavior as Behavior<unknown>)(message);
      if (!isThenable(result)) {
        this.currentMessage = NO_MESSAGE; // the turn is over
        this.currentSender = undefined;
        return;
      }
    } catch (error) {
      this.#failTurn(error, message, sender);
      return;
    }
    this.#holdUntilSettled(result, message, sender, undefined);
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
    this.fail(
      error,
      message,
      sender,
      message !== NO_MESSAGE && current !== STASHED &&
        current !== STASH_OVERFLOWED,
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
    const inFlight: InFlight = {
      message,
      sender,
      abandoned: false,
      timer: undefined,
    };
    extras.inFlight = inFlight;
    const timerTurn = (this.flags & TIMER_TURN) !== 0;
    this.flags |= BUSY;
    if ((this.flags & STOP_REQUESTED) !== 0) this.#armStopTimer();
    whenSettled(
      result,
      () => {
        if (extras.inFlight !== inFlight) {
          this.#leftBehindSettled(inFlight);
          return;
        }
        extras.inFlight = undefined;
        this.flags &= ~BUSY;
        this.currentMessage = NO_MESSAGE;
        this.currentSender = undefined;
        // An async handler's time counts as busy, not idle (but for a timer's message).
        if (!timerTurn && (this.flags & RECEIVE_TIMEOUT) !== 0) {
          this.#noteMessage();
        }
        // `undefined` for a handler: no closure kept per cell for the common case.
        if (next === undefined) this.#scheduleIfRunnable();
        else next();
      },
      (error) => {
        if (extras.inFlight === inFlight) {
          extras.inFlight = undefined;
          this.flags &= ~BUSY;
          this.#failTurn(error, message, sender);
        } else if (!inFlight.abandoned) {
          this.#leftBehindSettled(inFlight);
          this.#staleFailure(error, message, sender);
        }
      },
    );
  }

  /**
   * A restart replaces an instance whose async handler is in flight. The
   * handler may still settle (a rejection is then a dead letter); after the
   * shutdown timeout, or when the actor stops, it is abandoned and its
   * message becomes a dead letter, so every message gets one outcome.
   */
  #leaveBehind(inFlight: InFlight): void {
    if (inFlight.message === NO_MESSAGE) return; // a start hook owes nothing
    const extras = this.ensureExtras();
    const leftBehind = extras.leftBehind ??= new Set();
    leftBehind.add(inFlight);
    const timeoutMs = this.#shutdownTimeoutMs();
    inFlight.timer = this.core.scheduler.setTimeout(() => {
      inFlight.timer = undefined;
      this.#abandonLeftBehind(
        inFlight,
        `abandoned: a restart replaced its handler, which did not settle within the ${timeoutMs} ms shutdown timeout`,
      );
    }, timeoutMs);
  }

  #leftBehindSettled(inFlight: InFlight): void {
    if (this.extras?.leftBehind?.delete(inFlight)) {
      this.core.scheduler.clearTimeout(inFlight.timer);
      inFlight.timer = undefined;
    }
  }

  #abandonLeftBehind(inFlight: InFlight, reason: string): void {
    this.#leftBehindSettled(inFlight);
    if (inFlight.abandoned) return;
    inFlight.abandoned = true;
    this.core.deadLetter(inFlight.message, inFlight.sender, this, reason);
  }

  #shutdownTimeoutMs(): number {
    return this.props.shutdownTimeoutMs ?? this.core.shutdownTimeoutMs;
  }

  /** An async handler of a replaced instance rejected: its message is still owed an outcome. */
  #staleFailure(error: unknown, message: unknown, sender: unknown): void {
    if (message !== NO_MESSAGE) {
      this.core.deadLetter(
        message,
        sender,
        this,
        `processing failed after the actor was restarted: ${
          describeError(error)
        }`,
      );
    }
    this.logError("a replaced instance failed", error);
  }

  #scheduleIfRunnable(): void {
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
    this.#releaseHeld(); // siblings restarted after this one start after it
    let actor: Actor<T>;
    try {
      actor = constructWith(
        this as unknown as ActorContext<never>,
        this.props.factory,
      );
      if (!(actor instanceof Actor) || actor.context !== (this as unknown)) {
        throw new TypeError(
          `Props factory for ${this.path} must return a new Actor instance (got ${
            describeValue(actor)
          })`,
        );
      }
      const strategy = actor.supervisorStrategy;
      if (
        strategy !== undefined && !(strategy instanceof FaultHandlingStrategy)
      ) {
        throw new TypeError(
          `Cannot start ${this.path}: "supervisorStrategy" must be a OneForOneStrategy or AllForOneStrategy (got ${
            describeValue(strategy)
          })`,
        );
      }
    } catch (error) {
      this.fail(error, NO_MESSAGE, undefined);
      return;
    }
    this.actor = actor;
    let result: unknown;
    try {
      result = restartReason === NO_MESSAGE
        ? actor.preStart()
        : actor.postRestart(restartReason);
      if (!isThenable(result)) result = undefined;
    } catch (error) {
      this.fail(error, NO_MESSAGE, undefined);
      return;
    }
    if (result === undefined) {
      this.#started(restartReason);
    } else {
      this.#holdUntilSettled(
        result as PromiseLike<unknown>,
        NO_MESSAGE,
        undefined,
        () => this.#started(restartReason),
      );
    }
  }

  #started(restartReason: unknown): void {
    if (this.status !== STARTING) return;
    this.status = RUNNING;
    this.props.failureHandling?.actorStarted(this);
    const events = this.core.eventStream;
    if (events.hasSubscribers) {
      events.publish(
        restartReason === NO_MESSAGE
          ? new ActorStarted(this as unknown as ActorRef<never>)
          : new ActorRestarted(
            this as unknown as ActorRef<never>,
            restartReason,
          ),
      );
    }
    this.#scheduleIfRunnable();
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
    this.#settleHanded();
    this.status = NEW;
    this.currentMessage = NO_MESSAGE;
    this.currentSender = undefined;
    // The receive timeout is the old instance's (its timer goes below).
    this.flags &= ~(BUSY | AWAITING_PARENT | RECEIVE_TIMEOUT);
    const extras = this.extras;
    if (extras !== undefined) {
      if (extras.inFlight !== undefined) this.#leaveBehind(extras.inFlight);
      extras.inFlight = undefined;
      extras.restartCapacity = -1;
      extras.timers?.cancelAll();
      extras.behavior = undefined;
      extras.behaviorStack = undefined;
      // Stashed messages survive a restart, ahead of the mailbox (as Akka's Stash does).
      if (extras.stash !== undefined && extras.stash.size > 0) {
        (this.mailbox ??= new Mailbox()).prependAll(extras.stash);
      }
    }
    const old = this.actor;
    if (old !== undefined) {
      try {
        const result = old.preRestart(
          reason,
          message === NO_MESSAGE ? undefined : message,
        );
        if (isThenable(result)) {
          whenSettled(
            result,
            () => {},
            (error) => this.logError("preRestart failed", error),
          );
        }
      } catch (error) {
        this.logError("preRestart failed", error);
      }
    }
    this.actor = undefined;
    this.ensureExtras().restartReason = reason;
    if (
      after instanceof ActorCell && after !== this && after.status === NEW
    ) {
      this.flags |= HELD;
      (after.ensureExtras().heldBehind ??= []).push(
        this as unknown as ActorCell<never>,
      );
    }
    if (this.#hasStoppingChildren()) this.flags |= RESTART_PENDING;
    else this.#scheduleIfRunnable();
  }

  /** Lets the siblings HELD behind this one start (it begins to start, or it stopped). */
  #releaseHeld(): void {
    const extras = this.extras;
    const held = extras?.heldBehind;
    if (held === undefined) return;
    extras!.heldBehind = undefined;
    for (const cell of held) {
      if ((cell.flags & HELD) === 0) continue;
      cell.flags &= ~HELD;
      cell.#scheduleIfRunnable();
    }
  }

  /**
   * Restarts after `delayMs` on the actor's own timers (so a stop cancels
   * it); messages wait in the mailbox meanwhile, at most `capacity`.
   */
  restartAfter(
    delayMs: number,
    reason: unknown,
    message: unknown,
    capacity: number | undefined,
  ): void {
    const timers = this.#timers();
    // The failed instance will never see its timers' messages; stopped now,
    // they cannot fill the bounded wait with ticks.
    timers.cancelAll();
    this.ensureExtras().restartCapacity = capacity ?? this.props.stashCapacity;
    timers.startSingleTimer(RESTART_TIMER, { reason, message }, delayMs);
  }

  #restartDue(ticket: TimerTicket): void {
    if (!this.#timers().accept(ticket)) return; // cancelled by a stop
    this.ensureExtras().restartCapacity = -1;
    const due = ticket.message as RestartDue;
    if (this.status === SUSPENDED) this.restart(due.reason, due.message);
  }

  /** Schedules the first start of the guardian (children are scheduled by actorOf). */
  requestStart(): void {
    this.#scheduleIfRunnable();
  }

  /** Continues after a `Resume` directive. */
  resume(): void {
    if (this.status !== SUSPENDED) return;
    this.flags &= ~AWAITING_PARENT;
    // Without an instance (it failed while starting) resuming means starting again.
    this.status = this.actor === undefined ? NEW : RUNNING;
    // Children suspended because this actor escalated for them resume too.
    for (const child of this.extras?.children?.toArray() ?? []) {
      if ((child.flags & AWAITING_PARENT) !== 0) child.resume();
    }
    this.#scheduleIfRunnable();
  }

  /** Suspended until the parent's own supervisor decides (this actor escalated, or a sibling did). */
  awaitParent(): void {
    this.status = SUSPENDED;
    this.flags |= AWAITING_PARENT;
  }

  // ───────────────────────── Failure ─────────────────────────

  /**
   * The actor threw or rejected: suspend it and hand it to the failure port.
   * `undelivered` says whether `message` still needs an outcome (it becomes
   * a dead letter).
   */
  fail(
    error: unknown,
    message: unknown,
    sender: unknown,
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
    const handling = this.props.failureHandling;
    if (handling !== undefined) {
      handling.actorFailed(this, error, message);
    } else if (this.parentCell !== undefined) {
      this.parentCell.childFailed(
        this as unknown as ActorCell<never>,
        error,
        message,
      );
    } else {
      this.logError("guardian failed; stopping", error);
      this.#beginStop();
    }
  }

  /** Classic supervision: a child failed; this actor's strategy decides. */
  childFailed(child: ActorCell<never>, error: unknown, message: unknown): void {
    if (this.isStopping) {
      child.requestStop(); // this actor is going away; so are its children
      return;
    }
    superviseChild(
      this.actor?.supervisorStrategy ?? defaultStrategy,
      child,
      () => this.extras!.children!.toArray(),
      error,
      message,
      this.parentCell === undefined
        ? undefined
        : (reason) => this.fail(reason, NO_MESSAGE, undefined),
    );
  }

  get restartType(): RestartType {
    return this.props.restart;
  }

  get supervisionState(): unknown {
    return this.extras?.supervisionState;
  }

  set supervisionState(state: unknown) {
    this.ensureExtras().supervisionState = state;
  }

  permitRestart(maxRetries: number, withinMs: number): boolean {
    const stats = this.ensureExtras().restartStats ??= {
      restartCount: 0,
      windowStartMs: 0,
    };
    return requestRestartPermission(
      stats,
      maxRetries,
      withinMs,
      this.core.scheduler.now(),
    );
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
        new ActorFailed(this as unknown as ActorRef<never>, error, directive),
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
    if ((this.flags & BUSY) !== 0) this.#armStopTimer();
    this.#scheduleIfRunnable();
  }

  /**
   * Bounds what a stop waits for: the async hook or handler in flight, then
   * `postStop`, together at most the shutdown timeout. One timer per stop
   * that has something to wait for; an ordinary stop arms none.
   */
  #armStopTimer(): void {
    const extras = this.ensureExtras();
    if (extras.stopTimer !== undefined) return;
    const timeoutMs = this.#shutdownTimeoutMs();
    extras.stopTimer = this.core.scheduler.setTimeout(() => {
      extras.stopTimer = undefined;
      this.#stopTimedOut(timeoutMs);
    }, timeoutMs);
  }

  #clearStopTimer(): void {
    const extras = this.extras;
    if (extras !== undefined && extras.stopTimer !== undefined) {
      this.core.scheduler.clearTimeout(extras.stopTimer);
      extras.stopTimer = undefined;
    }
  }

  /** The shutdown timeout passed: abandon what the stop still waits for. */
  #stopTimedOut(timeoutMs: number): void {
    if ((this.flags & BUSY) !== 0) {
      this.#abandonInFlight(timeoutMs);
      this.#scheduleIfRunnable(); // STOP_REQUESTED: the stop proceeds
    } else if (
      this.status === STOPPING && (this.flags & POST_STOP_CALLED) !== 0
    ) {
      this.#reportTimedOut("postStop", timeoutMs);
      this.#terminated();
    }
  }

  /** Gives up on the async hook or handler in flight; its message becomes a dead letter. */
  #abandonInFlight(timeoutMs: number): void {
    const extras = this.extras!;
    const inFlight = extras.inFlight!;
    extras.inFlight = undefined;
    inFlight.abandoned = true;
    this.flags &= ~BUSY;
    const current = this.currentMessage;
    this.currentMessage = NO_MESSAGE;
    this.currentSender = undefined;
    if (inFlight.message === NO_MESSAGE) {
      this.#reportTimedOut("start", timeoutMs);
      return;
    }
    if (current !== STASHED && current !== STASH_OVERFLOWED) {
      this.core.deadLetter(
        inFlight.message,
        inFlight.sender,
        this,
        `abandoned: its handler did not settle within the ${timeoutMs} ms shutdown timeout`,
      );
    }
    this.#reportTimedOut("handler", timeoutMs);
  }

  #reportTimedOut(waitingFor: StopWait, timeoutMs: number): void {
    this.log.warn(
      `stop did not wait longer than ${timeoutMs} ms for its ${waitingFor}; abandoned it`,
    );
    const events = this.core.eventStream;
    if (events.hasSubscribers) {
      events.publish(
        new ActorStopTimedOut(
          this as unknown as ActorRef<never>,
          waitingFor,
          timeoutMs,
        ),
      );
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
      extras.timers?.cancelAll(); // a pending typed-backoff restart too
      extras.restartCapacity = -1;
    }
    this.#releaseUndelivered();
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
    this.#clearStopTimer();
    if ((this.flags & BUSY) !== 0) this.#abandonInFlight(timeoutMs);
    if (this.status < STOPPING) this.#enterStopping();
    if ((this.flags & POST_STOP_CALLED) === 0) {
      this.#callPostStop(() => {});
    } else {
      this.#reportTimedOut("postStop", timeoutMs);
    }
    this.#terminated();
  }

  /** Messages this actor will never process: to the parent's taker, or dead letters. */
  #releaseUndelivered(): void {
    this.#settleHanded();
    const stashed = this.extras?.stash?.drain() ?? [];
    const queued = this.mailbox?.drain() ?? [];
    const undelivered: Envelope[] = [];
    for (const flat of [stashed, queued]) {
      for (let i = 0; i < flat.length; i += 2) {
        // A runtime notice (a timer's tick, a Terminated) is no sent message.
        if (flat[i] instanceof Notice) continue;
        undelivered.push({
          message: flat[i],
          sender: flat[i + 1] as ActorRef<never> | undefined,
        });
      }
    }
    const parent = this.parentCell?.actor as
      | Partial<UndeliveredTaker>
      | undefined;
    const takeOver = parent?.[takeOverUndelivered];
    const self = this as unknown as ActorRef<never>;
    if (takeOver !== undefined) {
      takeOver.call(parent, self, undelivered);
      return;
    }
    for (const { message, sender } of undelivered) {
      this.core.deadLetter(message, sender, this, "recipient stopped");
    }
  }

  #finishStop(): void {
    if ((this.flags & POST_STOP_CALLED) !== 0) return;
    const waiting = this.#callPostStop(() => this.#terminated());
    if (waiting) this.#armStopTimer();
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
    let result: unknown;
    try {
      result = actor.postStop();
      if (!isThenable(result)) return false;
    } catch (error) {
      this.logError("postStop failed", error);
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
    this.#clearStopTimer();
    this.#releaseHeld(); // stopped before it started: they wait no longer
    const leftBehind = this.extras?.leftBehind;
    if (leftBehind !== undefined) {
      for (const inFlight of leftBehind) {
        this.#abandonLeftBehind(
          inFlight,
          "abandoned: the actor stopped while a replaced instance's handler was in flight",
        );
      }
    }
    announceTermination(this as unknown as ActorCell<never>);
    const events = this.core.eventStream;
    if (events.hasSubscribers) {
      events.publish(new ActorStopped(this as unknown as ActorRef<never>));
    }
    if (this.parentCell !== undefined) {
      this.parentCell.childTerminated(this as unknown as ActorCell<never>);
    } else {
      this.core.guardianTerminated();
    }
  }
}
