// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The storage port of the patterns: a synchronous key-value store
 * ({@linkcode DurableStore}) that a BackoffSupervisor writes its
 * supervision state to, in the turn that changes it, and reads back when
 * it starts. A Durable Object's `ctx.storage.kv` (the synchronous KV API of
 * SQLite-backed objects) is one; a `Map` is one in tests. The patterns
 * import nothing of `../durable/`: the object hands its store in.
 *
 * Only what a plain data copy can carry survives: messages are stored by
 * the platform's structured clone (no functions, no class prototypes, no
 * senders).
 *
 * @module
 */

import { fail } from "../validation.ts";

/**
 * A synchronous key-value store: what the patterns need of storage. A
 * Durable Object's `ctx.storage.kv` fits (each `put` is one row written,
 * made durable before the turn's output leaves the object); so does a
 * `Map`. The optional `wakeAt` asks the host to run again at a wall-clock
 * time even if it was evicted meanwhile (the object's alarm does it).
 *
 * @example A Map as a store
 * ```ts
 * import type { DurableStore } from "@understudy/core/durable";
 *
 * const store: DurableStore = new Map<string, unknown>();
 * store.put?.("k", 1);
 * ```
 */
export interface DurableStore {
  /** The value stored at `key`, or `undefined`. */
  get(key: string): unknown;
  /** Stores `value` (structured-cloneable) at `key`. A `Map`'s `set` stands in when `put` is absent. */
  put?(key: string, value: unknown): unknown;
  /** A `Map`'s `set`, used when there is no `put`. */
  set?(key: string, value: unknown): unknown;
  /** Removes `key`. */
  delete(key: string): unknown;
  /**
   * Asks the host to run again at `wallMs` (milliseconds since the epoch),
   * even if it is evicted before then. Optional: a store without it only
   * keeps the state, to be read at the next activation.
   */
  wakeAt?(wallMs: number): void;
}

/**
 * What a BackoffSupervisor keeps in a {@linkcode DurableStore}: its restart
 * count, its stashed messages (oldest first, without their senders) and,
 * while its child is down, when the respawn is due (wall-clock ms; `null`
 * when a child is up).
 *
 * @example Reading a supervisor's record
 * ```ts
 * import type { BackoffRecord } from "@understudy/core/durable";
 *
 * const record: BackoffRecord = { restartCount: 2, stash: ["a", "b"], respawnAt: null };
 * console.log(record.stash.length); // 2
 * ```
 */
export interface BackoffRecord {
  /** Respawns since the last reset. */
  readonly restartCount: number;
  /** Messages waiting for a child, oldest first. */
  readonly stash: readonly unknown[];
  /** When the pending respawn is due (ms since the epoch), or `null` if none is pending. */
  readonly respawnAt: number | null;
}

/**
 * A BackoffSupervisor's durability (its `durable` option), made by
 * {@linkcode durableBackoff}: what the supervisor calls, in the turns that
 * change its state, to keep and restore its {@linkcode BackoffRecord}. The
 * due time of a pending respawn is kept here, on the wall clock.
 *
 * @example Usage
 * ```ts
 * import { durableBackoff, type BackoffDurability } from "@understudy/core/durable";
 *
 * const durability: BackoffDurability = durableBackoff(new Map(), "payments");
 * console.log(durability.load()); // undefined
 * ```
 */
export interface BackoffDurability {
  /**
   * The stored record, if any, with the time left until its respawn
   * (`respawnInMs`, 0 if already due; `undefined` if none was pending).
   */
  load():
    | {
      restartCount: number;
      stash: unknown[];
      respawnInMs: number | undefined;
    }
    | undefined;
  /** A respawn is due in `delayMs`: kept (and the host asked to wake then) with the next `save`. */
  respawnIn(delayMs: number): void;
  /**
   * Stores the record: the count, the stash (`items`: message, sender,
   * message, sender, …; the senders are not kept) and, if `down`, the
   * pending respawn's due time.
   */
  save(restartCount: number, items: readonly unknown[], down: boolean): void;
  /** Removes the record (the supervisor stopped: nothing to restore). */
  clear(): void;
}

/**
 * Options of {@linkcode durableBackoff}.
 *
 * @example Usage
 * ```ts
 * import type { DurableBackoffOptions } from "@understudy/core/durable";
 *
 * let now = 0;
 * const options: DurableBackoffOptions = { wallClock: () => now };
 * ```
 */
export interface DurableBackoffOptions {
  /** Milliseconds since the epoch. Default `Date.now`. */
  wallClock?: () => number;
  /**
   * While messages wait with no due time of their own (in flight to a
   * child, or stashed while a child is dying or in its grace window), the
   * store is asked to wake the host this long after each write, so that an
   * eviction then does not leave them until some later request. Default
   * 1,000 ms.
   */
  wakeAfterMs?: number;
}

/**
 * The `durable` option of `BackoffSupervisor.props`: keeps the supervisor's
 * restart count, stash and pending respawn in `store` under `key`, written
 * in the turn that changes them, and restores them when the supervisor
 * starts (as the object's `createActors` re-creates it after an eviction):
 * a child that was down is respawned on the stored schedule, its stash
 * delivered in order. Give each supervisor its own key.
 *
 * @example A supervisor whose stash survives eviction
 * ```ts
 * import { Actor, ActorSystem, BackoffSupervisor, Props } from "@understudy/core";
 * import { durableBackoff } from "@understudy/core/durable";
 *
 * class Worker extends Actor<string> {
 *   onReceive(): void {}
 * }
 * const store = new Map<string, unknown>(); // ctx.storage.kv in a Durable Object
 * const system = ActorSystem.create("demo", { logLevel: "off" });
 * system.actorOf(
 *   BackoffSupervisor.props({
 *     childProps: Props.create(() => new Worker()),
 *     minBackoff: 200,
 *     maxBackoff: 10_000,
 *     durable: durableBackoff(store, "worker-supervisor"),
 *   }),
 *   "worker-supervisor",
 * );
 * await system.terminate();
 * ```
 *
 * @param store The store (`ctx.storage.kv`, or a `Map`).
 * @param key The key of this supervisor's record.
 * @param options The wall clock.
 * @returns The durability, for the `durable` option.
 * @throws {TypeError} If `store` is not a store, `key` not a non-empty string, or `wallClock` not a function.
 */
export function durableBackoff(
  store: DurableStore,
  key: string,
  options: DurableBackoffOptions = {},
): BackoffDurability {
  const action = "make durable backoff";
  const { put, wallClock, wakeSoon } = checked(action, store, key, options);
  let respawnAt: number | null = null;
  return {
    load: () => {
      const record = store.get(key) as BackoffRecord | undefined;
      if (record === undefined) return undefined;
      respawnAt = record.respawnAt;
      return {
        restartCount: record.restartCount,
        stash: [...record.stash],
        respawnInMs: respawnAt === null
          ? undefined
          : Math.max(0, respawnAt - wallClock()),
      };
    },
    respawnIn: (delayMs) => {
      respawnAt = wallClock() + delayMs;
      store.wakeAt?.(respawnAt);
    },
    save: (restartCount, items, down) => {
      const record: BackoffRecord = {
        restartCount,
        stash: items.filter((_, i) => i % 2 === 0),
        respawnAt: down ? respawnAt : null,
      };
      put(key, record);
      // Messages waiting with no respawn due (a child dying, or in its
      // grace window): should the object be evicted now, it must still run.
      if (!down && record.stash.length > 0) wakeSoon();
    },
    clear: () => store.delete(key),
  };
}

/**
 * What a BackoffSender keeps in a {@linkcode DurableStore}: its retry
 * count, the next id, its unacknowledged messages (`[id, message, tries]`,
 * oldest first, without their senders) and, while it waits to re-send,
 * when the re-send is due (wall-clock ms; else `null`).
 *
 * @example Usage
 * ```ts
 * import type { SenderRecord } from "@understudy/core/durable";
 *
 * const record: SenderRecord = { retries: 1, nextId: 3, entries: [[2, "b", 1]], resendAt: null };
 * console.log(record.entries.length); // 1
 * ```
 */
export interface SenderRecord {
  /** Terminations since the last `Ack` or `Reset`. */
  readonly retries: number;
  /** The id the next message gets. */
  readonly nextId: number;
  /** The unacknowledged messages: id, message, tries. */
  readonly entries: readonly (readonly [number, unknown, number])[];
  /** When the pending re-send is due (ms since the epoch), or `null`. */
  readonly resendAt: number | null;
}

/**
 * A BackoffSender's durability (its `durable` option), made by
 * {@linkcode durableSender}: what the sender calls, in the turns that
 * change its ledger, to keep and restore its {@linkcode SenderRecord}.
 *
 * @example Usage
 * ```ts
 * import { durableSender, type SenderDurability } from "@understudy/core/durable";
 *
 * const durability: SenderDurability = durableSender(new Map(), "mailer");
 * console.log(durability.load()); // undefined
 * ```
 */
export interface SenderDurability {
  /** The stored record, if any, with the time left until its re-send (`undefined` if none was pending). */
  load():
    | {
      retries: number;
      nextId: number;
      entries: (readonly [number, unknown, number])[];
      resendInMs: number | undefined;
    }
    | undefined;
  /** A re-send is due in `delayMs`: kept (and the host asked to wake then) with the next `save`. */
  resendIn(delayMs: number): void;
  /** Stores the record; `waiting`: a re-send is pending. */
  save(
    retries: number,
    nextId: number,
    entries: readonly { id: number; message: unknown; tries: number }[],
    waiting: boolean,
  ): void;
  /** Removes the record (the sender stopped). */
  clear(): void;
}

/**
 * The `durable` option of `BackoffSender.props`: keeps the sender's
 * unacknowledged messages, its retry count and a pending re-send in
 * `store` under `key`, written in the turn that changes them (one write
 * per message taken, one per `Ack`, one per termination), and restores
 * them when the sender starts: each restored message is sent again to a
 * fresh child (at least once: one the old child had processed but not
 * acknowledged is processed again).
 *
 * @example A sender whose unacknowledged messages survive eviction
 * ```ts
 * import { Actor, ActorSystem, BackoffSender, Props } from "@understudy/core";
 * import { durableSender } from "@understudy/core/durable";
 *
 * class Mailer extends Actor<BackoffSender.Tracked<string>> {
 *   onReceive(tracked: BackoffSender.Tracked<string>): void {
 *     this.context.parent.tell(new BackoffSender.Ack(tracked.id));
 *   }
 * }
 * const store = new Map<string, unknown>(); // ctx.storage.kv in a Durable Object
 * const system = ActorSystem.create("demo", { logLevel: "off" });
 * system.actorOf(
 *   BackoffSender.props({
 *     childProps: Props.create(() => new Mailer()),
 *     durable: durableSender(store, "mailer"),
 *   }),
 *   "mailer",
 * );
 * await system.terminate();
 * ```
 *
 * @param store The store (`ctx.storage.kv`, or a `Map`).
 * @param key The key of this sender's record.
 * @param options The wall clock.
 * @returns The durability, for the `durable` option.
 * @throws {TypeError} If `store` is not a store, `key` not a non-empty string, or `wallClock` not a function.
 */
export function durableSender(
  store: DurableStore,
  key: string,
  options: DurableBackoffOptions = {},
): SenderDurability {
  const action = "make durable sender";
  const { put, wallClock, wakeSoon } = checked(action, store, key, options);
  let resendAt: number | null = null;
  return {
    load: () => {
      const record = store.get(key) as SenderRecord | undefined;
      if (record === undefined) return undefined;
      resendAt = record.resendAt;
      return {
        retries: record.retries,
        nextId: record.nextId,
        entries: [...record.entries],
        resendInMs: resendAt === null
          ? undefined
          : Math.max(0, resendAt - wallClock()),
      };
    },
    resendIn: (delayMs) => {
      resendAt = wallClock() + delayMs;
      store.wakeAt?.(resendAt);
    },
    save: (retries, nextId, entries, waiting) => {
      const record: SenderRecord = {
        retries,
        nextId,
        entries: entries.map((e) => [e.id, e.message, e.tries] as const),
        resendAt: waiting ? resendAt : null,
      };
      put(key, record);
      // Messages in flight with no re-send due: should the object be
      // evicted now, it must run again to send them.
      if (!waiting && entries.length > 0) wakeSoon();
    },
    clear: () => store.delete(key),
  };
}

/** The checked arguments of a durable record, and its wake-up. */
function checked(
  action: string,
  store: DurableStore,
  key: string,
  options: DurableBackoffOptions,
): {
  put: (key: string, value: unknown) => void;
  wallClock: () => number;
  wakeSoon: () => void;
} {
  const put = storeWriter(action, store);
  if (typeof key !== "string" || key === "") {
    fail(action, "key", "a non-empty string", key);
  }
  if (typeof options !== "object" || options === null) {
    fail(action, "options", "an object", options);
  }
  const { wallClock = Date.now, wakeAfterMs = 1_000 } = options;
  if (typeof wallClock !== "function") {
    fail(
      action,
      "wallClock",
      "a function returning ms since the epoch",
      wallClock,
    );
  }
  if (
    typeof wakeAfterMs !== "number" || !Number.isFinite(wakeAfterMs) ||
    wakeAfterMs < 0
  ) {
    fail(action, "wakeAfterMs", "a finite number >= 0", wakeAfterMs, true);
  }
  return {
    put,
    wallClock,
    wakeSoon: () => store.wakeAt?.(wallClock() + wakeAfterMs),
  };
}

/**
 * The store's writer (`put`, else a Map's `set`), bound; throws naming
 * `action` if `store` has neither, or no `get` and `delete`. Internal.
 */
export function storeWriter(
  action: string,
  store: DurableStore,
): (key: string, value: unknown) => void {
  if (
    typeof store !== "object" || store === null ||
    typeof store.get !== "function" || typeof store.delete !== "function" ||
    (typeof store.put !== "function" && typeof store.set !== "function")
  ) {
    fail(
      action,
      "store",
      "a key-value store with get, put (or set) and delete (ctx.storage.kv, or a Map)",
      store,
    );
  }
  return typeof store.put === "function"
    ? (key, value) => store.put!(key, value)
    : (key, value) => store.set!(key, value);
}
