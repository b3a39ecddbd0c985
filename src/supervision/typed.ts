// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Typed supervision, Akka Typed's style: the actor's own `Props` carry what
 * to do when it fails (`supervise(props).onFailure(ErrorClass, strategy)`),
 * and the parent is not consulted. The whole restart decision of this style
 * is here: which clause applies, the restart limit (counted as classic
 * supervision counts it, `permitRestart` in `classic.ts`), and for
 * `restartWithBackoff` the same count-wait-reset-give-up rules as the
 * BackoffSupervisor's ({@linkcode BackoffDecision}); the wait itself runs
 * on the actor's own timers (`Supervised.restartAfter`). `supervise()` installs
 * it; a program that never calls `supervise()` does not bundle it.
 *
 * @module
 */

import { logPolicyFailure } from "../backoff/_policy.ts";
import { mayRestart } from "./restart_type.ts";
import { BackoffDecision } from "./backoff_decision.ts";
import { permitRestart } from "./classic.ts";
import { describeError, describeValue } from "../validation.ts";
import { type ErrorClass, matchErrorClass } from "./strategy.ts";
import {
  type FailureHandling,
  RESTART_KIND,
  type Supervised,
} from "./supervised.ts";
import { stopActor, type TypedStrategy } from "./supervisor_strategy.ts";

/**
 * One clause of typed supervision: failures that are instances of the class
 * get the strategy.
 *
 * @example Usage
 * ```ts
 * import { SupervisorStrategy, type FailureClause } from "@understudy/core";
 *
 * const clause: FailureClause = [Error, SupervisorStrategy.restart];
 * ```
 */
export type FailureClause = readonly [ErrorClass, TypedStrategy];

/** The failure handling `supervise()` installs on `Props`. Internal. */
export class TypedFailureHandling implements FailureHandling {
  /** The clauses, in the order they were added. */
  readonly clauses: readonly FailureClause[];

  constructor(clauses: readonly FailureClause[]) {
    this.clauses = clauses;
  }

  /** The strategy for `error`: the clause with the most specific matching class; `stop` if none. */
  strategyFor(error: unknown): TypedStrategy {
    return matchErrorClass(error, this.clauses) ?? stopActor;
  }

  actorFailed(actor: Supervised, error: unknown, message: unknown): void {
    const strategy = this.strategyFor(error);
    const logging = strategy.loggingEnabled;
    // A temporary actor is never restarted (its restart type, on its Props).
    const kind = !mayRestart(actor.restartType, "failure") &&
        (strategy.kind === "restart" || strategy.kind === "backoff")
      ? "stop"
      : strategy.kind;
    switch (kind) {
      case "resume":
        actor.reportFailure(error, "resume", logging);
        actor.resume();
        return;
      case "stop":
        actor.reportFailure(error, "stop", logging);
        actor.requestStop();
        return;
      case "restart":
        if (permitRestart(actor, strategy.maxRestarts, strategy.withinMs)) {
          actor.reportFailure(error, "restart", logging);
          actor.restart(error, message);
        } else {
          actor.reportFailure(error, "stop", logging);
          actor.requestStop();
        }
        return;
      case "backoff": {
        // One decision per actor, kept across its restarts: the count.
        const decision = (actor.supervisionState ??= {}).backoff ??=
          backoffDecision(strategy);
        const verdict = decision.childTerminated("failure", actor.now());
        if (verdict.action !== "respawn") {
          actor.reportFailure(error, "stop", logging);
          actor.requestStop();
          return;
        }
        if (verdict.policyFailure !== undefined) {
          logPolicyFailure(actor.log, verdict.policyFailure);
        }
        actor.reportFailure(error, "backoff", logging);
        // The wait runs on the actor's own timers (the runtime's
        // `restart_after.ts`), so a stop cancels it.
        actor.restartAfter(
          verdict.delayMs,
          error,
          message,
          strategy.stashCapacity,
        );
        return;
      }
      default:
        // Unreachable through the API (TypedStrategy checks its kind); a
        // failure must never leave the actor suspended with no word.
        actor.logError(
          `unknown supervisor strategy kind ${describeValue(kind)}; stopping`,
          error,
        );
        actor.requestStop();
    }
  }

  keptWait(actor: Supervised, error: unknown): unknown {
    const strategy = this.strategyFor(error);
    return [
      actor.supervisionState?.backoff?.restartCount ?? 0,
      error instanceof EarlierFailure
        ? error.clause
        : this.clauses.findIndex((clause) => clause[1] === strategy),
      // A failure restored from an earlier life is its description already.
      error instanceof EarlierFailure ? error.message : describeError(error),
    ];
  }

  restoreWait(actor: Supervised): boolean {
    const keeper = actor.dueKeeper;
    const earlier = keeper?.takeEarlier(actor.path, RESTART_KIND);
    if (earlier === undefined) return false;
    const [count, clause, why] = Array.isArray(earlier.data)
      ? earlier.data
      : [];
    // The clause kept, or the first backoff one, should they have changed.
    const at = typeof clause === "number" ? this.clauses[clause] : undefined;
    const index = at?.[1].kind === "backoff"
      ? clause as number
      : this.clauses.findIndex(([, s]) => s.kind === "backoff");
    const strategy = this.clauses[index]?.[1];
    if (strategy === undefined) {
      keeper!.drop(actor.path, RESTART_KIND);
      return false;
    }
    const decision = (actor.supervisionState ??= {}).backoff ??=
      backoffDecision(strategy);
    if (Number.isSafeInteger(count) && count > 0) decision.restartCount = count;
    actor.restartAfter(
      earlier.inMs > 0 ? earlier.inMs : 0,
      new EarlierFailure(
        typeof why === "string" ? why : "failed in an earlier life",
        index,
      ),
      undefined,
      strategy.stashCapacity,
    );
    return true;
  }

  actorStarted(actor: Supervised): void {
    // A backoff's stable run begins: the count resets after long enough.
    actor.supervisionState?.backoff?.childStarted(actor.now());
  }
}

/** A typed backoff's decision: count, wait, reset and give-up. */
function backoffDecision(strategy: TypedStrategy): BackoffDecision {
  return new BackoffDecision({
    policy: strategy.policy!,
    minBackoff: 0, // only read by "after-min-stable"
    maxBackoff: strategy.maxBackoff,
    resetCounter: { kind: "after-time", ms: strategy.resetBackoffAfter },
    triggerOn: "any",
    maxRestarts: strategy.maxRestarts,
  });
}

/**
 * The reason of a restart an earlier life of the system kept: the failure's
 * description, and the clause that decided (kept again should the wait be
 * lost once more).
 */
class EarlierFailure extends Error {
  constructor(message: string, readonly clause: number) {
    super(message);
  }
}
