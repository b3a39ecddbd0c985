// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The way from one actor host to one other Durable Object: a queue of
 * outgoing messages, sent over the platform's RPC in order. Tells made in
 * one turn leave together, as one call; while a call is out (or waiting to
 * be retried), later tells wait behind it, so they arrive in the order they
 * were told. An ask is a call of its own, made in its place in the queue
 * (calls on one stub are delivered in the order they are made), whose
 * result is the reply.
 *
 * Tells are numbered: each way has an incarnation (a random id, new with
 * every channel, so after every reset or eviction of the sender) and each
 * batch the number of its first tell, kept across retries, so that the
 * receiver can drop a copy (a retry of a call whose reply was lost).
 *
 * A call that fails is retried with the host's retry settings: only
 * errors they allow, after the policy's wait, at most `maxAttempts` calls.
 * After any error the next call takes a fresh stub: a stub that threw may
 * stay broken for good (an evicted object's, say), as Cloudflare warns. What
 * is finally given up goes to dead letters with the error, and a
 * `RemoteDeliveryFailed` event; an ask rejects with a
 * `RemoteDeliveryError`. Internal to the module.
 *
 * @module
 */

import { askPolicy } from "../backoff/_policy.ts";
import type { ActorRef } from "../runtime/actor_ref.ts";
import { AskTimeoutError, UndeliveredError } from "../runtime/actor_ref.ts";
import type { ActorSystem } from "../runtime/actor_system.ts";
import type { DurableObjectNamespaceLike } from "./platform.ts";
import {
  RemoteDeliveryError,
  RemoteDeliveryFailed,
  remoteReason,
} from "./remote_delivery.ts";
import { mayRetry, type RetrySettings } from "./retry.ts";
import type {
  HostStub,
  WireBatch,
  WireFrom,
  WireOutcome,
  WirePacket,
} from "./wire.ts";

/** Tells per call at most. */
const MAX_BATCH = 256;

/** A pending ask: how to settle it, and when it must be settled by. */
export interface AskWaiter {
  readonly resolve: (reply: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly timeoutMs: number;
  readonly deadline: number;
}

/**
 * What waits on a way: tells in a row to one recipient from one sender
 * (a run: a burst of tells is one of these, not one object a tell), or an
 * ask (one message). One shape for both, so the queue's reads stay
 * monomorphic.
 */
class Run {
  /** In the order told, at most `MAX_BATCH`: a call sends them as they are. */
  declare messages: unknown[];
  /** The recipient's path in the other object. */
  declare readonly to: string;
  /** The sender's path in this object, if the receiver may reply to it. */
  declare readonly senderPath: string | undefined;
  declare readonly sender: ActorRef<never> | undefined;
  declare readonly recipient: ActorRef<never>;
  /** The first message's number (0: not numbered); the others follow on. */
  declare first: number;
  /** The incarnation the messages are numbered in (numbered tells only). */
  declare readonly incarnation: string | undefined;
  /** Whether later tells may join it: not once it is out, nor an ask, a lone or a recovered run. */
  declare open: boolean;
  /** Sent in a call of its own (a batch it was in could not be serialized). */
  declare alone: boolean;
  /** Set for an ask. */
  declare readonly waiter: AskWaiter | undefined;
  /** An ask's number on this way (asks from a host that knows itself): its retries carry it, so that the receiver answers a retry with the first call's answer. */
  declare readonly askId: number | undefined;

  constructor(
    to: string,
    message: unknown,
    senderPath: string | undefined,
    sender: ActorRef<never> | undefined,
    recipient: ActorRef<never>,
    first: number,
    incarnation: string | undefined,
    open: boolean,
    waiter?: AskWaiter,
    askId?: number,
  ) {
    this.messages = [message];
    this.to = to;
    this.senderPath = senderPath;
    this.sender = sender;
    this.recipient = recipient;
    this.first = first;
    this.incarnation = incarnation;
    this.open = open;
    this.alone = false;
    this.waiter = waiter;
    this.askId = askId;
  }
}

/** A tell an earlier life stored and did not deliver, as read back. */
export interface RecoveredTell {
  readonly to: string;
  readonly message: unknown;
  readonly senderPath: string | undefined;
  readonly recipient: ActorRef<never>;
  readonly seq: number;
  readonly incarnation: string;
}

/** Where a channel keeps the tells it has not delivered yet (the sending object's storage). */
export interface OutboxStore {
  put(key: string, value: unknown): Promise<void>;
  delete(key: string): Promise<unknown>;
}

/** What a channel stored for tells of one turn: under `key`, up to number `last`. */
export interface OutboxChunk {
  readonly key: string;
  readonly incarnation: string;
  readonly last: number;
}

/** The storage keys of outboxes start with this. */
export const OUTBOX_PREFIX = "understudy/outbox/";

/** One RPC call and its attempts. */
interface Call {
  /** Its tells (runs of one incarnation, numbered on from one another), or its ask. */
  readonly runs: Run[];
  /** What crosses, made once for every attempt (tells only). */
  readonly wire: WireBatch | undefined;
  attempts: number;
}

/** A random id of 128 bits, as 32 hex digits. Internal to the module. */
export function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let id = "";
  for (const byte of bytes) id += byte.toString(16).padStart(2, "0");
  return id;
}

const CLOSED = "the sending actor host was reset";

/** The way to one Durable Object. */
export class Channel {
  readonly #system: ActorSystem;
  readonly #namespace: DurableObjectNamespaceLike;
  readonly #binding: string;
  readonly #name: string;
  readonly #outbox: OutboxStore | undefined;
  /** Numbered tells not stored yet (`[number, packet]`): stored before the next call leaves. */
  #unsaved: [number, WirePacket][] = [];
  /** What is stored and not yet delivered or given up, in order. */
  #chunks: OutboxChunk[] = [];
  /** Incarnations of this object's earlier lives whose tells this way still carries. */
  readonly #older = new Set<string>();
  readonly #settings: RetrySettings;
  /** Who this way is from, as the calling host knows itself; `null` if it does not. */
  readonly #from: WireFrom | null;
  /** The number the next tell gets. */
  #nextSeq = 1;
  /** The number the next ask gets. */
  #nextAsk = 1;
  #stub: HostStub | undefined = undefined;
  /** What waits to leave: `#queue` from `#head` on (taking from the front of a long array by `splice` made a burst of N tells cost N²). */
  #queue: Run[] = [];
  #head = 0;
  /** A batch of tells is out or waiting for its retry. */
  #busy = false;
  #pumpQueued = false;
  #closed = false;
  /** Retry timers, with the call each will make again. */
  readonly #waits = new Map<unknown, Call>();
  readonly #pump = (): void => this.#drain();
  readonly #saver = (): void => this.#save();

  constructor(
    system: ActorSystem,
    namespace: DurableObjectNamespaceLike,
    binding: string,
    name: string,
    settings: RetrySettings,
    self: readonly [binding: string, name: string] | undefined,
    outbox?: OutboxStore,
  ) {
    this.#system = system;
    this.#namespace = namespace;
    this.#binding = binding;
    this.#name = name;
    this.#outbox = self === undefined ? undefined : outbox;
    this.#settings = settings;
    this.#from = self === undefined ? null : [self[0], self[1], randomId()];
  }

  /** This way's incarnation, if it has an identity to number tells by. */
  get incarnation(): string | undefined {
    return this.#from?.[2];
  }

  /** Whether tells numbered in `incarnation` go this way (this life's, or an earlier one's recovered). */
  speaksFor(incarnation: string): boolean {
    return incarnation === this.#from?.[2] || this.#older.has(incarnation);
  }

  /**
   * Takes back tells an earlier life of this object stored and did not
   * deliver: they go first, in their own incarnation and numbers, so that
   * the receiver drops those it already took.
   */
  recover(tells: RecoveredTell[], chunks: OutboxChunk[]): void {
    for (const chunk of chunks) this.#older.add(chunk.incarnation);
    this.#chunks = chunks.concat(this.#chunks);
    // A run each: a call takes as many as follow on from each other.
    this.#putBack(tells.map((tell) =>
      new Run(
        tell.to,
        tell.message,
        tell.senderPath,
        undefined,
        tell.recipient,
        tell.seq,
        tell.incarnation,
        false,
      )
    ));
    this.#wake();
  }

  /** Stubs made so far (1 after the first call, one more after each failed call). */
  stubs = 0;

  /** Nothing queued, out or waiting. */
  get idle(): boolean {
    return !this.#busy && this.#queue.length === this.#head &&
      this.#waits.size === 0;
  }

  /**
   * Queues a tell of `message` to the actor at `to` (`recipient`'s path
   * there) from `sender` (at `senderPath` here, if it may be replied to);
   * it leaves once the current turn's other tells have joined it. A tell
   * like the one before it (same recipient, same sender) joins that one's
   * run.
   */
  tell(
    to: string,
    message: unknown,
    senderPath: string | undefined,
    sender: ActorRef<never> | undefined,
    recipient: ActorRef<never>,
  ): void {
    if (this.#closed) {
      this.#lose(message, sender, recipient, new Error(CLOSED), 0);
      return;
    }
    const queue = this.#queue;
    const from = this.#from;
    const run = queue[queue.length - 1];
    if (
      run !== undefined && run.open && run.recipient === recipient &&
      run.sender === sender && run.senderPath === senderPath &&
      run.messages.length < MAX_BATCH
    ) {
      // An open run is this life's last: numbered on from its first.
      run.messages.push(message);
    } else {
      queue.push(
        new Run(
          to,
          message,
          senderPath,
          sender,
          recipient,
          from === null ? 0 : this.#nextSeq,
          from?.[2],
          true,
        ),
      );
    }
    if (from !== null) {
      const seq = this.#nextSeq++;
      if (this.#outbox !== undefined) {
        // Stored at the end of this turn, whether or not a call leaves now.
        const unsaved = this.#unsaved;
        if (unsaved.length === 0) queueMicrotask(this.#saver);
        unsaved.push([
          seq,
          senderPath === undefined ? [to, message] : [to, message, senderPath],
        ]);
      }
    }
    this.#wake();
  }

  /** Queues an ask: a call of its own, in its place among the tells. */
  ask(
    to: string,
    message: unknown,
    recipient: ActorRef<never>,
    waiter: AskWaiter,
  ): void {
    const run = new Run(
      to,
      message,
      undefined,
      undefined,
      recipient,
      0,
      undefined,
      false,
      waiter,
      this.#from === null ? undefined : this.#nextAsk++,
    );
    if (this.#closed) this.#giveUp(run, new Error(CLOSED), 0);
    else {
      this.#queue.push(run);
      this.#wake();
    }
  }

  /** Makes sure the queue is looked at once this turn's sends are in. */
  #wake(): void {
    if (!this.#busy && !this.#pumpQueued) {
      this.#pumpQueued = true;
      queueMicrotask(this.#pump);
    }
  }

  /**
   * Stores the tells not stored yet, in the turn they were told: the
   * output gate holds the call that carries them until the write is
   * durable, so a tell that left was stored. One that cannot be stored
   * (structured clone refuses it) is not; RPC refuses it too.
   */
  #save(): void {
    const entries = this.#unsaved;
    const outbox = this.#outbox;
    if (entries.length === 0 || outbox === undefined) return;
    this.#unsaved = [];
    // Every unsaved tell is this life's: numbered in its incarnation.
    const incarnation = this.#from![2];
    const chunk = (part: [number, WirePacket][]) => {
      const key =
        `${OUTBOX_PREFIX}${this.#binding}/${this.#name}/${incarnation}/${
          String(part[0][0]).padStart(15, "0")
        }`;
      outbox.put(key, {
        binding: this.#binding,
        name: this.#name,
        incarnation,
        entries: part,
      }).catch(() => {});
      this.#chunks.push({ key, incarnation, last: part[part.length - 1][0] });
    };
    try {
      chunk(entries);
    } catch {
      for (const entry of entries) {
        try {
          chunk([entry]);
        } catch {
          // Not storable: RPC will refuse it as well (a dead letter).
        }
      }
    }
  }

  /** The tells of `call` (and any before them) were delivered or given up: their stored copies go. */
  #settle(call: Call): void {
    const outbox = this.#outbox;
    const run = call.runs[call.runs.length - 1];
    const incarnation = run.incarnation;
    if (outbox === undefined || incarnation === undefined) return;
    const last = run.first + run.messages.length - 1;
    this.#chunks = this.#chunks.filter((chunk) => {
      if (chunk.incarnation !== incarnation || chunk.last > last) return true;
      outbox.delete(chunk.key).catch(() => {});
      return false;
    });
  }

  /** Who this way is from (`null` if the host does not know itself). */
  get from(): WireFrom | null {
    return this.#from;
  }

  /**
   * A call of its own (not queued, not retried) on this way's stub; after
   * an error, the next call takes a fresh stub.
   */
  invoke<R>(call: (stub: HostStub) => Promise<R>): Promise<R> {
    let result: Promise<R>;
    try {
      result = Promise.resolve(call(this.#stubNow()));
    } catch (error) {
      result = Promise.reject(error);
    }
    return result.catch((error) => {
      this.#stub = undefined;
      throw error;
    });
  }

  /** The system's clock, for ask deadlines. */
  now(): number {
    return this.#system.scheduler.now();
  }

  /**
   * Gives up everything queued or waiting for a retry (dead letters, asks
   * rejected) and clears every timer. Calls already out settle as they
   * will, without retry.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    const reason = new Error(CLOSED);
    for (const [timer, call] of this.#waits) {
      this.#system.scheduler.clearTimeout(timer);
      for (const run of call.runs) this.#giveUp(run, reason, call.attempts);
    }
    this.#waits.clear();
    const queued = this.#queue.slice(this.#head);
    this.#queue = [];
    this.#head = 0;
    for (const run of queued) this.#giveUp(run, reason, 0);
    // Given up: nothing stored is to be sent again.
    this.#unsaved = [];
    for (const chunk of this.#chunks) {
      this.#outbox?.delete(chunk.key).catch(() => {});
    }
    this.#chunks = [];
  }

  #drain(): void {
    this.#pumpQueued = false;
    this.#save();
    while (
      !this.#busy && !this.#closed && this.#queue.length > this.#head
    ) {
      const queue = this.#queue;
      const head = queue[this.#head++];
      head.open = false;
      const runs = [head];
      if (head.waiter === undefined) this.#busy = true;
      if (head.waiter === undefined && !head.alone) {
        // One call carries consecutive numbers of one incarnation.
        let size = head.messages.length;
        let last = head;
        while (size < MAX_BATCH && queue.length > this.#head) {
          const next = queue[this.#head];
          if (
            next.waiter !== undefined || next.alone ||
            next.incarnation !== head.incarnation ||
            (head.incarnation !== undefined &&
              next.first !== last.first + last.messages.length)
          ) break;
          const room = MAX_BATCH - size;
          if (next.messages.length > room) {
            // What fits goes now; the rest waits, still open to tells.
            runs.push(cut(next, 0, room));
            next.messages = next.messages.slice(room);
            if (next.incarnation !== undefined) next.first += room;
            size = MAX_BATCH;
            break;
          }
          this.#head++;
          next.open = false;
          runs.push(next);
          size += next.messages.length;
          last = next;
        }
      }
      this.#call({
        runs,
        wire: head.waiter === undefined ? wireOf(runs) : undefined,
        attempts: 0,
      });
    }
    this.#compact();
  }

  /** `runs` go back to the front of the queue, before what waits. */
  #putBack(runs: Run[]): void {
    this.#queue = runs.concat(this.#queue.slice(this.#head));
    this.#head = 0;
  }

  /** Drops what was taken from the front, once it is most of the array. */
  #compact(): void {
    const head = this.#head;
    if (head === 0) return;
    if (head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (head >= 1_024 && head * 2 >= this.#queue.length) {
      this.#queue = this.#queue.slice(head);
      this.#head = 0;
    }
  }

  #stubNow(): HostStub {
    if (this.#stub === undefined) {
      const namespace = this.#namespace;
      this.#stub = namespace.get(namespace.idFromName(this.#name)) as HostStub;
      this.stubs++;
    }
    return this.#stub;
  }

  #call(call: Call): void {
    call.attempts++;
    let result: Promise<unknown>;
    const head = call.runs[0];
    try {
      const stub = this.#stubNow();
      const ask = head.waiter;
      if (ask === undefined) {
        const from = this.#from;
        const incarnation = head.incarnation;
        result = stub.understudyDeliver(
          from === null || incarnation === undefined ||
            incarnation === from[2]
            ? from
            : [from[0], from[1], incarnation],
          head.first,
          call.wire!,
        );
      } else {
        const remaining = Math.max(1, Math.ceil(ask.deadline - this.now()));
        result = stub.understudyAsk(
          this.#from,
          [head.to, head.messages[0]],
          Math.min(remaining, ask.timeoutMs),
          head.askId,
        );
      }
    } catch (error) {
      result = Promise.reject(error);
    }
    Promise.resolve(result).then(
      (value) => this.#succeeded(call, value),
      (error) => this.#failed(call, error),
    );
  }

  #succeeded(call: Call, value: unknown): void {
    const head = call.runs[0];
    if (head.waiter !== undefined) {
      settleAsk(head, value);
    } else {
      this.#settle(call);
      this.#busy = false;
      this.#drain();
    }
  }

  #failed(call: Call, error: unknown): void {
    // Whatever the error, the next call (a retry, or the next batch) takes
    // a fresh stub.
    this.#stub = undefined;
    const runs = call.runs;
    const ask = runs[0].waiter;
    if (
      ask === undefined && call.wire!.messages.length > 1 &&
      isDataCloneError(error) && !this.#closed
    ) {
      // One of them cannot be serialized, and nothing was sent: send each
      // alone, so that only the ones that cannot cross are given up.
      const alone: Run[] = [];
      for (const run of runs) {
        for (let i = 0; i < run.messages.length; i++) {
          const one = cut(run, i, i + 1);
          one.alone = true;
          alone.push(one);
        }
      }
      this.#putBack(alone);
      this.#busy = false;
      this.#drain();
      return;
    }
    const delayMs = this.#retryDelay(call, error);
    if (
      delayMs !== undefined &&
      (ask === undefined || this.now() + delayMs < ask.deadline)
    ) {
      // On the system's scheduler: a test's manual clock moves the waits too.
      const timer = this.#system.scheduler.setTimeout(() => {
        this.#waits.delete(timer);
        this.#call(call);
      }, delayMs);
      this.#waits.set(timer, call);
      return;
    }
    for (const run of runs) this.#giveUp(run, error, call.attempts);
    if (ask === undefined) {
      this.#settle(call);
      this.#busy = false;
      this.#drain();
    }
  }

  /** The wait before retrying `call`, or `undefined` if it is not retried. */
  #retryDelay(call: Call, error: unknown): number | undefined {
    const settings = this.#settings;
    if (this.#closed || call.attempts >= settings.maxAttempts) return undefined;
    // A numbered batch of tells may be sent again whatever happened to the
    // first (the receiver drops copies), so a reset object's error, which
    // is not marked retryable, is retried too: on the fresh stub.
    const numbered = call.runs[0].waiter === undefined && this.#from !== null;
    if (
      !mayRetry(settings, error, call.attempts) &&
      !(numbered && isFlagged(error, "durableObjectReset") &&
        !isFlagged(error, "overloaded"))
    ) return undefined;
    // A broken policy (a throw, NaN, a negative delay) gives up the call
    // rather than retrying at once or jamming the channel.
    return askPolicy(settings.policy, call.attempts - 1).delayMs;
  }

  /** `run` will not be delivered: a dead letter with the error for each message, and the ask rejected. */
  #giveUp(run: Run, error: unknown, attempts: number): void {
    for (const message of run.messages) {
      this.#lose(message, run.sender, run.recipient, error, attempts);
    }
    run.waiter?.reject(
      new RemoteDeliveryError(run.recipient.path, error, attempts),
    );
  }

  /** `message` will not be delivered: a dead letter with the error, and a `RemoteDeliveryFailed`. */
  #lose(
    message: unknown,
    sender: ActorRef<never> | undefined,
    recipient: ActorRef<never>,
    error: unknown,
    attempts: number,
  ): void {
    const system = this.#system;
    system.publishDeadLetter(
      message,
      sender,
      recipient,
      remoteReason(error, attempts),
    );
    system.eventStream.publish(
      new RemoteDeliveryFailed(message, sender, recipient, error, attempts),
    );
  }
}

/** Messages `start` to `end` of `run` as a run of their own, not open. */
function cut(run: Run, start: number, end: number): Run {
  const part = new Run(
    run.to,
    undefined,
    run.senderPath,
    run.sender,
    run.recipient,
    run.incarnation === undefined ? 0 : run.first + start,
    run.incarnation,
    false,
  );
  part.messages = run.messages.slice(start, end);
  return part;
}

/**
 * `runs` as they cross: a lone run's messages array as it is (a burst's
 * batches are lone runs); runs to one path from one sender path, one
 * after the other, cross as one.
 */
function wireOf(runs: Run[]): WireBatch {
  const flat: (string | number)[] = [];
  for (const run of runs) {
    const senderPath = run.senderPath ?? "";
    const at = flat.length - 3;
    if (at >= 0 && flat[at] === run.to && flat[at + 1] === senderPath) {
      (flat[at + 2] as number) += run.messages.length;
    } else flat.push(run.to, senderPath, run.messages.length);
  }
  return {
    runs: flat,
    // Packed (appended), not preallocated: a holey array serializes as a
    // sparse one.
    messages: runs.length === 1
      ? runs[0].messages
      : runs.flatMap((run) => run.messages),
  };
}

/** Settles an ask with the outcome the other object returned. */
function settleAsk(run: Run, value: unknown): void {
  const ask = run.waiter!;
  const outcome = value as WireOutcome;
  if (!Array.isArray(outcome)) {
    ask.reject(
      new UndeliveredError(
        run.recipient.path,
        "the object answered something other than an actor host's reply (is it an actor host?)",
      ),
    );
  } else if (outcome[0] === 0) {
    ask.resolve(outcome[1]);
  } else if (outcome[0] === 1) {
    ask.reject(new AskTimeoutError(run.recipient.path, ask.timeoutMs));
  } else {
    ask.reject(new UndeliveredError(run.recipient.path, String(outcome[1])));
  }
}

function isFlagged(error: unknown, flag: string): boolean {
  try {
    return (error as Record<string, unknown> | null)?.[flag] === true;
  } catch {
    return false;
  }
}

function isDataCloneError(error: unknown): boolean {
  try {
    return (error as { name?: unknown })?.name === "DataCloneError";
  } catch {
    return false;
  }
}
