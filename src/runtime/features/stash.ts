// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The turn's own state that an actor can change: `become` (the handler of
 * the next messages) and `stash` (put the current message aside, to be
 * delivered again by `unstashAll`). The cell calls these for
 * `context.become`, `context.stash()` and the like. Internal to the runtime.
 *
 * @module
 */

import type { Behavior } from "../actor.ts";
import type { CellPort } from "../kernel/cell_port.ts";
import { NO_MESSAGE, STASH_OVERFLOWED, STASHED } from "../kernel/cell_state.ts";
import { Mailbox } from "../kernel/mailbox.ts";
import { fail } from "../../validation.ts";

/** `context.become`: `behavior` handles the next messages. */
export function become(
  cell: CellPort,
  behavior: Behavior<never>,
  options: { discardOld?: boolean },
): void {
  if (typeof behavior !== "function") {
    fail("become", "behavior", "a function handling one message", behavior);
  }
  const extras = cell.ensureExtras();
  if (options.discardOld === false) {
    (extras.behaviorStack ??= []).push(extras.behavior);
  }
  extras.behavior = behavior;
}

/** `context.unbecome`: back to the behaviour before the last `become`. */
export function unbecome(cell: CellPort): void {
  const extras = cell.extras;
  if (extras === undefined) return;
  extras.behavior = extras.behaviorStack?.pop();
}

/**
 * `context.stash()`: puts the message of the turn under way aside, once per
 * turn. `false` (and a dead letter) when the stash is full.
 */
export function stash(cell: CellPort): boolean {
  const message = cell.turnMessage;
  // A second stash() in the same turn changes nothing.
  if (message === STASHED) return true;
  if (message === STASH_OVERFLOWED) return false;
  if (message === NO_MESSAGE) {
    throw new TypeError(
      `Cannot stash in ${cell.path}: no message is being processed (call stash() while handling one, in onReceive or a become behavior)`,
    );
  }
  const stashed = cell.ensureExtras().stash ??= new Mailbox();
  if (stashed.size >= cell.props.stashCapacity) {
    cell.core.deadLetter(message, cell.turnSender, cell, "stash overflow");
    cell.putTurnAside(STASH_OVERFLOWED);
    return false;
  }
  stashed.push(message, cell.turnSender);
  // Kept as it came (a tracked message stays tracked, see #invoke), so its
  // sender still hears what becomes of it.
  cell.putTurnAside(STASHED);
  return true;
}

/**
 * `context.unstashAll()`: the stashed messages go back ahead of the mailbox,
 * in order. Called outside a turn (from a socket's `onopen`, say) while a
 * message handed to the idle actor waits with its turn, that message is
 * newer than the stashed ones: it is put back in the mailbox first, so the
 * stashed ones go ahead of it.
 */
export function unstashAll(cell: CellPort): void {
  const stashed = cell.extras?.stash;
  if (stashed === undefined || stashed.size === 0) return;
  cell.settleHanded();
  cell.ensureMailbox().prependAll(stashed);
  cell.scheduleIfRunnable();
}
