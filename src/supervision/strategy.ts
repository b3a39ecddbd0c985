// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Classic supervision: what a parent does when one of its children fails.
 *
 * The decision logic lives here, apart from the runtime that carries it
 * out, so it can be read and tested without actors or timers.
 *
 * @module
 */

import { checkCount, checkDuration, fail } from "../validation.ts";

/**
 * What a parent does with a failed child.
 *
 * - `Resume`: keep the child's state and go on with the next message.
 * - `Restart`: replace the child's instance with a fresh one from its
 *   `Props`; the ref and the mailbox stay.
 * - `Stop`: stop the child for good.
 * - `Escalate`: fail the parent itself with the child's error, so the
 *   grandparent decides.
 *
 * @example Usage
 * ```ts
 * import { Directive, OneForOneStrategy } from "@understudy/core";
 *
 * const strategy = new OneForOneStrategy(() => Directive.Restart);
 * ```
 */
export const Directive = {
  Resume: "resume",
  Restart: "restart",
  Stop: "stop",
  Escalate: "escalate",
} as const;

/**
 * One of the four {@linkcode Directive} values.
 *
 * @example Usage
 * ```ts
 * import type { Directive } from "@understudy/core";
 *
 * const directive: Directive = "restart";
 * ```
 */
export type Directive = typeof Directive[keyof typeof Directive];

/**
 * Maps the error a child failed with to a {@linkcode Directive}.
 *
 * @example Usage
 * ```ts
 * import type { Decider } from "@understudy/core";
 *
 * const decider: Decider = (error) =>
 *   error instanceof TypeError ? "resume" : "restart";
 * ```
 */
export type Decider = (error: unknown) => Directive;

/**
 * Any error class (a constructor whose instances `instanceof` can test).
 *
 * @example Usage
 * ```ts
 * import type { ErrorClass } from "@understudy/core";
 *
 * const cls: ErrorClass = RangeError;
 * ```
 */
// deno-lint-ignore no-explicit-any
export type ErrorClass = abstract new (...args: any[]) => unknown;

/**
 * Finds the entry whose error class matches `error` most specifically (the
 * class nearest to the error's own class in its prototype chain), so
 * `[Error, …]` and `[TypeError, …]` may be listed in any order.
 *
 * @example Usage
 * ```ts
 * import { matchErrorClass } from "@understudy/core";
 * import assert from "node:assert/strict";
 *
 * const cases: [typeof Error, string][] = [[Error, "any"], [TypeError, "type"]];
 * assert.equal(matchErrorClass(new TypeError("x"), cases), "type");
 * assert.equal(matchErrorClass(new RangeError("x"), cases), "any");
 * assert.equal(matchErrorClass("not an error", cases), undefined);
 * ```
 *
 * @typeParam V The value attached to each class.
 * @param error The thrown value.
 * @param cases Pairs of error class and value.
 * @returns The value of the most specific matching class, or `undefined`.
 */
export function matchErrorClass<V>(
  error: unknown,
  cases: ReadonlyArray<readonly [ErrorClass, V]>,
): V | undefined {
  let best: V | undefined;
  let bestDepth = -1;
  for (const [errorClass, value] of cases) {
    if (!isInstance(error, errorClass)) continue;
    const depth = prototypeDepth(errorClass.prototype);
    if (depth > bestDepth) {
      bestDepth = depth;
      best = value;
    }
  }
  return best;
}

/** `instanceof` that treats a throw (a revoked Proxy, a hostile Symbol.hasInstance) as no match. */
function isInstance(value: unknown, errorClass: ErrorClass): boolean {
  try {
    return value instanceof errorClass;
  } catch {
    return false;
  }
}

function prototypeDepth(proto: unknown): number {
  let depth = 0;
  for (let p = proto; p !== null; p = Object.getPrototypeOf(p)) depth++;
  return depth;
}

/**
 * Builds a {@linkcode Decider} from pairs of error class and directive; the
 * most specific matching class wins, and an error matching none gets
 * `otherwise`.
 *
 * @example Usage
 * ```ts
 * import { decideByErrorClass, Directive, OneForOneStrategy } from "@understudy/core";
 *
 * class UpstreamDown extends Error {}
 * const strategy = new OneForOneStrategy(
 *   decideByErrorClass([[UpstreamDown, Directive.Restart], [TypeError, Directive.Stop]], Directive.Escalate),
 * );
 * ```
 *
 * @param cases Pairs of error class and directive.
 * @param otherwise The directive for an error no class matches (default `Escalate`).
 * @returns A decider.
 */
export function decideByErrorClass(
  cases: ReadonlyArray<readonly [ErrorClass, Directive]>,
  otherwise: Directive = Directive.Escalate,
): Decider {
  const action = "build decideByErrorClass";
  if (!Array.isArray(cases)) {
    fail(action, "cases", "an array of [ErrorClass, directive] pairs", cases);
  }
  cases.forEach((pair, i) => {
    if (!Array.isArray(pair)) {
      fail(action, `cases[${i}]`, "an [ErrorClass, directive] pair", pair);
    }
    const [errorClass, directive] = pair;
    if (
      typeof errorClass !== "function" ||
      typeof errorClass.prototype !== "object" || errorClass.prototype === null
    ) {
      fail(
        action,
        `cases[${i}][0]`,
        "an error class, such as TypeError",
        errorClass,
      );
    }
    checkDirective(action, `cases[${i}][1]`, directive);
  });
  checkDirective(action, "otherwise", otherwise);
  return (error) => matchErrorClass(error, cases) ?? otherwise;
}

function checkDirective(action: string, option: string, value: unknown): void {
  if (
    value !== "resume" && value !== "restart" && value !== "stop" &&
    value !== "escalate"
  ) {
    fail(action, option, '"resume", "restart", "stop" or "escalate"', value);
  }
}

/**
 * What a supervisor does when a child's restarts exceed `maxRetries` within
 * `withinTimeRangeMs`:
 * - `"stop-child"`: the child is stopped; the supervisor goes on (Akka's
 *   behaviour, the default).
 * - `"escalate"`: the supervisor gives up itself, as an OTP supervisor
 *   does when its restart intensity is exceeded: it fails with a
 *   {@linkcode RestartLimitExceeded}, and its own parent's strategy
 *   decides (restarting it restarts all its children fresh). At the top of
 *   the tree (a top-level actor's limit, under the guardian) it means
 *   `"stop-child"`.
 *
 * @example Usage
 * ```ts
 * import { OneForOneStrategy, type LimitExceeded } from "@understudy/core";
 *
 * const onLimitExceeded: LimitExceeded = "escalate";
 * new OneForOneStrategy(() => "restart", { maxRetries: 3, withinTimeRangeMs: 5_000, onLimitExceeded });
 * ```
 */
export type LimitExceeded = "stop-child" | "escalate";

/**
 * Limits on restarts: at most `maxRetries` restarts within
 * `withinTimeRangeMs`; past that the child is stopped, or with
 * `onLimitExceeded: "escalate"` the supervisor fails in turn.
 *
 * @example Usage
 * ```ts
 * import { OneForOneStrategy, type RestartLimits } from "@understudy/core";
 *
 * const limits: RestartLimits = { maxRetries: 3, withinTimeRangeMs: 10_000 };
 * const strategy = new OneForOneStrategy(() => "restart", limits);
 * ```
 */
export interface RestartLimits {
  /**
   * How many restarts are granted within the window: 0 grants none, 3 grants
   * exactly three. Default `Infinity`.
   */
  maxRetries?: number;
  /** The window's length in milliseconds. Default `Infinity` (one window forever). */
  withinTimeRangeMs?: number;
  /** Whether failures are logged at `error` level. Default `true`. */
  loggingEnabled?: boolean;
  /**
   * What happens once the limit is exceeded: `"stop-child"` (default) or
   * `"escalate"` (the supervisor fails with {@linkcode RestartLimitExceeded}
   * and its own parent decides). See {@linkcode LimitExceeded}.
   */
  onLimitExceeded?: LimitExceeded;
}

/**
 * The error a supervisor fails with when a child's restarts exceed its
 * strategy's limit and the strategy says `onLimitExceeded: "escalate"`: its
 * own parent's strategy then decides for it. `cause` is the child's last
 * error.
 *
 * @example Usage
 * ```ts
 * import { decideByErrorClass, OneForOneStrategy, RestartLimitExceeded } from "@understudy/core";
 *
 * // A grandparent that restarts a sub-supervisor whose children keep failing.
 * const strategy = new OneForOneStrategy(
 *   decideByErrorClass([[RestartLimitExceeded, "restart"]], "stop"),
 * );
 * ```
 */
export class RestartLimitExceeded extends Error {
  // `declare`d and assigned: a parameter property would be emitted twice
  // (a definition, then the assignment).
  /** The path of the child that failed once too often. */
  declare readonly childPath: string;
  /** The strategy's `maxRetries`. */
  declare readonly maxRetries: number;
  /** The strategy's `withinTimeRangeMs`. */
  declare readonly withinTimeRangeMs: number;
  /** The child's last error. */
  declare readonly cause: unknown;

  /**
   * Creates a `RestartLimitExceeded`.
   *
   * @param childPath The path of the child that failed once too often.
   * @param maxRetries The strategy's `maxRetries`.
   * @param withinTimeRangeMs The strategy's `withinTimeRangeMs`.
   * @param cause The child's last error.
   */
  constructor(
    childPath: string,
    maxRetries: number,
    withinTimeRangeMs: number,
    cause: unknown,
  ) {
    super(
      `${childPath} failed more than ${maxRetries} time(s) within ${withinTimeRangeMs} ms; its supervisor gives up`,
    );
    this.childPath = childPath;
    this.maxRetries = maxRetries;
    this.withinTimeRangeMs = withinTimeRangeMs;
    this.cause = cause;
    this.name = "RestartLimitExceeded";
  }
}

/**
 * The restart history of one child, kept by the runtime across the child's
 * incarnations and read by {@linkcode requestRestartPermission}.
 *
 * @example Usage
 * ```ts
 * import { requestRestartPermission, type RestartStatistics } from "@understudy/core";
 *
 * const stats: RestartStatistics = { restartCount: 0, windowStartMs: 0 };
 * requestRestartPermission(stats, 1, 1_000, 0); // true, and restartCount is now 1
 * ```
 */
export interface RestartStatistics {
  /** Restarts granted in the current window. */
  restartCount: number;
  /** When the current window opened. */
  windowStartMs: number;
}

/**
 * Checks that `value` is a classic strategy (a {@linkcode
 * FaultHandlingStrategy}); else throws the one TypeError, naming `option`. Internal: what the system's
 * guardian, an actor's `supervisorStrategy` and a worker's `strategy` are
 * checked with.
 */
export function checkStrategy(
  action: string,
  option: string,
  value: unknown,
): asserts value is FaultHandlingStrategy {
  if (!(value instanceof FaultHandlingStrategy)) {
    fail(
      action,
      option,
      "a OneForOneStrategy, AllForOneStrategy or RestForOneStrategy",
      value,
    );
  }
}

/**
 * Decides whether one more restart is allowed, and counts it if so. A window
 * opens at the first failure; a failure after the window has passed opens a
 * new one with a fresh count.
 *
 * @example Usage
 * ```ts
 * import { requestRestartPermission } from "@understudy/core";
 * import assert from "node:assert/strict";
 *
 * const stats = { restartCount: 0, windowStartMs: 0 };
 * assert.equal(requestRestartPermission(stats, 2, 1_000, 10), true);
 * assert.equal(requestRestartPermission(stats, 2, 1_000, 20), true);
 * assert.equal(requestRestartPermission(stats, 2, 1_000, 30), false);
 * assert.equal(requestRestartPermission(stats, 2, 1_000, 2_000), true); // a new window
 * ```
 *
 * @param stats The child's history; updated in place.
 * @param maxRetries Restarts granted per window.
 * @param withinTimeRangeMs The window's length.
 * @param nowMs The current time.
 * @returns `true` if the child may restart.
 */
export function requestRestartPermission(
  stats: RestartStatistics,
  maxRetries: number,
  withinTimeRangeMs: number,
  nowMs: number,
): boolean {
  if (
    stats.restartCount === 0 || nowMs - stats.windowStartMs > withinTimeRangeMs
  ) {
    stats.restartCount = 0;
    stats.windowStartMs = nowMs;
  }
  if (stats.restartCount >= maxRetries) return false;
  stats.restartCount++;
  return true;
}

/**
 * What a parent does when a child fails: its decider picks a directive, and
 * restart limits turn a `Restart` into a `Stop` (or, with `onLimitExceeded:
 * "escalate"`, an `Escalate`) once used up. Subclasses say which children
 * the directive applies to: the failed one, all, or the failed one and
 * those started after it.
 *
 * @example Usage
 * ```ts
 * import { Actor, OneForOneStrategy, type FaultHandlingStrategy } from "@understudy/core";
 *
 * class Parent extends Actor<string> {
 *   override supervisorStrategy: FaultHandlingStrategy = new OneForOneStrategy(() => "resume");
 *   onReceive(): void {}
 * }
 * ```
 */
export abstract class FaultHandlingStrategy {
  // `declare`d: the constructor assigns them (a field would be emitted
  // once more, as a definition).
  /** Maps the failure to a directive. */
  declare readonly decider: Decider;
  /** Restarts granted per window. */
  declare readonly maxRetries: number;
  /** The window's length in milliseconds. */
  declare readonly withinTimeRangeMs: number;
  /** Whether failures are logged. */
  declare readonly loggingEnabled: boolean;
  /** What happens once the restart limit is exceeded. */
  declare readonly onLimitExceeded: LimitExceeded;
  /**
   * `true` when a directive applies to every child, not just the failed one.
   *
   * @deprecated Read {@linkcode FaultHandlingStrategy.affectedChildren}
   * instead: it also says which children a `RestForOneStrategy` affects
   * (for which this is `false`). Kept for code written before it.
   */
  abstract readonly appliesToAllChildren: boolean;

  /**
   * Creates a `FaultHandlingStrategy`.
   *
   * @param decider Maps an error to a directive.
   * @param limits Restart limits and logging.
   */
  constructor(decider: Decider, limits: RestartLimits = {}) {
    const name = new.target.name;
    const action = `create ${name}`;
    if (typeof decider !== "function") {
      fail(action, "decider", "a function from error to directive", decider);
    }
    if (typeof limits !== "object" || limits === null) {
      fail(action, "limits", "an object such as { maxRetries: 3 }", limits);
    }
    const {
      maxRetries = Infinity,
      withinTimeRangeMs = Infinity,
      loggingEnabled = true,
      onLimitExceeded = "stop-child",
    } = limits;
    if (onLimitExceeded !== "stop-child" && onLimitExceeded !== "escalate") {
      fail(
        action,
        "onLimitExceeded",
        '"stop-child" or "escalate"',
        onLimitExceeded,
      );
    }
    checkCount(action, "maxRetries", maxRetries);
    checkDuration(action, "withinTimeRangeMs", withinTimeRangeMs);
    this.decider = decider;
    this.maxRetries = maxRetries;
    this.withinTimeRangeMs = withinTimeRangeMs;
    this.loggingEnabled = loggingEnabled;
    this.onLimitExceeded = onLimitExceeded;
  }

  /**
   * The children a `restart`, `stop` or `escalate` applies to, in start
   * order, given the failed child and all children in start order: the
   * failed child alone, or all of them (`appliesToAllChildren`).
   * `RestForOneStrategy` overrides it.
   *
   * @example Usage
   * ```ts
   * import { AllForOneStrategy, OneForOneStrategy } from "@understudy/core";
   *
   * new OneForOneStrategy(() => "restart").affectedChildren("b", ["a", "b", "c"]); // ["b"]
   * new AllForOneStrategy(() => "restart").affectedChildren("b", ["a", "b", "c"]); // ["a", "b", "c"]
   * ```
   *
   * @typeParam C A child.
   * @param failed The child that failed.
   * @param children Every child, in start order.
   * @returns The children the directive applies to, in start order.
   */
  affectedChildren<C>(failed: C, children: readonly C[]): readonly C[] {
    return this.appliesToAllChildren ? children : [failed];
  }

  /**
   * Picks the directive for `error`. A decider that throws or returns
   * something else escalates, so a broken decider cannot hide a failure.
   *
   * @example Usage
   * ```ts
   * import { OneForOneStrategy } from "@understudy/core";
   *
   * new OneForOneStrategy(() => "stop").decide(new Error("boom")); // "stop"
   * ```
   *
   * @param error The child's error.
   * @returns The directive.
   */
  decide(error: unknown): Directive {
    try {
      const directive = this.decider(error);
      if (
        directive === "resume" || directive === "restart" ||
        directive === "stop" ||
        directive === "escalate"
      ) {
        return directive;
      }
    } catch {
      // fall through: a broken decider escalates
    }
    return Directive.Escalate;
  }
}

/**
 * Applies the directive to the failed child only.
 *
 * @example Usage
 * ```ts
 * import { Actor, decideByErrorClass, OneForOneStrategy } from "@understudy/core";
 *
 * class Parent extends Actor<string> {
 *   override supervisorStrategy = new OneForOneStrategy(
 *     decideByErrorClass([[Error, "restart"]]),
 *     { maxRetries: 3, withinTimeRangeMs: 60_000 },
 *   );
 *   onReceive(): void {}
 * }
 * ```
 */
export class OneForOneStrategy extends FaultHandlingStrategy {
  /** Always `false`: only the failed child is affected. */
  readonly appliesToAllChildren: boolean = false;
}

/**
 * Applies the directive to the failed child and all its siblings, for
 * children that only work together.
 *
 * @example Usage
 * ```ts
 * import { AllForOneStrategy } from "@understudy/core";
 *
 * const strategy = new AllForOneStrategy(() => "restart", { maxRetries: 5, withinTimeRangeMs: 10_000 });
 * ```
 */
export class AllForOneStrategy extends FaultHandlingStrategy {
  /** Always `true`: every child is affected. */
  readonly appliesToAllChildren: boolean = true;
}

/**
 * OTP's `rest_for_one`: applies the directive to the failed child and every
 * sibling started after it, for children where each depends on those
 * started before it. The ones started before it keep running. A `Restart`
 * restarts them in start order (each fresh instance starts once the one
 * before it has begun to start); `Resume` resumes the failed child only.
 * Same options as {@linkcode OneForOneStrategy}.
 *
 * @example Usage
 * ```ts
 * import { Actor, Props, RestForOneStrategy } from "@understudy/core";
 *
 * class Part extends Actor<string> {
 *   onReceive(): void {}
 * }
 * class Pipeline extends Actor<string> {
 *   // If "parser" fails, "parser" and "writer" restart; "reader" keeps running.
 *   override supervisorStrategy = new RestForOneStrategy(() => "restart", {
 *     maxRetries: 5,
 *     withinTimeRangeMs: 10_000,
 *   });
 *   override preStart(): void {
 *     for (const name of ["reader", "parser", "writer"]) {
 *       this.context.actorOf(Props.create(() => new Part()), name);
 *     }
 *   }
 *   onReceive(): void {}
 * }
 * ```
 */
export class RestForOneStrategy extends FaultHandlingStrategy {
  /** Always `false`: the children started before the failed one are not affected. */
  readonly appliesToAllChildren: boolean = false;

  /**
   * The failed child and the children started after it, in start order.
   *
   * @example Usage
   * ```ts
   * import { RestForOneStrategy } from "@understudy/core";
   *
   * new RestForOneStrategy(() => "restart").affectedChildren("b", ["a", "b", "c"]); // ["b", "c"]
   * ```
   *
   * @typeParam C A child.
   * @param failed The child that failed.
   * @param children Every child, in start order.
   * @returns `failed` and its younger siblings.
   */
  override affectedChildren<C>(
    failed: C,
    children: readonly C[],
  ): readonly C[] {
    const at = children.indexOf(failed);
    return at < 0 ? [failed] : children.slice(at);
  }
}

/**
 * Stops any child that fails. The BackoffSupervisor runs its child under
 * this, so a crash becomes a clean termination it can react to.
 *
 * @example Usage
 * ```ts
 * import { Actor, stoppingStrategy } from "@understudy/core";
 *
 * class Parent extends Actor<string> {
 *   override supervisorStrategy = stoppingStrategy;
 *   onReceive(): void {}
 * }
 * ```
 */
export const stoppingStrategy: OneForOneStrategy =
  /* @__PURE__ */ new OneForOneStrategy(() => Directive.Stop);

/**
 * The strategy every actor has unless it overrides `supervisorStrategy`:
 * restart a failed child, up to 10 times a minute, then stop it.
 *
 * @example Usage
 * ```ts
 * import { defaultStrategy } from "@understudy/core";
 *
 * defaultStrategy.maxRetries; // 10
 * ```
 */
export const defaultStrategy: OneForOneStrategy =
  /* @__PURE__ */ new OneForOneStrategy(
    () => Directive.Restart,
    { maxRetries: 10, withinTimeRangeMs: 60_000 },
  );
