// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * What an actor's own code calls: its `ActorContext` (and its ref's `ask`,
 * and what supervision reads of it), each call routed to the feature that
 * owns it: death watch (`watch.ts`), ask (`ask.ts`), timers (`timers.ts`),
 * `become` and `stash` (`stash.ts`), receive timeouts
 * (`receive_timeout.ts`). It is the base of the kernel's cell
 * (`kernel/cell.ts`), so a local actor is still one object, and it reaches
 * the cell only through the features' port (`kernel/cell_port.ts`).
 * Internal to the runtime.
 *
 * @module
 */

import type { ActorContext, Behavior } from "./actor.ts";
import { ActorRef, type AskOptions } from "./actor_ref.ts";
import type { ActorSystem, SystemCore } from "./actor_system.ts";
import { AskRef } from "./features/ask.ts";
import { ActorFailed } from "./event_stream.ts";
import type { CellExtras } from "./kernel/cell_state.ts";
import type { CellPort } from "./kernel/cell_port.ts";
import type { Mailbox } from "./kernel/mailbox.ts";
import { Logger } from "./logging.ts";
import type { Props } from "./props.ts";
import { setReceiveTimeout } from "./features/receive_timeout.ts";
import { RESTART_TIMER, restartDue } from "./features/restart_after.ts";
import { become, stash, unbecome, unstashAll } from "./features/stash.ts";
import { ActorTimers, type TimerScheduler } from "./features/timers.ts";
import {
  addRemoteWatch,
  addWatch,
  isRemotelyWatchable,
  removeRemoteWatch,
  TERMINATED,
  unwatch,
} from "./features/watch.ts";
import type { DueKeeper } from "./ports/due_keeper.ts";
import type { RestartType } from "../supervision/restart_type.ts";
import type { FaultHandlingStrategy } from "../supervision/strategy.ts";
import type {
  FailureHandling,
  SupervisionState,
} from "../supervision/supervised.ts";
import { describeValue, fail } from "../validation.ts";

/** An actor's context, over the cell's port. */
export abstract class CellContext<T> extends ActorRef<T>
  implements ActorContext<T> {
  abstract readonly core: SystemCore;
  abstract readonly props: Props<T>;
  abstract readonly parentCell: CellPort | undefined;
  abstract readonly extras: CellExtras | undefined;
  abstract readonly hasBegunStopping: boolean;
  abstract readonly turnSender: ActorRef<unknown> | undefined;
  abstract readonly receiveTimeoutSet: boolean;
  abstract readonly instance: object | undefined;
  abstract readonly mailbox: Mailbox | undefined;
  abstract ensureExtras(): CellExtras;
  abstract requestStop(): void;
  abstract enqueueNotice(notice: object): void;
  abstract actorOf<C>(props: Props<C>, name?: string): ActorRef<C>;

  /** This cell as the features' port takes it, whatever its message type. */
  get port(): CellPort {
    return this as unknown as CellPort;
  }

  ask<R = unknown>(message: T, options?: number | AskOptions): Promise<R> {
    return this.askFor(this.port, message, options);
  }

  /**
   * Asks `asked`, a ref with no system of its own (a transport's), as this
   * actor's system would: the ask's temporary ref belongs to that system,
   * and the question is sent with `asked.tell`, in order with its tells.
   */
  askFor<R = unknown>(
    asked: ActorRef<never>,
    message: unknown,
    options?: number | AskOptions,
  ): Promise<R> {
    // AskRef checks the options; with a signal already aborted it is born
    // settled, and the message is not sent.
    const asker = new AskRef<R>(this.core, asked, options);
    if (!asker.settled) {
      (asked as ActorRef<unknown>).tell(message, asker as ActorRef<never>);
    }
    return asker.promise;
  }

  get self(): ActorRef<T> {
    return this;
  }

  get sender(): ActorRef<unknown> | undefined {
    return this.turnSender;
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
      const port = this.port;
      timers = extras.timers = new ActorTimers(
        this.core.scheduler,
        // A typed backoff's pending restart is due while the actor is
        // suspended: it cannot wait its turn in the mailbox.
        (ticket) =>
          ticket.key === RESTART_TIMER
            ? restartDue(port, ticket)
            : this.enqueueNotice(ticket),
        port,
      );
      if (this.hasBegunStopping) this.closeTimers(timers);
    }
    return timers;
  }

  /** No timer of a stopping actor runs: one started later is refused. */
  closeTimers(timers: ActorTimers): void {
    timers.close(() =>
      this.log.warn(`ignored a timer started in ${this.path} after it stopped`)
    );
  }

  get children(): readonly CellPort[] {
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
    if (
      !(ref instanceof CellContext) ||
      (ref !== this && ref.parentCell !== this.port)
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
    return this.watchFor("watch", ref, TERMINATED);
  }

  watchWith<R>(ref: ActorRef<R>, message: T): ActorRef<R> {
    return this.watchFor("watchWith", ref, message);
  }

  /** Both ways of watching: only actors can be, and watching oneself does nothing. */
  private watchFor<R>(
    action: string,
    ref: ActorRef<R>,
    message: unknown,
  ): ActorRef<R> {
    if (!(ref instanceof CellContext)) {
      // A ref of another isolate's actor watches for itself.
      if (isRemotelyWatchable(ref)) {
        addRemoteWatch(this.port, ref, message);
        return ref;
      }
      fail(
        action,
        "ref",
        "an actor's ref, as from actorOf (not dead letters or an ask's temporary ref)",
        ref,
      );
    }
    if (ref !== this) addWatch(this.port, ref.port, message);
    return ref;
  }

  unwatch(ref: ActorRef<never>): void {
    if (ref instanceof CellContext) unwatch(this.port, ref.port);
    else removeRemoteWatch(this.port, ref);
  }

  get receiveTimeout(): number | undefined {
    return this.receiveTimeoutSet ? this.extras!.receiveTimeoutMs : undefined;
  }

  setReceiveTimeout(ms: number | undefined): void {
    setReceiveTimeout(this.port, ms);
  }

  become(behavior: Behavior<T>, options: { discardOld?: boolean } = {}): void {
    become(this.port, behavior as Behavior<never>, options);
  }

  unbecome(): void {
    unbecome(this.port);
  }

  stash(): boolean {
    return stash(this.port);
  }

  unstashAll(): void {
    unstashAll(this.port);
  }

  // ── What supervision reads (`../supervision/supervised.ts`) ──

  get restartType(): RestartType {
    return this.props.restart;
  }

  get failureHandling(): FailureHandling | undefined {
    return this.props.failureHandling;
  }

  get supervisor(): CellPort | undefined {
    return this.parentCell;
  }

  get supervisorStrategy(): FaultHandlingStrategy | undefined {
    return (this.instance as { supervisorStrategy?: FaultHandlingStrategy })
      ?.supervisorStrategy;
  }

  get supervisionState(): SupervisionState | undefined {
    return this.extras?.supervisionState;
  }

  set supervisionState(state: SupervisionState | undefined) {
    this.ensureExtras().supervisionState = state;
  }

  get dueKeeper(): DueKeeper | undefined {
    return this.core.scheduler.dueKeeper;
  }

  reportFailure(
    error: unknown,
    directive: string,
    loggingEnabled: boolean,
  ): void {
    if (loggingEnabled) this.log.error(`failed (${directive})`, error);
    const events = this.core.eventStream;
    if (events.hasSubscribers) {
      events.publish(new ActorFailed(this.port, error, directive));
    }
  }

  logError(what: string, error: unknown): void {
    this.log.error(what, error);
  }

  now(): number {
    return this.core.scheduler.now();
  }
}
