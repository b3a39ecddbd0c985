// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * One actor's state machine, and its ref and context at once (a cell is all
 * three, so a local actor costs one object besides its instance).
 *
 * ```
 *   NEW ──start──▶ STARTING ──preStart done──▶ RUNNING ◀──resume──┐
 *                      ▲                          │ failure       │
 *                      └──────── restart ──── SUSPENDED ──────────┘
 *   any ──stop──▶ STOPPING (children stop, then postStop) ──▶ STOPPED
 * ```
 *
 * The message path: `tell` → {@linkcode ActorCell.enqueue} → mailbox →
 * dispatcher → {@linkcode ActorCell.run} → `onReceive`. Failures leave that
 * path for {@linkcode ActorCell.fail}, which asks the parent's strategy (or
 * the actor's own typed strategy) what to do.
 *
 * @module
 */

import {
  Actor,
  type ActorContext,
  type Behavior,
  constructWith,
  Terminated,
} from "./actor.ts";
import { ActorRef, AskRef, DEFAULT_ASK_TIMEOUT_MS } from "./actor_ref.ts";
import type { ActorSystem, SystemCore } from "./actor_system.ts";
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
import { Mailbox } from "./mailbox.ts";
import type { Props } from "./props.ts";
import {
  ActorTimers,
  checkDelay,
  now,
  type TimerScheduler,
  TimerTicket,
} from "./timers.ts";
import { describeError, describeValue } from "../supervision/describe_value.ts";
import { BackoffDecision } from "../supervision/backoff_decision.ts";
import {
  defaultStrategy,
  FaultHandlingStrategy,
  requestRestartPermission,
  type RestartStatistics,
} from "../supervision/strategy.ts";
import type { TypedStrategy } from "../supervision/supervisor_strategy.ts";

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
const FORWARDS = 32; // the actor's hooks may pass messages straight to a child
const HANDED = 64; // a message waits in currentMessage/currentSender, ahead of the mailbox
const POST_STOP_CALLED = 128; // postStop has run or is running: never call it twice

/**
 * Marks a failure that happened outside any message (in start or restart);
 * as `currentMessage`, it means no turn is under way.
 */
const NO_MESSAGE: unique symbol = Symbol("no message");
/** `currentMessage` after `stash()` took it: it is not this turn's to lose. */
const STASHED: unique symbol = Symbol("stashed");
/** `currentMessage` after `stash()` overflowed: already a dead letter. */
const STASH_OVERFLOWED: unique symbol = Symbol("stash overflowed");

/**
 * Sender slot marker: the message slot holds a notice from the runtime (a
 * {@linkcode TimerTicket} or a {@linkcode Terminated}), checked when taken
 * out. One marker keeps ordinary messages to a single comparison.
 */
const FROM_RUNTIME: unique symbol = Symbol("runtime notice");

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
  /** A stop gave up on it (and dead-lettered its message). */
  abandoned: boolean;
}

/** What a stop waited for when its shutdown timeout passed. */
type StopWait = ActorStopTimedOut["waitingFor"];

const NAME_PATTERN = /^[^/$\s][^/\s]*$/;

/** A message with its sender, as handed to {@linkcode ChildLifecycleHooks.childStopping}. */
export interface Envelope {
  readonly message: unknown;
  readonly sender: ActorRef<never> | undefined;
}

/**
 * The runtime's one internal hook for the patterns layer. An actor whose
 * instance has a {@linkcode childLifecycle} property is told synchronously,
 * inside the runtime, when a child finishes starting and when a child begins
 * to stop (with the messages the child never processed, which the parent
 * then owns instead of dead letters). The BackoffSupervisor uses it to mark
 * its child down the moment it fails and to keep the messages queued behind
 * the one that crashed it.
 */
export const childLifecycle: unique symbol = Symbol(
  "understudy.childLifecycle",
);

/** See {@linkcode childLifecycle}. */
export interface ChildLifecycleHooks {
  /** `child` finished starting (its `preStart` completed). */
  childStarted(child: ActorRef<never>): void;
  /** `child` is stopping; `undelivered` are its unprocessed messages, oldest first. */
  childStopping(child: ActorRef<never>, undelivered: Envelope[]): void;
  /**
   * Offered each message sent to this actor while its mailbox is empty and
   * it is idle, so nothing sent earlier is still pending: it may name a
   * child to receive the message directly (with its sender) instead of the
   * message taking a turn through this actor's mailbox. A forwarding actor
   * then costs one call per message, not a second dispatch.
   */
  forwardTarget?(message: unknown): ActorRef<unknown> | undefined;
}

/** Per-cell state most actors never need, allocated on first use to keep idle actors small. */
class CellExtras {
  /** The actor's {@linkcode ChildLifecycleHooks.forwardTarget}, cached at start. */
  forwardTarget:
    | ((message: unknown) => ActorRef<unknown> | undefined)
    | undefined = undefined;
  watchers: Set<ActorCell<never>> | undefined = undefined;
  watching: Set<ActorCell<never>> | undefined = undefined;
  /** The handler installed by `become`; `undefined` means `onReceive`. */
  behavior: Behavior<never> | undefined = undefined;
  behaviorStack: (Behavior<never> | undefined)[] | undefined = undefined;
  stash: Mailbox | undefined = undefined;
  timers: ActorTimers | undefined = undefined;
  logger: Logger | undefined = undefined;
  restartStats: RestartStatistics | undefined = undefined;
  /** Typed restartWithBackoff: the restart count and its rules. */
  backoff: BackoffDecision | undefined = undefined;
  /** Live children, in creation order. */
  children: Children<ActorCell<never>> | undefined = undefined;
  generatedNames = 0;
  /** Typed restartWithBackoff: the pending restart, and how many messages may wait for it. */
  backoffTimer: unknown = undefined;
  backoffCapacity = 0;
  /** Why the next start is a restart; NO_MESSAGE for a first start. */
  restartReason: unknown = NO_MESSAGE;
  /** The async hook or handler the cell waits for (with the BUSY flag). */
  inFlight: InFlight | undefined = undefined;
  /** Bounds a stop's wait for the handler in flight or for `postStop`. */
  stopTimer: unknown = undefined;
}

/** A local actor's ref, context and state machine. Internal to the runtime. */
export class ActorCell<T> extends ActorRef<T> implements ActorContext<T> {
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
   * The message being processed and its sender. Between turns, with the
   * HANDED flag, they hold the next message instead: one sent while the
   * cell was idle with nothing queued, handed over with its turn rather
   * than through the mailbox (see `#deliver`). It is logically the head of
   * the mailbox.
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

  // ───────────────────────── ActorRef ─────────────────────────

  get path(): string {
    return this.parentCell === undefined
      ? `/${this.name}`
      : `${this.parentCell.path}/${this.name}`;
  }

  tell(message: T, sender?: ActorRef<never>): void {
    this.enqueue(message, sender);
  }

  ask<R = unknown>(
    message: T,
    timeoutMs: number = DEFAULT_ASK_TIMEOUT_MS,
  ): Promise<R> {
    checkDelay("ask", "timeoutMs", timeoutMs);
    const asker = new AskRef<R>(
      this.core,
      this as unknown as ActorRef<never>,
      timeoutMs,
    );
    this.enqueue(message, asker as unknown as ActorRef<never>);
    return asker.promise;
  }

  /**
   * Puts a message in the mailbox and makes sure the cell will run. A
   * forwarder in its steady state (a BackoffSupervisor with its child up)
   * names the cell that gets the message instead; such links are followed in
   * a loop, not by recursion, and the message is delivered once.
   */
  enqueue(message: unknown, sender: unknown): void {
    let target = this.#forwardTarget(message, sender);
    if (target === undefined) {
      this.#deliver(message, sender);
      return;
    }
    for (
      let next = target.#forwardTarget(message, sender);
      next !== undefined;
      next = next.#forwardTarget(message, sender)
    ) {
      target = next;
    }
    target.#deliver(message, sender);
  }

  /**
   * The child a forwarding actor names for `message`, when it may skip its
   * own mailbox now: it is idle, so nothing sent earlier is still queued
   * (see `#deliver`).
   */
  #forwardTarget(
    message: unknown,
    sender: unknown,
  ): ActorCell<unknown> | undefined {
    // One test covers the common case: not a forwarder (or busy, or queued).
    if ((this.flags & (FORWARDS | BUSY | SCHEDULED)) !== FORWARDS) {
      return undefined;
    }
    if (this.status !== RUNNING || sender === FROM_RUNTIME) return undefined;
    return this.extras!.forwardTarget!(message) as
      | ActorCell<unknown>
      | undefined;
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
  #deliver(message: unknown, sender: unknown): void {
    // Kept small (and written out, not behind a getter, which measured
    // slower) so that it inlines into `tell`: an idle actor gets the message
    // handed over with its turn, skipping the mailbox (the common
    // one-message-at-a-time exchange).
    if (
      (this.flags & (SCHEDULED | BUSY)) === 0 && this.status === RUNNING &&
      sender !== FROM_RUNTIME
    ) {
      this.currentMessage = message;
      this.currentSender = sender as ActorRef<unknown> | undefined;
      this.flags |= SCHEDULED | HANDED;
      this.core.dispatcher.schedule(this);
      return;
    }
    this.#queue(message, sender);
  }

  /** The general case of {@linkcode ActorCell.#deliver}: through the mailbox, or to dead letters. */
  #queue(message: unknown, sender: unknown): void {
    if (this.status >= SUSPENDED) {
      if (this.status >= STOPPING) {
        // A runtime notice (timer, Terminated) for a stopping actor was never sent by anyone.
        if (sender !== FROM_RUNTIME) {
          this.core.deadLetter(message, sender, this, "recipient stopped");
        }
        return;
      }
      const extras = this.extras;
      if (
        extras !== undefined && extras.backoffTimer !== undefined &&
        sender !== FROM_RUNTIME &&
        (this.mailbox?.size ?? 0) >= extras.backoffCapacity
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
    const extras = this.#extras();
    return extras.logger ??= new Logger(
      () => this.path,
      this.core.logLevel,
      this.core.logSink,
    );
  }

  get timers(): TimerScheduler {
    const extras = this.#extras();
    return extras.timers ??= new ActorTimers((ticket) =>
      this.enqueue(ticket, FROM_RUNTIME)
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
          String(ref)
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
    const target = ref as ActorCell<never>;
    if (target === (this as unknown)) return ref;
    const watching = this.#extras().watching ??= new Set();
    // A target stays in `watching` until its Terminated is processed, so
    // watching it again meanwhile cannot queue a second one.
    if (watching.has(target)) return ref;
    watching.add(target);
    if (target.status === STOPPED) {
      this.enqueue(new Terminated(target), FROM_RUNTIME);
      return ref;
    }
    (target.#extras().watchers ??= new Set()).add(
      this as unknown as ActorCell<never>,
    );
    return ref;
  }

  unwatch(ref: ActorRef<never>): void {
    const target = ref as unknown as ActorCell<never>;
    this.extras?.watching?.delete(target);
    target.extras?.watchers?.delete(this as unknown as ActorCell<never>);
    // A Terminated already queued for it must not arrive after unwatch.
    this.mailbox?.removeWhere((message) =>
      message instanceof Terminated && message.ref === (target as unknown)
    );
  }

  become(behavior: Behavior<T>, options: { discardOld?: boolean } = {}): void {
    if (typeof behavior !== "function") {
      throw new TypeError(
        `Cannot become: "behavior" must be a function handling one message (got ${
          describeValue(behavior)
        })`,
      );
    }
    const extras = this.#extras();
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
    const extras = this.#extras();
    const stash = extras.stash ??= new Mailbox();
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
    if (this.status >= STOPPING || (this.flags & STOP_REQUESTED) !== 0) {
      throw new Error(`Cannot create actor under ${this.path}: it is stopping`);
    }
    const extras = this.#extras();
    const children = extras.children ??= new Children();
    let childKey: string | number;
    if (name === undefined) {
      childKey = extras.generatedNames++;
    } else {
      if (typeof name !== "string" || !NAME_PATTERN.test(name)) {
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
    return this.extras?.children?.some((child) =>
      child.status >= STOPPING || (child.flags & STOP_REQUESTED) !== 0
    ) ?? false;
  }

  // ───────────────────────── Processing ─────────────────────────

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
        this.#receive(); // the handed message is already current
      } else {
        this.#settleHanded();
      }
    }
    if (this.status === NEW) {
      if ((this.flags & RESTART_PENDING) !== 0) {
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
      `runtime fault in the turn of ${this.path}: ${describeError(error)}`,
      error,
    );
    if (this.status < STOPPING) this.fail(error, NO_MESSAGE, undefined);
    this.#scheduleIfRunnable();
  }

  #invoke(message: unknown, sender: unknown): void {
    if (sender === FROM_RUNTIME) {
      if (message instanceof TimerTicket) {
        if (!this.extras?.timers?.accept(message)) return; // cancelled or replaced
        message = message.message;
        sender = undefined;
      } else {
        // A Terminated: the watch it answers is over once it is processed.
        sender = (message as Terminated).ref;
        this.extras?.watching?.delete(sender as ActorCell<never>);
      }
    }
    this.currentMessage = message;
    this.currentSender = sender as ActorRef<unknown> | undefined;
    this.#receive();
  }

  /** Runs the handler on `currentMessage`; a throw or a rejection is a failure. */
  #receive(): void {
    const message = this.currentMessage;
    const sender = this.currentSender;
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
    this.#holdUntilSettled(result, message, sender, this.#asyncTurnDone);
  }

  readonly #asyncTurnDone = (): void => this.#scheduleIfRunnable();

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
    next: () => void,
  ): void {
    const extras = this.#extras();
    const inFlight: InFlight = { message, sender, abandoned: false };
    extras.inFlight = inFlight;
    this.flags |= BUSY;
    if ((this.flags & STOP_REQUESTED) !== 0) this.#armStopTimer();
    whenSettled(
      result,
      () => {
        if (extras.inFlight !== inFlight) return;
        extras.inFlight = undefined;
        this.flags &= ~BUSY;
        this.currentMessage = NO_MESSAGE;
        this.currentSender = undefined;
        next();
      },
      (error) => {
        if (extras.inFlight === inFlight) {
          extras.inFlight = undefined;
          this.flags &= ~BUSY;
          this.#failTurn(error, message, sender);
        } else if (!inFlight.abandoned) {
          this.#staleFailure(error, message, sender);
        }
      },
    );
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
    this.#logError("a replaced instance failed", error);
  }

  #scheduleIfRunnable(): void {
    if ((this.flags & (SCHEDULED | BUSY)) !== 0) return;
    const runnable = (this.flags & STOP_REQUESTED) !== 0 ||
      (this.status === NEW && (this.flags & RESTART_PENDING) === 0) ||
      (this.status === RUNNING && this.mailbox !== undefined &&
        this.mailbox.size > 0);
    if (runnable) {
      this.flags |= SCHEDULED;
      this.core.dispatcher.schedule(this);
    }
  }

  #extras(): CellExtras {
    return this.extras ??= new CellExtras();
  }

  // ───────────────────────── Start and restart ─────────────────────────

  /**
   * Creates a fresh instance and runs `preStart` (first start) or
   * `postRestart(reason)` (after a restart).
   */
  #start(restartReason: unknown): void {
    this.status = STARTING;
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
        strategy !== defaultStrategy &&
        !(strategy instanceof FaultHandlingStrategy)
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
    const forwardTarget = this.#ownHooks()?.forwardTarget;
    if (forwardTarget !== undefined) {
      this.#extras().forwardTarget = forwardTarget;
      this.flags |= FORWARDS;
    } else {
      this.flags &= ~FORWARDS;
    }
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
    this.extras?.backoff?.childStarted(now());
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
    const hooks = this.#parentHooks();
    if (hooks !== undefined) {
      hooks.childStarted(this as unknown as ActorRef<never>);
    }
    this.#scheduleIfRunnable();
  }

  #parentHooks(): ChildLifecycleHooks | undefined {
    return this.parentCell === undefined
      ? undefined
      : this.parentCell.#ownHooks();
  }

  #ownHooks(): ChildLifecycleHooks | undefined {
    return (this.actor as
      | (Actor<T> & { [childLifecycle]?: ChildLifecycleHooks })
      | undefined)
      ?.[childLifecycle];
  }

  /**
   * Replaces the instance: `preRestart` on the old one now, a fresh one from
   * the props on the cell's next run (through the dispatcher, so an actor
   * that fails in every start cannot recurse without bound). An async
   * handler still in flight is left behind: if it later rejects, its
   * message becomes a dead letter then.
   */
  restart(reason: unknown, message: unknown): void {
    this.#settleHanded();
    this.status = NEW;
    this.currentMessage = NO_MESSAGE;
    this.currentSender = undefined;
    this.flags &= ~(BUSY | AWAITING_PARENT);
    const extras = this.extras;
    if (extras !== undefined) {
      extras.inFlight = undefined;
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
            (error) => this.#logError("preRestart failed", error),
          );
        }
      } catch (error) {
        this.#logError("preRestart failed", error);
      }
    }
    this.actor = undefined;
    this.#extras().restartReason = reason;
    if (this.#hasStoppingChildren()) this.flags |= RESTART_PENDING;
    else this.#scheduleIfRunnable();
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

  // ───────────────────────── Failure ─────────────────────────

  /**
   * The actor threw or rejected: suspend it and let its supervisor decide.
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
      this.#logError("failed while stopping", error);
      return;
    }
    this.status = SUSPENDED;
    if ((this.flags & STOP_REQUESTED) !== 0) {
      this.#logError("failed", error);
      this.#beginStop();
      return;
    }
    const typed = this.props.strategyFor(error);
    if (typed !== undefined) {
      this.#applyTypedStrategy(typed, error, message);
    } else if (this.parentCell !== undefined) {
      this.parentCell.handleChildFailure(
        this as unknown as ActorCell<never>,
        error,
        message,
      );
    } else {
      this.#logError("guardian failed; stopping", error);
      this.#beginStop();
    }
  }

  /** Classic supervision: a child failed; apply this actor's strategy. */
  handleChildFailure(
    child: ActorCell<never>,
    error: unknown,
    message: unknown,
  ): void {
    if (this.status >= STOPPING || (this.flags & STOP_REQUESTED) !== 0) {
      child.requestStop(); // this actor is going away; so are its children
      return;
    }
    const strategy = this.actor?.supervisorStrategy ?? defaultStrategy;
    let directive = strategy.decide(error);
    if (directive === "escalate" && this.parentCell === undefined) {
      directive = "stop";
    }
    if (directive === "restart") {
      if (
        !child.#permitRestart(strategy.maxRetries, strategy.withinTimeRangeMs)
      ) {
        directive = "stop";
        if (strategy.loggingEnabled) {
          child.log.error(
            `restart limit reached (${strategy.maxRetries} within ${strategy.withinTimeRangeMs} ms); stopping`,
          );
        }
      }
    }
    child.#reportFailure(error, directive, strategy.loggingEnabled);
    const targets = strategy.appliesToAllChildren && directive !== "resume"
      ? this.extras!.children!.toArray()
      : [child];
    switch (directive) {
      case "resume":
        child.resume();
        break;
      case "restart":
        for (const target of targets) {
          if (target.status < STOPPING) {
            target.restart(error, target === child ? message : NO_MESSAGE);
          }
        }
        break;
      case "stop":
        for (const target of targets) target.requestStop();
        break;
      case "escalate":
        for (const target of targets) {
          target.status = SUSPENDED;
          target.flags |= AWAITING_PARENT;
        }
        this.fail(error, NO_MESSAGE, undefined);
        break;
    }
  }

  /** Typed supervision: this actor's own props say what to do. */
  #applyTypedStrategy(
    strategy: TypedStrategy,
    error: unknown,
    message: unknown,
  ): void {
    const extras = this.#extras();
    switch (strategy.kind) {
      case "resume":
        this.#reportFailure(error, "resume", strategy.loggingEnabled);
        this.resume();
        return;
      case "stop":
        this.#reportFailure(error, "stop", strategy.loggingEnabled);
        this.requestStop();
        return;
      case "restart": {
        if (this.#permitRestart(strategy.maxRestarts, strategy.withinMs)) {
          this.#reportFailure(error, "restart", strategy.loggingEnabled);
          this.restart(error, message);
        } else {
          this.#reportFailure(error, "stop", strategy.loggingEnabled);
          this.requestStop();
        }
        return;
      }
      case "backoff": {
        // The same rules as the BackoffSupervisor's: reset after a stable
        // run, give up after maxRestarts, a safe delay from the policy.
        const decision = extras.backoff ??= new BackoffDecision({
          policy: strategy.policy!,
          minBackoff: 0, // only read by "after-min-stable"
          maxBackoff: strategy.maxBackoff,
          resetCounter: { kind: "after-time", ms: strategy.resetBackoffAfter },
          triggerOn: "any",
          maxRestarts: strategy.maxRestarts,
        });
        const verdict = decision.childTerminated("failure", now());
        if (verdict.action !== "respawn") {
          this.#reportFailure(error, "stop", strategy.loggingEnabled);
          this.requestStop();
          return;
        }
        const delayMs = verdict.delayMs;
        if (verdict.policyFailure !== undefined) {
          this.#logError(
            `backoff policy failed; waiting maxBackoff (${delayMs} ms)`,
            verdict.policyFailure.error,
          );
        }
        this.#reportFailure(error, "backoff", strategy.loggingEnabled);
        // The failed instance will never see its timers' messages (the
        // restart cancels them anyway); stopped now, they cannot fill the
        // bounded wait with ticks and push real messages to dead letters.
        extras.timers?.cancelAll();
        extras.backoffCapacity = strategy.stashCapacity;
        extras.backoffTimer = globalThis.setTimeout(() => {
          extras.backoffTimer = undefined;
          if (this.status === SUSPENDED) this.restart(error, message);
        }, delayMs);
        return;
      }
      default:
        // Unreachable through the API (TypedStrategy checks its kind); a
        // failure must never leave the actor suspended with no word.
        this.#logError(
          `unknown supervisor strategy kind ${
            describeValue((strategy as TypedStrategy).kind)
          }; stopping`,
          error,
        );
        this.requestStop();
    }
  }

  /** Counts a restart against this cell's history; `false` once the limit is reached. */
  #permitRestart(maxRetries: number, withinMs: number): boolean {
    const stats = this.#extras().restartStats ??= {
      restartCount: 0,
      windowStartMs: 0,
    };
    return requestRestartPermission(stats, maxRetries, withinMs, now());
  }

  #reportFailure(
    error: unknown,
    directive: string,
    loggingEnabled: boolean,
  ): void {
    if (loggingEnabled) {
      this.log.error(`failed (${directive}): ${describeError(error)}`, error);
    }
    const events = this.core.eventStream;
    if (events.hasSubscribers) {
      events.publish(
        new ActorFailed(this as unknown as ActorRef<never>, error, directive),
      );
    }
  }

  #logError(what: string, error: unknown): void {
    this.log.error(`${what}: ${describeError(error)}`, error);
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
    const extras = this.#extras();
    if (extras.stopTimer !== undefined) return;
    const timeoutMs = this.props.shutdownTimeoutMs ??
      this.core.shutdownTimeoutMs;
    extras.stopTimer = globalThis.setTimeout(() => {
      extras.stopTimer = undefined;
      this.#stopTimedOut(timeoutMs);
    }, timeoutMs);
  }

  #clearStopTimer(): void {
    const extras = this.extras;
    if (extras !== undefined && extras.stopTimer !== undefined) {
      globalThis.clearTimeout(extras.stopTimer as number);
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
      extras.timers?.cancelAll();
      if (extras.backoffTimer !== undefined) {
        globalThis.clearTimeout(extras.backoffTimer as number);
        extras.backoffTimer = undefined;
      }
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

  /** Messages this actor will never process: to the parent's hook, or dead letters. */
  #releaseUndelivered(): void {
    this.#settleHanded();
    const stashed = this.extras?.stash?.drain() ?? [];
    const queued = this.mailbox?.drain() ?? [];
    const hooks = this.#parentHooks();
    if (hooks !== undefined) {
      const undelivered: Envelope[] = [];
      for (const flat of [stashed, queued]) {
        for (let i = 0; i < flat.length; i += 2) {
          if (flat[i + 1] === FROM_RUNTIME) continue;
          undelivered.push({
            message: flat[i],
            sender: flat[i + 1] as ActorRef<never>,
          });
        }
      }
      hooks.childStopping(this as unknown as ActorRef<never>, undelivered);
      return;
    }
    for (const flat of [stashed, queued]) {
      for (let i = 0; i < flat.length; i += 2) {
        if (flat[i + 1] === FROM_RUNTIME) continue; // a timer's message is not a sent one
        this.core.deadLetter(flat[i], flat[i + 1], this, "recipient stopped");
      }
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
      this.#logError("postStop failed", error);
      return false;
    }
    whenSettled(result, done, (error) => {
      if (this.status !== STOPPED) this.#logError("postStop failed", error);
      done();
    });
    return true;
  }

  #terminated(): void {
    if (this.status === STOPPED) return; // a postStop that settled after its timeout
    this.status = STOPPED;
    this.#clearStopTimer();
    const extras = this.extras;
    if (extras !== undefined) {
      for (const target of extras.watching ?? []) {
        target.extras?.watchers?.delete(this as unknown as ActorCell<never>);
      }
      for (const watcher of extras.watchers ?? []) {
        // A watcher on its way out has no use for the news (and it is no sent message to dead-letter).
        if (watcher.status >= STOPPING) continue;
        // The watcher keeps this cell in `watching` until it processes the Terminated.
        watcher.enqueue(
          new Terminated(this as unknown as ActorRef<never>),
          FROM_RUNTIME,
        );
      }
      extras.watchers = undefined;
      extras.watching = undefined;
    }
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
