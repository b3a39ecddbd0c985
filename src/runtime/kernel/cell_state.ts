// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * What a cell is made of, for the cell (`cell.ts`) and the features
 * that attach to it (`stash.ts`, `receive_timeout.ts`, `in_flight.ts`): its
 * lifecycle states and flags, the markers its `currentMessage` slot can
 * hold, and the per-cell state most actors never need ({@linkcode CellExtras}).
 * Internal to the runtime.
 *
 * @module
 */

import type { Behavior } from "../actor.ts";
import type { CellPort, Door } from "./cell_port.ts";
import type { Children } from "../features/children.ts";
import type { Logger } from "../logging.ts";
import type { Mailbox, Notice } from "./mailbox.ts";
import type { ActorTimers } from "../features/timers.ts";
import type { DeathWatch } from "../features/watch.ts";
import type { SupervisionState } from "../../supervision/supervised.ts";

/*
 * A cell's lifecycle state, in order: a state >= SUSPENDED processes no
 * messages, one >= STOPPING never runs again.
 *
 *   NEW        made, or restarted: its next run starts a fresh instance
 *   STARTING   its constructor and preStart (or postRestart) run
 *   RUNNING    processes messages
 *   SUSPENDED  failed: its supervision decides (a typed backoff waits here)
 *   ESCALATED  suspended until its parent's supervisor decides (it, or a
 *              sibling, escalated): follows the parent's fate
 *   STOPPING   children stop, handlers left behind end
 *   POST_STOP  postStop has run or is running: never called twice
 *   STOPPED    for good
 *
 * Flags, and the states each may be set in ("·"):
 *
 *   flag             NEW  STARTING RUNNING SUSPENDED ESCALATED STOPPING POST_STOP STOPPED
 *   SCHEDULED         ·      ·        ·        ·         ·        ³         ³        ³
 *   BUSY                     ·        ·        ·¹        ·¹
 *   STOP_REQUESTED    ·      ·        ·        ·         ·
 *   RESTART_PENDING   ·                                  ·⁵
 *   HANDED                            ·        ·²        ·²
 *   HELD              ·                                  ·⁵
 *   RECEIVE_TIMEOUT          ·        ·        ·         ·        ·         ·        ·
 *   TAKEN_OWED                        ·
 *   UNSTARTED         ·⁴     ·                 ·         ·        ·         ·        ·
 *   GUARDED           ·      ·        ·        ·         ·        ·         ·        ·
 *
 * ¹ an async start or handler in flight when a child escalated to it
 * (SUSPENDED) or a sibling's escalation suspended it (ESCALATED); a resume
 * goes back to it. ² a message handed to the idle actor before a child's
 * escalation failed it; its next run puts it back in the mailbox. ³ within
 * the run that stopped it (a handler's `stopSelf()` and then a throw), or
 * after a forced stop (`forceStop`) until the run it was queued for finds
 * nothing to do. ⁴ restarted after failing to start: the next start sets it
 * anyway. ⁵ a sibling restarted with its group and not started yet when the
 * group escalated: a resume sends it back to NEW, which honours both.
 * TAKEN_OWED lasts only while a turn runs; a stop clears STOP_REQUESTED,
 * RESTART_PENDING and (putting the message back) HANDED.
 *
 * The cell keeps both in one number, the state in its low bits
 * ({@linkcode STATUS}) and the flags above them: a field less on every
 * actor (8 B of an idle actor's 163 on V8), and the door's test for an
 * idle, running cell (`enqueue`) is one mask.
 */
/** The bits of the state, in the cell's one number of state and flags. */
export const STATUS = 7;
export const NEW = 0;
export const STARTING = 1;
export const RUNNING = 2;
export const SUSPENDED = 3;
export const ESCALATED = 4;
export const STOPPING = 5;
export const POST_STOP = 6;
export const STOPPED = 7;

export const SCHEDULED = 8; // in the dispatcher's ready queue
export const BUSY = 16; // an async preStart or onReceive is in flight
export const STOP_REQUESTED = 32; // stop once the message in flight is done
export const RESTART_PENDING = 64; // restart once the children being stopped are gone
export const HANDED = 128; // the next message waits in the message slot, ahead of the mailbox
export const HELD = 256; // restarted with a group: starts once the sibling before it has begun to start
export const RECEIVE_TIMEOUT = 512; // a receive timeout is set: messages note their arrival
export const TAKEN_OWED = 1024; // the turn under way owes its notice `taken()` when it ends (not stashed, not async)
export const UNSTARTED = 2048; // its instance has not finished starting (preStart or postRestart): a resume starts again
export const GUARDED = 4096; // its system inspects, or a pattern's door sees what is told first: no message is handed over

/**
 * Marks a failure that happened outside any message (in start or restart);
 * as `currentMessage`, it means no turn is under way.
 */
export const NO_MESSAGE: unique symbol = Symbol("no message");
/** `currentMessage` after `stash()` took it: it is not this turn's to lose. */
export const STASHED: unique symbol = Symbol("stashed");
/** `currentMessage` after `stash()` overflowed: already a dead letter. */
export const STASH_OVERFLOWED: unique symbol = Symbol("stash overflowed");

/**
 * Whether `current` (a cell's `currentMessage`) says the turn's message was
 * put aside: stashed, or a full stash's dead letter already. Either way the
 * turn no longer owes it an outcome.
 */
export function putAside(current: unknown): boolean {
  return current === STASHED || current === STASH_OVERFLOWED;
}

/**
 * An async handler or start hook in flight. The cell keeps the one it
 * waits for; the settlement of any other (abandoned at a stop, or left
 * behind by a restart) is stale.
 */
export interface InFlight {
  readonly message: unknown;
  readonly sender: unknown;
  /** The cell gave up on it (and dead-lettered its message). */
  abandoned: boolean;
  /** Left behind by a restart: abandons it after the shutdown timeout. */
  timer: unknown;
  /**
   * The turn's notice that must hear its turn end (`Notice.taken`), taken
   * when the handler ends, however it ends; `undefined` once it is.
   */
  owed: Notice | undefined;
}

/** Per-cell state most actors never need, allocated on first use to keep idle actors small. */
export class CellExtras {
  deathWatch: DeathWatch | undefined = undefined;
  /** The handler installed by `become`; `undefined` means `onReceive`. */
  behavior: Behavior<never> | undefined = undefined;
  behaviorStack: (Behavior<never> | undefined)[] | undefined = undefined;
  /** A pattern's door, with the GUARDED flag (`undelivered.ts`, `openDoor`). */
  door: Door | undefined = undefined;
  stash: Mailbox | undefined = undefined;
  timers: ActorTimers | undefined = undefined;
  logger: Logger | undefined = undefined;
  /** What supervision keeps across restarts: restart counts, a typed backoff (`Supervised.supervisionState`). */
  supervisionState: SupervisionState | undefined = undefined;
  /** While a typed backoff waits to restart: how many messages may wait; -1 otherwise (`restart_after.ts`). */
  restartCapacity = -1;
  /** Live children, in creation order. */
  children: Children<CellPort> | undefined = undefined;
  generatedNames = 0;
  /**
   * The instance a restart let go, until the fresh one is made: it still
   * takes over what its children, stopping for the restart, never
   * processed (`undelivered.ts`).
   */
  retired: object | undefined = undefined;
  /** Why the next start is a restart; NO_MESSAGE for a first start. */
  restartReason: unknown = NO_MESSAGE;
  /** The async hook or handler the cell waits for (with the BUSY flag). */
  inFlight: InFlight | undefined = undefined;
  /** Async handlers of replaced instances, not settled yet: each still owes its message an outcome. */
  leftBehind: Set<InFlight> | undefined = undefined;
  /** Bounds a stop's wait for the handler in flight or for `postStop`. */
  stopTimer: unknown = undefined;
  /** Siblings restarted after this one in a group restart, HELD until it begins to start. */
  heldBehind: CellPort[] | undefined = undefined;
  /** The receive timeout (with the RECEIVE_TIMEOUT flag), in milliseconds. */
  receiveTimeoutMs = 0;
  /** When the last message (not a timer's) arrived, with the RECEIVE_TIMEOUT flag. */
  lastMessageAt = 0;
}
