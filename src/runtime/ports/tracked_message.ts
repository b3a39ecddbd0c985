// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The runtime's port for senders that must know what became of a message:
 * a {@linkcode TrackedMessage} comes in by its own door
 * (`ActorCell.enqueueSent`, which queues it and never hands it over),
 * travels like any message (queued, stashed, refused), and the runtime
 * tells it once what became of it: its actor handled it
 * ({@linkcode TrackedMessage.taken}, when the turn that handled it ends,
 * the actor having seen only the message inside), or it is a dead letter
 * ({@linkcode TrackedMessage.undelivered}, and the dead letter published
 * is the message inside). A tracked message the actor stashes stays
 * tracked in the stash, and one whose async handler is running is taken
 * when the handler ends.
 *
 * The worker transport sends every message from the main side this way, so
 * the main side's books learn of each one exactly once, whatever the
 * actor's handler (`become` included) and whatever else the actor is sent.
 * A {@linkcode ForwardedMessage} is the other half of the port: an envelope
 * that actors pass on unopened (the worker transport's way to the owner of
 * a worker, through its supervisor), which, if it becomes a dead letter on
 * the way, is published once, as the message inside, to the ref that
 * message was sent to, not as an envelope to whoever dropped it.
 *
 * Internal: not exported from the package.
 *
 * @module
 */

import type { ActorRef } from "../actor_ref.ts";
import { Notice } from "../kernel/mailbox.ts";

/**
 * A message whose sender hears when its actor takes it, or that it was not
 * delivered. Travels as a runtime notice, so an ordinary message costs no
 * check for it. Internal.
 */
export abstract class TrackedMessage extends Notice {
  /** What the actor receives. */
  abstract readonly message: unknown;

  override get sent(): boolean {
    return true;
  }

  override open(): unknown {
    return this.message;
  }

  override get inside(): unknown {
    return this.message;
  }
  /**
   * The turn that handled it has ended (returned or threw; an async
   * handler settled, rejected or was given up on). Called once, and not
   * for a turn that stashed it.
   */
  abstract override taken(): void;
  /**
   * It is a dead letter, for `reason`: refused, dropped from a mailbox or
   * from a stash (full, or its actor stopped). Called once, instead of
   * `taken`.
   */
  abstract undelivered(reason: string): void;
}

/**
 * What a tracked message carries, or `message` itself: the message a turn,
 * a hook or an event shows. Asked without calling anything of `message`'s
 * (a revoked proxy throws at `instanceof`).
 */
export function insideTracked(message: unknown): unknown {
  return isTracked(message) ? message.message : message;
}

/**
 * Whether `value` is a tracked message, asked without calling anything of
 * `value`'s (off the turn's hot path, which keeps `instanceof`).
 */
export function isTracked(value: unknown): value is TrackedMessage {
  return Notice.is(value) && value instanceof TrackedMessage;
}

/**
 * A message for `recipient` on its way there through actors that pass it on
 * unopened. If it becomes a dead letter anywhere on the way, the runtime
 * calls {@linkcode ForwardedMessage.undelivered} and publishes the message
 * inside, to `recipient`, in its place (or nothing, if nothing was lost: so
 * also a message that is nobody's to lose, as a worker owner's word to
 * itself that its worker died). Internal.
 */
export abstract class ForwardedMessage {
  readonly #forwarded = true;

  /**
   * Whether `value` is a forwarded message, asked without calling anything
   * of `value`'s (as {@linkcode Notice.is}: a dead letter may be a revoked
   * proxy).
   */
  static is(value: unknown): value is ForwardedMessage {
    return typeof value === "object" && value !== null && #forwarded in value;
  }

  /** What was sent. */
  abstract readonly message: unknown;
  /** The ref it was sent to. */
  abstract readonly recipient: ActorRef<never>;
  /**
   * It was dropped on the way, for `reason` (called once); returns whether
   * the message inside is lost, and so a dead letter (false: its sender
   * sends it again).
   */
  abstract undelivered(reason: string): boolean;
}
