// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Death watch: `context.watch(ref)` and the {@linkcode Terminated} message
 * it brings, exactly once per watch.
 *
 * A watcher keeps its target in `watching` until the Terminated has been
 * processed, so watching again meanwhile cannot queue a second one, and
 * `unwatch` removes a Terminated already queued. Internal to the runtime.
 *
 * @module
 */

import { Terminated } from "./actor.ts";
import type { ActorRef } from "./actor_ref.ts";
import type { ActorCell } from "./actor_cell.ts";
import { Notice } from "./mailbox.ts";

type Cell = ActorCell<never>;

/** A watched actor's end, queued for a watcher. */
export class TerminatedNotice extends Notice {
  constructor(readonly ref: ActorRef<never>) {
    super();
  }
}

/** One actor's watch relations, kept with its rarely used state. */
export class DeathWatch {
  /** Who watches this actor. */
  watchers: Set<Cell> | undefined = undefined;
  /** Whom this actor watches, until their Terminated is processed. */
  watching: Set<Cell> | undefined = undefined;
}

/** `watcher` starts watching `target` (already checked to be another cell). */
export function watch(watcher: Cell, target: Cell): void {
  const own = watcher.ensureExtras().deathWatch ??= new DeathWatch();
  const watching = own.watching ??= new Set();
  if (watching.has(target)) return;
  watching.add(target);
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

/** The watcher takes a Terminated out of its mailbox: the watch it answers is over. */
export function openTerminated(
  watcher: Cell,
  notice: TerminatedNotice,
): Terminated {
  watcher.extras?.deathWatch?.watching?.delete(notice.ref as Cell);
  return new Terminated(notice.ref);
}

/** `cell` has stopped: its watchers hear of it, and its own watches end. */
export function announceTermination(cell: Cell): void {
  const own = cell.extras?.deathWatch;
  if (own === undefined) return;
  for (const target of own.watching ?? []) {
    target.extras?.deathWatch?.watchers?.delete(cell);
  }
  for (const watcher of own.watchers ?? []) {
    // A watcher on its way out has no use for the news.
    if (!watcher.isStopping) watcher.enqueueNotice(new TerminatedNotice(cell));
  }
  own.watchers = undefined;
  own.watching = undefined;
}
