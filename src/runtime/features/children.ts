// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * An actor's children: the registry of the live ones, in creation order
 * ({@linkcode Children}); the checks and the key of a new child
 * ({@linkcode newChildKey}); and the start order of a group restart, where
 * each restarted sibling is HELD until the one before it has begun to start
 * ({@linkcode holdBehind}, {@linkcode releaseHeld}). Internal to the runtime.
 *
 * Children sit in an array, each remembering its slot, so adding one is a
 * push and removing one clears its slot: both O(1), with the array compacted
 * once half of it is holes. A `Map` keyed per child costs far more when an
 * actor spawns many: on V8, 200,000 `Map.set` calls with small-integer keys
 * took as long as everything else `actorOf` does, and left its growing hash
 * tables behind as garbage. Only given names need an index; generated names
 * (`$` and a sequence number) get one only if someone looks one up.
 *
 * @module
 */

import type { CellPort } from "../kernel/cell_port.ts";
import { checkActorName, fail } from "../../validation.ts";

/**
 * The key under which `parent` registers a new child: `name` if given
 * (checked, and free among the live children), else the next generated
 * number. Throws, before anything is created, for bad props, a bad or
 * taken name, or a parent that is stopping. A parent only asked to stop
 * (its `preStart` was running when the stop came) still creates the
 * child, which then stops with it.
 */
export function newChildKey(
  parent: CellPort,
  props: unknown,
  name: unknown,
): string | number {
  if (
    props === null || typeof props !== "object" ||
    typeof (props as { factory?: unknown }).factory !== "function"
  ) {
    fail(
      "create actor",
      "props",
      "Props, as made by Props.create(() => new MyActor())",
      props,
    );
  }
  if (parent.hasBegunStopping) {
    throw new Error(`Cannot create actor under ${parent.path}: it is stopping`);
  }
  if (name === undefined) return parent.ensureExtras().generatedNames++;
  const given = checkActorName("create actor", "name", name);
  if (parent.extras?.children?.has(given)) {
    throw new TypeError(
      `Cannot create actor: the name "${given}" is already taken by a live child of ${parent.path} (expected a name unique among its children)`,
    );
  }
  return given;
}

/**
 * In a group restart, `cell` (restarted after `before`, which has not begun
 * to start) starts only once `before` has: so the group starts in order.
 */
export function holdBehind(
  cell: CellPort,
  before: CellPort,
): void {
  cell.held = true;
  (before.ensureExtras().heldBehind ??= []).push(cell);
}

/** Lets the siblings HELD behind `cell` start (it begins to start, or it stopped). */
export function releaseHeld(cell: CellPort): void {
  const extras = cell.extras;
  const held = extras?.heldBehind;
  if (held === undefined) return;
  extras!.heldBehind = undefined;
  for (const sibling of held) {
    if (!sibling.held) continue;
    sibling.held = false;
    sibling.scheduleIfRunnable();
  }
}

/** What the registry needs of a child. */
export interface Child {
  /** The name given, or the sequence number of a generated name. */
  readonly childKey: string | number;
  /** Where the child sits in its parent's registry; set by the registry. */
  childSlot: number;
}

/** Compaction waits for at least this many holes, so small registries never compact. */
const MIN_HOLES_TO_COMPACT = 32;

/** The live children of one actor. Internal to the runtime. */
export class Children<C extends Child> {
  #slots: (C | undefined)[] = [];
  #holes = 0;
  /** Children with a given name. */
  #named: Map<string, C> | undefined = undefined;
  /** Children with a generated name, by number: built on the first lookup of one. */
  #numbered: Map<number, C> | undefined = undefined;

  /** How many children are alive. */
  get size(): number {
    return this.#slots.length - this.#holes;
  }

  /** Whether a live child has this given name. */
  has(name: string): boolean {
    return this.#named?.has(name) ?? false;
  }

  /** The live child with this key: a given name, or a generated name's number. */
  get(key: string | number): C | undefined {
    if (typeof key === "string") return this.#named?.get(key);
    if (this.#numbered === undefined) {
      this.#numbered = new Map();
      for (const child of this.#slots) {
        if (child !== undefined && typeof child.childKey === "number") {
          this.#numbered.set(child.childKey, child);
        }
      }
    }
    return this.#numbered.get(key);
  }

  /** Adds a child; its key must not be taken. */
  add(child: C): void {
    child.childSlot = this.#slots.length;
    this.#slots.push(child);
    const key = child.childKey;
    if (typeof key === "string") {
      (this.#named ??= new Map()).set(key, child);
    } else {
      this.#numbered?.set(key, child);
    }
  }

  /** Removes a child; does nothing if it is not here. */
  remove(child: C): void {
    const slots = this.#slots;
    const slot = child.childSlot;
    if (slots[slot] !== child) return;
    const key = child.childKey;
    if (typeof key === "string") this.#named!.delete(key);
    else this.#numbered?.delete(key);
    if (slot === slots.length - 1) {
      slots.pop(); // the newest child: a parent with one short-lived child at a time makes no holes
      return;
    }
    slots[slot] = undefined;
    if (
      ++this.#holes >= MIN_HOLES_TO_COMPACT && this.#holes * 2 >= slots.length
    ) {
      this.#compact();
    }
  }

  /** The live children, in creation order, as a new array (safe to change the registry while using it). */
  toArray(): C[] {
    const out: C[] = [];
    for (const child of this.#slots) if (child !== undefined) out.push(child);
    return out;
  }

  /** Whether some live child satisfies `predicate`. */
  some(predicate: (child: C) => boolean): boolean {
    for (const child of this.#slots) {
      if (child !== undefined && predicate(child)) return true;
    }
    return false;
  }

  #compact(): void {
    const live = this.toArray();
    for (let i = 0; i < live.length; i++) live[i].childSlot = i;
    this.#slots = live;
    this.#holes = 0;
  }
}
