// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The runtime's own due times in the object's storage: the durable host's
 * {@linkcode DueKeeper} (the scheduler port's `dueKeeper`). Receive
 * timeouts and typed backoff restarts keep their due time (wall clock)
 * here by (actor path, kind) while they are armed; an actor re-created at
 * the next activation takes back what the earlier life kept. What no actor
 * took back by the end of the activation is dropped.
 *
 * One row an entry (`understudy/due/<kind><path>`), written in the turn
 * that keeps it, and an index of the entries (`understudy/due`), written
 * once for all the changes of a turn (a microtask later, still before the
 * turn's output leaves the output gate), and once for a whole activation.
 * A whole table rewritten at each change made starting 2,000 actors with
 * receive timeouts serialize 208 MB. A turn that adds or drops an entry
 * after the activation still writes the whole index (its paths and kinds).
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

/** The index of the kept due times: `[path, kind][]`. */
export const DUE_KEY = "understudy/due";

/** One kept due time: path, kind, due (wall ms), data. */
type Kept = [string, string, number, unknown];

/** The row of one entry: kinds hold no `/`, and paths begin with one. */
function rowKey(path: string, kind: string): string {
  return `${DUE_KEY}/${kind}${path}`;
}

/** The runtime's due times on the object's storage. Internal. */
export class StoredDue implements DueKeeper {
  readonly #store: DurableStore;
  readonly #put: (key: string, value: unknown) => void;
  readonly #wallNow: () => number;
  readonly #failed: (error: unknown) => void;
  /** By row key; read on first use. */
  #table: Map<string, Kept> | undefined = undefined;
  /** Keys an earlier life kept and this one has not taken (or kept anew). */
  readonly #earlier = new Set<string>();
  /** The index differs from what is stored: written at the end of the turn. */
  #indexDirty = false;
  /** An activation is under way: the index is written once, at its end. */
  #activating = false;

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
    const key = rowKey(path, kind);
    const table = this.#load();
    this.#earlier.delete(key);
    const kept: Kept = [path, kind, this.#wallNow() + delayMs, data];
    if (!table.has(key)) this.#indexChanged();
    table.set(key, kept);
    this.#write(() => this.#put(key, kept));
  }

  drop(path: string, kind: string): void {
    const key = rowKey(path, kind);
    this.#earlier.delete(key);
    if (this.#load().delete(key)) this.#remove(key);
  }

  takeEarlier(path: string, kind: string): EarlierDue | undefined {
    const key = rowKey(path, kind);
    const kept = this.#load().get(key);
    if (kept === undefined || !this.#earlier.delete(key)) return undefined;
    return { inMs: kept[2] - this.#wallNow(), data: kept[3] };
  }

  /**
   * An activation begins: its actors' changes to the index (hundreds, as
   * they start) are written once, by {@linkcode settle}. Internal.
   */
  activating(): void {
    this.#activating = true;
  }

  /** The activation is over: what no actor took back is dropped. Internal. */
  settle(): void {
    const table = this.#load();
    for (const key of this.#earlier) {
      table.delete(key);
      this.#remove(key);
    }
    this.#earlier.clear();
    this.#activating = false;
    if (this.#indexDirty) this.#writeIndex();
  }

  #remove(key: string): void {
    this.#indexChanged();
    this.#write(() => this.#store.delete(key));
  }

  #indexChanged(): void {
    if (this.#indexDirty) return;
    this.#indexDirty = true;
    if (!this.#activating) queueMicrotask(() => this.#writeIndex());
  }

  #writeIndex(): void {
    if (!this.#indexDirty || this.#activating) return;
    this.#indexDirty = false;
    const index = [...this.#load().values()].map(([path, kind]) => [
      path,
      kind,
    ]);
    this.#write(() =>
      index.length === 0
        ? this.#store.delete(DUE_KEY)
        : this.#put(DUE_KEY, index)
    );
  }

  /**
   * The runtime's call must not fail for a write: the due time is then kept
   * in memory only, as without a durable host.
   */
  #write(write: () => unknown): void {
    try {
      write();
    } catch (error) {
      this.#failed(error);
    }
  }

  #load(): Map<string, Kept> {
    let table = this.#table;
    if (table !== undefined) return table;
    table = this.#table = new Map();
    let stored: unknown;
    this.#write(() => (stored = this.#store.get(DUE_KEY)));
    if (!Array.isArray(stored)) return table;
    let older = false;
    for (const entry of stored) {
      if (
        !Array.isArray(entry) || typeof entry[0] !== "string" ||
        typeof entry[1] !== "string"
      ) continue; // only well-formed entries
      const key = rowKey(entry[0], entry[1]);
      // The format before the rows: the whole entry in the index.
      let kept: unknown = entry;
      if (entry.length < 3) this.#write(() => (kept = this.#store.get(key)));
      else older = true;
      if (Array.isArray(kept) && Number.isFinite(kept[2])) {
        table.set(key, kept as Kept);
        this.#earlier.add(key);
        if (older) this.#write(() => this.#put(key, kept));
      }
    }
    if (older) this.#indexChanged();
    return table;
  }
}
