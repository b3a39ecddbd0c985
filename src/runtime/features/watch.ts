// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Death watch: `context.watch(ref)` and the {@linkcode Terminated} message
 * it brings, exactly once per watch; `context.watchWith(ref, message)`
 * brings `message` instead.
 *
 * A watcher keeps its target in `watching` until the Terminated has been
 * processed, so watching again meanwhile cannot queue a second one, and
 * `unwatch` removes a Terminated already queued. The message to deliver is
 * looked up when the notice is taken out of the mailbox, so an `unwatch`
 * and a new watch in between get the new watch's message. Internal to the
 * runtime.
 *
 * @module
 */

import { Terminated } from "../actor.ts";
import type { ActorRef } from "../actor_ref.ts";
import type { CellPort } from "../kernel/cell_port.ts";
import { Notice } from "../kernel/mailbox.ts";
import { describeValue } from "../../validation.ts";

type Cell = CellPort;

/** What `watching` holds for a plain `watch`: deliver a {@linkcode Terminated}. Internal. */
export const TERMINATED: unique symbol = Symbol("Terminated");

/** A watched actor's end, queued for a watcher. */
export class TerminatedNotice extends Notice {
  // `declare`d and assigned: a parameter property would be emitted twice
  // (a definition, then the assignment).
  declare readonly ref: ActorRef<never>;

  constructor(ref: ActorRef<never>) {
    super();
    this.ref = ref;
  }

  override open(watcher: Cell): unknown {
    return openTerminated(watcher, this);
  }

  override from(): ActorRef<never> {
    return this.ref;
  }
}

/** One actor's watch relations, kept with its rarely used state. */
export class DeathWatch {
  /** Who watches this actor. */
  watchers: Set<Cell> | undefined = undefined;
  /**
   * Whom this actor watches, until their Terminated is processed, each with
   * the message to deliver (TERMINATED for a plain `watch`).
   */
  watching: Map<Cell, unknown> | undefined = undefined;
  /** Refs of other isolates this actor watches, each with how to end it. */
  remote: Map<ActorRef<never>, () => void> | undefined = undefined;
}

/**
 * A ref that can be watched across isolates (a Durable Object's
 * `RemoteRef`): it tells the watcher a `Terminated` itself, and returns how
 * to end the watch.
 */
export interface RemotelyWatchable {
  /** With `instead`, `watcher` is told its `message` in place of the `Terminated` (`watchWith`). */
  watchRemote(
    watcher: ActorRef<never>,
    instead?: { readonly message: unknown },
  ): () => void;
}

/** Whether `ref` (not a local actor) can be watched across isolates. */
export function isRemotelyWatchable(
  ref: object,
): ref is RemotelyWatchable {
  return typeof (ref as Partial<RemotelyWatchable>).watchRemote === "function";
}

/**
 * `watcher` watches `ref` in another isolate, to get `message` (TERMINATED
 * for a plain `watch`) when it ends; watching it again does nothing (the
 * first watch's message stays).
 */
export function addRemoteWatch(
  watcher: Cell,
  ref: RemotelyWatchable,
  message: unknown,
): void {
  const own = watcher.ensureExtras().deathWatch ??= new DeathWatch();
  const remote = own.remote ??= new Map();
  const key = ref as unknown as ActorRef<never>;
  if (remote.has(key)) return;
  const instead = message === TERMINATED ? undefined : { message };
  remote.set(
    key,
    ref.watchRemote(watcher as unknown as ActorRef<never>, instead),
  );
}

/** Ends `watcher`'s watch of a ref in another isolate, if any. */
export function removeRemoteWatch(watcher: Cell, ref: ActorRef<never>): void {
  const remote = watcher.extras?.deathWatch?.remote;
  const end = remote?.get(ref);
  if (end === undefined) return;
  remote!.delete(ref);
  end();
}

function refuseRewatch(
  watcher: Cell,
  target: { readonly path: string },
  message: unknown,
  previous: unknown,
): never {
  throw new TypeError(
    `Cannot watch ${target.path} from ${watcher.path} with ${
      message === TERMINATED ? "Terminated" : describeValue(message)
    }: it is already watched with ${
      previous === TERMINATED ? "Terminated" : describeValue(previous)
    } (unwatch it first to change the message)`,
  );
}

/**
 * `watcher` starts watching `target` (already checked to be another cell):
 * when it ends, `watcher` gets `message` (TERMINATED for a plain `watch`:
 * a Terminated). Watching again with the same message changes nothing;
 * with another, it throws (as in Akka: `unwatch` first).
 */
export function addWatch(watcher: Cell, target: Cell, message: unknown): void {
  const own = watcher.ensureExtras().deathWatch ??= new DeathWatch();
  const watching = own.watching ??= new Map();
  if (watching.has(target)) {
    const previous = watching.get(target);
    if (Object.is(previous, message)) return;
    refuseRewatch(watcher, target, message, previous);
  }
  watching.set(target, message);
  if (target.isStopped) {
    watcher.enqueueNotice(new TerminatedNotice(target));
    return;
  }
  const theirs = target.ensureExtras().deathWatch ??= new DeathWatch();
  (theirs.watchers ??= new Set()).add(watcher);
}

/** `watcher` stops watching `target`; a Terminated for it not yet processed is dropped. */
export function unwatch(watcher: Cell, target: Cell): void {
  watcher.extras?.deathWatch?.watching?.delete(target);
  target.extras?.deathWatch?.watchers?.delete(watcher);
  watcher.mailbox?.removeWhere((message) =>
    message instanceof TerminatedNotice && message.ref === target
  );
}

/**
 * The watcher takes a Terminated out of its mailbox: the watch it answers
 * is over. Returns what to deliver: a {@linkcode Terminated}, or the
 * message given to `watchWith`.
 */
export function openTerminated(
  watcher: Cell,
  notice: TerminatedNotice,
): unknown {
  const watching = watcher.extras?.deathWatch?.watching;
  const target = notice.ref as Cell;
  let message: unknown = TERMINATED;
  if (watching !== undefined && watching.has(target)) {
    message = watching.get(target);
    watching.delete(target);
  }
  return message === TERMINATED ? new Terminated(notice.ref) : message;
}

/** `cell` has stopped: its watchers hear of it, and its own watches end. */
export function announceTermination(cell: Cell): void {
  const own = cell.extras?.deathWatch;
  if (own === undefined) return;
  for (const target of own.watching?.keys() ?? []) {
    target.extras?.deathWatch?.watchers?.delete(cell);
  }
  for (const watcher of own.watchers ?? []) {
    // A watcher on its way out has no use for the news.
    if (!watcher.isStopping) watcher.enqueueNotice(new TerminatedNotice(cell));
  }
  own.watchers = undefined;
  own.watching = undefined;
  const remote = own.remote;
  own.remote = undefined;
  for (const end of remote?.values() ?? []) end();
}
