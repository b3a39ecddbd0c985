// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The kernel: one actor's lifecycle and its message turn. A cell is the
 * actor's ref, its context (`../context.ts`, its base) and its state machine
 * at once, so a local actor costs one object besides its instance. Its
 * states and flags, and the legal combinations, are in `cell_state.ts`; all
 * of its state is private, and its features reach it through their port
 * (`cell_port.ts`).
 *
 * The message path: `tell` → {@linkcode ActorCell.enqueue} → mailbox
 * (`mailbox.ts`) → dispatcher (`../dispatcher.ts`) → {@linkcode ActorCell.run}
 * → `onReceive`. User code is called only through `user_code.ts`, which
 * catches; the cell branches on the outcome (DONE, THREW, or a promise to
 * hold the mailbox for). {@linkcode ActorCell.fail} suspends the actor and
 * hands it to `handleFailure` (`../../supervision/supervised.ts`), whose
 * decision acts back through the lifecycle operations here (restart,
 * resume, stop, a typed backoff's delayed restart, `../restart_after.ts`).
 *
 * The features attach from their own files: death watch (`watch.ts`), ask
 * (`ask.ts`), timers (`timers.ts`), children (`children.ts`), `become` and
 * `stash` (`stash.ts`), receive timeouts (`receive_timeout.ts`), async
 * handlers a restart or stop leaves behind (`in_flight.ts`), and the port
 * for patterns (`undelivered.ts`). What stays here is what every actor
 * needs: delivery, the turn, start, restart, failure and stop.
 *
 * @module
 */

import type { Actor } from "../actor.ts";
import type { ActorRef } from "../actor_ref.ts";
import type { SystemCore } from "../actor_system.ts";
import {
  Children,
  holdBehind,
  newChildKey,
  releaseHeld,
} from "../features/children.ts";
import { CellContext } from "../context.ts";
import { THROUGHPUT } from "../dispatcher.ts";
import {
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
  endOwed,
  leaveBehind,
  leftBehindSettled,
  replaceContext,
  reportTimedOut,
  staleFailure,
} from "../features/in_flight.ts";
import { Mailbox, Notice } from "./mailbox.ts";
import { isRuntimeNotice, PoisonPill } from "../poison_pill.ts";
import type { Props } from "../props.ts";
import { noteMessage } from "../features/receive_timeout.ts";
import {
  refusedWhileWaiting,
  scheduleRestart,
} from "../features/restart_after.ts";
import type { CellPort, Door } from "./cell_port.ts";
import {
  BUSY,
  CellExtras,
  ESCALATED,
  GUARDED,
  HANDED,
  HELD,
  type InFlight,
  NEW,
  NO_MESSAGE,
  POST_STOP,
  putAside,
  RECEIVE_TIMEOUT,
  RESTART_PENDING,
  RUNNING,
  SCHEDULED,
  STARTING,
  STATUS,
  STOP_REQUESTED,
  STOPPED,
  STOPPING,
  SUSPENDED,
  TAKEN_OWED,
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
import { type Envelope, releaseUndelivered } from "../ports/undelivered.ts";
import { announceTermination } from "../features/watch.ts";
import type { Supervised } from "../../supervision/supervised.ts";
import { handleFailure } from "../../supervision/supervised.ts";
import { describeError } from "../../validation.ts";

export type { Envelope };

/** Makes a child's cell: the remote port's own kind of cell (`remote.ts`). */
export type CellMaker<C> = (
  core: SystemCore,
  parent: CellPort,
  childKey: string | number,
  props: Props<C>,
) => ActorCell<C>;

/** A local actor's ref, context and state machine. Internal to the runtime. */
export class ActorCell<T> extends CellContext<T> {
  // Its identity, set once: public, so that two refs compare apart by
  // structure (TestProbe, node:assert), and a ref inside a message cannot
  // be cloned (`core` holds functions) but is refused as it always was.
  readonly core: SystemCore;
  readonly parentCell: CellPort | undefined;
  /** The name given, or for a generated name its sequence number (no strings made). */
  readonly childKey: string | number;
  #childSlot = 0;
  readonly #props: Props<T>;
  #actor: Actor<T> | undefined = undefined;
  #flags = NEW; // the state in its STATUS bits, then the flags (`cell_state.ts`)
  #mailbox: Mailbox | undefined = undefined;
  /**
   * The message of the turn under way, a stash's marker once `stash()` took
   * it, or NO_MESSAGE between turns; or, with HANDED, the next message: one
   * sent to the idle cell with nothing queued, handed over with its turn
   * instead of through the mailbox, logically the mailbox's head. Sharing
   * the slot keeps an idle actor small: two fields of the hand-off's own
   * measured +9% heap per idle actor on Node and +29% on Bun (November
   * 2026), whose objects grow their storage past 12 fields.
   */
  #message: unknown = NO_MESSAGE;
  #sender: ActorRef<unknown> | undefined = undefined;
  #extras: CellExtras | undefined = undefined;

  constructor(
    core: SystemCore,
    parent: CellPort | undefined,
    childKey: string | number,
    props: Props<T>,
  ) {
    super();
    this.core = core;
    this.parentCell = parent;
    this.childKey = childKey;
    this.#props = props;
    if (core.inspecting) this.#flags = GUARDED;
  }

  // ── The port (`cell_port.ts`) ──

  get props(): Props<T> {
    return this.#props;
  }
  get childSlot(): number {
    return this.#childSlot;
  }
  set childSlot(slot: number) {
    this.#childSlot = slot;
  }
  get instance(): object | undefined {
    return this.#actor;
  }
  get extras(): CellExtras | undefined {
    return this.#extras;
  }
  ensureExtras(): CellExtras {
    return this.#extras ??= new CellExtras();
  }
  get mailbox(): Mailbox | undefined {
    return this.#mailbox;
  }
  ensureMailbox(): Mailbox {
    return this.#mailbox ??= new Mailbox();
  }

  /** The actor's name: the one given, or `$` and its sequence number in base 36. */
  get name(): string {
    const key = this.childKey;
    return typeof key === "number" ? `$${key.toString(36)}` : key;
  }
  get path(): string {
    const parent = this.parentCell;
    return parent === undefined
      ? `/${this.name}`
      : `${parent.path}/${this.name}`;
  }
  /** Its lifecycle state, the low bits of #flags. */
  private get status(): number {
    return this.#flags & STATUS;
  }
  private setStatus(status: number): void {
    this.#flags = (this.#flags & ~STATUS) | status;
  }
  get isStopping(): boolean {
    return this.status >= STOPPING || (this.#flags & STOP_REQUESTED) !== 0;
  }
  get hasBegunStopping(): boolean {
    return this.status >= STOPPING;
  }
  get isStopped(): boolean {
    return this.status === STOPPED;
  }
  get isSuspended(): boolean {
    return this.status === SUSPENDED || this.status === ESCALATED;
  }
  get shutdownTimeoutMs(): number {
    return this.#props.shutdownTimeoutMs ?? this.core.shutdownTimeoutMs;
  }
  get receiveTimeoutSet(): boolean {
    return (this.#flags & RECEIVE_TIMEOUT) !== 0;
  }
  set receiveTimeoutSet(set: boolean) {
    this.#flags = set
      ? this.#flags | RECEIVE_TIMEOUT
      : this.#flags & ~RECEIVE_TIMEOUT;
  }
  get held(): boolean {
    return (this.#flags & HELD) !== 0;
  }
  set held(held: boolean) {
    this.#flags = held ? this.#flags | HELD : this.#flags & ~HELD;
  }
  get turnMessage(): unknown {
    return (this.#flags & HANDED) === 0 ? this.#message : NO_MESSAGE;
  }
  get turnSender(): ActorRef<unknown> | undefined {
    // Between turns the slot may hold a handed message not yet processed.
    return (this.#flags & HANDED) === 0 ? this.#sender : undefined;
  }
  putTurnAside(marker: symbol): void {
    this.#flags &= ~TAKEN_OWED; // the stash owes an owed notice its outcome now
    this.#message = marker;
  }
  takeTurnAsSent(message: unknown): unknown {
    if ((this.#flags & TAKEN_OWED) === 0) return message;
    this.#flags &= ~TAKEN_OWED;
    return this.#message;
  }
  abandonTurn(): unknown {
    this.#flags &= ~BUSY;
    const current = this.#message;
    this.#message = NO_MESSAGE;
    this.#sender = undefined;
    return current;
  }

  // ── Delivery ──

  tell(message: T | PoisonPill, sender?: ActorRef<never>): void {
    this.enqueue(message, sender);
  }

  /** Queues a runtime notice (a timer's tick, a Terminated): never handed, never a dead letter. */
  enqueueNotice(notice: Notice): void {
    this.queue(notice, undefined);
  }

  /**
   * Queues a notice someone sent (a transport's delivery that must hear its
   * turn end): never handed over, so the hand-off in `run` need only know
   * a PoisonPill. Refused, it is a dead letter.
   */
  enqueueSent(message: Notice, sender: unknown): void {
    this.queue(message, sender);
  }

  /**
   * Puts a message in the mailbox and makes sure the cell will run. A
   * RUNNING cell neither SCHEDULED nor BUSY is idle with an empty mailbox
   * (`run` unschedules only a drained cell), so it takes the message with
   * its turn: kept small, and written out, so that it inlines into `tell`.
   */
  enqueue(message: unknown, sender: unknown): void {
    if ((this.#flags & (STATUS | SCHEDULED | BUSY | GUARDED)) === RUNNING) {
      this.#message = message;
      this.#sender = sender as ActorRef<unknown> | undefined;
      this.#flags |= SCHEDULED | HANDED;
      this.core.dispatcher.schedule(this);
      return;
    }
    if ((this.#flags & GUARDED) !== 0 && this.guarded(message, sender)) return;
    this.queue(message, sender);
  }

  /**
   * A guarded door (GUARDED): the system inspects, or a pattern's door
   * (`undelivered.ts`, `openDoor`) sees what is told while the actor is idle
   * with nothing queued, so it cannot overtake what waits. `true` if the
   * door delivered it.
   */
  private guarded(message: unknown, sender: unknown): boolean {
    if (this.core.inspecting) {
      this.core.eventStream.publish(
        new MessageSent(message, sender as ActorRef<never>, this),
      );
    }
    const door = this.#extras?.door;
    return door !== undefined && !Notice.is(message) &&
      (this.#flags & (STATUS | SCHEDULED | BUSY)) === RUNNING &&
      door(message, sender as ActorRef<never> | undefined);
  }

  /** Opens (or with `undefined` closes) a pattern's door (`undelivered.ts`). */
  setDoor(door: Door | undefined): void {
    this.ensureExtras().door = door;
    if (door !== undefined || this.core.inspecting) this.#flags |= GUARDED;
    else this.#flags &= ~GUARDED;
  }

  /** The general case of {@linkcode ActorCell.enqueue}: the mailbox, or dead letters. */
  private queue(message: unknown, sender: unknown): void {
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
        (this.#extras?.restartCapacity ?? -1) >= 0 &&
        refusedWhileWaiting(this, message, sender)
      ) return;
    }
    const mailbox = this.#mailbox ??= new Mailbox();
    const capacity = this.#props.mailboxCapacity ?? this.core.mailboxCapacity;
    // A handed message waits too: it is logically the mailbox's head.
    const waiting = mailbox.size + ((this.#flags & HANDED) === 0 ? 0 : 1);
    if (waiting >= capacity && !isRuntimeNotice(message)) {
      const reason = `mailbox full (capacity ${capacity})`;
      this.core.deadLetter(message, sender, this, reason);
      return;
    }
    mailbox.push(message, sender);
    if (
      (this.#flags & (SCHEDULED | BUSY)) === 0 && this.status < SUSPENDED
    ) {
      this.#flags |= SCHEDULED;
      this.core.dispatcher.schedule(this);
    }
  }

  /** Puts a handed message back at the head of the mailbox, where it logically is. */
  settleHanded(): void {
    if ((this.#flags & HANDED) === 0) return;
    this.#flags &= ~HANDED;
    const message = this.#message;
    const sender = this.#sender;
    this.#message = NO_MESSAGE;
    this.#sender = undefined;
    (this.#mailbox ??= new Mailbox()).unshift(message, sender);
  }

  // ── Children ──

  /** Creates, registers and schedules the start of a child. */
  actorOf<C>(props: Props<C>, name?: string): ActorCell<C> {
    return this.spawn(props, name, undefined);
  }

  /** {@linkcode ActorCell.actorOf}, the child's cell made by `make` (a transport's, `remote.ts`). */
  spawn<C>(
    props: Props<C>,
    name: string | undefined,
    make: CellMaker<C> | undefined,
  ): ActorCell<C> {
    // Throws for bad props, a bad or taken name, or a stopping parent.
    const childKey = newChildKey(this, props, name);
    const child = make === undefined
      ? new ActorCell(this.core, this, childKey, props)
      : make(this.core, this, childKey, props);
    (this.ensureExtras().children ??= new Children()).add(child.port);
    child.scheduleIfRunnable();
    return child;
  }

  /** A child has stopped for good. */
  childTerminated(child: CellPort): void {
    const children = this.#extras?.children;
    children?.remove(child);
    if (this.status === STOPPING) {
      if (children === undefined || children.size === 0) this.finishStop();
    } else if (
      (this.#flags & RESTART_PENDING) !== 0 && !this.hasStoppingChildren()
    ) {
      this.#flags &= ~RESTART_PENDING;
      this.scheduleIfRunnable();
    }
  }

  private hasStoppingChildren(): boolean {
    return this.#extras?.children?.some((child) => child.isStopping) ?? false;
  }

  // ── The turn ──

  /**
   * Called by the dispatcher: starts, stops, or processes up to THROUGHPUT
   * messages. The cell stays SCHEDULED while it runs, so messages it sends
   * itself do not queue it a second time.
   */
  run(): void {
    let budget = THROUGHPUT;
    if ((this.#flags & HANDED) !== 0) {
      if ((this.#flags & (STATUS | BUSY | STOP_REQUESTED)) === RUNNING) {
        this.#flags &= ~HANDED;
        budget--;
        if ((this.#flags & RECEIVE_TIMEOUT) !== 0) {
          noteMessage(this);
        }
        // A PoisonPill is the one notice `tell` hands over (the others have
        // doors of their own, which queue them). Checked here, `typeof`
        // first: run() is never inlined, and comparing a number or string
        // with an object generically measured ~10% of a ping-pong.
        const message = this.#message;
        if (typeof message === "object" && message === PoisonPill) {
          this.poisoned(this.#sender);
        } else this.receive(message); // the handed message is already current
      } else this.settleHanded();
    }
    if (this.status === NEW) {
      if ((this.#flags & (RESTART_PENDING | HELD)) !== 0) {
        this.#flags &= ~SCHEDULED;
        return;
      }
      // Even an actor stopped before it ran is started first, so that its
      // preStart and postStop both run (as in Akka).
      const extras = this.#extras;
      const restartReason = extras === undefined
        ? NO_MESSAGE
        : extras.restartReason;
      if (extras !== undefined) extras.restartReason = NO_MESSAGE;
      const handling = this.#props.failureHandling; // a kept wait, waited again
      if (restartReason === NO_MESSAGE && handling?.restoreWait(this)) {
        this.setStatus(SUSPENDED);
      } else this.start(restartReason);
    }
    for (;;) {
      // One test for the common case: running, not busy, no stop asked.
      const flags = this.#flags;
      if ((flags & (STATUS | BUSY | STOP_REQUESTED)) !== RUNNING) {
        if ((flags & (BUSY | STOP_REQUESTED)) !== STOP_REQUESTED) break;
        this.#flags = flags & ~SCHEDULED;
        this.beginStop();
        return;
      }
      const mailbox = this.#mailbox;
      if (mailbox === undefined || mailbox.size === 0) break;
      if (budget-- === 0) {
        this.core.dispatcher.schedule(this); // still SCHEDULED: to the back of the queue
        return;
      }
      const message = mailbox.shift();
      // Current before anything looks at it: a runtime fault in the looking
      // (a revoked Proxy, at `instanceof`) dead-letters it.
      this.#message = message;
      // A message other than a timer's restarts the receive timeout's period.
      if (
        (flags & RECEIVE_TIMEOUT) !== 0 &&
        !(message instanceof Notice && message.quiet)
      ) noteMessage(this);
      this.invoke(message, mailbox.shiftedSender);
    }
    this.#flags &= ~SCHEDULED;
    // A restart or resume decided during this run may have left work to do.
    if (this.status !== RUNNING) this.scheduleIfRunnable();
  }

  /**
   * The dispatcher caught a throw escaping {@linkcode ActorCell.run}: a
   * fault of the runtime, or a message that throws at the runtime's one look
   * at it (a revoked `Proxy`, at `instanceof Notice`). Logged; the actor
   * fails like any other and the system goes on. The turn's message is a
   * dead letter, as when a handler throws; a handed one not yet begun stays
   * first in the mailbox.
   */
  crashed(error: unknown): void {
    const owed = (this.#flags & TAKEN_OWED) !== 0;
    this.#flags &= ~(SCHEDULED | BUSY | TAKEN_OWED);
    this.settleHanded();
    // A notice's hooks get what its handler got, as a throw gives them.
    const current = this.#message;
    const message = Notice.is(current) ? current.inside : current;
    const sender = this.#sender;
    this.#message = NO_MESSAGE;
    this.#sender = undefined;
    const inFlight = this.#extras?.inFlight;
    if (inFlight !== undefined) {
      inFlight.abandoned = true; // its message is accounted for here
      this.#extras!.inFlight = undefined;
      endOwed(inFlight, putAside(message));
    }
    this.core.log.error(`runtime fault in the turn of ${this.path}`, error);
    // A stashed message is kept; a runtime notice was never anyone's.
    const undelivered = message !== NO_MESSAGE && !putAside(message) &&
      !isRuntimeNotice(message);
    // Its handler ran: an owed notice counts as taken, as with a throw.
    if (owed) (current as Notice).taken!();
    this.fail(error, undelivered ? message : NO_MESSAGE, sender, undelivered);
    this.scheduleIfRunnable();
  }

  /** Opens a message taken from the mailbox (already current; a notice by its own `open`) and handles it. */
  private invoke(message: unknown, sender: unknown): void {
    if (message instanceof Notice) {
      if ((message as unknown) === PoisonPill) return this.poisoned(sender);
      const opened = message.open(this);
      if (opened === NO_MESSAGE) {
        this.#message = NO_MESSAGE;
        return;
      }
      this.#sender = message.from(sender) as ActorRef<unknown> | undefined;
      if ((this.#flags & GUARDED) !== 0) this.inspect(opened);
      if (message.taken === undefined) {
        this.#message = opened;
        return this.receive(opened, message.quiet);
      }
      // It must hear when its turn ends. The turn's message stays the
      // notice, so that stash() keeps it as it came; taken when the turn
      // ends, unless stashed (TAKEN_OWED cleared) or held by an async
      // handler (taken when that ends).
      this.#flags |= TAKEN_OWED;
      this.receive(opened);
      if ((this.#flags & TAKEN_OWED) !== 0) {
        this.#flags &= ~TAKEN_OWED;
        message.taken();
      }
      return;
    }
    this.#sender = sender as ActorRef<unknown> | undefined;
    if ((this.#flags & GUARDED) !== 0) this.inspect(message);
    this.receive(message);
  }

  /** An inspected cell (never handed a message) publishes what its handler gets next. */
  private inspect(message: unknown): void {
    if (!this.core.inspecting) return; // guarded for a pattern's door only
    this.core.eventStream.publish(
      new MessageReceived(message, this.#sender as ActorRef<never>, this),
    );
  }

  /**
   * Runs the handler on `message`; a throw or a rejection is a failure.
   * `timer`: the message is a timer's, which is no activity for a receive
   * timeout, nor is the time its async handler takes.
   */
  private receive(message: unknown, timer = false): void {
    const sender = this.#sender;
    const result = receive(
      this.#actor as unknown as Actor<never>,
      this.#extras?.behavior,
      message,
    );
    if (result === DONE) {
      this.#message = NO_MESSAGE; // the turn is over
      this.#sender = undefined;
    } else if (result === THREW) {
      this.failTurn(thrown(), message, sender);
    } else this.holdUntilSettled(result, message, sender, undefined, timer);
  }

  /**
   * A `PoisonPill` reached the head of the mailbox: the actor stops as with
   * `stopSelf()`. The guardian is stopped by `system.terminate()` only.
   */
  private poisoned(sender: unknown): void {
    this.#message = NO_MESSAGE;
    this.#sender = undefined;
    if (this.parentCell !== undefined) return this.requestStop();
    this.core.deadLetter(
      PoisonPill,
      sender,
      this,
      "the guardian is stopped by system.terminate(), not by a PoisonPill",
    );
  }

  /** The handler threw or rejected: its message is a dead letter, unless `stash()` took it. */
  private failTurn(error: unknown, message: unknown, sender: unknown): void {
    const current = this.#message;
    this.#message = NO_MESSAGE;
    this.#sender = undefined;
    // An owed notice was taken, if failed: told so first, so that a fault
    // in handling the failure cannot leave it untold.
    if ((this.#flags & TAKEN_OWED) !== 0) {
      this.#flags &= ~TAKEN_OWED;
      (current as Notice).taken!();
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
   * `onReceive` runs; then goes on with `next`, or fails like a throw. The
   * settlement of one the cell no longer waits for (a restart replaced the
   * instance, a stop abandoned it) is stale.
   */
  private holdUntilSettled(
    result: PromiseLike<unknown>,
    message: unknown,
    sender: unknown,
    next: (() => void) | undefined,
    timerTurn = false,
  ): void {
    const extras = this.ensureExtras();
    // An owed notice is taken when its handler ends (a stash after an
    // `await` keeps it owed too).
    let owed: Notice | undefined;
    if ((this.#flags & TAKEN_OWED) !== 0) {
      this.#flags &= ~TAKEN_OWED;
      owed = this.#message as Notice;
    }
    const inFlight: InFlight = {
      message,
      sender,
      abandoned: false,
      timer: undefined,
      owed,
    };
    extras.inFlight = inFlight;
    this.#flags |= BUSY;
    if ((this.#flags & STOP_REQUESTED) !== 0) armStopTimer(this);
    whenSettled(
      result,
      () => {
        if (extras.inFlight !== inFlight) {
          return leftBehindSettled(this, inFlight);
        }
        extras.inFlight = undefined;
        this.#flags &= ~BUSY;
        endOwed(inFlight, putAside(this.#message));
        this.#message = NO_MESSAGE;
        this.#sender = undefined;
        // An async handler's time counts as busy, not idle (but a timer's).
        if (!timerTurn && (this.#flags & RECEIVE_TIMEOUT) !== 0) {
          noteMessage(this);
        }
        // `undefined` for a handler: no closure kept per cell for the common case.
        if (next === undefined) this.scheduleIfRunnable();
        else next();
      },
      (error) => {
        if (extras.inFlight === inFlight) {
          extras.inFlight = undefined;
          this.#flags &= ~BUSY;
          endOwed(inFlight, putAside(this.#message));
          this.failTurn(error, message, sender);
        } else {
          leftBehindSettled(this, inFlight);
          // Unless it was accounted for already (abandoned, or stashed).
          if (!inFlight.abandoned) {
            staleFailure(this, error, message, sender);
          }
        }
      },
    );
  }

  /** Queues the cell on the dispatcher if it has something to do and is not queued or busy. */
  scheduleIfRunnable(): void {
    const flags = this.#flags;
    if ((flags & (SCHEDULED | BUSY)) !== 0) return;
    const status = this.status;
    if (
      (flags & STOP_REQUESTED) !== 0 ||
      (status === NEW && (flags & (RESTART_PENDING | HELD)) === 0) ||
      (status === RUNNING && this.#mailbox !== undefined &&
        this.#mailbox.size > 0)
    ) {
      this.#flags |= SCHEDULED;
      this.core.dispatcher.schedule(this);
    }
  }

  // ── Start and restart ──

  /** A fresh instance, and `preStart` (first start) or `postRestart(reason)`. */
  private start(restartReason: unknown): void {
    this.setStatus(STARTING);
    this.#flags |= UNSTARTED;
    if (this.#extras !== undefined) this.#extras.retired = undefined;
    releaseHeld(this); // siblings restarted after this one start after it
    const actor = construct(this, this.#props.factory, this.path);
    if (actor === THREW) return this.fail(thrown());
    this.#actor = actor;
    const user = actor as unknown as Actor<never>;
    const result = restartReason === NO_MESSAGE
      ? hook(user, "preStart")
      : hook(user, "postRestart", restartReason);
    if (result === DONE) this.started(restartReason);
    else if (result === THREW) this.fail(thrown());
    else {
      this.holdUntilSettled(
        result,
        NO_MESSAGE,
        undefined,
        () => this.started(restartReason),
      );
    }
  }

  private started(restartReason: unknown): void {
    if (this.status !== STARTING) return;
    this.setStatus(RUNNING);
    this.#flags &= ~UNSTARTED;
    this.#props.failureHandling?.actorStarted(this);
    const events = this.core.eventStream;
    if (events.hasSubscribers) {
      events.publish(
        restartReason === NO_MESSAGE
          ? new ActorStarted(this)
          : new ActorRestarted(this, restartReason),
      );
    }
    this.scheduleIfRunnable();
  }

  /**
   * Replaces the instance: `preRestart` on the old one now, a fresh one on
   * the next run (through the dispatcher, so an actor failing in every start
   * cannot recurse). An async handler in flight is left behind
   * (`in_flight.ts`). With `after` (a sibling restarted in the same group),
   * the fresh instance waits (HELD) until `after`'s has begun to start.
   */
  restart(reason: unknown, message: unknown, after?: Supervised): void {
    this.settleHanded();
    this.setStatus(NEW);
    // Stashed by the handler in flight: the stash (kept across the restart)
    // accounts for its message, which the fresh instance gets again.
    const keptAside = putAside(this.#message);
    this.#message = NO_MESSAGE;
    this.#sender = undefined;
    // The receive timeout is the old instance's (its timer goes below).
    this.#flags &= ~(BUSY | RECEIVE_TIMEOUT);
    const extras = this.#extras;
    const inFlight = extras?.inFlight;
    if (extras !== undefined) {
      if (inFlight !== undefined) {
        if (keptAside) {
          inFlight.abandoned = true; // owes no dead letter when it ends
          endOwed(inFlight, true);
        }
        leaveBehind(this, inFlight);
      }
      extras.inFlight = undefined;
      // The old instance's timers go, a typed backoff's pending restart too.
      extras.timers?.clear();
      extras.restartCapacity = -1;
      extras.behavior = undefined;
      extras.behaviorStack = undefined;
      if (extras.door !== undefined) this.setDoor(undefined); // the old instance's
      // Stashed messages survive a restart, ahead of the mailbox (as Akka's Stash).
      if (extras.stash !== undefined && extras.stash.size > 0) {
        (this.#mailbox ??= new Mailbox()).prependAll(extras.stash);
      }
    }
    this.retireInstance(reason, message, inFlight);
    this.ensureExtras().restartReason = reason;
    if (after instanceof ActorCell && after !== this && after.status === NEW) {
      holdBehind(this, after.port);
    }
    if (this.hasStoppingChildren()) this.#flags |= RESTART_PENDING;
    else this.scheduleIfRunnable();
  }

  retire(reason: unknown, message: unknown): void {
    this.retireInstance(reason, message, undefined);
  }

  /**
   * Runs `preRestart` on the instance, if there still is one, and lets it
   * go. A restart does this at once; a typed backoff at the failure, before
   * its wait (as Akka Typed), so cleanup does not wait the backoff.
   */
  private retireInstance(
    reason: unknown,
    message: unknown,
    inFlight: InFlight | undefined,
  ): void {
    const old = this.#actor;
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
    this.#actor = undefined;
    this.ensureExtras().retired = old;
    const leftBehind = inFlight?.message === NO_MESSAGE ? undefined : inFlight;
    replaceContext(this, old, leftBehind);
  }

  /** A typed backoff's restart: after `delayMs`, at most `capacity` waiting (`restart_after.ts`). */
  restartAfter(
    delayMs: number,
    reason: unknown,
    message: unknown,
    capacity: number | undefined,
  ): void {
    scheduleRestart(this, delayMs, reason, message, capacity);
  }

  /** Schedules the first start of the guardian (children are scheduled by actorOf). */
  requestStart(): void {
    this.scheduleIfRunnable();
  }

  /** Continues after a `Resume` directive. */
  resume(): void {
    if (!this.isSuspended) return;
    // Failed while starting, there is no instance to resume: it starts
    // again; one whose async start was under way (a sibling escalated)
    // goes back to finishing it.
    const flags = this.#flags;
    // A sibling restarted with the group but not yet started has no
    // instance either: it goes back to waiting for its start.
    this.setStatus(
      (flags & UNSTARTED) === 0 && this.#actor !== undefined
        ? RUNNING
        : (flags & BUSY) !== 0
        ? STARTING
        : NEW,
    );
    // Children suspended because this actor escalated for them resume too.
    for (const child of this.#extras?.children?.toArray() ?? []) {
      if (child instanceof ActorCell && child.status === ESCALATED) {
        child.resume();
      }
    }
    this.scheduleIfRunnable();
  }

  /** Suspended until the parent's supervisor decides (this actor or a sibling escalated). */
  awaitParent(): void {
    if (this.isStopping) return; // a stop, begun or asked for, goes on
    this.setStatus(ESCALATED);
  }

  // ── Failure ──

  /**
   * The actor threw or rejected (or, with no `message`, a child escalated):
   * suspend it and hand it to `handleFailure`. An actor stopping or asked
   * to stop only logs it. `undelivered`: `message` still needs an outcome.
   */
  fail(
    error: unknown,
    message: unknown = NO_MESSAGE,
    sender?: unknown,
    undelivered: boolean = message !== NO_MESSAGE,
  ): void {
    if (undelivered) {
      const reason = `processing failed: ${describeError(error)}`;
      this.core.deadLetter(message, sender, this, reason);
    }
    if (this.status >= STOPPING) {
      return this.logError("failed while stopping", error);
    }
    this.setStatus(SUSPENDED);
    if ((this.#flags & STOP_REQUESTED) !== 0) {
      this.logError("failed", error);
      return this.beginStop();
    }
    handleFailure(this, error, message);
  }

  // ── Stop ──

  /** Asks the cell to stop after the message in flight; idempotent. */
  requestStop(): void {
    if (this.isStopping) return;
    this.#flags |= STOP_REQUESTED;
    if ((this.#flags & BUSY) !== 0) armStopTimer(this);
    this.scheduleIfRunnable();
  }

  /** The last handler a restart left behind ended: a stop waiting for it goes on. */
  leftBehindEnded(): void {
    if (
      this.status === STOPPING && (this.#extras?.children?.size ?? 0) === 0
    ) this.finishStop();
  }

  /** The shutdown timeout passed: abandon what the stop still waits for. */
  stopTimedOut(timeoutMs: number): void {
    if ((this.#flags & BUSY) !== 0) {
      abandonInFlight(this, timeoutMs);
      this.scheduleIfRunnable(); // STOP_REQUESTED: the stop proceeds
    } else if (this.status === STOPPING) {
      // Waiting for handlers left behind (#finishStop): abandoned, the last
      // one's end goes on with the stop.
      reportTimedOut(this, "handler", timeoutMs);
      abandonAllLeftBehind(
        this,
        `abandoned: a restart replaced its handler, which did not settle within the ${timeoutMs} ms shutdown timeout`,
      );
    } else if (this.status === POST_STOP) {
      reportTimedOut(this, "postStop", timeoutMs);
      this.terminated();
    }
  }

  /** Drops timers, hands over or dead-letters the mailbox, stops the children (newest first). */
  private beginStop(): void {
    this.enterStopping();
    const children = this.#extras?.children;
    if (children === undefined || children.size === 0) {
      return this.finishStop();
    }
    const all = children.toArray();
    for (let i = all.length - 1; i >= 0; i--) all[i].requestStop();
  }

  private enterStopping(): void {
    this.setStatus(STOPPING);
    this.#flags &= ~(STOP_REQUESTED | RESTART_PENDING);
    const extras = this.#extras;
    if (extras !== undefined) {
      if (extras.door !== undefined) this.setDoor(undefined);
      // A typed backoff's pending restart too (`restart_after.ts`).
      if (extras.timers !== undefined) this.closeTimers(extras.timers);
      extras.restartCapacity = -1;
    }
    releaseUndelivered(this);
  }

  /**
   * The system's shutdown deadline passed (`SystemCore.terminate`): stop
   * now, children first (newest first), abandoning whatever each still
   * waits for. `postStop` still runs where it has not, unawaited.
   */
  forceStop(timeoutMs: number): void {
    if (this.status === STOPPED) return;
    const children = this.#extras?.children?.toArray() ?? [];
    for (let i = children.length - 1; i >= 0; i--) {
      (children[i] as ActorCell<never>).forceStop(timeoutMs);
    }
    // The last child's end may have finished this cell's own stop.
    if (this.status === STOPPED) return;
    clearStopTimer(this);
    if ((this.#flags & BUSY) !== 0) abandonInFlight(this, timeoutMs);
    if (this.status < STOPPING) this.enterStopping();
    if (this.status === STOPPING) this.callPostStop(() => {});
    else reportTimedOut(this, "postStop", timeoutMs);
    this.terminated();
  }

  private finishStop(): void {
    if (this.status !== STOPPING) return;
    // Handlers a restart left behind end first, as the one in flight does:
    // their messages were taken, and postStop cleans up after them.
    if ((this.#extras?.leftBehind?.size ?? 0) > 0) {
      return armStopTimer(this);
    }
    const waiting = this.callPostStop(() => this.terminated());
    if (waiting) armStopTimer(this);
    else this.terminated();
  }

  /** Runs `postStop` once; `true` if it returned a promise, which calls `done` when settled. */
  private callPostStop(done: () => void): boolean {
    this.setStatus(POST_STOP);
    const actor = this.#actor;
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

  private terminated(): void {
    if (this.status === STOPPED) return; // a postStop that settled after its timeout
    this.setStatus(STOPPED);
    clearStopTimer(this);
    releaseHeld(this); // stopped before it started: they wait no longer
    abandonAllLeftBehind(this);
    announceTermination(this);
    const events = this.core.eventStream;
    if (events.hasSubscribers) events.publish(new ActorStopped(this));
    const parent = this.parentCell;
    if (parent === undefined) this.core.guardianTerminated();
    else parent.childTerminated(this);
  }
}
