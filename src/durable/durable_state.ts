// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Opt-in state that survives eviction, for an actor in a Durable Object:
 * one typed value (a snapshot) in the object's storage, read once and
 * written in the turn that changes it.
 *
 * @module
 */

import { type DurableStore, storeWriter } from "../patterns/durable_port.ts";
import { fail } from "../validation.ts";

/**
 * A typed value kept in a {@linkcode DurableStore} under one key: `value`
 * reads it (from storage the first time, then from memory), `set` writes
 * it in the caller's turn, so that a Durable Object's output gate holds
 * that turn's replies until it is durable. Each `set` is one storage write
 * of the whole value (one row on a SQLite-backed object; keep values small,
 * the platform caps a value at 2 MiB). The value must be
 * structured-cloneable: plain data, no functions or class prototypes.
 * Keys starting `understudy/` are the library's.
 *
 * @example A counter that survives eviction
 * ```ts
 * import { Actor } from "@understudy/core";
 * import { DurableState, type DurableStore } from "@understudy/core/durable";
 *
 * class Counter extends Actor<"inc" | "get"> {
 *   readonly #count: DurableState<number>;
 *   constructor(store: DurableStore) {
 *     super();
 *     this.#count = new DurableState(store, "counter", 0);
 *   }
 *   onReceive(message: "inc" | "get"): void {
 *     if (message === "inc") this.#count.set(this.#count.value + 1);
 *     else this.sender?.tell(this.#count.value);
 *   }
 * }
 *
 * const store = new Map<string, unknown>(); // this.actors.store in a Durable Object
 * const count = new DurableState(store, "counter", 0);
 * count.set(count.value + 1);
 * console.log(new DurableState(store, "counter", 0).value); // 1
 * ```
 *
 * @typeParam T The value's type.
 */
export class DurableState<T> {
  readonly #store: DurableStore;
  readonly #put: (key: string, value: unknown) => void;
  readonly #key: string;
  readonly #initial: T;
  #value: T | undefined = undefined;
  #loaded = false;

  /**
   * A value at `key` in `store`; `initial` until something is stored.
   *
   * @param store `this.actors.store` in a durable object, or a `Map`.
   * @param key Where the value is kept.
   * @param initial The value before anything was stored.
   * @throws {TypeError} If `store` is not a store or `key` not a non-empty string.
   */
  constructor(store: DurableStore, key: string, initial: T) {
    const action = "make durable state";
    this.#put = storeWriter(action, store);
    if (typeof key !== "string" || key === "") {
      fail(action, "key", "a non-empty string", key);
    }
    this.#store = store;
    this.#key = key;
    this.#initial = initial;
  }

  /**
   * The value: the stored one, or the initial one if none is stored.
   *
   * @example Usage
   * ```ts
   * import { DurableState } from "@understudy/core/durable";
   *
   * console.log(new DurableState(new Map(), "name", "anonymous").value); // "anonymous"
   * ```
   */
  get value(): T {
    if (!this.#loaded) {
      const stored = this.#store.get(this.#key);
      this.#value = stored === undefined ? this.#initial : stored as T;
      this.#loaded = true;
    }
    return this.#value as T;
  }

  /**
   * Stores `value` (one storage write, in this turn).
   *
   * @example Usage
   * ```ts
   * import { DurableState } from "@understudy/core/durable";
   *
   * const state = new DurableState(new Map(), "visits", 0);
   * state.set(3);
   * console.log(state.value); // 3
   * ```
   *
   * @param value The new value (structured-cloneable).
   * @throws {DOMException} DataCloneError, from the platform, if it cannot be stored; the value is then unchanged.
   */
  set(value: T): void {
    this.#put(this.#key, value);
    this.#value = value;
    this.#loaded = true;
  }

  /**
   * Stores `update(value)` and returns it.
   *
   * @example Usage
   * ```ts
   * import { DurableState } from "@understudy/core/durable";
   *
   * const state = new DurableState(new Map(), "visits", 0);
   * console.log(state.update((n) => n + 1)); // 1
   * ```
   *
   * @param update From the current value to the next.
   * @returns The new value.
   */
  update(update: (value: T) => T): T {
    const next = update(this.value);
    this.set(next);
    return next;
  }

  /**
   * Removes the stored value: `value` is the initial one again.
   *
   * @example Usage
   * ```ts
   * import { DurableState } from "@understudy/core/durable";
   *
   * const state = new DurableState(new Map(), "visits", 0);
   * state.set(5);
   * state.clear();
   * console.log(state.value); // 0
   * ```
   */
  clear(): void {
    this.#store.delete(this.#key);
    this.#value = this.#initial;
    this.#loaded = true;
  }
}
