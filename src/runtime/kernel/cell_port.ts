// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The cell as its features see it: the one interface through which death
 * watch, children, ask, timers, `become`/`stash`, receive timeouts and
 * async handlers left behind (each in its own file under `runtime/`) reach
 * an actor's cell. The cell's own state (its lifecycle state, flags, message
 * slot and mailbox) is private to `cell.ts`; a feature reads and changes it
 * only through the operations below, each named for what it means, and
 * keeps its own state in the cell's {@linkcode CellExtras}, which is the
 * features' and not the kernel's.
 *
 * Internal to the runtime.
 *
 * @module
 */

import type { ActorRef } from "../actor_ref.ts";
import type { SystemCore } from "../actor_system.ts";
import type { Logger } from "../logging.ts";
import type { Props } from "../props.ts";
import type { ActorTimers, TimerScheduler } from "../features/timers.ts";
import type { Supervisor } from "../../supervision/supervised.ts";
import type { CellExtras, NO_MESSAGE } from "./cell_state.ts";
import type { Mailbox, Notice } from "./mailbox.ts";

/**
 * A pattern's door: offered what is told to its actor while the actor is
 * idle with nothing queued (so it cannot overtake what waits); `true` if it
 * delivered the message itself (to a child, say). Never a notice.
 */
export type Door = (
  message: unknown,
  sender: ActorRef<never> | undefined,
) => boolean;

/**
 * What a feature may read of a cell and do to it; with what supervision
 * may (`Supervisor`: restart, resume, stop, a typed backoff's restart).
 */
export interface CellPort extends ActorRef<never>, Supervisor {
  // ── What the cell is ──
  readonly core: SystemCore;
  /** The settings of its props (not the factory, typed by its messages). */
  readonly props: Omit<Props<never>, "factory">;
  readonly path: string;
  readonly log: Logger;
  /** The parent's cell; `undefined` for a guardian. */
  readonly parentCell: CellPort | undefined;
  readonly children: readonly CellPort[];
  /** The key in the parent's children (`children.ts`). */
  readonly childKey: string | number;
  /** Where the cell sits in its parent's children; kept by `Children`. */
  childSlot: number;
  /** The live instance, if any (none between a restart and the next start). */
  readonly instance: object | undefined;
  /** How long a stop waits for what is in flight. */
  readonly shutdownTimeoutMs: number;
  now(): number;

  // ── Where it is in its life ──
  /** Stopping, stopped, or asked to stop. */
  readonly isStopping: boolean;
  /** Its stop has begun (postStop may not have run yet). */
  readonly hasBegunStopping: boolean;
  readonly isStopped: boolean;
  /** Suspended: failed, waiting for its supervisor or a typed backoff. */
  readonly isSuspended: boolean;

  // ── The features' own state ──
  readonly extras: CellExtras | undefined;
  ensureExtras(): CellExtras;
  actorTimers(): ActorTimers;
  /** The context's `timers` (`ActorContext.timers`). */
  readonly timers: TimerScheduler;
  /** A receive timeout is set: every message notes its arrival (`receive_timeout.ts`). */
  receiveTimeoutSet: boolean;
  /** Restarted with a group, it waits for a sibling to begin to start (`children.ts`). */
  held: boolean;

  // ── Messages ──
  /** The mailbox, if one was made. */
  readonly mailbox: Mailbox | undefined;
  /** The mailbox, made on first use. */
  ensureMailbox(): Mailbox;
  /**
   * The message of the turn under way (`NO_MESSAGE` between turns), or a
   * stash's marker once `stash()` took it.
   */
  readonly turnMessage: unknown | typeof NO_MESSAGE;
  readonly turnSender: ActorRef<unknown> | undefined;
  /**
   * `stash()` took the turn's message (`marker` STASHED) or dead-lettered
   * it (STASH_OVERFLOWED): the turn no longer owes it an outcome, nor its
   * owed notice a `taken()`.
   */
  putTurnAside(marker: symbol): void;
  /**
   * The turn's message as it was sent (an owed notice, not what the
   * handler got) for a pattern that passes it on, which then owes its
   * outcome; `message` when the turn owes none (`undelivered.ts`).
   */
  takeTurnAsSent(message: unknown): unknown;
  /** Puts a handed-over message back at the head of the mailbox. */
  settleHanded(): void;
  enqueueNotice(notice: Notice): void;
  /** Queues a notice someone sent (a transport's delivery), never handed over. */
  enqueueSent(message: Notice, sender: unknown): void;
  /** Opens (or with `undefined` closes) a pattern's door. */
  setDoor(door: Door | undefined): void;
  scheduleIfRunnable(): void;

  // ── Lifecycle steps the features drive ──
  /** Runs `preRestart` on the instance, if any, and lets it go. */
  retire(reason: unknown, message: unknown): void;
  /** Gives up on the async handler in flight: returns the turn's message slot. */
  abandonTurn(): unknown;
  /** A child has stopped for good. */
  childTerminated(child: CellPort): void;
  stopTimedOut(timeoutMs: number): void;
  leftBehindEnded(): void;
}
