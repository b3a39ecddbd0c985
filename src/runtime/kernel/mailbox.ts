// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * An actor's mailbox: a FIFO of (message, sender) pairs.
 *
 * It is a ring buffer whose slots alternate message and sender, so a `tell`
 * allocates nothing (no envelope object) and every operation is O(1)
 * amortised, however long the queue grows.
 *
 * @module
 */

import type { CellPort } from "./cell_port.ts";

const INITIAL_SLOTS = 8; // four messages; must be a power of two

/**
 * A new array of `capacity` empty slots whose elements are generic from the
 * start. Left to itself, V8 picks an array's element representation from
 * what goes in: a mailbox of numbers with no senders holds only numbers and
 * `undefined`, which recent V8 (Deno 2.9's V8 15; not Node 20's V8 11)
 * keeps as an unboxed double array, while a mailbox that also gets objects (a
 * supervisor's timer notices, refs as senders) has generic elements. The
 * same `push` and `shift` then meet arrays of two kinds: polymorphic
 * accesses and "wrong map" deoptimisations, which made a `tell` through a
 * BackoffSupervisor on Deno two to three times slower. Storing `null`
 * first (a map change, no copy) fixes the kind; it never changes back.
 */
function genericSlots<T>(capacity: number): (T | undefined)[] {
  const slots: (T | null | undefined)[] = new Array(capacity);
  slots[0] = null;
  slots[0] = undefined;
  return slots as (T | undefined)[];
}

/**
 * A ring buffer's slots, oldest first, in a new array of `capacity` slots
 * (a power of two, at least `length`). Shared by the mailbox and the
 * dispatcher's ready queue.
 */
export function ringSlots<T>(
  old: readonly (T | undefined)[],
  head: number,
  length: number,
  capacity: number,
): (T | undefined)[] {
  const slots = genericSlots<T>(capacity);
  const mask = old.length - 1;
  for (let i = 0; i < length; i++) slots[i] = old[(head + i) & mask];
  return slots;
}

/**
 * A message the runtime or a transport queues for an actor, told apart from
 * sent messages by its type, and opened by the turn that takes it out of
 * the mailbox: a timer's tick (`../timers.ts`), a watched actor's end
 * (`../watch.ts`), the PoisonPill, a transport's delivery that must hear
 * when its turn ends (a worker's delivery). The cell knows only this
 * protocol, not the kinds.
 */
export abstract class Notice {
  readonly #notice = true;

  /**
   * Someone sent it (a PoisonPill, a transport's delivery): undeliverable,
   * it is a dead letter. The runtime's own (a tick, a Terminated) are not:
   * nobody sent them, and they are dropped.
   */
  get sent(): boolean {
    return false;
  }

  /**
   * What the handler gets, for the turn that took it from the mailbox; or
   * `NO_MESSAGE` when there is nothing to handle (a cancelled timer).
   */
  open(_cell: CellPort): unknown {
    return this;
  }

  /** The turn's sender, given the one it was queued with. */
  from(sender: unknown): unknown {
    return sender;
  }

  /** Its message is no activity for a receive timeout (a timer's is not). */
  get quiet(): boolean {
    return false;
  }

  /** What a failure hook sees of it, had its turn failed. */
  get inside(): unknown {
    return this;
  }

  /**
   * Defined by a notice that must hear when the turn that handled it ends,
   * however it ends (returned, threw, an async handler settled or was given
   * up on): called once, and not for a turn that stashed it.
   */
  taken?(): void;

  /**
   * Whether `value` is a notice, asked without calling anything of
   * `value`'s: `instanceof` runs a proxy's `getPrototypeOf` trap, which
   * throws for a revoked proxy. For the paths that must not throw (dead
   * letters); the turn's hot path keeps `instanceof`, which is faster.
   */
  static is(value: unknown): value is Notice {
    return typeof value === "object" && value !== null && #notice in value;
  }
}

/** A FIFO of (message, sender) pairs. Internal to the runtime. */
export class Mailbox {
  #slots: unknown[] = genericSlots(INITIAL_SLOTS);
  #head = 0; // slot index of the oldest message
  #length = 0; // slots in use (twice the number of messages)
  /** The sender of the message most recently returned by {@linkcode shift}. */
  shiftedSender: unknown = undefined;

  /** Number of messages queued. */
  get size(): number {
    return this.#length >> 1;
  }

  /** Appends a message and its sender. */
  push(message: unknown, sender: unknown): void {
    if (this.#length === this.#slots.length) this.#grow();
    const mask = this.#slots.length - 1;
    const tail = (this.#head + this.#length) & mask;
    this.#slots[tail] = message;
    this.#slots[(tail + 1) & mask] = sender;
    this.#length += 2;
  }

  /** Puts a message and its sender at the head, to be shifted next. */
  unshift(message: unknown, sender: unknown): void {
    if (this.#length === this.#slots.length) this.#grow();
    const mask = this.#slots.length - 1;
    const head = (this.#head - 2) & mask;
    this.#slots[head] = message;
    this.#slots[head + 1] = sender;
    this.#head = head;
    this.#length += 2;
  }

  /**
   * Removes and returns the oldest message; its sender is left in
   * {@linkcode shiftedSender}. Call only when `size > 0`.
   */
  shift(): unknown {
    const slots = this.#slots;
    const head = this.#head;
    const message = slots[head];
    this.shiftedSender = slots[head + 1];
    slots[head] = undefined; // let the message be collected
    slots[head + 1] = undefined;
    this.#head = (head + 2) & (slots.length - 1);
    this.#length -= 2;
    return message;
  }

  /** Puts all of `other`'s messages, in order, before this mailbox's own, and empties `other`. */
  prependAll(other: Mailbox): void {
    if (other.size === 0) return;
    const rest = this.drain();
    other.forEach((message, sender) => this.push(message, sender));
    other.drain();
    for (let i = 0; i < rest.length; i += 2) this.push(rest[i], rest[i + 1]);
  }

  /** Calls `fn` with each queued message and sender, oldest first, without removing them. */
  forEach(fn: (message: unknown, sender: unknown) => void): void {
    const mask = this.#slots.length - 1;
    for (let i = 0; i < this.#length; i += 2) {
      const at = (this.#head + i) & mask;
      fn(this.#slots[at], this.#slots[(at + 1) & mask]);
    }
  }

  /** Removes every message for which `predicate` is true. */
  removeWhere(predicate: (message: unknown, sender: unknown) => boolean): void {
    const all = this.drain();
    for (let i = 0; i < all.length; i += 2) {
      if (!predicate(all[i], all[i + 1])) this.push(all[i], all[i + 1]);
    }
  }

  /** Empties the mailbox and returns its contents as `[message, sender, message, sender, …]`. */
  drain(): unknown[] {
    const out: unknown[] = [];
    this.forEach((message, sender) => out.push(message, sender));
    this.#slots = genericSlots(INITIAL_SLOTS);
    this.#head = 0;
    this.#length = 0;
    return out;
  }

  #grow(): void {
    const old = this.#slots;
    this.#slots = ringSlots(old, this.#head, this.#length, old.length * 2);
    this.#head = 0;
  }
}
