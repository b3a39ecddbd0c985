// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The runtime's one port for the patterns floor: taking over the messages a
 * stopping child never processed, and passing messages on as they were
 * sent.
 *
 * A parent whose actor instance has a method under
 * {@linkcode takeOverUndelivered} receives, synchronously as a child begins
 * to stop, every message still queued or stashed for that child (oldest
 * first, runtime notices such as timer ticks left out). The parent then owns
 * them: they are not published as dead letters. Without the method they are
 * dead letters, as for any stopping actor.
 *
 * The BackoffSupervisor uses it to keep the messages queued behind the one
 * that crashed its child (Akka loses them), and delivers them to the next
 * child. Internal: not exported from the package.
 *
 * @module
 */

import type { ActorContext } from "../actor.ts";
import type { CellPort, Door } from "../kernel/cell_port.ts";
import type { ActorRef } from "../actor_ref.ts";
import { isRuntimeNotice } from "../poison_pill.ts";
import {
  ForwardedMessage,
  insideTracked,
  isTracked,
} from "./tracked_message.ts";

export type { Door };

/** A message with its sender. */
export interface Envelope {
  readonly message: unknown;
  readonly sender: ActorRef<never> | undefined;
}

/**
 * What was sent: the message inside a tracked or forwarded one (a
 * transport's, which a taker keeps wrapped to pass on, so that it is still
 * tracked), else the message itself. For what a taker shows of a message (its events).
 */
export function sentMessage(message: unknown): unknown {
  return ForwardedMessage.is(message)
    ? message.message
    : insideTracked(message);
}

/**
 * The message of the turn under way as it was sent, for an actor that
 * passes it on (with {@linkcode passOn}): a tracked message (a worker's)
 * stays tracked, and this turn no longer owes it `taken()`; whoever it is
 * passed on to does (the next actor's turn, or a dead letter). Otherwise
 * `message`, what the handler got.
 */
export function asSent<T>(
  context: ActorContext<T>,
  message: unknown,
): unknown {
  return (context as unknown as CellPort).takeTurnAsSent(message);
}

/**
 * Sends a message an actor took over or kept ({@linkcode asSent}, or
 * {@linkcode takeOverUndelivered}) on to `to`, a local actor: a tracked one
 * by its own door (queued, so that `to`'s turn opens it), any other with
 * `tell`.
 */
export function passOn(
  to: ActorRef<never>,
  message: unknown,
  sender: ActorRef<never> | undefined,
): void {
  if (isTracked(message)) {
    (to as unknown as CellPort).enqueueSent(message, sender);
  } else to.tell(message as never, sender);
}

/** The method a parent defines to take over a stopping child's messages. */
export const takeOverUndelivered: unique symbol = Symbol(
  "understudy.takeOverUndelivered",
);

/** An actor that takes over its stopping children's messages. */
export interface UndeliveredTaker {
  /** `child` is stopping; `undelivered` are its unprocessed messages, oldest first. */
  [takeOverUndelivered](child: ActorRef<never>, undelivered: Envelope[]): void;
}

/**
 * The runtime's side of the port: a stopping cell's messages it will never
 * process (the stash first, then the mailbox, oldest first; runtime notices
 * left out) go to its parent's taker if the parent has one (during the
 * parent's restart, the instance the restart let go), else to dead letters.
 */
export function releaseUndelivered(cell: CellPort): void {
  cell.settleHanded();
  const stashed = cell.extras?.stash?.drain() ?? [];
  const queued = cell.mailbox?.drain() ?? [];
  const undelivered: Envelope[] = [];
  for (const flat of [stashed, queued]) {
    for (let i = 0; i < flat.length; i += 2) {
      // A runtime notice (a timer's tick, a Terminated) is no sent message.
      if (isRuntimeNotice(flat[i])) continue;
      undelivered.push({
        message: flat[i],
        sender: flat[i + 1] as ActorRef<never> | undefined,
      });
    }
  }
  // A parent restarting (its children stop first) has no instance: the
  // one it let go took the children's messages, and takes them over still.
  const parentCell = cell.parentCell;
  const parent = (parentCell?.instance ?? parentCell?.extras?.retired) as
    | Partial<UndeliveredTaker>
    | undefined;
  let takeOver: UndeliveredTaker[typeof takeOverUndelivered] | undefined;
  try {
    takeOver = parent?.[takeOverUndelivered];
  } catch {
    // The parent's instance is the user's (a Proxy may trap the read): a
    // throw means no taker, and the messages are dead letters.
  }
  if (typeof takeOver === "function") {
    takeOver.call(parent, cell as unknown as ActorRef<never>, undelivered);
    return;
  }
  for (const { message, sender } of undelivered) {
    cell.core.deadLetter(message, sender, cell, "recipient stopped");
  }
}

/**
 * Opens a door on the actor whose `context` this is (with `undefined`,
 * closes it): while the actor is idle with nothing queued, `door` sees each
 * message told to it first and may deliver it itself, so the message skips
 * the actor's own turn (a BackoffSupervisor hands a steady child's
 * messages straight to it). A door cannot overtake what waits in the
 * mailbox, never sees a notice (a PoisonPill, a timer's tick), and closes
 * when its instance restarts or stops.
 */
export function openDoor(
  context: ActorContext<unknown>,
  door: Door | undefined,
): void {
  (context as unknown as CellPort).setDoor(door);
}
