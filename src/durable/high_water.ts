// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The receiving side of exactly-once across objects: for each calling
 * object, the number of the last tell taken from each of its recent
 * incarnations (its high-water mark), kept in the receiving object's
 * storage. A tell numbered at or below the mark is a copy (a retry of a
 * call whose reply was lost) and is dropped. The mark is written in the
 * same turn as the delivery and not awaited: the platform's output gate
 * holds back the call's reply until the write is durable, so a caller never
 * sees a delivery acknowledged whose mark could be lost, and an object
 * evicted before the write lands never acknowledged the tells either (the
 * caller retries them, and the fresh object takes them, once). Internal to
 * the module.
 *
 * @module
 */

import type { DurableObjectStorageLike } from "./platform.ts";

/** Incarnations remembered per calling object, at most (the oldest go first). */
const INCARNATIONS_KEPT = 8;
/** Calling objects whose marks are cached in memory, at most. */
const CACHED = 1_024;
/** Where marks are stored: this prefix, then `binding/name`. */
const PREFIX = "understudy/hwm/";

/** Marks of one calling object: by incarnation, the last number taken. */
type Marks = Record<string, number>;

/** High-water marks of one receiving object. */
export class HighWater {
  readonly #storage: DurableObjectStorageLike | undefined;
  readonly #cache = new Map<string, Marks>();
  readonly #loading = new Map<string, Promise<Marks>>();

  constructor(storage: DurableObjectStorageLike | undefined) {
    this.#storage = storage;
  }

  /** Storage writes made so far (one per accepted batch from a calling object). */
  writes = 0;

  /** The marks of the object `binding/name`, loaded from storage on first use. */
  load(binding: string, name: string): Marks | Promise<Marks> {
    const key = `${PREFIX}${binding}/${name}`;
    const cached = this.#cache.get(key);
    if (cached !== undefined) return cached;
    let loading = this.#loading.get(key);
    if (loading === undefined) {
      const storage = this.#storage;
      loading = storage === undefined
        ? Promise.resolve({})
        : storage.get(key).then((stored) =>
          typeof stored === "object" && stored !== null
            ? { ...stored as Marks }
            : {}
        );
      loading = loading.then((marks) => {
        this.#loading.delete(key);
        this.#remember(key, marks);
        return marks;
      }, (error) => {
        this.#loading.delete(key);
        throw error;
      });
      this.#loading.set(key, loading);
    }
    return loading;
  }

  /**
   * Records that tells up to `last` from `incarnation` of `binding/name`
   * were taken: in memory at once, and in storage (not awaited; see the
   * module's notes). `marks` is what {@linkcode HighWater.load} gave.
   */
  advance(
    binding: string,
    name: string,
    marks: Marks,
    incarnation: string,
    last: number,
  ): void {
    if (!(incarnation in marks)) {
      const kept = Object.keys(marks);
      for (let i = 0; i <= kept.length - INCARNATIONS_KEPT; i++) {
        delete marks[kept[i]];
      }
    }
    marks[incarnation] = last;
    const storage = this.#storage;
    if (storage !== undefined) {
      this.writes++;
      // A failed write breaks the output gate: the platform resets the
      // object and the caller sees the call fail, so there is nothing to
      // do here but keep the rejection from going unhandled. `put`
      // serializes the value in the call, so the marks go as they are (a
      // copy made for it cost more than the rest of this method).
      storage.put(`${PREFIX}${binding}/${name}`, marks).catch(() => {});
    }
  }

  #remember(key: string, marks: Marks): void {
    this.#cache.set(key, marks);
    if (this.#cache.size > CACHED) {
      this.#cache.delete(this.#cache.keys().next().value!);
    }
  }
}
