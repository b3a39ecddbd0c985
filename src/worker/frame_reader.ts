// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The one place where a batch that came over the worker boundary is
 * checked: {@linkcode FrameReader} walks it frame by frame and hands each
 * side (the main side's `WorkerHost`, the worker's `serveWorker`) either a
 * frame whose fields are typed and within what this side sent, or a
 * rejection with its reason. Nothing after it checks a frame again.
 * Internal to the worker transport.
 *
 * A batch is whatever the other end's `message` event carried: with a
 * `BroadcastChannel`, any same-origin script can post one, so nothing in it
 * is trusted. What each frame must be (the layouts are in wire.ts):
 *
 * - counts (a run's messages, an ACKS's slots) are integers ≥ 1 that fit
 *   in the batch; an ACKS's count is even;
 * - seqs are safe integers ≥ 1 (0 in a run from the worker), ids of spawns
 *   and `PING`'s number safe integers; names, factories and reasons
 *   strings; a spawn's arguments an array;
 * - a target or LOST number is a safe integer other than 0 that this side
 *   handed out (a ref's or an ask's); a sender a safe integer;
 * - an acknowledged range is `first ≤ last`, from 1 up to the last seq
 *   this side sent; a returned (UNDELIVERED) seq, too.
 *
 * What a bad frame does (each is logged at `error` through the system's
 * logger: the 1st, 2nd, 4th, 8th… of a link, so a flood of them costs a
 * few lines):
 *
 * | Malformation | Main side (frames from the worker) | Worker side (frames from the main side) |
 * | --- | --- | --- |
 * | a kind this side does not read (unknown, or one only it sends); frame cut short by the batch's end; count not an integer ≥ 1 (negative, NaN, fractional, a string, huge) or past the batch's end | the rest of the batch is dropped (it cannot be told apart), and the link is closed as a dead worker: `WorkerDiedError`, its supervisor decides, messages in flight are dead letters | the rest of the batch is dropped; the server goes on (what the dropped frames carried stays in the main side's books, dead letters when that worker goes) |
 * | a DELIVER's seq, target or sender of the wrong type or out of range; a target this side never handed out | its messages are dead letters; the rest of the batch is read | its messages go back to the main side (UNDELIVERED, so dead letters there), or, when their seq cannot be read, are dead letters in the worker; the rest is read |
 * | any other frame with a slot of the wrong type; an ACKS range inverted, from 0, or past the last seq sent; an ACKS count odd; UNDELIVERED of a seq never sent; LOST for an id never handed out | the frame is dropped; the rest of the batch is read | the same |
 *
 * A message that is not an array is no batch: some other code's, on an
 * endpoint it shares with the link (a worker's own "ready", say). It is
 * left alone, unlogged, as it always was.
 *
 * Checked where the books are, not here (the same logging): an ACKS or
 * UNDELIVERED for a seq sent but no longer in flight (acknowledged or
 * returned already: a server that outlived its owner may still answer the
 * old one) changes nothing. A reply for an ask no longer outstanding is a
 * dead letter, as it always was (a late reply). A frame that is well
 * formed but forged (a valid ack for a message in flight) cannot be told
 * from a real one.
 *
 * @module
 */

import { describeValue } from "../validation.ts";
import {
  ACKS,
  DELIVER,
  LOST,
  PING,
  PONG,
  SPAWN,
  SPAWN_FAILED,
  STOP,
  STOPPED,
  UNDELIVERED,
} from "./wire.ts";

/** What {@linkcode FrameReader.next} returns at the end of the batch. */
export const END = -1;
/** What {@linkcode FrameReader.next} returns for a rejected frame. */
export const BAD = -2;

/** The ids this side handed out (its `Exports`). */
export interface IssuedIds {
  /** Whether `id` (a safe integer) is one of them. */
  issued(id: number): boolean;
}

/**
 * The fields of each kind after the kind, but DELIVER's and ACKS's: `s` a
 * string, `i` a safe integer, `a` an array.
 */
const FIELDS: readonly string[] = [
  "",
  "ssai", // SPAWN name factory args id
  "i", // PING n
  "",
  "is", // UNDELIVERED seq reason
  "si", // STOPPED name id
  "ssi", // SPAWN_FAILED name reason id
  "i", // PONG n
  "is", // LOST targetId reason
  "si", // STOP name id
];

/** Each kind's name, for a log line. */
const NAMES: readonly string[] =
  "DELIVER SPAWN PING ACKS UNDELIVERED STOPPED SPAWN_FAILED PONG LOST STOP"
    .split(" ");

/** The kinds the worker reads (those the main side writes), as bits. */
const FROM_MAIN = 1 << DELIVER | 1 << SPAWN | 1 << PING | 1 << LOST | 1 << STOP;
/** The kinds the main side reads, as bits. */
const FROM_WORKER = 1 << DELIVER | 1 << ACKS | 1 << UNDELIVERED | 1 << STOPPED |
  1 << SPAWN_FAILED | 1 << PONG | 1 << LOST;

/** Whether `value` is a safe integer: an int32 at once, as most are. */
function isSafe(value: unknown): boolean {
  return value === ((value as number) | 0) || Number.isSafeInteger(value);
}

/**
 * Reads one batch at a time: {@linkcode FrameReader.read} it, then call
 * {@linkcode FrameReader.next} until it returns {@linkcode END}. After a
 * frame's kind, its fields are set (only those of that kind); after
 * {@linkcode BAD}, `error` says why, `fatal` whether the rest of the batch
 * was dropped, and a DELIVER's messages that could be found are at
 * `first`…`end` of `batch` (`seq` -1 if theirs could not be read).
 */
export class FrameReader {
  /** The batch being read. */
  batch: readonly unknown[] = [];
  /** DELIVER: the first message's seq; UNDELIVERED: the seq returned. */
  seq = 0;
  /** DELIVER: a served actor's name, or a ref's number. */
  target: string | number = 0;
  /** DELIVER: the sender's number, 0 for none. LOST: the target's number. */
  sender = 0;
  /** DELIVER: the slots of its messages; ACKS: of its ranges (first, last…). */
  first = 0;
  end = 0;
  /** SPAWN, STOP, STOPPED, SPAWN_FAILED. */
  name = "";
  /** SPAWN. */
  factory = "";
  args: readonly unknown[] = [];
  /** SPAWN, STOP, STOPPED, SPAWN_FAILED: the spawn; PING: its number. */
  id = 0;
  /** UNDELIVERED, SPAWN_FAILED, LOST. */
  reason = "";
  /** Why the frame last read was rejected. */
  error = "";
  /** Whether that rejection dropped the rest of the batch. */
  fatal = false;
  /**
   * The last seq this side sent (the main side's): set before each batch,
   * the upper bound of what may be acknowledged or returned.
   */
  sent = 0;
  /** Frames rejected so far. */
  rejected = 0;
  #i = 0;
  #start = 0;
  readonly #fromMain: boolean;
  readonly #kinds: number;
  readonly #issued: IssuedIds;
  readonly #log: (message: string) => void;

  /**
   * @param fromMain Whether the frames come from the main side (read in
   * the worker).
   * @param issued The ids this side handed out.
   * @param log Where rejections are logged (rate-limited).
   */
  constructor(
    fromMain: boolean,
    issued: IssuedIds,
    log: (message: string) => void,
  ) {
    this.#fromMain = fromMain;
    this.#kinds = fromMain ? FROM_MAIN : FROM_WORKER;
    this.#issued = issued;
    this.#log = log;
  }

  /**
   * Starts on `data`, if it is an array; anything else is not a batch (some
   * other code's message on a shared endpoint) and is left alone.
   */
  read(data: unknown): boolean {
    if (!Array.isArray(data)) return false;
    this.batch = data;
    this.#i = 0;
    return true;
  }

  /** The slots of the frame last read (for one kept to act on later). */
  frame(): unknown[] {
    return this.batch.slice(this.#start, this.#i);
  }

  /**
   * Reads the next frame: its kind, {@linkcode BAD}, or {@linkcode END}
   * (after the last frame, or after a bad one the rest cannot be read
   * past).
   */
  next(): number {
    const batch = this.batch;
    const i = this.#i;
    if (i >= batch.length) return END;
    this.#start = i;
    const kind = batch[i];
    // The hot kinds first (both sides read DELIVER; only the main side ACKS).
    if (kind === DELIVER) return this.#deliver(batch, i);
    if (kind === ACKS && !this.#fromMain) return this.#acks(batch, i);
    // An integer 0…15 whose bit is set: no other value passes.
    if (kind !== ((kind as number) & 15) || (this.#kinds >> kind & 1) === 0) {
      return this.#fatal(`unknown frame kind ${describeValue(kind)}`);
    }
    const fields = FIELDS[kind];
    const next = i + 1 + fields.length;
    if (next > batch.length) return this.#fatal(`${NAMES[kind]} cut short`);
    this.#i = next;
    for (let f = 0; f < fields.length; f++) {
      const value = batch[i + 1 + f];
      const type = fields[f];
      if (
        type === "s"
          ? typeof value !== "string"
          : type === "i"
          ? !isSafe(value)
          : !Array.isArray(value)
      ) {
        return this.#reject(
          `${NAMES[kind]} field ${f + 1} is ${describeValue(value)}`,
        );
      }
    }
    // Typed now, as FIELDS says.
    const a = batch[i + 1] as number;
    const b = batch[i + 2] as never;
    const c = batch[i + 3] as never;
    switch (kind) {
      case SPAWN:
        this.name = a as never;
        this.factory = b;
        this.args = c;
        this.id = batch[i + 4] as number;
        break;
      case STOP:
      case STOPPED:
        this.name = a as never;
        this.id = b;
        break;
      case SPAWN_FAILED:
        this.name = a as never;
        this.reason = b;
        this.id = c;
        break;
      case UNDELIVERED:
        if (!(a >= 1 && a <= this.sent)) {
          return this.#reject(`UNDELIVERED of seq ${a}, never sent`);
        }
        this.seq = a;
        this.reason = b;
        break;
      case LOST:
        if (!this.#issued.issued(a)) {
          return this.#reject(`LOST for ref ${a}, never handed out`);
        }
        this.sender = a;
        this.reason = b;
        break;
      default: // PING, PONG
        this.id = a;
    }
    return kind;
  }

  /**
   * Logs a rejection found by whoever acts on a frame (the books): the
   * 1st, 2nd, 4th, 8th… of this reader.
   */
  report(reason: string): void {
    const n = ++this.rejected;
    if ((n & (n - 1)) === 0) {
      this.#log(
        `malformed frame from the ${
          this.#fromMain ? "main side" : "worker"
        }: ${reason}${n > 1 ? ` (${n} so far)` : ""}`,
      );
    }
  }

  #deliver(batch: readonly unknown[], i: number): number {
    if (i + 5 > batch.length) return this.#fatal("DELIVER cut short");
    const count = batch[i + 4];
    // An integer ≥ 1 whose messages fit in the batch (so below 2^32).
    if (
      count !== (count as number) >>> 0 || count === 0 ||
      i + 5 + (count as number) > batch.length
    ) {
      return this.#fatal(
        `DELIVER count ${describeValue(count)} does not fit the batch`,
      );
    }
    const first = i + 5;
    const end = first + (count as number);
    this.#i = end;
    const seq = batch[i + 1];
    const target = batch[i + 2];
    const sender = batch[i + 3];
    const fromMain = this.#fromMain;
    // Seqs from the main side are ≥ 1 (the run's last safe too); 0 from the worker.
    const seqOk = fromMain
      ? isSafe(seq) && (seq as number) >= 1 &&
        isSafe((seq as number) + (count as number) - 1)
      : seq === 0;
    let error: string | undefined;
    if (!seqOk) error = `DELIVER seq ${describeValue(seq)}`;
    else if (!isSafe(sender)) error = `DELIVER sender ${describeValue(sender)}`;
    else if (typeof target === "string") {
      if (!fromMain) error = "DELIVER to a name, from the worker";
    } else if (!isSafe(target) || target === 0) {
      error = `DELIVER target ${describeValue(target)}`;
    } else if (!this.#issued.issued(target as number)) {
      error = `DELIVER to ref ${target}, never handed out`;
    }
    if (error !== undefined) {
      this.#reject(error);
      this.seq = seqOk && fromMain ? seq as number : -1;
      this.first = first;
      this.end = end;
      return BAD;
    }
    this.seq = seq as number;
    this.target = target as string | number;
    this.sender = sender as number;
    this.first = first;
    this.end = end;
    return DELIVER;
  }

  #acks(batch: readonly unknown[], i: number): number {
    if (i + 2 > batch.length) return this.#fatal("ACKS cut short");
    const count = batch[i + 1];
    if (
      count !== (count as number) >>> 0 || count === 0 ||
      i + 2 + (count as number) > batch.length
    ) {
      return this.#fatal(
        `ACKS count ${describeValue(count)} does not fit the batch`,
      );
    }
    const first = i + 2;
    const end = first + (count as number);
    this.#i = end;
    if (((count as number) & 1) === 1) {
      return this.#reject(`ACKS count ${count} is odd`);
    }
    const sent = this.sent;
    for (let r = first; r < end; r += 2) {
      const from = batch[r];
      const to = batch[r + 1];
      if (
        !isSafe(from) || !isSafe(to) || !((from as number) >= 1) ||
        !((to as number) >= (from as number)) || !((to as number) <= sent)
      ) {
        return this.#reject(
          `ACKS range ${describeValue(from)}…${
            describeValue(to)
          } (last seq sent: ${sent})`,
        );
      }
    }
    this.first = first;
    this.end = end;
    return ACKS;
  }

  /** A rejected frame (a DELIVER's sets `first` and `end` after). */
  #reject(error: string): number {
    this.first = this.end = 0;
    this.error = error;
    this.fatal = false;
    this.report(error);
    return BAD;
  }

  /** A rejection the rest of the batch cannot be read past. */
  #fatal(error: string): number {
    this.#reject(`${error}; the rest of the batch is dropped`);
    this.fatal = true;
    this.#i = this.batch.length;
    return BAD;
  }
}
