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
import { isTransfer } from "./transfer.ts";

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
  /** Each `Transfer`'s own objects, by its message's slot in `#frames`. */
  #transferBySlot: Map<number, readonly object[]> | undefined = undefined;
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
   */
  constructor(
    endpoint: Endpoint,
    uncloneable: (frame: unknown[], error: unknown) => void,
  ) {
    this.#endpoint = endpoint;
    this.#uncloneable = uncloneable;
  }

  /**
   * Queues a message: in the open run if it has the run's target and
   * sender and the next seq (0 for every message of the worker side),
   * else in a new run. A `Transfer`'s message goes, and its objects move
   * with the batch.
   */
  deliver(
    seq: number,
    target: string | number,
    message: unknown,
    sender: number,
  ): void {
    const frames = this.#frames;
    const n = frames.length;
    const run = this.#run;
    // In the open run if it has the run's target and sender and the next seq.
    const joins = run >= 0 && seq === this.#runSeq &&
      target === this.#runTarget && sender === this.#runSender;
    if (isTransfer(message)) {
      const objects = message.transfer;
      for (const object of objects) this.#transfer.push(object);
      message = message.message;
      // The message's slot, in the run or after a new run's header.
      (this.#transferBySlot ??= new Map()).set(n + (joins ? 0 : 5), objects);
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
    bySlot: Map<number, readonly object[]> | undefined,
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
          this.#postFrame(frame, bySlot?.get(i + 5 + k) ?? NO_OBJECTS);
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

/** Seqs a chunk of a {@linkcode Book} holds (a power of two). */
const CHUNK = 1024;
/** Emptied chunks a {@linkcode Book} keeps for re-use. */
const SPARE_CHUNKS = 4;
/** Stands for a chunk freed while older ones are still held: no entry. */
const EMPTIED: unknown[] = [];

/**
 * The main side's messages in flight, by seq: each a message, its sender
 * and the ref it was sent to, in three slots of a chunk of
 * {@linkcode CHUNK} seqs (no object a message, no hashing, no array grown
 * large: a `Map` of `Outgoing`s costs several times more a message).
 * Seqs are given out in increasing order and mostly taken back in order;
 * a chunk is dropped when emptied (and no later seq can fall in it), even
 * behind an older entry still held.
 */
export class Book<M, R> {
  #chunks: unknown[][] = [];
  /** Emptied chunks kept for re-use (every slot `undefined`). */
  #spare: unknown[][] = [];
  /** Live entries per chunk. */
  #live: number[] = [];
  /** The chunk number (seq / CHUNK) of `#chunks[0]`. */
  #first = 0;
  /** The highest seq set so far. */
  #last = 0;
  /** The message of the entry last taken. */
  message: M | undefined = undefined;
  /** The sender of the entry last taken. */
  sender: R | undefined = undefined;
  /** The recipient of the entry last taken. */
  recipient: R | undefined = undefined;

  /** Chunks in use, for tests: what the books cost beyond their entries. */
  get chunkCount(): number {
    return this.#chunks.filter((chunk) => chunk !== EMPTIED).length;
  }

  /** Holds an entry under `seq`, above every seq held so far. */
  set(
    seq: number,
    message: M,
    sender: R | undefined,
    recipient: R,
  ): void {
    const chunks = this.#chunks;
    const number = Math.floor(seq / CHUNK);
    if (chunks.length === 0) this.#first = number;
    let c = number - this.#first;
    this.#last = seq;
    if (c >= chunks.length) {
      // A new chunk: first drop those emptied while still being filled.
      c -= this.#dropEmpty();
      // The one filled last, if emptied (one message in flight at a time),
      // though an older entry is still held before it.
      const last = chunks.length - 1;
      if (last > 0 && this.#live[last] === 0) {
        this.#recycle(chunks[last]);
        chunks[last] = EMPTIED;
      }
      while (chunks.length <= c) {
        chunks.push(this.#spare.pop() ?? new Array(CHUNK * 3).fill(undefined));
        this.#live.push(0);
      }
    }
    const chunk = chunks[c];
    const slot = (seq % CHUNK) * 3;
    chunk[slot] = message;
    chunk[slot + 1] = sender;
    chunk[slot + 2] = recipient;
    this.#live[c]++;
  }

  /**
   * Removes the entry under `seq`, if held, leaving it in `message`,
   * `sender` and `recipient`; returns whether it was held.
   */
  take(seq: number): boolean {
    const c = Math.floor(seq / CHUNK) - this.#first;
    const chunks = this.#chunks;
    if (c < 0 || c >= chunks.length) return false;
    const chunk = chunks[c];
    const slot = (seq % CHUNK) * 3;
    const recipient = chunk[slot + 2]; // undefined in EMPTIED, too
    if (recipient === undefined) return false;
    this.message = chunk[slot] as M;
    this.sender = chunk[slot + 1] as R | undefined;
    this.recipient = recipient as R;
    chunk[slot] = chunk[slot + 1] = chunk[slot + 2] = undefined;
    if (--this.#live[c] === 0) this.#emptied(c, chunk);
    return true;
  }

  /** Chunk `c` (`chunk`) has just lost its last entry. */
  #emptied(c: number, chunk: unknown[]): void {
    if (c === 0) this.#dropEmpty();
    else if (c < Math.floor(this.#last / CHUNK) - this.#first) {
      // Emptied behind an older entry held long (a stashed message):
      // freed now, so that one entry does not keep every later chunk.
      this.#recycle(chunk);
      this.#chunks[c] = EMPTIED;
    }
  }

  /**
   * Removes every entry from `first` to `last`, both included; returns how
   * many of those seqs were not held. Only the seqs from the oldest chunk
   * held to the highest seq set are visited, so a range far wider than
   * what is in flight costs no more than what is.
   */
  drop(first: number, last: number): number {
    let missing = last - first + 1;
    let seq = Math.max(first, this.#first * CHUNK);
    const to = this.#chunks.length === 0 ? seq - 1 : Math.min(last, this.#last);
    // Chunk by chunk (an acknowledgement is a run of thousands of seqs).
    while (seq <= to) {
      const number = Math.floor(seq / CHUNK);
      const c = number - this.#first;
      const end = Math.min(to, number * CHUNK + CHUNK - 1);
      const chunk = this.#chunks[c];
      let found = 0;
      const stop = (end % CHUNK) * 3;
      for (let slot = (seq % CHUNK) * 3; slot <= stop; slot += 3) {
        if (chunk[slot + 2] !== undefined) { // undefined in EMPTIED, too
          chunk[slot] = chunk[slot + 1] = chunk[slot + 2] = undefined;
          found++;
        }
      }
      seq = end + 1;
      if (found > 0) {
        missing -= found;
        if ((this.#live[c] -= found) === 0) this.#emptied(c, chunk);
      }
    }
    this.message = this.sender = this.recipient = undefined;
    return missing;
  }

  /** Calls `each` for every entry, oldest first, and forgets them all. */
  clear(each: (message: M, sender: R | undefined, recipient: R) => void): void {
    const chunks = this.#chunks;
    this.#chunks = [];
    this.#live = [];
    for (const chunk of chunks) {
      for (let slot = 0; slot < chunk.length; slot += 3) {
        if (chunk[slot + 2] !== undefined) {
          each(
            chunk[slot] as M,
            chunk[slot + 1] as R | undefined,
            chunk[
              slot + 2
            ] as R,
          );
        }
      }
    }
  }

  /** Keeps an emptied chunk for re-use, if fewer than SPARE_CHUNKS are. */
  #recycle(chunk: unknown[]): void {
    if (chunk !== EMPTIED && this.#spare.length < SPARE_CHUNKS) {
      this.#spare.push(chunk);
    }
  }

  /**
   * Drops the empty chunks at the front that no later seq can fill (those
   * before the chunk of the highest seq set); returns how many.
   */
  #dropEmpty(): number {
    const lastChunk = Math.floor(this.#last / CHUNK) - this.#first;
    let drop = 0;
    while (
      drop < this.#chunks.length && this.#live[drop] === 0 &&
      drop < lastChunk
    ) drop++;
    if (drop === 0) return 0;
    for (const chunk of this.#chunks.splice(0, drop)) this.#recycle(chunk);
    this.#live.splice(0, drop);
    this.#first += drop;
    return drop;
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
