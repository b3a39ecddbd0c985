// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Timers owned by one actor (`this.context.timers`): keyed, cancelled
 * together when the actor stops or restarts.
 *
 * A timer that falls due puts a ticket in the actor's mailbox, not the
 * message itself. The ticket is checked when it is taken out, so a timer
 * cancelled or replaced after it fell due, but before its message was
 * processed, never delivers.
 *
 * @module
 */

import { checkDelay, fail } from "../../validation.ts";
import type { CellPort } from "../kernel/cell_port.ts";
import { NO_MESSAGE } from "../kernel/cell_state.ts";
import { Notice } from "../kernel/mailbox.ts";
import { RECEIVE_TIMEOUT_KEY, receiveTimeoutDue } from "./receive_timeout.ts";
import type { Scheduler } from "../ports/scheduler.ts";

/**
 * Keyed timers of one actor, as `this.context.timers`. Each delivers its
 * message to the actor itself; starting a timer with a key in use replaces
 * the old one. All are cancelled when the actor stops or restarts.
 *
 * @example Usage
 * ```ts
 * import { Actor } from "@understudy/core";
 *
 * class Poller extends Actor<"tick" | "stop"> {
 *   override preStart(): void {
 *     this.context.timers.startTimerWithFixedDelay("poll", "tick", 1_000);
 *   }
 *   onReceive(message: "tick" | "stop"): void {
 *     if (message === "stop") this.context.timers.cancel("poll");
 *   }
 * }
 * ```
 */
export interface TimerScheduler {
  /**
   * Sends `message` to this actor once, after `delayMs`.
   *
   * @example Usage
   * ```ts
   * import { Actor } from "@understudy/core";
   *
   * class Session extends Actor<"timeout"> {
   *   override preStart(): void {
   *     this.context.timers.startSingleTimer("idle", "timeout", 30_000);
   *   }
   *   onReceive(): void {
   *     this.context.stopSelf();
   *   }
   * }
   * ```
   *
   * @param key Identifies the timer; a running timer with this key is replaced.
   * @param message What to deliver.
   * @param delayMs Milliseconds, 0 to 2,147,483,647.
   */
  startSingleTimer(key: unknown, message: unknown, delayMs: number): void;

  /**
   * Sends `message` to this actor every `delayMs`, first after
   * `initialDelayMs` (default `delayMs`).
   *
   * @example Usage
   * ```ts
   * import { Actor } from "@understudy/core";
   *
   * class Heartbeat extends Actor<"beat"> {
   *   override preStart(): void {
   *     this.context.timers.startTimerWithFixedDelay("beat", "beat", 5_000, 0);
   *   }
   *   onReceive(): void {}
   * }
   * ```
   *
   * @param key Identifies the timer; a running timer with this key is replaced.
   * @param message What to deliver each time.
   * @param delayMs Milliseconds between deliveries, 1 to 2,147,483,647.
   * @param initialDelayMs Milliseconds before the first delivery.
   */
  startTimerWithFixedDelay(
    key: unknown,
    message: unknown,
    delayMs: number,
    initialDelayMs?: number,
  ): void;

  /**
   * `true` while the timer with `key` is started and its last message not
   * yet processed.
   *
   * @example Usage
   * ```ts
   * import { Actor } from "@understudy/core";
   *
   * class Debounce extends Actor<"input" | "flush"> {
   *   onReceive(message: "input" | "flush"): void {
   *     if (message === "input" && !this.context.timers.isTimerActive("flush")) {
   *       this.context.timers.startSingleTimer("flush", "flush", 100);
   *     }
   *   }
   * }
   * ```
   *
   * @param key The timer's key.
   * @returns Whether it is active.
   */
  isTimerActive(key: unknown): boolean;

  /**
   * Cancels the timer with `key`. Its message is not delivered, even if the
   * timer already fell due.
   *
   * @example Usage
   * ```ts
   * import { Actor } from "@understudy/core";
   *
   * class Retry extends Actor<"ok" | "retry"> {
   *   onReceive(message: "ok" | "retry"): void {
   *     if (message === "ok") this.context.timers.cancel("retry");
   *   }
   * }
   * ```
   *
   * @param key The timer's key.
   */
  cancel(key: unknown): void;

  /**
   * Cancels every timer of this actor started through these timers. A
   * receive timeout is not one of them: `setReceiveTimeout(undefined)`
   * cancels it.
   *
   * @example Usage
   * ```ts
   * import { Actor } from "@understudy/core";
   *
   * class Quiet extends Actor<"hush"> {
   *   onReceive(): void {
   *     this.context.timers.cancelAll();
   *   }
   * }
   * ```
   */
  cancelAll(): void;
}

/** A scheduled timer; also the notice that reaches the mailbox. Internal. */
export class TimerTicket extends Notice {
  // `declare`d, as the constructor assigns them: a field would be emitted
  // once more, as a definition (undefined) before the assignment.
  declare readonly key: unknown;
  declare readonly message: unknown;
  /** Milliseconds between deliveries, or -1 for a single timer. */
  declare readonly repeatMs: number;
  declare handle: unknown;
  /**
   * The runtime's own timer (a receive timeout, a typed restart), which
   * `cancelAll()` leaves alone and a scheduler's `dueKeeper` keeps.
   */
  declare readonly internal: boolean;

  constructor(
    key: unknown,
    message: unknown,
    repeatMs: number,
    handle: unknown,
    internal: boolean,
  ) {
    super();
    this.key = key;
    this.message = message;
    this.repeatMs = repeatMs;
    this.handle = handle;
    this.internal = internal;
  }

  /** Its message, unless it was cancelled or replaced meanwhile. */
  override open(cell: CellPort): unknown {
    if (
      !cell.extras?.timers?.accept(this) ||
      // A receive timeout with a message meanwhile: re-armed for the rest.
      (this.key === RECEIVE_TIMEOUT_KEY && !receiveTimeoutDue(cell))
    ) return NO_MESSAGE;
    return this.message;
  }

  override from(): undefined {
    return undefined;
  }

  override get quiet(): boolean {
    return true;
  }
}

/**
 * One actor cell's timers: the {@linkcode TimerScheduler} users see, plus
 * the runtime's side, {@linkcode ActorTimers.accept}. Internal.
 */
export class ActorTimers implements TimerScheduler {
  readonly #active = new Map<unknown, TimerTicket>();
  readonly #deliver: (ticket: TimerTicket) => void;
  readonly #scheduler: Scheduler;
  /** The owner, whose path its kept due times are kept under. */
  readonly #owner: { readonly path: string };
  /** Set once the owner stops: told of each start, which starts nothing. */
  #closed: (() => void) | undefined = undefined;

  /**
   * @param scheduler The system's scheduler, which runs every timer.
   * @param deliver Puts a due ticket in the owner's mailbox.
   * @param owner The owner's cell.
   */
  constructor(
    scheduler: Scheduler,
    deliver: (ticket: TimerTicket) => void,
    owner: { readonly path: string },
  ) {
    this.#scheduler = scheduler;
    this.#deliver = deliver;
    this.#owner = owner;
  }

  startSingleTimer(key: unknown, message: unknown, delayMs: number): void {
    this.#start(
      key,
      message,
      checkDelay("startSingleTimer", "delayMs", delayMs),
      -1,
      false,
    );
  }

  startTimerWithFixedDelay(
    key: unknown,
    message: unknown,
    delayMs: number,
    initialDelayMs: number = delayMs,
  ): void {
    const where = "startTimerWithFixedDelay";
    if (checkDelay(where, "delayMs", delayMs) === 0) {
      fail(
        where,
        "delayMs",
        "> 0, or the timer would flood the mailbox",
        delayMs,
        true,
      );
    }
    this.#start(
      key,
      message,
      checkDelay(where, "initialDelayMs", initialDelayMs),
      delayMs,
      false,
    );
  }

  isTimerActive(key: unknown): boolean {
    return this.#active.has(key);
  }

  cancel(key: unknown): void {
    const ticket = this.#active.get(key);
    if (ticket === undefined) return;
    this.#active.delete(key);
    this.#scheduler.clearTimeout(ticket.handle);
    this.forget(ticket);
  }

  cancelAll(): void {
    // The user's timers only: a receive timeout is set and cancelled through
    // its own call, as in Akka, and a pending restart is not the actor's.
    for (const [key, ticket] of this.#active) {
      if (ticket.internal) continue;
      this.#active.delete(key);
      this.#scheduler.clearTimeout(ticket.handle);
    }
  }

  /**
   * Starts a single timer of the runtime's own under a private key: the
   * user's `cancelAll()` leaves it alone, {@linkcode ActorTimers.clear}
   * cancels it. Where the scheduler keeps due times (`dueKeeper`), its due
   * time (and `data`) is kept as the key's description until it is
   * cancelled or the caller forgets it ({@linkcode ActorTimers.forget}).
   */
  startInternalTimer(
    key: symbol,
    message: unknown,
    delayMs: number,
    data?: unknown,
  ): void {
    this.#start(key, message, delayMs, -1, true, data);
  }

  /** Forgets the kept due time of the runtime's own timer (cancelled, or it ran). */
  forget(ticket: TimerTicket): void {
    if (ticket.internal) {
      this.#scheduler.dueKeeper?.drop(
        this.#owner.path,
        (ticket.key as symbol).description!,
      );
    }
  }

  /** Cancels every timer, the runtime's own too: the owner restarts. */
  clear(): void {
    for (const ticket of this.#active.values()) {
      this.#scheduler.clearTimeout(ticket.handle);
      this.forget(ticket);
    }
    this.#active.clear();
  }

  /**
   * The owner stops: cancels every timer, and a timer started from now on
   * (by `postStop`, or by an async handler the stop gave up on) starts
   * nothing, its message being for no one: `refused` is told instead.
   */
  close(refused: () => void): void {
    this.clear();
    this.#closed = refused;
  }

  /**
   * Called when a ticket is taken out of the mailbox: returns `true` if its
   * timer is still the active one for its key (so the message is delivered),
   * and retires a single timer.
   */
  accept(ticket: TimerTicket): boolean {
    if (this.#active.get(ticket.key) !== ticket) return false;
    if (ticket.repeatMs < 0) this.#active.delete(ticket.key);
    return true;
  }

  #start(
    key: unknown,
    message: unknown,
    delayMs: number,
    repeatMs: number,
    internal: boolean,
    data?: unknown,
  ): void {
    if (this.#closed !== undefined) return this.#closed();
    const old = this.#active.get(key);
    if (old !== undefined) this.#scheduler.clearTimeout(old.handle);
    // Replaced, not cancelled: what was kept for the key is kept anew.
    if (internal) {
      this.#scheduler.dueKeeper?.keep(
        this.#owner.path,
        (key as symbol).description!,
        delayMs,
        data,
      );
    }
    const ticket = new TimerTicket(key, message, repeatMs, undefined, internal);
    const scheduler = this.#scheduler;
    const fire = (): void => {
      if (this.#active.get(key) !== ticket) return;
      if (repeatMs >= 0) ticket.handle = scheduler.setTimeout(fire, repeatMs);
      this.#deliver(ticket);
    };
    ticket.handle = scheduler.setTimeout(fire, delayMs);
    this.#active.set(key, ticket);
  }
}
