// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The due-keeper port: where a scheduler whose system can lose its memory
 * (a Durable Object's, evicted) keeps the due times of the runtime's own
 * timers that must outlive it: a receive timeout, a typed backoff's
 * pending restart. The runtime names each by the actor's path and a kind,
 * and at the actor's next start in a new life takes back what an earlier
 * life kept. The runtime knows nothing of where it is kept; the durable
 * host (`../../durable/`) keeps it in the object's storage.
 *
 * @module
 */

/**
 * What an earlier life kept for one (actor path, kind): in how long it is
 * due, and the data kept with it.
 *
 * @example Usage
 * ```ts
 * import type { EarlierDue } from "@understudy/core";
 *
 * const due: EarlierDue = { inMs: -200, data: 30_000 }; // 200 ms overdue
 * ```
 */
export interface EarlierDue {
  /** Milliseconds until it is due; 0 or less if already due. */
  readonly inMs: number;
  /** What was kept with it (plain data). */
  readonly data: unknown;
}

/**
 * Keeps due times by (actor path, kind) across the loss of the system's
 * memory; a {@linkcode Scheduler} may carry one (`dueKeeper`). Its calls
 * never throw: a failure to store is the keeper's to report.
 *
 * @example A keeper in a Map (what a new system on the same Map takes back)
 * ```ts
 * import type { DueKeeper, EarlierDue } from "@understudy/core";
 *
 * const kept = new Map<string, { at: number; data: unknown }>();
 * const taken = new Set<string>();
 * const keeper: DueKeeper = {
 *   keep: (path, kind, delayMs, data) => {
 *     kept.set(`${kind} ${path}`, { at: Date.now() + delayMs, data });
 *   },
 *   drop: (path, kind) => void kept.delete(`${kind} ${path}`),
 *   takeEarlier: (path, kind): EarlierDue | undefined => {
 *     const key = `${kind} ${path}`;
 *     const entry = kept.get(key);
 *     if (entry === undefined || taken.has(key)) return undefined;
 *     taken.add(key);
 *     return { inMs: entry.at - Date.now(), data: entry.data };
 *   },
 * };
 * keeper.keep("/user/a", "receive-timeout", 1_000, 1_000);
 * ```
 */
export interface DueKeeper {
  /** Keeps that `kind` of the actor at `path` is due in `delayMs`, with `data` (replacing what was kept). */
  keep(path: string, kind: string, delayMs: number, data: unknown): void;
  /** Forgets `kind` of the actor at `path` (it was cancelled, or it ran). */
  drop(path: string, kind: string): void;
  /**
   * What an earlier life kept for `kind` of the actor at `path` and this
   * life has not taken yet; each is taken at most once.
   */
  takeEarlier(path: string, kind: string): EarlierDue | undefined;
}
