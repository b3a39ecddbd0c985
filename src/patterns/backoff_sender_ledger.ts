// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The BackoffSender's ledger: every message not yet acknowledged, in the
 * order it arrived, with its original sender, its tries, and the child
 * holding its latest delivery. Pure bookkeeping, no actors or timers, so
 * the counting rules are in one place. Internal.
 *
 * A try is a delivery the child began to process and did not acknowledge:
 * {@linkcode Ledger.handTo} counts one, {@linkcode Ledger.returned} takes it
 * back when the dying child hands the delivery back unprocessed (it waited
 * in its mailbox behind the crash, or the child failed in `preStart`), and
 * {@linkcode Ledger.settle}, at the child's termination, ends its hold on
 * whatever it still had and picks out the messages out of tries.
 *
 * @module
 */

import type { ActorRef } from "../runtime/actor_ref.ts";
import { BackoffSenderTracked } from "./backoff_sender_protocol.ts";

/** One unacknowledged message. */
export interface Entry {
  /** Its id, as in the {@linkcode BackoffSenderTracked} the child receives. */
  readonly id: number;
  /** The message itself. */
  readonly message: unknown;
  /** Its original sender, to reply to, if it gave one. */
  readonly sender: ActorRef<never> | undefined;
  /** Deliveries a child began to process without acknowledging. */
  tries: number;
  /** Deliveries made, returned ones included. */
  sends: number;
  /** The child holding the latest delivery, until it terminates or returns it. */
  holder: ActorRef<never> | undefined;
  /** That delivery, to recognise it when it comes back. */
  delivery: BackoffSenderTracked<unknown> | undefined;
}

/**
 * Unacknowledged messages, oldest first. Ids are consecutive and mostly
 * acknowledged in order, so the entries sit in an array indexed by
 * `id - firstId` (a hole for each one gone), read from `head`: adding,
 * finding and removing are O(1), and no hash table grows and shrinks with
 * every message.
 */
export class Ledger {
  /** Entry of id `firstId + i` at `i`; `undefined` once acknowledged or dropped. */
  #slots: (Entry | undefined)[] = [];
  /** The id of `#slots[0]`. */
  #firstId = 1;
  /** The index of the oldest entry still held (`#slots.length` when none). */
  #head = 0;
  #size = 0;

  /** How many messages are unacknowledged. */
  get size(): number {
    return this.#size;
  }

  /** Records a new message under the next id (1, 2, …). */
  add(message: unknown, sender: ActorRef<never> | undefined): Entry {
    const entry: Entry = {
      id: this.#firstId + this.#slots.length,
      message,
      sender,
      tries: 0,
      sends: 0,
      holder: undefined,
      delivery: undefined,
    };
    this.#slots.push(entry);
    this.#size++;
    return entry;
  }

  /** The entry of message `id`, if it is still unacknowledged. */
  get(id: number): Entry | undefined {
    const i = id - this.#firstId;
    return i >= this.#head && i < this.#slots.length
      ? this.#slots[i]
      : undefined;
  }

  /** Forgets message `id` (acknowledged or dropped); `undefined` if unknown. */
  remove(id: number): Entry | undefined {
    const entry = this.get(id);
    if (entry === undefined) return undefined;
    const slots = this.#slots;
    slots[id - this.#firstId] = undefined;
    this.#size--;
    let head = this.#head;
    while (head < slots.length && slots[head] === undefined) head++;
    if (head === slots.length) {
      // Empty: start the array over (ids keep counting).
      this.#firstId += head;
      this.#slots = [];
      head = 0;
    } else if (head >= 1024 && head * 2 >= slots.length) {
      // Mostly holes in front: drop them.
      this.#slots = slots.slice(head);
      this.#firstId += head;
      head = 0;
    }
    this.#head = head;
    return entry;
  }

  /** The oldest unacknowledged message. */
  oldest(): Entry | undefined {
    return this.#slots[this.#head];
  }

  /** The messages no child holds, oldest first: what a re-send delivers. */
  unheld(): Entry[] {
    const found: Entry[] = [];
    for (const entry of this.#live()) {
      if (entry.holder === undefined) found.push(entry);
    }
    return found;
  }

  /** The id the next message gets. */
  get nextId(): number {
    return this.#firstId + this.#slots.length;
  }

  /** Every message, oldest first. */
  all(): Entry[] {
    return [...this.#live()];
  }

  /**
   * Into an empty ledger: stored messages (`[id, message, tries]`, ids
   * ascending) held by no child, and the next id. Their senders are gone;
   * each counts as sent once, so that its next delivery is a re-send.
   */
  restore(
    nextId: number,
    entries: readonly (readonly [number, unknown, number])[],
  ): void {
    const slots: (Entry | undefined)[] = [];
    const firstId = entries.length > 0 ? entries[0][0] : nextId;
    for (const [id, message, tries] of entries) {
      while (firstId + slots.length < id) slots.push(undefined);
      slots.push({
        id,
        message,
        sender: undefined,
        tries,
        sends: 1,
        holder: undefined,
        delivery: undefined,
      });
    }
    while (firstId + slots.length < nextId) slots.push(undefined);
    this.#slots = slots;
    this.#firstId = firstId;
    this.#head = 0;
    this.#size = entries.length;
  }

  /** Every message, oldest first, and the ledger emptied (ids keep counting). */
  drain(): Entry[] {
    const all = [...this.#live()];
    this.#firstId += this.#slots.length;
    this.#slots = [];
    this.#head = 0;
    this.#size = 0;
    return all;
  }

  *#live(): Generator<Entry> {
    const slots = this.#slots;
    for (let i = this.#head; i < slots.length; i++) {
      const entry = slots[i];
      if (entry !== undefined) yield entry;
    }
  }

  /** A delivery of `entry` to `child`: one more try, until returned. */
  handTo(entry: Entry, child: ActorRef<never>): BackoffSenderTracked<unknown> {
    entry.tries++;
    entry.sends++;
    entry.holder = child;
    const delivery = new BackoffSenderTracked(
      entry.id,
      entry.message,
      entry.sender,
      entry.tries,
    );
    entry.delivery = delivery;
    return delivery;
  }

  /**
   * `child`, stopping, hands back `delivery` unprocessed: not a try.
   * `false` if it is not a delivery this ledger made to `child` and still
   * tracks (a stranger's message, or one acknowledged or dropped since).
   */
  returned(child: ActorRef<never>, delivery: unknown): boolean {
    if (!(delivery instanceof BackoffSenderTracked)) return false;
    const entry = this.get(delivery.id);
    if (
      entry === undefined || entry.holder !== child ||
      entry.delivery !== delivery
    ) {
      return false;
    }
    entry.tries--;
    entry.holder = undefined;
    entry.delivery = undefined;
    return true;
  }

  /**
   * `child` terminated: its hold on its deliveries ends. Returns how many
   * of them it had begun to process (tries it used) and removes the
   * messages that have now had `maxAttempts` tries, oldest first.
   */
  settle(
    child: ActorRef<never>,
    maxAttempts: number,
  ): { tried: number; exhausted: Entry[] } {
    let tried = 0;
    const exhausted: Entry[] = [];
    for (const entry of this.#live()) {
      if (entry.holder !== child) continue;
      tried++;
      entry.holder = undefined;
      entry.delivery = undefined;
      if (entry.tries >= maxAttempts) exhausted.push(entry);
    }
    for (const entry of exhausted) this.remove(entry.id);
    return { tried, exhausted };
  }
}
