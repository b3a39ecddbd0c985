// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The failure port: what the runtime offers a supervision decision, and what
 * a decision offers the runtime. The actor cell implements
 * {@linkcode Supervised}; classic supervision (`classic.ts`, the parent's
 * strategy) and typed supervision (`typed.ts`, installed on `Props` by
 * `supervise()`) are the two {@linkcode FailureHandling}s. Internal.
 *
 * @module
 */

import type { RestartType } from "./restart_type.ts";

/** A failed actor, as a supervision decision sees it: suspended, waiting for a verdict. */
export interface Supervised {
  /** Its path, for log lines. */
  readonly path: string;
  /** Its `Props`' restart type: a `"temporary"` actor is never restarted. */
  readonly restartType: RestartType;
  /** Going away already (stopping, or asked to stop): decisions must not revive it. */
  readonly isStopping: boolean;
  /** Per-actor state a handling keeps across restarts (a typed backoff's count); `undefined` at first. */
  supervisionState: unknown;
  /**
   * Replaces the instance; `message` is what it was handling, if anything.
   * With `after` (a sibling restarted in the same decision), the fresh
   * instance starts only once `after`'s has begun to start, so a group
   * restarts in start order.
   */
  restart(reason: unknown, message: unknown, after?: Supervised): void;
  /**
   * Replaces the instance after `delayMs`, on the actor's own timers;
   * meanwhile messages wait in its mailbox, at most `capacity` of them
   * (default: its `Props` stash capacity).
   */
  restartAfter(
    delayMs: number,
    reason: unknown,
    message: unknown,
    capacity: number | undefined,
  ): void;
  /** Continues with the same instance. */
  resume(): void;
  /** Stops it, as `context.stop` does. */
  requestStop(): void;
  /** Leaves it suspended until its parent's own supervisor decides (escalation). */
  awaitParent(): void;
  /** Counts a restart against its history; `false` once `maxRetries` within `withinMs` are used. */
  permitRestart(maxRetries: number, withinMs: number): boolean;
  /** Logs the failure (when `loggingEnabled`) and publishes `ActorFailed`. */
  reportFailure(
    error: unknown,
    directive: string,
    loggingEnabled: boolean,
  ): void;
  /** Logs an error in its name. */
  logError(what: string, error: unknown): void;
  /** The runtime's clock, in milliseconds. */
  now(): number;
}

/** Decides what happens to an actor that failed, and makes it happen. */
export interface FailureHandling {
  /** `actor` threw or rejected with `error` while handling `message`. */
  actorFailed(actor: Supervised, error: unknown, message: unknown): void;
  /** `actor` finished starting or restarting. */
  actorStarted(actor: Supervised): void;
}
