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
import {
  type HostStub,
  toWireBatch,
  type WireFrom,
  type WireOutcome,
  type WirePacket,
} from "./wire.ts";

/** Tells per call at most. */
const MAX_BATCH = 256;

/** A pending ask: how to settle it, and when it must be settled by. */
interface AskWaiter {
  readonly resolve: (reply: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly timeoutMs: number;
  readonly deadline: number;
}

/** One message on its way. */
export interface Outgoing {
  /** The recipient's path in the other object. */
  readonly to: string;
  readonly message: unknown;
  /** The sender's path in this object, if the receiver may reply to it. */
  readonly senderPath?: string;
  readonly sender: ActorRef<never> | undefined;
  readonly recipient: ActorRef<never>;
  /** Set for an ask. */
  readonly ask?: AskWaiter;
  /** Sent in a call of its own (its batch could not be serialized). */
  alone?: boolean;
  /** An ask's number on this way (asks from a host that knows itself): its retries carry it, so that the receiver answers a retry with the first call's answer. */
  askId?: number;
  /** A tell's number, and the incarnation it is numbered in (numbered tells only). */
  seq?: number;
  incarnation?: string;
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
  readonly items: Outgoing[];
  /** The number of the first tell (tells only). */
  readonly first: number;
  attempts: number;
}

/** A random id of 128 bits, as 32 hex digits. Internal to the module. */
export function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let id = "";
  for (const byte of bytes) id += byte.toString(16).padStart(2, "0");
  return id;
}

/** The way to one Durable Object. */
export class Channel {
  readonly #system: ActorSystem;
  readonly #namespace: DurableObjectNamespaceLike;
  readonly #binding: string;
  readonly #name: string;
  readonly #outbox: OutboxStore | undefined;
  /** Numbered tells not stored yet: stored before the next call leaves. */
  #unsaved: Outgoing[] = [];
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
  #queue: Outgoing[] = [];
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
  recover(items: Outgoing[], chunks: OutboxChunk[]): void {
    for (const chunk of chunks) this.#older.add(chunk.incarnation);
    this.#chunks = chunks.concat(this.#chunks);
    this.#putBack(items);
    if (!this.#busy && !this.#pumpQueued) {
      this.#pumpQueued = true;
      queueMicrotask(this.#pump);
    }
  }

  /** Stubs made so far (1 after the first call, one more after each failed call). */
  stubs = 0;

  /** Nothing queued, out or waiting. */
  get idle(): boolean {
    return !this.#busy && this.#queue.length === this.#head &&
      this.#waits.size === 0;
  }

  /** Queues `item`; it leaves once the current turn's other tells have joined it. */
  send(item: Outgoing): void {
    if (this.#closed) {
      this.#giveUp(item, new Error("the sending actor host was reset"), 0);
      return;
    }
    const from = this.#from;
    if (from !== null && item.ask !== undefined) item.askId = this.#nextAsk++;
    if (from !== null && item.ask === undefined) {
      item.seq = this.#nextSeq++;
      item.incarnation = from[2];
      if (this.#outbox !== undefined) {
        // Stored at the end of this turn, whether or not a call leaves now.
        if (this.#unsaved.length === 0) queueMicrotask(this.#saver);
        this.#unsaved.push(item);
      }
    }
    this.#queue.push(item);
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
    const items = this.#unsaved;
    const outbox = this.#outbox;
    if (items.length === 0 || outbox === undefined) return;
    this.#unsaved = [];
    const chunk = (part: Outgoing[]) => {
      const incarnation = part[0].incarnation!;
      const key =
        `${OUTBOX_PREFIX}${this.#binding}/${this.#name}/${incarnation}/${
          String(part[0].seq).padStart(15, "0")
        }`;
      outbox.put(key, {
        binding: this.#binding,
        name: this.#name,
        incarnation,
        entries: part.map((item) => [item.seq, packetOf(item)]),
      }).catch(() => {});
      this.#chunks.push({ key, incarnation, last: part[part.length - 1].seq! });
    };
    try {
      chunk(items);
    } catch {
      for (const item of items) {
        try {
          chunk([item]);
        } catch {
          // Not storable: RPC will refuse it as well (a dead letter).
        }
      }
    }
  }

  /** Tells up to `last` of `incarnation` were delivered or given up: their stored copies go. */
  #settle(incarnation: string | undefined, last: number): void {
    const outbox = this.#outbox;
    if (outbox === undefined || incarnation === undefined) return;
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
    const reason = new Error("the sending actor host was reset");
    for (const [timer, call] of this.#waits) {
      this.#system.scheduler.clearTimeout(timer);
      for (const item of call.items) this.#giveUp(item, reason, call.attempts);
    }
    this.#waits.clear();
    const queued = this.#queue.slice(this.#head);
    this.#queue = [];
    this.#head = 0;
    for (const item of queued) this.#giveUp(item, reason, 0);
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
      const at = this.#head;
      const head = queue[at];
      if (head.ask !== undefined) {
        this.#head = at + 1;
        this.#call({ items: [head], first: 0, attempts: 0 });
        continue;
      }
      let n = 1;
      if (!head.alone) {
        // One call carries consecutive numbers of one incarnation.
        const end = Math.min(queue.length, at + MAX_BATCH);
        while (
          at + n < end && queue[at + n].ask === undefined &&
          !queue[at + n].alone &&
          queue[at + n].incarnation === head.incarnation &&
          (head.seq === undefined || queue[at + n].seq === head.seq + n)
        ) n++;
      }
      this.#head = at + n;
      this.#busy = true;
      this.#call({
        items: queue.slice(at, at + n),
        first: head.seq ?? 0,
        attempts: 0,
      });
    }
    this.#compact();
  }

  /** `items` go back to the front of the queue, before what waits. */
  #putBack(items: Outgoing[]): void {
    this.#queue = items.concat(this.#queue.slice(this.#head));
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
    try {
      const stub = this.#stubNow();
      const ask = call.items[0].ask;
      if (ask === undefined) {
        const from = this.#from;
        const incarnation = call.items[0].incarnation;
        result = stub.understudyDeliver(
          from === null || incarnation === undefined ||
            incarnation === from[2]
            ? from
            : [from[0], from[1], incarnation],
          call.first,
          toWireBatch(call.items),
        );
      } else {
        const remaining = Math.max(1, Math.ceil(ask.deadline - this.now()));
        result = stub.understudyAsk(
          this.#from,
          packetOf(call.items[0]),
          Math.min(remaining, ask.timeoutMs),
          call.items[0].askId,
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
    const first = call.items[0];
    if (first.ask !== undefined) {
      settleAsk(first, value);
    } else {
      this.#settle(first.incarnation, call.items[call.items.length - 1].seq!);
      this.#busy = false;
      this.#drain();
    }
  }

  #failed(call: Call, error: unknown): void {
    // Whatever the error, the next call (a retry, or the next batch) takes
    // a fresh stub.
    this.#stub = undefined;
    const items = call.items;
    const ask = items[0].ask;
    if (
      ask === undefined && items.length > 1 && isDataCloneError(error) &&
      !this.#closed
    ) {
      // One of them cannot be serialized, and nothing was sent: send each
      // alone, so that only the ones that cannot cross are given up.
      for (const item of items) item.alone = true;
      this.#putBack(items);
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
    for (const item of items) this.#giveUp(item, error, call.attempts);
    if (ask === undefined) {
      this.#settle(items[0].incarnation, items[items.length - 1].seq ?? 0);
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
    const numbered = call.items[0].ask === undefined && this.#from !== null;
    if (
      !mayRetry(settings, error, call.attempts) &&
      !(numbered && isFlagged(error, "durableObjectReset") &&
        !isFlagged(error, "overloaded"))
    ) return undefined;
    // A broken policy (a throw, NaN, a negative delay) gives up the call
    // rather than retrying at once or jamming the channel.
    return askPolicy(settings.policy, call.attempts - 1).delayMs;
  }

  /** `item` will not be delivered: a dead letter with the error, and the ask rejected. */
  #giveUp(item: Outgoing, error: unknown, attempts: number): void {
    const system = this.#system;
    system.publishDeadLetter(
      item.message,
      item.sender,
      item.recipient,
      remoteReason(error, attempts),
    );
    system.eventStream.publish(
      new RemoteDeliveryFailed(
        item.message,
        item.sender,
        item.recipient,
        error,
        attempts,
      ),
    );
    item.ask?.reject(
      new RemoteDeliveryError(item.recipient.path, error, attempts),
    );
  }
}

/** `item` as a {@linkcode WirePacket} (what the outbox stores). */
function packetOf(item: Outgoing): WirePacket {
  return item.senderPath === undefined
    ? [item.to, item.message]
    : [item.to, item.message, item.senderPath];
}

/** Settles an ask with the outcome the other object returned. */
function settleAsk(item: Outgoing, value: unknown): void {
  const ask = item.ask!;
  const outcome = value as WireOutcome;
  if (!Array.isArray(outcome)) {
    ask.reject(
      new UndeliveredError(
        item.recipient.path,
        "the object answered something other than an actor host's reply (is it an actor host?)",
      ),
    );
  } else if (outcome[0] === 0) {
    ask.resolve(outcome[1]);
  } else if (outcome[0] === 1) {
    ask.reject(new AskTimeoutError(item.recipient.path, ask.timeoutMs));
  } else {
    ask.reject(new UndeliveredError(item.recipient.path, String(outcome[1])));
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
