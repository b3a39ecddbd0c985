// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Classic supervision, Akka's style: a parent's strategy decides for a
 * failed child. The whole restart decision of this style is here: a
 * stopping parent stops the child; else the directive from the decider,
 * the restart type and the restart limit (the child's restart count, kept
 * by {@linkcode permitRestart}), whom the directive applies to (the child
 * alone, every child for `AllForOneStrategy`, the child and its younger
 * siblings for `RestForOneStrategy`), and escalation, which fails the
 * parent in turn. The strategy classes themselves are in `strategy.ts`.
 *
 * @module
 */

import { mayRestart } from "./restart_type.ts";
import {
  defaultStrategy,
  type FaultHandlingStrategy,
  OneForOneStrategy,
  requestRestartPermission,
  RestartLimitExceeded,
} from "./strategy.ts";
import type { Supervised, Supervisor } from "./supervised.ts";

/** Stands for a strategy whose getter threw (made on first need). */
let escalating: FaultHandlingStrategy | undefined;

/**
 * Counts a restart of `actor` against its history (kept across its
 * restarts): `false` once `maxRetries` restarts within `withinMs` are
 * used. The restart limit of both styles: a classic strategy's, and a
 * typed `SupervisorStrategy.restart.withLimit(...)`.
 */
export function permitRestart(
  actor: Supervised,
  maxRetries: number,
  withinMs: number,
): boolean {
  const state = actor.supervisionState ??= {};
  return requestRestartPermission(
    state.restartStats ??= { restartCount: 0, windowStartMs: 0 },
    maxRetries,
    withinMs,
    actor.now(),
  );
}

/**
 * Counts a restart against every child it restarts: with `AllForOneStrategy`
 * or `RestForOneStrategy` a group restart is charged to each member, and is
 * granted only if every one of them may restart (Akka's rule; with all
 * children in the group, OTP's one count for the supervisor). Each member is
 * charged even when another refuses, so the counts stay the group's.
 */
function permitGroupRestart(
  strategy: FaultHandlingStrategy,
  child: Supervised,
  parent: Supervisor,
): boolean {
  const { maxRetries, withinTimeRangeMs } = strategy;
  let permitted = permitRestart(child, maxRetries, withinTimeRangeMs);
  if (strategy instanceof OneForOneStrategy) return permitted;
  for (const member of strategy.affectedChildren(child, parent.children)) {
    if (
      member !== child && !member.isStopping &&
      mayRestart(member.restartType, "failure") &&
      !permitRestart(member, maxRetries, withinTimeRangeMs)
    ) permitted = false;
  }
  return permitted;
}

/**
 * `parent`'s strategy (its actor's `supervisorStrategy`, or the default)
 * decides for `child`, which failed with `error` while handling `message`.
 * A parent that is stopping stops the child (it would go with the parent
 * anyway). `escalate` suspends the child and fails the parent with the
 * child's error; for a guardian's child, at the top of the tree, it means
 * `stop`.
 *
 * Restart types: a `"temporary"` child is stopped where the directive says
 * restart (it counts no restart against the limit); `"permanent"` and
 * `"transient"` children are alike here, since this is always a failure.
 * A restart limit exceeded stops the child, or with `onLimitExceeded:
 * "escalate"` fails the parent with a {@linkcode RestartLimitExceeded}.
 */
export function superviseChild(
  parent: Supervisor,
  child: Supervised,
  error: unknown,
  message: unknown,
): void {
  if (parent.isStopping) {
    child.requestStop(); // the parent is going away; so are its children
    return;
  }
  let strategy: FaultHandlingStrategy;
  try {
    strategy = parent.supervisorStrategy ?? defaultStrategy;
  } catch (getterError) {
    // A getter of the user's that throws: as a broken decider, it escalates.
    child.logError(
      `the supervisorStrategy of ${parent.path} threw; escalating`,
      getterError,
    );
    strategy = escalating ??= new OneForOneStrategy(() => "escalate");
  }
  const canEscalate = parent.supervisor !== undefined;
  let directive = strategy.decide(error);
  let escalated = error;
  if (directive === "escalate" && !canEscalate) directive = "stop";
  // A temporary child is dropped alone (as in OTP): its siblings go on.
  let alone = false;
  if (directive === "restart" && !mayRestart(child.restartType, "failure")) {
    directive = "stop";
    alone = true;
  } else if (
    directive === "restart" && !permitGroupRestart(strategy, child, parent)
  ) {
    const limit =
      `restart limit reached (${strategy.maxRetries} within ${strategy.withinTimeRangeMs} ms)`;
    if (strategy.onLimitExceeded === "escalate" && canEscalate) {
      directive = "escalate";
      escalated = new RestartLimitExceeded(
        child.path,
        strategy.maxRetries,
        strategy.withinTimeRangeMs,
        error,
      );
      if (strategy.loggingEnabled) {
        child.logError(`${limit}; its supervisor gives up`, error);
      }
    } else {
      directive = "stop";
      if (strategy.loggingEnabled) child.logError(`${limit}; stopping`, error);
    }
  }
  child.reportFailure(error, directive, strategy.loggingEnabled);
  const targets = directive === "resume" || alone
    ? [child]
    : strategy.affectedChildren(child, parent.children);
  switch (directive) {
    case "resume":
      child.resume();
      break;
    case "restart": {
      // In start order, each fresh instance after the one before it; the
      // failed child restarts with its message, siblings with none. A
      // temporary sibling is stopped instead, as in OTP.
      let previous: Supervised | undefined;
      for (const target of targets) {
        if (target.isStopping) continue;
        if (target !== child && !mayRestart(target.restartType, "failure")) {
          target.requestStop();
          continue;
        }
        target.restart(
          error,
          target === child ? message : undefined,
          previous,
        );
        previous = target;
      }
      break;
    }
    case "stop":
      for (const target of targets) target.requestStop();
      break;
    case "escalate":
      // (A stopping sibling goes on stopping: awaitParent leaves it alone.)
      for (const target of targets) target.awaitParent();
      parent.fail(escalated);
      break;
  }
}
