// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Per-actor supervision, the typed style: a strategy attached to an actor's
 * `Props` with `supervise(props).onFailure(ErrorClass, strategy)`. The actor
 * keeps its `ActorRef` across restarts; the parent is not consulted.
 *
 * This file holds the strategies and their decision logic; the runtime's
 * actor cell carries them out.
 *
 * @module
 */

import { exponentialBackoff } from "../backoff/exponential.ts";
import type { BackoffPolicy } from "../backoff/backoff_policy.ts";
import {
  checkCount,
  checkDelay,
  checkDuration,
  checkNumber,
  checkPolicy,
  fail,
  MAX_TIMER_DELAY_MS,
} from "../validation.ts";

/**
 * Options of {@linkcode SupervisorStrategy.restartWithBackoff}.
 *
 * @example Usage
 * ```ts
 * import { SupervisorStrategy, type RestartWithBackoffOptions } from "@understudy/core";
 *
 * const options: RestartWithBackoffOptions = { minBackoff: 200, maxBackoff: 10_000, randomFactor: 0.2 };
 * SupervisorStrategy.restartWithBackoff(options);
 * ```
 */
export interface RestartWithBackoffOptions {
  /** The first delay, in milliseconds. */
  minBackoff: number;
  /** The longest delay, in milliseconds. */
  maxBackoff: number;
  /** Jitter: each delay is multiplied by `1 + u × randomFactor`, `u` uniform in [-1, 1]. Default 0.2. */
  randomFactor?: number;
  /** The count resets after the actor has run this long without failing. Default `(minBackoff + maxBackoff) / 2`. */
  resetBackoffAfter?: number;
  /** After this many restarts without a reset the actor is stopped. Default `Infinity`. */
  maxRestarts?: number;
  /**
   * How many messages are kept while the actor waits to restart; the rest go
   * to dead letters. Default: the actor's `Props` `stashCapacity` (1000
   * unless set).
   */
  stashCapacity?: number;
  /**
   * Overrides the delay policy built from the three numbers above. A delay
   * that cannot be used (the method throws, or returns NaN, a negative
   * number or a non-number) becomes `maxBackoff`, logged as an error; one
   * over 2³¹ − 1 ms is clamped.
   */
  policy?: BackoffPolicy;
}

/**
 * The action a typed strategy takes.
 *
 * @example Usage
 * ```ts
 * import { SupervisorStrategy, type StrategyKind } from "@understudy/core";
 *
 * const kind: StrategyKind = SupervisorStrategy.resume.kind; // "resume"
 * ```
 */
export type StrategyKind = "restart" | "resume" | "stop" | "backoff";

/**
 * A typed supervision strategy: what happens to an actor when it fails with
 * an error its `supervise(...).onFailure(...)` clause matches. Build one with
 * {@linkcode SupervisorStrategy}.
 *
 * @example Usage
 * ```ts
 * import { SupervisorStrategy, type TypedStrategy } from "@understudy/core";
 *
 * const quiet: TypedStrategy = SupervisorStrategy.restart.withLoggingEnabled(false);
 * ```
 */
export class TypedStrategy {
  /** `restart`, `resume`, `stop` or `backoff`. */
  readonly kind: StrategyKind;
  /** Whether failures are logged at `error` level. */
  readonly loggingEnabled: boolean;
  /** Restarts granted within `withinMs` (`restart` and `backoff`). */
  readonly maxRestarts: number;
  /** The window for `maxRestarts` with `restartWithLimit`. */
  readonly withinMs: number;
  /** Delays between restarts (`backoff` only). */
  readonly policy: BackoffPolicy | undefined;
  /** How long the actor must run without failing for the count to reset (`backoff` only). */
  readonly resetBackoffAfter: number;
  /** The longest delay; what an unusable delay from a custom policy becomes (`backoff` only). */
  readonly maxBackoff: number;
  /** Messages kept while waiting to restart (`backoff` only); `undefined` means the actor's `Props` stash capacity. */
  readonly stashCapacity: number | undefined;

  /** Use the factories on {@linkcode SupervisorStrategy} instead. */
  constructor(
    kind: StrategyKind,
    fields: {
      loggingEnabled?: boolean;
      maxRestarts?: number;
      withinMs?: number;
      policy?: BackoffPolicy;
      resetBackoffAfter?: number;
      maxBackoff?: number;
      stashCapacity?: number;
    } = {},
  ) {
    if (
      kind !== "restart" && kind !== "resume" && kind !== "stop" &&
      kind !== "backoff"
    ) {
      fail(
        "create TypedStrategy",
        "kind",
        '"restart", "resume", "stop" or "backoff" (use SupervisorStrategy.restart and its siblings)',
        kind,
      );
    }
    if (kind === "backoff") {
      checkPolicy('create a "backoff" TypedStrategy', "policy", fields.policy);
    }
    this.kind = kind;
    this.loggingEnabled = fields.loggingEnabled ?? true;
    this.maxRestarts = fields.maxRestarts ?? Infinity;
    this.withinMs = fields.withinMs ?? Infinity;
    this.policy = fields.policy;
    this.resetBackoffAfter = fields.resetBackoffAfter ?? Infinity;
    this.maxBackoff = fields.maxBackoff ?? 0;
    this.stashCapacity = fields.stashCapacity;
  }

  /**
   * The same strategy with failure logging switched on or off.
   *
   * @example Usage
   * ```ts
   * import { SupervisorStrategy } from "@understudy/core";
   *
   * SupervisorStrategy.resume.withLoggingEnabled(false).loggingEnabled; // false
   * ```
   *
   * @param enabled Whether to log failures.
   * @returns A new strategy.
   */
  withLoggingEnabled(enabled: boolean): TypedStrategy {
    return new TypedStrategy(this.kind, { ...this, loggingEnabled: enabled });
  }
}

/**
 * Restart the actor in place at once, without limit, keeping its `ActorRef`
 * (its state is lost: a fresh instance from its `Props`). The same value as
 * `SupervisorStrategy.restart`.
 *
 * @example Usage
 * ```ts
 * import { Actor, Props, restartActor, supervise } from "@understudy/core";
 *
 * class Parser extends Actor<string> {
 *   onReceive(text: string): void {
 *     JSON.parse(text);
 *   }
 * }
 * const props = supervise(Props.create(() => new Parser()))
 *   .onFailure(SyntaxError, restartActor);
 * ```
 */
export const restartActor: TypedStrategy = /* @__PURE__ */ new TypedStrategy(
  "restart",
);

/**
 * Keep the actor's state and go on with the next message. The same value as
 * `SupervisorStrategy.resume`.
 *
 * @example Usage
 * ```ts
 * import { Actor, Props, resumeActor, supervise } from "@understudy/core";
 *
 * class Counter extends Actor<string> {
 *   count = 0;
 *   onReceive(text: string): void {
 *     this.count += Number.parseInt(text, 10) || 0;
 *     if (text === "") throw new RangeError("empty input");
 *   }
 * }
 * const props = supervise(Props.create(() => new Counter()))
 *   .onFailure(RangeError, resumeActor);
 * ```
 */
export const resumeActor: TypedStrategy = /* @__PURE__ */ new TypedStrategy(
  "resume",
);

/**
 * Stop the actor (what happens to an error no clause matches). The same
 * value as `SupervisorStrategy.stop`.
 *
 * @example Usage
 * ```ts
 * import { Actor, Props, stopActor, supervise } from "@understudy/core";
 *
 * class ProtocolError extends Error {}
 * class Session extends Actor<string> {
 *   onReceive(): void {}
 * }
 * const props = supervise(Props.create(() => new Session()))
 *   .onFailure(ProtocolError, stopActor);
 * ```
 */
export const stopActor: TypedStrategy = /* @__PURE__ */ new TypedStrategy(
  "stop",
);

/**
 * Restart at once, at most `maxRetries` times within `withinMs`; then stop.
 * The same function as `SupervisorStrategy.restartWithLimit`.
 *
 * @example Usage
 * ```ts
 * import { Actor, Props, restartWithLimit, supervise } from "@understudy/core";
 *
 * class Worker extends Actor<string> {
 *   onReceive(): void {}
 * }
 * const props = supervise(Props.create(() => new Worker()))
 *   .onFailure(Error, restartWithLimit(3, 60_000)); // 3 restarts a minute
 * ```
 *
 * @param maxRetries Restarts granted per window (0 grants none).
 * @param withinMs The window in milliseconds (default `Infinity`).
 * @returns The strategy.
 */
export function restartWithLimit(
  maxRetries: number,
  withinMs: number = Infinity,
): TypedStrategy {
  const action = "create SupervisorStrategy.restartWithLimit";
  return new TypedStrategy("restart", {
    maxRestarts: checkCount(action, "maxRetries", maxRetries),
    withinMs: checkDuration(action, "withinMs", withinMs),
  });
}

/**
 * Restart after an exponentially growing, jittered delay, keeping the
 * messages that arrive meanwhile (up to `stashCapacity`). The same function
 * as `SupervisorStrategy.restartWithBackoff`; imported on its own, a program
 * that does not use it does not carry the default policy.
 *
 * @example Usage
 * ```ts
 * import { Actor, Props, restartWithBackoff, supervise } from "@understudy/core";
 *
 * class Connection extends Actor<string> {
 *   onReceive(): void {}
 * }
 * const props = supervise(Props.create(() => new Connection()))
 *   .onFailure(Error, restartWithBackoff({ minBackoff: 200, maxBackoff: 10_000 }));
 * ```
 *
 * @param options Delays, reset, limit and stash capacity.
 * @returns The strategy.
 */
export function restartWithBackoff(
  options: RestartWithBackoffOptions,
): TypedStrategy {
  const action = "create SupervisorStrategy.restartWithBackoff";
  if (typeof options !== "object" || options === null) {
    fail(action, "options", "an object", options);
  }
  const { minBackoff, maxBackoff, randomFactor = 0.2 } = options;
  // Checked here too, so that errors name these options (the policy calls
  // them minMs and maxMs) and a zero minBackoff cannot make a zero default
  // resetBackoffAfter.
  checkDuration(action, "minBackoff", minBackoff, MAX_TIMER_DELAY_MS);
  checkDelay(action, "maxBackoff", maxBackoff, minBackoff, "minBackoff");
  checkNumber(action, "randomFactor", randomFactor, 0, 1);
  if (options.policy !== undefined) {
    checkPolicy(action, "policy", options.policy);
  }
  const policy = options.policy ??
    exponentialBackoff({
      minMs: minBackoff,
      maxMs: maxBackoff,
      randomFactor,
    });
  const resetBackoffAfter = options.resetBackoffAfter ??
    (minBackoff + maxBackoff) / 2;
  return new TypedStrategy("backoff", {
    policy,
    maxBackoff,
    resetBackoffAfter: checkDuration(
      action,
      "resetBackoffAfter",
      resetBackoffAfter,
    ),
    maxRestarts: checkCount(
      action,
      "maxRestarts",
      options.maxRestarts ?? Infinity,
    ),
    stashCapacity: options.stashCapacity === undefined
      ? undefined
      : checkCount(action, "stashCapacity", options.stashCapacity),
  });
}

/**
 * The typed supervision strategies under one name, attached to an actor's
 * `Props` with `supervise(props).onFailure(ErrorClass, strategy)`. Each is
 * also exported on its own ({@linkcode restartActor},
 * {@linkcode resumeActor}, {@linkcode stopActor},
 * {@linkcode restartWithLimit}, {@linkcode restartWithBackoff}): an object
 * keeps all its members in a bundle, so a program that imports the ones it
 * uses pays only for those.
 *
 * @example Usage
 * ```ts
 * import { Props, supervise, SupervisorStrategy, Actor } from "@understudy/core";
 *
 * class Connection extends Actor<string> {
 *   onReceive(): void {}
 * }
 * class ProtocolError extends Error {}
 *
 * const props = supervise(Props.create(() => new Connection()))
 *   .onFailure(Error, SupervisorStrategy.restartWithBackoff({ minBackoff: 200, maxBackoff: 10_000 }))
 *   .onFailure(ProtocolError, SupervisorStrategy.stop);
 * ```
 */
export const SupervisorStrategy: {
  /** Restart in place at once, without limit ({@linkcode restartActor}). */
  readonly restart: TypedStrategy;
  /** Keep the actor's state and go on with the next message ({@linkcode resumeActor}). */
  readonly resume: TypedStrategy;
  /** Stop the actor ({@linkcode stopActor}). */
  readonly stop: TypedStrategy;
  /** {@linkcode restartWithLimit}. */
  readonly restartWithLimit: typeof restartWithLimit;
  /** {@linkcode restartWithBackoff}. */
  readonly restartWithBackoff: typeof restartWithBackoff;
} = {
  restart: restartActor,
  resume: resumeActor,
  stop: stopActor,
  restartWithLimit,
  restartWithBackoff,
};
