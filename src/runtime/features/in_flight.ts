// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * What happens to an async handler or hook still in flight when its actor
 * restarts or stops, so that every message gets one outcome and no stop
 * waits forever. A restart leaves the replaced instance's handler behind: it
 * may still settle (a rejection is then a dead letter), and after the
 * shutdown timeout it is abandoned and its message becomes a dead letter.
 * A stop waits for the handler in flight, for the handlers left behind and
 * for an async `postStop`, at most the shutdown timeout each (the stop
 * timer), then abandons them with an `ActorStopTimedOut` event; a stop
 * forced by the system's deadline abandons them at once. Internal to the
 * runtime; the cell calls these.
 *
 * @module
 */

import type { CellPort } from "../kernel/cell_port.ts";
import type { ActorRef } from "../actor_ref.ts";
import { type InFlight, NO_MESSAGE, putAside } from "../kernel/cell_state.ts";
import { ActorStopTimedOut } from "../event_stream.ts";
import { describeError } from "../../validation.ts";

/** What a stop waited for when its shutdown timeout passed. */
type StopWait = ActorStopTimedOut["waitingFor"];

/**
 * A restart replaces an instance whose async handler is in flight: keeps
 * it, abandoning it after the shutdown timeout.
 */
export function leaveBehind(cell: CellPort, inFlight: InFlight): void {
  if (inFlight.message === NO_MESSAGE) return; // a start hook owes nothing
  const leftBehind = cell.ensureExtras().leftBehind ??= new Set();
  leftBehind.add(inFlight);
  const timeoutMs = cell.shutdownTimeoutMs;
  inFlight.timer = cell.core.scheduler.setTimeout(() => {
    inFlight.timer = undefined;
    abandonLeftBehind(
      cell,
      inFlight,
      `abandoned: a restart replaced its handler, which did not settle within the ${timeoutMs} ms shutdown timeout`,
    );
  }, timeoutMs);
}

/**
 * Gives the instance a restart replaced a context of its own
 * (`this.context` from then on): its handler left behind, or any callback
 * of its, still reaches the actor (self, parent, system, log, children,
 * `actorOf`, `stop`, `watch`), but the turn under way and the settings the
 * restart reset (stash, behaviour, receive timeout, timers) are the fresh
 * instance's. So its `sender` is its own message's (`inFlight`'s, if a
 * handler was in flight, else none); `stash()` throws a `TypeError`, as
 * outside any turn (a handler left behind then rejects, and its message is
 * a dead letter, once); and `unstashAll`, `become`, `unbecome`,
 * `setReceiveTimeout` and the timers' starts and cancels, which callbacks
 * outside a turn may call too, are ignored with a warning, so that a stale
 * callback neither throws into its host nor changes the fresh instance. An
 * instance whose `context` cannot be replaced (frozen, say) keeps the
 * actor's, with a warning if it leaves a handler behind.
 */
export function replaceContext(
  cell: CellPort,
  old: object,
  inFlight: InFlight | undefined,
): void {
  const sender = inFlight?.sender;
  const refused = (call: string) =>
    `${call}() in ${cell.path} from an instance a restart replaced`;
  const ignored = (call: string) => () =>
    cell.log.warn(`ignored ${refused(call)}`);
  const context = new Proxy(cell, {
    get(target, key) {
      switch (key) {
        case "sender":
          return sender;
        case "stash":
          return () => {
            throw new TypeError(
              `Cannot ${
                refused("stash")
              }: its handler, left behind, no longer has the turn`,
            );
          };
        case "unstashAll":
        case "become":
        case "unbecome":
        case "setReceiveTimeout":
          return ignored(key);
        case "timers": {
          // The fresh instance's: it may ask, not start or cancel.
          const timers = target.timers;
          return new Proxy(timers, {
            get: (_, call) =>
              call === "isTimerActive"
                ? (key: unknown) => timers.isTimerActive(key)
                : ignored(`timers.${String(call)}`),
          });
        }
      }
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  let replaced = false;
  try {
    replaced = Reflect.set(old, "context", context);
  } catch {
    // a setter or a Proxy of the user's threw: as not replaced
  }
  if (!replaced && inFlight !== undefined) {
    cell.log.warn(
      `the instance of ${cell.path} a restart replaced keeps its context (it cannot be set: frozen?); a handler of it left behind still acts on the fresh instance's turn`,
    );
  }
}

/**
 * The async handler of a turn that owes its notice `taken()` ended (settled, failed or was
 * abandoned): its message counts as taken now, once, unless the actor put
 * it aside (`kept`: stashed, or dropped by a full stash), when the stash
 * tells it what becomes of it.
 */
export function endOwed(inFlight: InFlight, kept: boolean): void {
  const owed = inFlight.owed;
  if (owed === undefined) return;
  inFlight.owed = undefined;
  if (!kept) owed.taken!();
}

/** A left-behind handler settled: forget it, and its timer. */
export function leftBehindSettled(
  cell: CellPort,
  inFlight: InFlight,
): void {
  endOwed(inFlight, false);
  const leftBehind = cell.extras?.leftBehind;
  if (leftBehind?.delete(inFlight)) {
    cell.core.scheduler.clearTimeout(inFlight.timer);
    inFlight.timer = undefined;
    if (leftBehind.size === 0) cell.leftBehindEnded();
  }
}

/** Gives up on a left-behind handler: its message becomes a dead letter. */
function abandonLeftBehind(
  cell: CellPort,
  inFlight: InFlight,
  reason: string,
): void {
  leftBehindSettled(cell, inFlight);
  if (inFlight.abandoned) return;
  inFlight.abandoned = true;
  cell.core.deadLetter(inFlight.message, inFlight.sender, cell, reason);
}

/**
 * Every handler still left behind is abandoned: a stop's shutdown timeout
 * passed, or the stop was forced (the system's deadline).
 */
export function abandonAllLeftBehind(
  cell: CellPort,
  reason =
    "abandoned: the actor stopped while a replaced instance's handler was in flight",
): void {
  const leftBehind = cell.extras?.leftBehind;
  if (leftBehind === undefined) return;
  for (const inFlight of leftBehind) abandonLeftBehind(cell, inFlight, reason);
}

/** An async handler of a replaced instance rejected: its message is still owed an outcome. */
export function staleFailure(
  cell: CellPort,
  error: unknown,
  message: unknown,
  sender: unknown,
): void {
  if (message !== NO_MESSAGE) {
    cell.core.deadLetter(
      message,
      sender,
      cell,
      `processing failed after the actor was restarted: ${
        describeError(error)
      }`,
    );
  }
  cell.logError("a replaced instance failed", error);
}

/**
 * Bounds what a stop waits for: the async hook or handler in flight, then
 * `postStop`, together at most the shutdown timeout. One timer per stop
 * that has something to wait for; an ordinary stop arms none.
 */
export function armStopTimer(cell: CellPort): void {
  const extras = cell.ensureExtras();
  if (extras.stopTimer !== undefined) return;
  const timeoutMs = cell.shutdownTimeoutMs;
  extras.stopTimer = cell.core.scheduler.setTimeout(() => {
    extras.stopTimer = undefined;
    cell.stopTimedOut(timeoutMs);
  }, timeoutMs);
}

/** The stop no longer waits: clears its timer. */
export function clearStopTimer(cell: CellPort): void {
  const extras = cell.extras;
  if (extras !== undefined && extras.stopTimer !== undefined) {
    cell.core.scheduler.clearTimeout(extras.stopTimer);
    extras.stopTimer = undefined;
  }
}

/** Gives up on the async hook or handler in flight; its message becomes a dead letter. */
export function abandonInFlight(
  cell: CellPort,
  timeoutMs: number,
): void {
  const extras = cell.extras!;
  const inFlight = extras.inFlight!;
  extras.inFlight = undefined;
  inFlight.abandoned = true;
  const current = cell.abandonTurn();
  if (inFlight.message === NO_MESSAGE) {
    reportTimedOut(cell, "start", timeoutMs);
    return;
  }
  const kept = putAside(current);
  endOwed(inFlight, kept);
  if (!kept) {
    cell.core.deadLetter(
      inFlight.message,
      inFlight.sender,
      cell,
      `abandoned: its handler did not settle within the ${timeoutMs} ms shutdown timeout`,
    );
  }
  reportTimedOut(cell, "handler", timeoutMs);
}

/** A warning and an {@linkcode ActorStopTimedOut} event. */
export function reportTimedOut(
  cell: CellPort,
  waitingFor: StopWait,
  timeoutMs: number,
): void {
  cell.log.warn(
    `stop did not wait longer than ${timeoutMs} ms for its ${waitingFor}; abandoned it`,
  );
  const events = cell.core.eventStream;
  if (events.hasSubscribers) {
    events.publish(
      new ActorStopTimedOut(
        cell as unknown as ActorRef<never>,
        waitingFor,
        timeoutMs,
      ),
    );
  }
}
