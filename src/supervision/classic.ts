// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Classic supervision, Akka's style: a parent's strategy decides for a
 * failed child. The whole restart decision of this style is here: the
 * directive from the decider, the restart type and limit, and whom the
 * directive applies to (the child alone, every child for
 * `AllForOneStrategy`, the child and its younger siblings for
 * `RestForOneStrategy`).
 *
 * @module
 */

import { mayRestart } from "./restart_type.ts";
import {
  type FaultHandlingStrategy,
  RestartLimitExceeded,
} from "./strategy.ts";
import type { Supervised } from "./supervised.ts";

/**
 * Applies `strategy` to `child`, which failed with `error` while handling
 * `message`. `children` lists every child of the parent in start order (for
 * `AllForOneStrategy` and `RestForOneStrategy`); `escalate` fails the
 * parent in turn, `undefined` at the top of the tree, where `escalate`
 * means `stop`.
 *
 * Restart types: a `"temporary"` child is stopped where the directive says
 * restart (it counts no restart against the limit); `"permanent"` and
 * `"transient"` children are alike here, since this is always a failure.
 * A restart limit exceeded stops the child, or with `onLimitExceeded:
 * "escalate"` fails the parent with a {@linkcode RestartLimitExceeded}.
 */
export function superviseChild(
  strategy: FaultHandlingStrategy,
  child: Supervised,
  children: () => readonly Supervised[],
  error: unknown,
  message: unknown,
  escalate: ((error: unknown) => void) | undefined,
): void {
  let directive = strategy.decide(error);
  let escalated = error;
  if (directive === "escalate" && escalate === undefined) directive = "stop";
  // A temporary child is dropped alone (as in OTP): its siblings go on.
  let alone = false;
  if (directive === "restart" && !mayRestart(child.restartType, "failure")) {
    directive = "stop";
    alone = true;
  } else if (
    directive === "restart" &&
    !child.permitRestart(strategy.maxRetries, strategy.withinTimeRangeMs)
  ) {
    const limit =
      `restart limit reached (${strategy.maxRetries} within ${strategy.withinTimeRangeMs} ms)`;
    if (strategy.onLimitExceeded === "escalate" && escalate !== undefined) {
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
    : strategy.affectedChildren(child, children());
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
      for (const target of targets) target.awaitParent();
      escalate!(escalated);
      break;
  }
}
