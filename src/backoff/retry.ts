// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * `retry`: calls a function until it succeeds, waiting a policy's delay
 * between attempts, for at most `maxAttempts` attempts, and stops at once
 * when a signal aborts. Modelled on Deno std's `async/retry.ts`, with the
 * waits taken from a {@linkcode BackoffPolicy}.
 *
 * @module
 */

import type { BackoffPolicy } from "./backoff_policy.ts";
import { fullJitterBackoff } from "./full_jitter.ts";
import {
  checkCount,
  checkDelay,
  checkPolicy,
  checkSignal,
  describeError,
  fail,
  MAX_TIMER_DELAY_MS,
} from "../validation.ts";

/** The default of {@linkcode RetryOptions.maxAttempts}. */
const DEFAULT_MAX_ATTEMPTS = 5;

/**
 * Options for {@linkcode retry}.
 *
 * @example Three attempts, 100 ms then 200 ms apart, until the caller gives up
 * ```ts
 * import { exponentialBackoff, retry, type RetryOptions } from "@understudy/core/backoff";
 *
 * const controller = new AbortController(); // controller.abort() stops the retries
 * const options: RetryOptions = {
 *   policy: exponentialBackoff({ minMs: 100, maxMs: 1_000, randomFactor: 0 }),
 *   maxAttempts: 3,
 *   signal: controller.signal,
 * };
 * let calls = 0;
 * const answer = await retry(() => ++calls < 3 ? Promise.reject(new Error("busy")) : "ok", options);
 * console.log(answer, calls); // "ok" 3
 * ```
 */
export interface RetryOptions {
  /**
   * How long to wait after a failed attempt: after attempt n (1, 2, …)
   * fails, `retry` waits `policy.delayFor(n - 1)` milliseconds, so the
   * first wait is `delayFor(0)`, as before a BackoffSupervisor's first
   * restart.
   *
   * @default {fullJitterBackoff({ baseMs: 1_000, capMs: 60_000 })}: a
   * uniform random wait in [0, 1 s), then [0, 2 s), [0, 4 s), …, up to
   * [0, 60 s), as Deno std's `retry` waits by default. A delay longer than
   * a timer can wait (2,147,483,647 ms, `Infinity` included) is that
   * longest wait, as for the supervisors.
   */
  policy?: BackoffPolicy;
  /**
   * How many times to call the function at most (the first call included):
   * a whole number ≥ 1, or `Infinity` to retry until it succeeds, a
   * `shouldRetry` says no, or the signal aborts.
   *
   * @default {5}
   */
  maxAttempts?: number;
  /**
   * Stops retrying: when it aborts, the promise `retry` returned rejects at
   * once with `signal.reason`, and a wait in progress is cancelled (its
   * timer cleared). An attempt in progress is not interrupted (pass the
   * same signal to the function, to `fetch` for instance, for that); what
   * it returns or throws afterwards is ignored. A signal already aborted
   * rejects without calling the function.
   */
  signal?: AbortSignal;
  /**
   * Whether to retry after `error`, thrown by attempt number `attempt`
   * (1-based). Returning `false` makes `retry` reject at once with `error`
   * itself (not a {@linkcode RetryError}), whatever attempts remain. It is
   * asked about every failure, the last one included. If it throws, `retry`
   * rejects with what it threw.
   *
   * @default {() => true}
   */
  shouldRetry?: (error: unknown, attempt: number) => boolean;
  /**
   * Where the waits between attempts are timed: any object with
   * `setTimeout(callback, ms)` and `clearTimeout(handle)`, such as an actor
   * system's `system.scheduler` or the testkit's `ManualScheduler` (so a
   * test moves the waits in virtual time).
   *
   * @default {the host's `setTimeout` and `clearTimeout`}
   */
  scheduler?: RetryScheduler;
}

/**
 * What {@linkcode retry} times its waits with (`RetryOptions.scheduler`):
 * the part of a timer API it uses. An actor system's `Scheduler` is one.
 *
 * @example Usage
 * ```ts
 * import type { RetryScheduler } from "@understudy/core/backoff";
 *
 * const host: RetryScheduler = {
 *   setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
 *   clearTimeout: (handle) => globalThis.clearTimeout(handle as number),
 * };
 * ```
 */
export interface RetryScheduler {
  /** Calls `callback` once after `delayMs`; returns a handle for `clearTimeout`. */
  setTimeout(callback: () => void, delayMs: number): unknown;
  /** Cancels a timer from `setTimeout`; a handle already fired or cleared is ignored. */
  clearTimeout(handle: unknown): void;
}

/** The host's timers: what `retry` waits with unless given a scheduler. */
const hostTimers: RetryScheduler = {
  setTimeout: (callback, delayMs) => globalThis.setTimeout(callback, delayMs),
  clearTimeout: (handle) =>
    globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * {@linkcode retry} made `maxAttempts` attempts and each failed: `cause` is
 * the error of the last one, `attempts` how many were made.
 *
 * @example Usage
 * ```ts
 * import { retry, RetryError } from "@understudy/core/backoff";
 *
 * try {
 *   await retry(() => Promise.reject(new Error("down")), {
 *     maxAttempts: 2,
 *     policy: { delayFor: () => 1 },
 *   });
 * } catch (error) {
 *   if (error instanceof RetryError) {
 *     console.log(error.attempts, (error.cause as Error).message); // 2 "down"
 *   }
 * }
 * ```
 */
export class RetryError extends Error {
  /** How many attempts were made (all failed). */
  readonly attempts: number;

  /**
   * Creates a `RetryError`.
   *
   * @param cause The error of the last attempt.
   * @param attempts How many attempts were made.
   */
  constructor(cause: unknown, attempts: number) {
    super(
      `Retrying failed after ${attempts} attempt${attempts === 1 ? "" : "s"}: ${
        describeError(cause)
      }`,
      { cause },
    );
    this.name = "RetryError";
    this.attempts = attempts;
  }
}

/**
 * Calls `fn` until it succeeds, and resolves with what it returns.
 *
 * `fn` is called at once, with the attempt's number (1, 2, …). When it
 * throws or rejects, `retry` asks `shouldRetry(error, attempt)`: if that is
 * false it rejects with the error as is; if that was the last of
 * `maxAttempts` attempts it rejects with a {@linkcode RetryError} carrying
 * the last error (`cause`) and the number of attempts; otherwise it waits
 * `policy.delayFor(attempt - 1)` milliseconds and calls `fn` again. When
 * `signal` aborts, it rejects at once with the signal's reason and clears
 * the wait's timer, so nothing of it outlives the call.
 *
 * With the defaults, `fn` is called at most 5 times, with full-jitter waits
 * below 1, 2, 4 and 8 s between the calls (15 s at most in all).
 *
 * @example Retry until a flaky call succeeds
 * ```ts
 * import { exponentialBackoff, retry } from "@understudy/core/backoff";
 *
 * let calls = 0;
 * async function flaky(): Promise<string> {
 *   if (++calls < 3) throw new Error("not yet");
 *   return "ok";
 * }
 * const policy = exponentialBackoff({ minMs: 10, maxMs: 100 });
 * console.log(await retry(flaky, { policy })); // "ok", after waits of about 10 and 20 ms
 * ```
 *
 * @example Give up on errors that will not go away, and when the caller leaves
 * ```ts
 * import { retry } from "@understudy/core/backoff";
 *
 * class HttpError extends Error {
 *   constructor(readonly status: number) {
 *     super(`HTTP ${status}`);
 *   }
 * }
 * const controller = new AbortController();
 * const attempt = (): Promise<string> => Promise.reject(new HttpError(404));
 * await retry(attempt, {
 *   signal: controller.signal,
 *   shouldRetry: (error) => !(error instanceof HttpError) || error.status >= 500,
 * }).catch((error) => console.log(error.message)); // "HTTP 404", at once
 * ```
 *
 * @typeParam T What `fn` resolves with.
 * @param fn The function to call; it gets the attempt's number, from 1.
 * @param options See {@linkcode RetryOptions}.
 * @returns What `fn` returned, once it succeeds.
 * @throws {TypeError} If `fn`, `policy`, `shouldRetry`, `signal` or
 * `scheduler` has the wrong type, or `options` is not an object. These are thrown by the call,
 * not through the promise.
 * @throws {RangeError} If `maxAttempts` is not a whole number ≥ 1 or
 * `Infinity`. (Through the promise, `retry` rejects with a `RangeError` if
 * the policy gives a delay that is negative or NaN, and with a `TypeError`
 * if it gives something that is not a number.)
 */
export function retry<T>(
  fn: (attempt: number) => T | PromiseLike<T>,
  options: RetryOptions = {},
): Promise<T> {
  if (typeof fn !== "function") fail("retry", "fn", "a function", fn);
  if (typeof options !== "object" || options === null) {
    fail("retry", "options", "an object", options);
  }
  const { signal, shouldRetry } = options;
  const maxAttempts = options.maxAttempts === undefined
    ? DEFAULT_MAX_ATTEMPTS
    : checkCount("retry", "maxAttempts", options.maxAttempts, 1);
  const policy = options.policy === undefined
    ? fullJitterBackoff({ baseMs: 1_000, capMs: 60_000 })
    : checkPolicy("retry", "policy", options.policy);
  if (shouldRetry !== undefined && typeof shouldRetry !== "function") {
    fail("retry", "shouldRetry", "a function", shouldRetry);
  }
  checkSignal("retry", "signal", signal);
  const scheduler = options.scheduler ?? hostTimers;
  if (
    typeof scheduler !== "object" || scheduler === null ||
    typeof scheduler.setTimeout !== "function" ||
    typeof scheduler.clearTimeout !== "function"
  ) {
    fail(
      "retry",
      "scheduler",
      "an object with setTimeout and clearTimeout functions",
      scheduler,
    );
  }

  return new Promise<T>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    let attempt = 0;
    let done = false;
    let timer: unknown = undefined;

    /** Settles once: clears the wait and stops listening to the signal. */
    const finish = (settle: () => void): void => {
      if (done) return;
      done = true;
      if (timer !== undefined) scheduler.clearTimeout(timer);
      timer = undefined;
      signal?.removeEventListener("abort", onAbort);
      settle();
    };
    const onAbort = (): void => finish(() => reject(signal!.reason));

    const failed = (error: unknown): void => {
      if (done) return; // aborted while the attempt ran: its outcome is ignored
      try {
        if (shouldRetry !== undefined && !shouldRetry(error, attempt)) {
          finish(() => reject(error));
          return;
        }
        if (attempt >= maxAttempts) {
          finish(() => reject(new RetryError(error, attempt)));
          return;
        }
        const delayMs = policy.delayFor(attempt - 1);
        // Longer than a timer can wait is the longest it can, as for the
        // supervisors; a delay that is no delay is the policy's bug.
        const wait = checkDelay(
          "retry",
          `policy.delayFor(${attempt - 1})`,
          typeof delayMs === "number" && delayMs > MAX_TIMER_DELAY_MS
            ? MAX_TIMER_DELAY_MS
            : delayMs,
        );
        // Inside the try: a scheduler that throws rejects, not hangs.
        timer = scheduler.setTimeout(run, wait);
      } catch (thrown) {
        finish(() => reject(thrown));
      }
    };

    const run = (): void => {
      timer = undefined;
      attempt++;
      let result: T | PromiseLike<T>;
      try {
        result = fn(attempt);
      } catch (error) {
        failed(error);
        return;
      }
      Promise.resolve(result).then(
        (value) => finish(() => resolve(value)),
        failed,
      );
    };

    signal?.addEventListener("abort", onAbort);
    run();
  });
}
