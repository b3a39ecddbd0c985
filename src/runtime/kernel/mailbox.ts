// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * An actor's mailbox: a FIFO of (message, sender) pairs.
 *
 * Its slots alternate message and sender, so a `tell` allocates nothing
 * (no envelope object), and every operation is O(1), however long the
 * queue grows.
 *
 * @module
 */

import type { CellPort } from "./cell_port.ts";

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

/**
 * A mailbox's first segment, in slots: four messages, which is all most
 * actors ever hold. Each further segment doubles, up to
 * {@linkcode MAX_SEGMENT_SLOTS}.
 */
const FIRST_SEGMENT_SLOTS = 8;
/**
 * The largest segment: 1,024 messages, 16 KB. Below V8's large-object
 * threshold (128 KB), so a segment is an ordinary young allocation.
 */
const MAX_SEGMENT_SLOTS = 2_048;

/**
 * A segment: `slots` slots of (message, sender) pairs, then one more that
 * links the next segment (or holds `undefined`).
 */
type Segment = unknown[];

/**
 * A FIFO of (message, sender) pairs. Internal to the runtime.
 *
 * A chain of array segments, each filled from its start: a message is two
 * slot writes, and growing adds a segment instead of copying the queue.
 * A ring that doubled and copied measured 18% of a 1 → 1,000 → 1 fan-out on
 * Node (its collector's queue reaches 100,000 messages, and every doubling
 * allocated a fresh, ever larger array). An emptied queue fills its last
 * segment again from the start.
 */
export class Mailbox {
  /** The segment of the oldest message. */
  #head: Segment = genericSlots(FIRST_SEGMENT_SLOTS + 1);
  #headAt = 0; // slot index of the oldest message in #head
  /** The segment being filled (#head when there is one). */
  #tail: Segment = this.#head;
  #tailAt = 0; // slot index of the next free slot in #tail
  #size = 0;
  /** The sender of the message most recently returned by {@linkcode shift}. */
  shiftedSender: unknown = undefined;

  /** Number of messages queued. */
  get size(): number {
    return this.#size;
  }

  /** Appends a message and its sender. */
  push(message: unknown, sender: unknown): void {
    let tail = this.#tail;
    let at = this.#tailAt;
    if (at === tail.length - 1) {
      tail = this.#link(tail);
      at = 0;
    }
    tail[at] = message;
    tail[at + 1] = sender;
    this.#tailAt = at + 2;
    this.#size++;
  }

  /**
   * Puts a message and its sender at the head, to be shifted next: into the
   * head segment's free front, or (rare: a handed message put back)
   * ahead of a copy of the queue.
   */
  unshift(message: unknown, sender: unknown): void {
    const at = this.#headAt - 2;
    if (at < 0) {
      const rest = this.drain();
      this.push(message, sender);
      for (let i = 0; i < rest.length; i += 2) this.push(rest[i], rest[i + 1]);
      return;
    }
    this.#head[at] = message;
    this.#head[at + 1] = sender;
    this.#headAt = at;
    this.#size++;
  }

  /**
   * Removes and returns the oldest message; its sender is left in
   * {@linkcode shiftedSender}. Call only when `size > 0`.
   */
  shift(): unknown {
    const head = this.#head;
    const at = this.#headAt;
    const message = head[at];
    this.shiftedSender = head[at + 1];
    head[at] = undefined; // let the message be collected
    head[at + 1] = undefined;
    if (--this.#size === 0) {
      // Empty: fill the tail segment again from its start.
      this.#head = this.#tail;
      this.#headAt = 0;
      this.#tailAt = 0;
    } else if (at + 2 === head.length - 1) {
      this.#head = head[at + 2] as Segment;
      this.#headAt = 0;
    } else this.#headAt = at + 2;
    return message;
  }

  /** Links a new segment, twice as large, after the full `tail`. */
  #link(tail: Segment): Segment {
    const slots = Math.min((tail.length - 1) * 2, MAX_SEGMENT_SLOTS);
    const next = genericSlots<unknown>(slots + 1);
    tail[tail.length - 1] = next;
    this.#tail = next;
    return next;
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
    let segment = this.#head;
    let at = this.#headAt;
    for (let left = this.#size; left > 0; left--) {
      if (at === segment.length - 1) {
        segment = segment[at] as Segment;
        at = 0;
      }
      fn(segment[at], segment[at + 1]);
      at += 2;
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
    this.#head = this.#tail = genericSlots(FIRST_SEGMENT_SLOTS + 1);
    this.#headAt = 0;
    this.#tailAt = 0;
    this.#size = 0;
    return out;
  }
}
