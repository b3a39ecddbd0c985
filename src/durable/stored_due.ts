// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The runtime's own due times in the object's storage: the durable host's
 * {@linkcode DueKeeper} (the scheduler port's `dueKeeper`). Receive
 * timeouts and typed backoff restarts keep their due time (wall clock)
 * here by (actor path, kind) while they are armed; an actor re-created at
 * the next activation takes back what the earlier life kept. What no actor
 * took back by the end of the activation is dropped. Kept in one storage
 * record, rewritten at each change (one row written).
 *
 * The wake-up after an eviction is the scheduler's own (each in-memory
 * timer wants the object woken `lateWakeMs` after it is due), so nothing
 * here sets the alarm.
 *
 * @module
 */

import type { DueKeeper, EarlierDue } from "../runtime/ports/due_keeper.ts";
import type { DurableStore } from "../patterns/durable_port.ts";
import { storeWriter } from "../patterns/durable_port.ts";

/** Where the runtime's due times are kept. */
export const DUE_KEY = "understudy/due";

/** One kept due time: path, kind, due (wall ms), data. */
type Kept = [string, string, number, unknown];

/** The runtime's due times on the object's storage. Internal. */
export class StoredDue implements DueKeeper {
  readonly #store: DurableStore;
  readonly #put: (key: string, value: unknown) => void;
  readonly #wallNow: () => number;
  readonly #failed: (error: unknown) => void;
  /** By `kind\0path`; read on first use. */
  #table: Map<string, Kept> | undefined = undefined;
  /** Keys an earlier life kept and this one has not taken (or kept anew). */
  readonly #earlier = new Set<string>();

  constructor(
    store: DurableStore,
    wallNow: () => number,
    failed: (error: unknown) => void,
  ) {
    this.#store = store;
    this.#put = storeWriter("keep due times", store);
    this.#wallNow = wallNow;
    this.#failed = failed;
  }

  keep(path: string, kind: string, delayMs: number, data: unknown): void {
    const key = `${kind}\0${path}`;
    const table = this.#load();
    this.#earlier.delete(key);
    table.set(key, [path, kind, this.#wallNow() + delayMs, data]);
    this.#save();
  }

  drop(path: string, kind: string): void {
    const key = `${kind}\0${path}`;
    this.#earlier.delete(key);
    if (this.#load().delete(key)) this.#save();
  }

  takeEarlier(path: string, kind: string): EarlierDue | undefined {
    const key = `${kind}\0${path}`;
    const kept = this.#load().get(key);
    if (kept === undefined || !this.#earlier.delete(key)) return undefined;
    return { inMs: kept[2] - this.#wallNow(), data: kept[3] };
  }

  /** The activation is over: what no actor took back is dropped. Internal. */
  settle(): void {
    const table = this.#load();
    if (this.#earlier.size === 0) return;
    for (const key of this.#earlier) table.delete(key);
    this.#earlier.clear();
    this.#save();
  }

  #load(): Map<string, Kept> {
    let table = this.#table;
    if (table !== undefined) return table;
    table = this.#table = new Map();
    let stored: unknown;
    try {
      stored = this.#store.get(DUE_KEY);
    } catch (error) {
      this.#failed(error);
    }
    if (!Array.isArray(stored)) return table;
    for (const entry of stored) {
      // Only well-formed entries: what an older version stored may differ.
      if (
        Array.isArray(entry) && typeof entry[0] === "string" &&
        typeof entry[1] === "string" && Number.isFinite(entry[2])
      ) {
        const key = `${entry[1]}\0${entry[0]}`;
        table.set(key, entry as Kept);
        this.#earlier.add(key);
      }
    }
    return table;
  }

  #save(): void {
    const table = this.#load();
    try {
      if (table.size === 0) this.#store.delete(DUE_KEY);
      else this.#put(DUE_KEY, [...table.values()]);
    } catch (error) {
      // The runtime's call must not fail for it: the due time is then kept
      // in memory only, as without a durable host.
      this.#failed(error);
    }
  }
}
