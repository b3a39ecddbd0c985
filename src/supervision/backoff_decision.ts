// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Backoff decisions, apart from any message plumbing: when to restart, how
 * long to wait, when the restart count resets, and when to give up. Pure:
 * time comes in as arguments, so every rule is testable without actors or
 * timers. Shared by the BackoffSupervisor (which respawns a child) and the
 * typed `SupervisorStrategy.restartWithBackoff` (which restarts an actor in
 * place), so both ask a policy the one way (`askPolicy`, as every other
 * user of a policy does): a policy that gives no usable delay costs
 * `maxBackoff`, and the verdict says why, for the supervisor to log.
 *
 * @module
 */

import type { BackoffPolicy } from "../backoff/backoff_policy.ts";
import { delayOr, type PolicyFailure } from "../backoff/_policy.ts";

/**
 * When the restart count goes back to 0:
 * - `"after-min-stable"`: once a child has been alive `minBackoff` ms;
 * - `{ kind: "after-time", ms }`: once a child has been alive `ms`;
 * - `"never"`;
 * - `"manual"`: only when the child sends `BackoffSupervisor.Reset` to its
 *   parent (reset after real success, not mere survival).
 *
 * @example Usage
 * ```ts
 * import type { ResetCounter } from "@understudy/core";
 *
 * const reset: ResetCounter = { kind: "after-time", ms: 30_000 };
 * ```
 */
export type ResetCounter =
  | "after-min-stable"
  | "never"
  | "manual"
  | { kind: "after-time"; ms: number };

/**
 * Which child terminations lead to a respawn:
 * - `"any"`: crashes and clean stops;
 * - `"failure"`: crashes only; a clean `stopSelf()` means the work is done,
 *   and the supervisor stops too;
 * - `"stop"`: clean stops only; a crash escalates to the supervisor's parent.
 *
 * @example Usage
 * ```ts
 * import type { TriggerOn } from "@understudy/core";
 *
 * const trigger: TriggerOn = "failure";
 * ```
 */
export type TriggerOn = "any" | "failure" | "stop";

/** How a child ended. */
export type Termination = "failure" | "stop";

/** What to do after a child terminated. */
export type Verdict =
  | {
    readonly action: "respawn";
    readonly delayMs: number;
    readonly restartCount: number;
    /**
     * Set when the policy gave no usable delay (`delayFor` threw, or
     * returned NaN, a negative number or a non-number): the delay is then
     * `maxBackoff`. The supervisor logs it as an error, once.
     */
    readonly policyFailure?: PolicyFailure;
  }
  | { readonly action: "give-up"; readonly restartCount: number }
  | { readonly action: "complete" };

/** A policy that gave no usable delay, as a {@linkcode Verdict} reports it. */
export type { PolicyFailure };

/** The inputs of {@linkcode BackoffDecision}. */
export interface BackoffDecisionOptions {
  /** The user's policy, or a built-in one: asked through `askPolicy`, contained. */
  readonly policy: BackoffPolicy;
  readonly minBackoff: number;
  /**
   * The delay when the policy gives no usable one. At most
   * `MAX_TIMER_DELAY_MS`: both supervisor styles check it where it is given.
   */
  readonly maxBackoff: number;
  /** How a log line names `maxBackoff`; default `maxBackoff (<n> ms)`. */
  readonly fallbackName?: string;
  readonly resetCounter: ResetCounter;
  readonly triggerOn: TriggerOn;
  readonly maxRestarts: number;
}

/**
 * The restart count and the rules that move it. One instance per
 * supervisor incarnation.
 */
export class BackoffDecision {
  /** Respawns since the last reset; the policy's `restartCount` for the next delay. */
  restartCount = 0;
  readonly #options: BackoffDecisionOptions;
  /** When the current child's up-time began, or -1 while none is up. */
  #startedAt = -1;

  constructor(options: BackoffDecisionOptions) {
    this.#options = options;
  }

  /** How long a child must stay alive for the count to reset; `Infinity` if it never resets by time. */
  get stableAfterMs(): number {
    const reset = this.#options.resetCounter;
    if (reset === "after-min-stable") return this.#options.minBackoff;
    if (typeof reset === "object") return reset.ms;
    return Infinity;
  }

  /**
   * A child's up-time begins at `nowMs`: for the BackoffSupervisor, its
   * spawn (as in Akka); for `restartWithBackoff`, the end of its restart.
   */
  childStarted(nowMs: number): void {
    this.#startedAt = nowMs;
  }

  /**
   * Resets the count if the current child has been alive long enough.
   *
   * @returns `true` if the count went from above 0 to 0.
   */
  resetIfStable(nowMs: number): boolean {
    const upTime = nowMs - this.#startedAt;
    // A child that ended the moment it began (it failed to start) was never
    // stable, even with a threshold of 0 (`minBackoff: 0`): else the count
    // would reset at every respawn and never reach `maxRestarts`.
    if (this.#startedAt < 0 || upTime <= 0 || upTime < this.stableAfterMs) {
      return false;
    }
    return this.reset();
  }

  /**
   * Resets the count (a manual `Reset`).
   *
   * @returns `true` if it was above 0.
   */
  reset(): boolean {
    const wasAbove = this.restartCount > 0;
    this.restartCount = 0;
    return wasAbove;
  }

  /** The child ended at `nowMs`: respawn after a delay, give up, or finish. */
  childTerminated(how: Termination, nowMs: number): Verdict {
    this.resetIfStable(nowMs);
    this.#startedAt = -1;
    const { triggerOn, maxRestarts, policy, maxBackoff } = this.#options;
    if (how === "stop" && triggerOn === "failure") {
      return { action: "complete" };
    }
    if (this.restartCount >= maxRestarts) {
      return { action: "give-up", restartCount: this.restartCount };
    }
    const restartCount = this.restartCount++;
    // The one way a policy is asked (as the BackoffSender, the WebSocket
    // connection and the Durable Objects channel ask theirs): a delay >= 0
    // comes back clamped to what a timer can wait, anything else as a
    // problem. On this path the clamp there is the only one between a
    // policy and the timer: `maxBackoff` was checked against the same bound.
    // A custom policy is user code: its failure must not undo the decision,
    // nor cause a restart storm.
    const { delayMs, failure } = delayOr(
      policy,
      restartCount,
      maxBackoff,
      this.#options.fallbackName ?? `maxBackoff (${maxBackoff} ms)`,
    );
    return failure === undefined
      ? { action: "respawn", delayMs, restartCount }
      : { action: "respawn", delayMs, restartCount, policyFailure: failure };
  }
}
