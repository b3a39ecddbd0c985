// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The failure port: where a failure goes, and what the runtime offers the
 * decision. The actor cell catches a throw or rejection (in its turn, its
 * start, or an async handler's settlement), suspends the actor and calls
 * {@linkcode handleFailure}, which routes it, in one place:
 *
 * 1. the actor's own typed handling, if `supervise()` installed one on its
 *    `Props` (`typed.ts`); else
 * 2. its parent's classic `supervisorStrategy` (`classic.ts`); else, for
 *    the top of the tree,
 * 3. the guardian's rule: it stops.
 *
 * Each decision acts back through {@linkcode Supervised}, which the cell
 * implements: restart, resume, stop, wait for the parent. Internal.
 *
 * @module
 */

import type { BackoffDecision } from "./backoff_decision.ts";
import { superviseChild } from "./classic.ts";
import type { RestartType } from "./restart_type.ts";
import type { FaultHandlingStrategy, RestartStatistics } from "./strategy.ts";

/** What supervision keeps per actor across its restarts. */
export interface SupervisionState {
  /** Restarts granted in the current window (a restart limit, classic or typed). */
  restartStats?: RestartStatistics;
  /** A typed `restartWithBackoff`'s count, wait, reset and give-up (`typed.ts`). */
  backoff?: BackoffDecision;
}

/**
 * What supervision takes of the due times a scheduler keeps (the runtime's
 * `ports/due_keeper.ts`, `DueKeeper`, which fits).
 */
export interface KeptWaits {
  takeEarlier(
    path: string,
    kind: string,
  ): { readonly inMs: number; readonly data: unknown } | undefined;
  drop(path: string, kind: string): void;
}

/** The kind a typed backoff's pending restart is kept as. */
export const RESTART_KIND = "restart";

/** A failed actor, as a supervision decision sees it: suspended, waiting for a verdict. */
export interface Supervised {
  /** Its path, for log lines. */
  readonly path: string;
  /** Its `Props`' restart type: a `"temporary"` actor is never restarted. */
  readonly restartType: RestartType;
  /** Going away already (stopping, or asked to stop): decisions must not revive it. */
  readonly isStopping: boolean;
  /** The typed handling `supervise()` installed on its `Props`; `undefined`: its parent decides. */
  readonly failureHandling: FailureHandling | undefined;
  /** Its parent, whose strategy decides under classic supervision; `undefined` for a guardian. */
  readonly supervisor: Supervisor | undefined;
  /** What supervision keeps for it across restarts; `undefined` at first. */
  supervisionState: SupervisionState | undefined;
  /** Where its scheduler keeps due times across the loss of memory, if anywhere. */
  readonly dueKeeper: KeptWaits | undefined;
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
   * (default: its `Props` stash capacity). A stop cancels the wait.
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
  /** Leaves it suspended until its parent's own supervisor decides (escalation); one that is stopping, or asked to, goes on stopping. */
  awaitParent(): void;
  /** Logs the failure (when `loggingEnabled`) and publishes `ActorFailed`. */
  reportFailure(
    error: unknown,
    directive: string,
    loggingEnabled: boolean,
  ): void;
  /** Logs an error in its name. */
  logError(what: string, error: unknown): void;
  /** Its logger (for what logs itself, such as a policy's failure). */
  readonly log: { error(message: string, ...data: unknown[]): void };
  /** The runtime's clock, in milliseconds. */
  now(): number;
}

/** A parent, as classic supervision sees it when one of its children failed. */
export interface Supervisor extends Supervised {
  /** Its actor's `supervisorStrategy`; `undefined` for the default one. */
  readonly supervisorStrategy: FaultHandlingStrategy | undefined;
  /** Its live children, in start order. */
  readonly children: readonly Supervised[];
  /**
   * Fails it as if its own code had thrown `error` outside any message: a
   * child's escalation, which its own supervision then handles.
   */
  fail(error: unknown): void;
}

/** Decides what happens to an actor that failed, and makes it happen. */
export interface FailureHandling {
  /** `actor` threw or rejected with `error` while handling `message`. */
  actorFailed(actor: Supervised, error: unknown, message: unknown): void;
  /** `actor` finished starting or restarting. */
  actorStarted(actor: Supervised): void;
  /**
   * At `actor`'s first start: `true` if an earlier life of its system kept a
   * typed backoff's restart it was waiting for, which it now waits for
   * again (with `restartAfter`); the actor then stays suspended.
   */
  restoreWait(actor: Supervised): boolean;
  /** What a typed backoff's pending restart after `error` keeps with its due time. */
  keptWait(actor: Supervised, error: unknown): unknown;
}

/**
 * `actor` failed with `error` while handling `message` (the runtime's
 * marker for "no message" if it failed starting), and is suspended: its
 * typed handling decides, else its parent's strategy, else (a guardian) it
 * stops.
 */
export function handleFailure(
  actor: Supervised,
  error: unknown,
  message: unknown,
): void {
  const typed = actor.failureHandling;
  const parent = actor.supervisor;
  if (typed !== undefined) {
    typed.actorFailed(actor, error, message);
  } else if (parent !== undefined) {
    superviseChild(parent, actor, error, message);
  } else {
    actor.logError("guardian failed; stopping", error);
    actor.requestStop();
  }
}
