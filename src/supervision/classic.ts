// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Classic supervision, Akka's style: a parent's strategy decides for a
 * failed child. The whole restart decision of this style is here: the
 * directive from the decider, the restart limit, and whom the directive
 * applies to (the child alone, or every child for `AllForOneStrategy`).
 *
 * @module
 */

import type { FaultHandlingStrategy } from "./strategy.ts";
import type { Supervised } from "./supervised.ts";

/**
 * Applies `strategy` to `child`, which failed with `error` while handling
 * `message`. `children` lists every child of the parent (for
 * `AllForOneStrategy`); `escalate` fails the parent in turn, `undefined` at
 * the top of the tree, where `escalate` means `stop`.
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
  if (directive === "escalate" && escalate === undefined) directive = "stop";
  if (
    directive === "restart" &&
    !child.permitRestart(strategy.maxRetries, strategy.withinTimeRangeMs)
  ) {
    directive = "stop";
    if (strategy.loggingEnabled) {
      child.logError(
        `restart limit reached (${strategy.maxRetries} within ${strategy.withinTimeRangeMs} ms); stopping`,
        error,
      );
    }
  }
  child.reportFailure(error, directive, strategy.loggingEnabled);
  const targets = strategy.appliesToAllChildren && directive !== "resume"
    ? children()
    : [child];
  switch (directive) {
    case "resume":
      child.resume();
      break;
    case "restart":
      for (const target of targets) {
        // The failed child restarts with its message; siblings with none.
        if (!target.isStopping) {
          target.restart(error, target === child ? message : undefined);
        }
      }
      break;
    case "stop":
      for (const target of targets) target.requestStop();
      break;
    case "escalate":
      for (const target of targets) target.awaitParent();
      escalate!(error);
      break;
  }
}
