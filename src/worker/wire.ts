// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The wire between the two sides of a worker boundary: the frames, the
 * outbox that batches them (every frame queued in one turn of the event
 * loop goes out in one `postMessage`), and the tables that turn refs into
 * numbers and back. Internal to the worker transport.
 *
 * A batch is one flat array of frames, each a kind followed by its fields
 * (flat, so that cloning a batch of N messages clones one array and N
 * messages, not N arrays more). Messages sent one after the other to the
 * same target with the same sender share one DELIVER frame, a run: its
 * header names the target and the sender once, and the messages follow.
 * A stream of N messages to one actor is thus a header and the N
 * messages, with no seq, target or sender a message for structured clone
 * to copy (measured in Bun: a batch of five-slot frames, one a message,
 * cloned at twice the cost of the messages alone):
 *
 * ```
 *   main → worker                             worker → main
 *   DELIVER seq target sender count m1 … mN   DELIVER 0 targetId sender count m1 … mN
 *   SPAWN   name factory args id              ACKS    count first last first last …
 *   PING    n                                 UNDELIVERED seq reason
 *   LOST    targetId reason                   STOPPED name id
 *   STOP    name id
 *                                             SPAWN_FAILED name reason id
 *                                             PONG n
 *                                             LOST targetId reason
 * ```
 *
 * `id` names one spawn of `name` (each `spawnInWorker` of it makes a new
 * one): a STOP or a STOPPED for an earlier actor under the same name is
 * told apart from one for the actor running now.
 *
 * LOST says a message for the other side's ref `targetId` could not be
 * cloned: if that ref is an ask's, the ask fails at once (the worker's side
 * sends it for every such message, the main side for the asks' replies).
 *
 * `target` is a served actor's name (a string) or a ref's number; `sender`
 * a ref's number (negative for an `ask`'s, named once), 0 for none. Every
 * message the main side sends has a `seq` (the messages of a run have
 * consecutive ones, from the header's `seq`) and stays in its books until
 * the worker acknowledges it (as handled) or returns it (UNDELIVERED), so
 * none is lost silently when a worker dies.
 *
 * @module
 */

import { ActorRef } from "../runtime/actor_ref.ts";
import type { ActorSystem } from "../runtime/actor_system.ts";
import { AskRef } from "../runtime/features/ask.ts";
import { describeError, describeValue } from "../validation.ts";
import type { Endpoint } from "./endpoint.ts";
import { ReplyLostError } from "./messages.ts";
import { isTransfer, type Transfer } from "./transfer.ts";

export const DELIVER = 0;
export const SPAWN = 1;
export const PING = 2;
export const ACKS = 3;
export const UNDELIVERED = 4;
export const STOPPED = 5;
export const SPAWN_FAILED = 6;
export const PONG = 7;
export const LOST = 8;
export const STOP = 9;

/** Fields of each frame kind, the kind included (DELIVER, ACKS: their headers). */
const FRAME_LENGTH: readonly number[] = [5, 5, 2, 2, 3, 3, 4, 2, 3, 3];

/** Slots of the frame at `i` of `batch`: a run's messages count too. */
export function frameLength(batch: readonly unknown[], i: number): number {
  const kind = batch[i] as number;
  if (kind === DELIVER) return 5 + (batch[i + 4] as number);
  return kind === ACKS ? 2 + (batch[i + 1] as number) : FRAME_LENGTH[kind];
}

/**
 * The reply to `ref`, if it is an ask's, was lost on the way (`reason`):
 * the ask fails at once rather than time out.
 */
export function replyLost(ref: unknown, reason: string): void {
  if (ref instanceof AskRef) {
    ref.fail(new ReplyLostError(ref.targetPath, reason));
  }
}

/**
 * Whether `sender` is neither a ref nor none (a caller's mistake the types
 * would have caught): then `message` is a dead letter, for that reason,
 * rather than a throw into that caller.
 */
export function refusedSender(
  system: ActorSystem,
  message: unknown,
  recipient: ActorRef<never>,
  sender: unknown,
): boolean {
  if (sender === undefined || sender instanceof ActorRef) return false;
  system.publishDeadLetter(
    message,
    undefined,
    recipient,
    `its sender is not an actor ref (got ${describeValue(sender)})`,
  );
  return true;
}

/** Why a message could not be cloned, as a dead letter's reason. */
export function cloneFailure(error: unknown): string {
  return `message could not be cloned (${describeError(error)})`;
}

/**
 * Slots a batch holds at most before it is posted at once, without
 * waiting for the end of the turn: about as many messages, in runs.
 * Smaller batches let the other side start on the first while this side
 * fills the next: streaming 200,000 messages measured some 10% faster in
 * Node with batches of 1,024 or 2,048 slots than of 4,096, and no slower
 * in Bun or Deno (interleaved runs, medians). Past some 16,000 slots an
 * array's backing store is a "large object" in V8, and filling one costs
 * several times more per slot.
 */
export const BATCH_SLOTS = 2048;

/**
 * Frames waiting to be posted, flushed once per turn of the event loop (a
 * microtask after the first frame is queued), so the messages sent in one
 * dispatcher slice cross in one `postMessage`, or in a few, of about
 * {@linkcode BATCH_SLOTS} slots each, when there are many.
 *
 * A batch that fills is posted at once, unless this side owes the other an
 * outcome (see {@linkcode Outbox.owe}): then the turn that filled it may be
 * the turn of an owed message, and the batch goes when the next owed
 * message's outcome is queued (that turn's end), or at the end of the
 * slice. A message's acknowledgement thus crosses in the same post as the
 * replies its turn sent: one `postMessage` is all a `worker.terminate()`
 * lets through or stops, so a message answered is never also a dead letter
 * on the other side. Such a batch holds up to BATCH_SLOTS slots and what
 * one turn adds.
 */
export class Outbox {
  readonly #endpoint: Endpoint;
  readonly #uncloneable: (frame: unknown[], error: unknown) => void;
  #frames: unknown[] = [];
  /** What moves with the batch: every `Transfer`'s objects. */
  #transfer: object[] = [];
  /** Each `Transfer`, by its message's slot in `#frames`. */
  #transferBySlot: Map<number, Transfer> | undefined = undefined;
  /** The main side's books, which keep every batch with a seq in it. */
  readonly #book: Book<unknown, unknown> | undefined;
  /** Acknowledged seqs not yet sent: runs of [first, last]. */
  #acks: number[] = [];
  /**
   * Where the open run's header is in `#frames` (the last frame), or -1;
   * its target and sender, and the seq a message must have to join it.
   */
  #run = -1;
  #runTarget: string | number = 0;
  #runSender = 0;
  #runSeq = 0;
  /** The open run's recipient, for the books (one a run). */
  #runRecipient: unknown = undefined;
  /** Messages from the other side still owed an outcome (see `owe`). */
  #owed = 0;
  #scheduled = false;
  #closed = false;
  readonly #flush = (): void => {
    this.#scheduled = false;
    this.flush();
  };

  /**
   * @param uncloneable Called for each frame that could not be posted: a
   * DELIVER as a run of one message, `[DELIVER, seq, target, sender, 1,
   * message]`, or the SPAWN frame.
   * @param book The books of the messages in flight (the main side's):
   * told of each run, with its sender and recipient, and of each batch
   * posted.
   */
  constructor(
    endpoint: Endpoint,
    uncloneable: (frame: unknown[], error: unknown) => void,
    book?: Book<unknown, unknown>,
  ) {
    this.#endpoint = endpoint;
    this.#uncloneable = uncloneable;
    this.#book = book;
  }

  /**
   * Queues a message: in the open run if it has the run's target, sender
   * and recipient and the next seq (0 for every message of the worker side),
   * else in a new run. A `Transfer`'s message goes, and its objects move
   * with the batch. `senderRef` and `recipient`: what the books keep of a
   * new run (the main side's).
   */
  deliver(
    seq: number,
    target: string | number,
    message: unknown,
    sender: number,
    senderRef?: unknown,
    recipient?: unknown,
  ): void {
    const frames = this.#frames;
    const n = frames.length;
    const run = this.#run;
    // In the open run if it has the run's target, sender (and recipient,
    // which the books keep once a run) and the next seq.
    const joins = run >= 0 && seq === this.#runSeq &&
      target === this.#runTarget && sender === this.#runSender &&
      recipient === this.#runRecipient;
    if (isTransfer(message)) {
      for (const object of message.transfer) this.#transfer.push(object);
      // The message's slot, in the run or after a new run's header.
      (this.#transferBySlot ??= new Map()).set(n + (joins ? 0 : 5), message);
      message = message.message;
    }
    if (joins) {
      frames[n] = message;
      frames[run + 4] = (frames[run + 4] as number) + 1;
      if (seq !== 0) this.#runSeq = seq + 1;
    } else {
      frames[n] = DELIVER;
      frames[n + 1] = seq;
      frames[n + 2] = target;
      frames[n + 3] = sender;
      frames[n + 4] = 1;
      frames[n + 5] = message;
      this.#run = n;
      this.#runTarget = target;
      this.#runSender = sender;
      this.#runSeq = seq === 0 ? 0 : seq + 1;
      this.#runRecipient = recipient;
      if (seq !== 0) this.#book?.run(frames, n, senderRef, recipient);
    }
    // Posted at once when full, unless a turn owed an outcome may be under
    // way (then at its end: see the class's header).
    if (frames.length >= BATCH_SLOTS && this.#owed === 0) this.flush();
    else if (!this.#scheduled) this.#schedule();
  }

  /** Queues any other frame. */
  frame(...fields: unknown[]): void {
    for (const field of fields) this.#frames.push(field);
    this.#run = -1;
    this.#schedule();
  }

  /**
   * One more message from the other side whose outcome this side owes: an
   * acknowledgement or its return, queued with `ack(seq, true)` or
   * `undelivered` when its turn ends.
   */
  owe(): void {
    this.#owed++;
  }

  /**
   * Acknowledges one seq (sent with the next batch, in runs); `owed`: it is
   * the outcome of a message counted by `owe`.
   */
  ack(seq: number, owed = false): void {
    const acks = this.#acks;
    const n = acks.length;
    if (n > 0 && acks[n - 1] === seq - 1) acks[n - 1] = seq;
    else acks.push(seq, seq);
    if (owed) this.#paid();
    else if (!this.#scheduled) this.#schedule();
  }

  /** Returns an owed message (counted by `owe`) with `reason`. */
  undelivered(seq: number, reason: string): void {
    this.frame(UNDELIVERED, seq, reason);
    this.#paid();
  }

  /** An owed message's turn has ended: a batch it filled goes now, whole. */
  #paid(): void {
    this.#owed--;
    if (this.#frames.length >= BATCH_SLOTS) this.flush();
    else if (!this.#scheduled) this.#schedule();
  }

  /** Drops whatever is queued and posts nothing more. */
  close(): void {
    this.#closed = true;
    // What was queued stays in the books, to be given back.
    this.#book?.sealed(this.#transferBySlot);
    this.#frames = [];
    this.#transfer = [];
    this.#transferBySlot = undefined;
    this.#acks = [];
    this.#run = -1;
  }

  #schedule(): void {
    if (this.#scheduled || this.#closed) return;
    this.#scheduled = true;
    queueMicrotask(this.#flush);
  }

  /** Posts what is queued, and the acknowledgements, as one batch. */
  flush(): void {
    if (this.#closed) return;
    const frames = this.#frames;
    this.#run = -1;
    const acks = this.#acks;
    if (acks.length > 0) {
      // In line, not as an array of its own: a batch that holds an array
      // (or any object but a flat one) leaves Bun's fast path for cloning
      // arrays of flat objects, and then costs over twice as much a message
      // (bench/clone_cost.mjs).
      frames.push(ACKS, acks.length);
      for (let k = 0; k < acks.length; k++) frames.push(acks[k]);
      this.#acks = [];
    }
    if (frames.length === 0) return;
    const transfer = this.#transfer;
    const bySlot = this.#transferBySlot;
    this.#frames = [];
    this.#transfer = [];
    this.#transferBySlot = undefined;
    this.#book?.sealed(bySlot);
    try {
      this.#post(frames, transfer);
    } catch {
      // Some message could not be cloned, or some transfer list is bad:
      // only this rare path posts frame by frame, each message with its own
      // objects, and hands back each message that cannot go (nothing moved:
      // a failed post transfers nothing).
      this.#postEach(frames, bySlot);
    }
  }

  #post(frames: unknown[], transfer: readonly object[]): void {
    if (transfer.length === 0) this.#endpoint.postMessage(frames);
    else this.#endpoint.postMessage(frames, transfer as object[]);
  }

  /**
   * Posts each frame of `frames` on its own, a run's messages one by one as
   * runs of one (`[DELIVER, seq, target, sender, 1, message]`), so that the
   * other frames (acknowledgements among them) and messages still cross.
   */
  #postEach(
    frames: unknown[],
    bySlot: Map<number, Transfer> | undefined,
  ): void {
    for (let i = 0; i < frames.length;) {
      const length = frameLength(frames, i);
      if (frames[i] === DELIVER) {
        const seq = frames[i + 1] as number;
        for (let k = 0; k < length - 5; k++) {
          const frame = [
            DELIVER,
            seq === 0 ? 0 : seq + k,
            frames[i + 2],
            frames[i + 3],
            1,
            frames[i + 5 + k],
          ];
          this.#postFrame(
            frame,
            bySlot?.get(i + 5 + k)?.transfer ?? NO_OBJECTS,
          );
        }
      } else this.#postFrame(frames.slice(i, i + length), NO_OBJECTS);
      i += length;
    }
  }

  /** Posts one frame; a message or a spawn that cannot go is handed back. */
  #postFrame(frame: unknown[], transfer: readonly object[]): void {
    try {
      this.#post(frame, transfer);
    } catch (error) {
      // Another frame that cannot go is a closed endpoint's: the other side
      // is gone, and with it whoever waited for the frame.
      if (frame[0] === DELIVER || frame[0] === SPAWN) {
        this.#uncloneable(frame, error);
      }
    }
  }
}

/** No object to transfer. */
const NO_OBJECTS: readonly object[] = [];

/** A kept message's slot once it is out of the books. */
const SETTLED = /* @__PURE__ */ Object.freeze({});

/**
 * One batch of the main side's, kept for the books: its frames as posted
 * (or still being filled), and, for each run of messages in it, the run's
 * header (where in `frames`), sender and recipient.
 */
interface KeptBatch {
  readonly frames: unknown[];
  /** Flat: header, sender, recipient, for each run, in order. */
  readonly runs: unknown[];
  /** Messages of the batch out of the books (their slots are SETTLED). */
  settled: number;
  /** The `Transfer` of each message sent with objects, by its slot. */
  transfers: Map<number, Transfer> | undefined;
}

/**
 * The main side's messages in flight, by seq, kept in the very batches the
 * {@linkcode Outbox} fills: a run's messages have consecutive seqs from its
 * header's, so a message is in the books by being in its batch, at no cost
 * a message; the books keep each batch (and its runs' sender and
 * recipient, told them once a run) until every message in it is
 * acknowledged or returned. An acknowledgement of a whole batch (the usual
 * one: the worker acknowledges in runs) lets go of it at once, without
 * visiting its messages; one of part of a batch marks each of those
 * messages' slots settled. (A book of its own, three slots a seq written
 * as each message was sent, was a fifth of the main side's cost in a
 * stream in Bun, measured with `bun --cpu-prof`.)
 *
 * A batch is kept whole while any of its messages is held (one stashed
 * long in the worker, say): what that costs is one batch's slots, up to
 * {@linkcode BATCH_SLOTS}.
 */
export class Book<M, R> {
  /** Oldest first; their seqs increase from one batch to the next. */
  #batches: KeptBatch[] = [];
  /** Whether the newest batch is still being filled (not posted yet). */
  #filling = false;
  /** The message of the entry last taken. */
  message: M | undefined = undefined;
  /** The sender of the entry last taken. */
  sender: R | undefined = undefined;
  /** The recipient of the entry last taken. */
  recipient: R | undefined = undefined;

  /** Batches kept, for tests: what the books hold beyond their entries. */
  get batchCount(): number {
    return this.#batches.length;
  }

  /**
   * A run of messages begins at `header` in `frames` (the batch being
   * filled), from `sender` to `recipient`. Called by the outbox.
   */
  run(frames: unknown[], header: number, sender: unknown, recipient: unknown) {
    const batches = this.#batches;
    let batch = batches[batches.length - 1];
    if (!this.#filling || batch.frames !== frames) {
      batch = { frames, runs: [], settled: 0, transfers: undefined };
      batches.push(batch);
      this.#filling = true;
    }
    batch.runs.push(header, sender, recipient);
  }

  /**
   * The batch being filled is posted (or dropped: the link closed), with
   * `transfers`, its messages sent as `Transfer`s by slot: later runs are
   * in a new batch. Called by the outbox.
   */
  sealed(transfers: Map<number, Transfer> | undefined): void {
    if (!this.#filling) return;
    this.#filling = false;
    const b = this.#batches.length - 1;
    this.#batches[b].transfers = transfers;
    this.#settle(b, 0);
  }

  /**
   * Removes the entry under `seq`, if held, leaving it in `message`,
   * `sender` and `recipient`; returns whether it was held.
   */
  take(seq: number): boolean {
    const batches = this.#batches;
    // Oldest first: what the worker returns is mostly among the oldest.
    for (let b = 0; b < batches.length; b++) {
      const batch = batches[b];
      const { frames, runs } = batch;
      if (seq < this.#first(batch)) break;
      for (let r = 0; r < runs.length; r += 3) {
        const header = runs[r] as number;
        const k = seq - (frames[header + 1] as number);
        if (k < 0 || k >= (frames[header + 4] as number)) continue;
        const slot = header + 5 + k;
        const message = frames[slot];
        if (message === SETTLED) return false;
        this.message = (batch.transfers?.get(slot) ?? message) as M;
        this.sender = runs[r + 1] as R | undefined;
        this.recipient = runs[r + 2] as R;
        frames[slot] = SETTLED;
        this.#settle(b, 1);
        return true;
      }
    }
    return false;
  }

  /**
   * Removes every entry from `first` to `last`, both included; returns how
   * many of those seqs were not held. Only the batches held are visited,
   * and a batch acknowledged whole is let go without visiting its messages.
   */
  drop(first: number, last: number): number {
    let missing = last - first + 1;
    const batches = this.#batches;
    for (let b = 0; b < batches.length; b++) {
      const batch = batches[b];
      const from = this.#first(batch);
      const to = this.#last(batch);
      if (to < first) continue;
      if (from > last) break;
      // (Not the batch being filled: a run may still grow in it.)
      if (
        first <= from && to <= last &&
        !(this.#filling && b === batches.length - 1)
      ) {
        missing -= to - from + 1 - batch.settled;
        if (this.#settle(b, to - from + 1 - batch.settled)) b--;
        continue;
      }
      const { frames, runs } = batch;
      let found = 0;
      for (let r = 0; r < runs.length; r += 3) {
        const header = runs[r] as number;
        const seq = frames[header + 1] as number;
        const end = Math.min(last, seq + (frames[header + 4] as number) - 1);
        for (let s = Math.max(first, seq); s <= end; s++) {
          const slot = header + 5 + s - seq;
          if (frames[slot] !== SETTLED) {
            frames[slot] = SETTLED;
            found++;
          }
        }
      }
      missing -= found;
      if (found > 0 && this.#settle(b, found)) b--;
    }
    this.message = this.sender = this.recipient = undefined;
    return missing;
  }

  /** Calls `each` for every entry, oldest first, and forgets them all. */
  clear(each: (message: M, sender: R | undefined, recipient: R) => void): void {
    const batches = this.#batches;
    this.#batches = [];
    this.#filling = false;
    for (const { frames, runs, transfers } of batches) {
      for (let r = 0; r < runs.length; r += 3) {
        const header = runs[r] as number;
        const end = header + 5 + (frames[header + 4] as number);
        for (let slot = header + 5; slot < end; slot++) {
          const message = frames[slot];
          if (message === SETTLED) continue;
          each(
            (transfers?.get(slot) ?? message) as M,
            runs[r + 1] as R | undefined,
            runs[r + 2] as R,
          );
        }
      }
    }
  }

  /**
   * `count` more messages of batch `b` are out of the books; returns
   * whether that let go of the batch (all out, and posted).
   */
  #settle(b: number, count: number): boolean {
    const batches = this.#batches;
    const batch = batches[b];
    batch.settled += count;
    if (this.#filling && b === batches.length - 1) return false;
    if (batch.settled < this.#last(batch) - this.#first(batch) + 1) {
      return false;
    }
    batches.splice(b, 1);
    return true;
  }

  #first(batch: KeptBatch): number {
    return batch.frames[(batch.runs[0] as number) + 1] as number;
  }

  #last(batch: KeptBatch): number {
    const { frames, runs } = batch;
    const header = runs[runs.length - 3] as number;
    return (frames[header + 1] as number) + (frames[header + 4] as number) - 1;
  }
}

/** How many dead entries a table may hold before it is swept. */
const SWEEP_AT = 1024;

/**
 * Local refs this side has named by number for the other side (senders,
 * mostly): held weakly, so an actor's ref named here can still be
 * collected. An `ask`'s temporary ref is named by a negative number instead,
 * and held strongly until its reply comes (or, if none does, until it is
 * swept once settled): it takes one reply, so it needs neither a `WeakRef`
 * nor the same number twice (a `WeakRef` and two
 * table entries per ask were a tenth of a round trip's work, measured on
 * both sides of a ping-pong in Node).
 */
export class Exports<R extends object> {
  readonly #ids = new WeakMap<R, number>();
  readonly #refs = new Map<number, WeakRef<R>>();
  /** The asks' refs, by negative number. */
  readonly #asks = new Map<number, R>();
  #next = 0;
  #nextAsk = 0;
  #sweepAt = SWEEP_AT;
  #sweepAsksAt = SWEEP_AT;

  /** The number of a message's sender on the wire: 0 for none. */
  senderId(sender: R | undefined): number {
    return sender === undefined ? 0 : this.idOf(sender);
  }

  /** The number of `ref`, assigned on first use (each time for an ask's). */
  idOf(ref: R): number {
    if (ref instanceof AskRef) {
      const id = --this.#nextAsk;
      this.#asks.set(id, ref);
      if (this.#asks.size >= this.#sweepAsksAt) this.#sweepAsks();
      return id;
    }
    let id = this.#ids.get(ref);
    if (id === undefined) {
      id = ++this.#next;
      this.#ids.set(ref, id);
      this.#refs.set(id, new WeakRef(ref));
      if (this.#refs.size >= this.#sweepAt) this.#sweepAt = sweep(this.#refs);
    }
    return id;
  }

  /** Whether `id` is a number this side handed out (a ref's or an ask's). */
  issued(id: number): boolean {
    return id !== 0 && id <= this.#next && id >= this.#nextAsk;
  }

  /**
   * The ref numbered `id`, if it is still alive; an ask's only once (its
   * reply, or why it has none), so a quiet system holds no answered ask
   * (one settled without a reply waits for the next sweep).
   */
  get(id: number): R | undefined {
    if (id >= 0) return this.#refs.get(id)?.deref();
    const ask = this.#asks.get(id);
    this.#asks.delete(id);
    return ask;
  }

  /** Forgets the asks settled without a reply (timed out, aborted). */
  #sweepAsks(): void {
    const asks = this.#asks;
    for (const [id, ref] of asks) {
      if ((ref as unknown as AskRef<unknown>).settled) asks.delete(id);
    }
    this.#sweepAsksAt = Math.max(SWEEP_AT, asks.size * 2);
  }
}

/**
 * Drops the entries whose ref was collected; returns the size at which to
 * sweep next (twice what is left, at least `SWEEP_AT`), so sweeping costs
 * amortised O(1) an entry.
 */
function sweep(refs: Map<unknown, WeakRef<object>>): number {
  for (const [key, weak] of refs) {
    if (weak.deref() === undefined) refs.delete(key);
  }
  return Math.max(SWEEP_AT, refs.size * 2);
}

/**
 * Refs standing for the other side's numbered refs, made once per number
 * and held weakly, so the same remote sender is the same object while
 * anyone holds it.
 */
export class Imports<R extends object> {
  readonly #refs = new Map<number, WeakRef<R>>();
  readonly #make: (id: number) => R;
  #sweepAt = SWEEP_AT;

  constructor(make: (id: number) => R) {
    this.#make = make;
  }

  /**
   * The ref for the other side's `id`: a new one each time for an ask's
   * (a negative `id`, which is never sent twice).
   */
  get(id: number): R {
    if (id < 0) return this.#make(id);
    let ref = this.#refs.get(id)?.deref();
    if (ref === undefined) {
      ref = this.#make(id);
      this.#refs.set(id, new WeakRef(ref));
      if (this.#refs.size >= this.#sweepAt) this.#sweepAt = sweep(this.#refs);
    }
    return ref;
  }
}
