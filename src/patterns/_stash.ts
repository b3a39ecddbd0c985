// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The BackoffSupervisor's stash: the messages waiting for a child, with
 * their senders, oldest first. Its own small FIFO, not the runtime's
 * mailbox: it is only ever filled one message at a time, put in front of
 * (a stopping child's unprocessed messages), cut at its limit and emptied
 * whole, so a flat array of message, sender pairs does it all. Internal.
 *
 * @module
 */

import type { ActorRef } from "../runtime/actor_ref.ts";
import type { Envelope } from "../runtime/undelivered.ts";

/** Receives one message taken out of a {@linkcode Stash}, with its sender. */
export type StashVisitor = (
  message: unknown,
  sender: ActorRef<never> | undefined,
) => void;

/** Messages with their senders, oldest first. */
export class Stash {
  /** Message, sender, message, sender, …: one array for both halves. */
  #items: unknown[] = [];

  /** How many messages it holds. */
  get size(): number {
    return this.#items.length / 2;
  }

  /** Adds a message at the end. */
  push(message: unknown, sender: ActorRef<never> | undefined): void {
    this.#items.push(message, sender);
  }

  /** Puts `envelopes` in front, in their order: they were sent before anything here. */
  prepend(envelopes: readonly Envelope[]): void {
    const items: unknown[] = [];
    for (const { message, sender } of envelopes) items.push(message, sender);
    this.#items = items.concat(this.#items);
  }

  /** Keeps the oldest `limit` messages; the newer ones go to `dropped`, oldest first. */
  trimTo(limit: number, dropped: StashVisitor): void {
    if (this.size <= limit) return;
    const over = this.#items.splice(limit * 2);
    visit(over, dropped);
  }

  /**
   * Empties it, then hands each message to `visitor`, oldest first. Emptied
   * first, so whatever `visitor` causes never sees the messages twice.
   */
  drain(visitor: StashVisitor): void {
    const items = this.#items;
    if (items.length === 0) return;
    this.#items = [];
    visit(items, visitor);
  }
}

function visit(items: readonly unknown[], visitor: StashVisitor): void {
  for (let i = 0; i < items.length; i += 2) {
    visitor(items[i], items[i + 1] as ActorRef<never> | undefined);
  }
}
