// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * A typed `restartWithBackoff`'s wait: the runtime's side of
 * `Supervised.restartAfter`. The decision (how long, or give up) is made in
 * `../supervision/typed.ts`; here the failed actor, suspended, waits on its
 * own timers under a private key, so a stop or another restart cancels the
 * wait and the user's `timers.cancelAll()` leaves it alone. Meanwhile
 * messages wait in its mailbox, at most a capacity of them: the rest are
 * dead letters ("stash full while waiting to restart"). Internal to the
 * runtime; the cell calls these.
 *
 * Where the scheduler keeps due times (a durable host's, `dueKeeper`), the
 * wait's due time is kept with the restart count, until the restart (or a
 * stop) forgets it: an actor re-created in a new life of the system (after
 * an eviction) finds it at its first start, stays down until that time
 * (messages waiting, as here), then restarts, its count kept, once.
 *
 * @module
 */

import type { CellPort } from "../kernel/cell_port.ts";
import { isRuntimeNotice } from "../poison_pill.ts";
import type { TimerTicket } from "./timers.ts";
import { RESTART_KIND } from "../../supervision/supervised.ts";

/**
 * The key of the pending restart among the actor's timers; its description
 * is the kind its due time is kept as.
 */
export const RESTART_TIMER: unique symbol = /* @__PURE__ */ Symbol(
  RESTART_KIND,
);

const STASH_FULL = "stash full while waiting to restart";

/** What the pending restart's timer carries. */
interface RestartDue {
  readonly reason: unknown;
  readonly message: unknown;
}

/**
 * Restarts `cell` after `delayMs` (already checked and clamped by the
 * decision); meanwhile at most `capacity` messages wait (default: its
 * `Props` stash capacity).
 */
export function scheduleRestart(
  cell: CellPort,
  delayMs: number,
  reason: unknown,
  message: unknown,
  capacity: number | undefined,
): void {
  const timers = cell.actorTimers();
  // The failed instance will never see its timers' messages; stopped now,
  // they cannot fill the bounded wait with ticks.
  timers.clear();
  // Its cleanup (preRestart, which by default stops its children) runs at
  // the failure, as in Akka Typed, not at the end of the wait.
  cell.retire(reason, message);
  const bound = capacity ?? cell.props.stashCapacity;
  cell.ensureExtras().restartCapacity = bound;
  // The bound holds for what was queued behind the failure too: the oldest
  // wait, the rest are dead letters now.
  let kept = 0;
  const over: unknown[] = [];
  cell.mailbox?.removeWhere((queued, sender) => {
    if (isRuntimeNotice(queued) || kept++ < bound) return false;
    over.push(queued, sender);
    return true;
  });
  for (let i = 0; i < over.length; i += 2) {
    cell.core.deadLetter(over[i], over[i + 1], cell, STASH_FULL);
  }
  const due: RestartDue = { reason, message };
  // Kept: what the typed backoff needs to wait again in a later life.
  timers.startInternalTimer(
    RESTART_TIMER,
    due,
    delayMs,
    cell.core.scheduler.dueKeeper &&
      cell.props.failureHandling?.keptWait(cell, reason),
  );
}

/** The pending restart's timer fired: restart, unless a stop cancelled it. */
export function restartDue(cell: CellPort, ticket: TimerTicket): void {
  const timers = cell.actorTimers();
  if (!timers.accept(ticket)) return; // cancelled by a stop
  timers.forget(ticket); // before the restart: at most once
  cell.ensureExtras().restartCapacity = -1;
  const due = ticket.message as RestartDue;
  if (cell.isSuspended) cell.restart(due.reason, due.message);
}

/**
 * While `cell` waits to restart (its `restartCapacity` is 0 or more): `true`
 * if its mailbox is full, and then `message` is a dead letter. Runtime
 * notices are never refused.
 */
export function refusedWhileWaiting(
  cell: CellPort,
  message: unknown,
  sender: unknown,
): boolean {
  if (
    isRuntimeNotice(message) ||
    (cell.mailbox?.size ?? 0) < cell.extras!.restartCapacity
  ) {
    return false;
  }
  cell.core.deadLetter(message, sender, cell, STASH_FULL);
  return true;
}
