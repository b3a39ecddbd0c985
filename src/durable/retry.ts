// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * How remote refs retry a call that failed: Cloudflare documents that a
 * call to a Durable Object can fail with an error marked `retryable` (safe
 * to try again, with exponential backoff and jitter) or `overloaded` (do not
 * retry: it would only add load). By default a remote ref retries exactly
 * the first kind, with a full-jitter exponential backoff, a bounded number
 * of times.
 *
 * @module
 */

import type { BackoffPolicy } from "../backoff/backoff_policy.ts";
import { fullJitterBackoff } from "../backoff/full_jitter.ts";
import {
  checkNumber,
  checkPolicy,
  describeError,
  fail,
} from "../validation.ts";

/**
 * How remote refs retry failed calls. Every field is optional.
 *
 * @example Usage
 * ```ts
 * import { exponentialBackoff } from "@understudy/core/backoff";
 * import type { RemoteRetryOptions } from "@understudy/core/durable";
 *
 * const retry: RemoteRetryOptions = {
 *   maxAttempts: 5,
 *   policy: exponentialBackoff({ minMs: 50, maxMs: 2_000 }),
 * };
 * ```
 */
export interface RemoteRetryOptions {
  /**
   * Calls in all, the first included: 1 never retries. An integer from 1
   * to 100. Default 3.
   */
  maxAttempts?: number;
  /**
   * The wait before each retry (`delayFor(0)` before the first). Default
   * {@linkcode defaultRemoteRetryPolicy}.
   */
  policy?: BackoffPolicy;
  /**
   * Whether an error may be retried, given how many calls were made
   * (`attempt`, 1 after the first failed). Default
   * {@linkcode isRetryableDurableError}: `error.retryable === true` and not
   * `error.overloaded`. If it throws, the error is not retried. Not asked
   * once `maxAttempts` calls were made.
   */
  shouldRetry?: (error: unknown, attempt: number) => boolean;
}

/** The default of {@linkcode RemoteRetryOptions.maxAttempts}. */
const DEFAULT_MAX_ATTEMPTS = 3;
const MAX_ATTEMPTS_LIMIT = 100;

/**
 * The default retry policy of remote refs: full-jitter exponential backoff
 * (a uniform wait between 0 and `min(3000, 100 × 2^n)` ms), as Cloudflare
 * recommends for retryable errors.
 *
 * @example Usage
 * ```ts
 * import { defaultRemoteRetryPolicy } from "@understudy/core/durable";
 *
 * const ms = defaultRemoteRetryPolicy().delayFor(2); // 0 to 400 ms
 * console.log(ms >= 0 && ms <= 400); // true
 * ```
 *
 * @param random Uniform numbers in [0, 1); default `secureRandom`.
 * @returns The policy.
 */
export function defaultRemoteRetryPolicy(
  random?: () => number,
): BackoffPolicy {
  return fullJitterBackoff({ baseMs: 100, capMs: 3_000, random });
}

/**
 * Whether a failed call to a Durable Object may be retried: the platform
 * marked the error `retryable` and not `overloaded` (retrying an overloaded
 * object makes the overload worse).
 *
 * @example Usage
 * ```ts
 * import { isRetryableDurableError } from "@understudy/core/durable";
 *
 * const flaky = Object.assign(new Error("Network connection lost."), { retryable: true });
 * const busy = Object.assign(new Error("Durable Object is overloaded."), { overloaded: true });
 * console.log(isRetryableDurableError(flaky), isRetryableDurableError(busy)); // true false
 * ```
 *
 * @param error What the call rejected with.
 * @returns `true` if it may be retried.
 */
export function isRetryableDurableError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const flags = error as { retryable?: unknown; overloaded?: unknown };
  return flags.retryable === true && flags.overloaded !== true;
}

/** Checked retry options with their defaults. Internal. */
export interface RetrySettings {
  readonly maxAttempts: number;
  readonly policy: BackoffPolicy;
  readonly shouldRetry: (error: unknown, attempt: number) => boolean;
}

/** Checks `options` (of `action`) and fills in the defaults. Internal. */
export function retrySettings(
  action: string,
  options: RemoteRetryOptions | undefined,
): RetrySettings {
  if (options === undefined) {
    return {
      maxAttempts: DEFAULT_MAX_ATTEMPTS,
      policy: defaultRemoteRetryPolicy(),
      shouldRetry: isRetryableDurableError,
    };
  }
  if (typeof options !== "object" || options === null) {
    fail(action, "retry", "an object", options);
  }
  const maxAttempts = options.maxAttempts === undefined
    ? DEFAULT_MAX_ATTEMPTS
    : checkNumber(
      action,
      "retry.maxAttempts",
      options.maxAttempts,
      1,
      MAX_ATTEMPTS_LIMIT,
      true,
    );
  // As for `shouldRetry`, a null `policy` means the default.
  const policy = options.policy == null
    ? defaultRemoteRetryPolicy()
    : checkPolicy(action, "retry.policy", options.policy);
  const shouldRetry = options.shouldRetry ?? isRetryableDurableError;
  if (typeof shouldRetry !== "function") {
    fail(action, "retry.shouldRetry", "a function", shouldRetry);
  }
  return { maxAttempts, policy, shouldRetry };
}

/** `settings.shouldRetry(error, attempt)`, false if it throws. Internal. */
export function mayRetry(
  settings: RetrySettings,
  error: unknown,
  attempt: number,
): boolean {
  try {
    return settings.shouldRetry(error, attempt) === true;
  } catch {
    return false;
  }
}

/** An error for dead-letter reasons: `Name: message`, with the platform's flags. Internal. */
export function errorText(error: unknown): string {
  const flags = typeof error === "object" && error !== null
    ? [
      isFlagged(error, "retryable") ? "retryable" : "",
      isFlagged(error, "overloaded") ? "overloaded" : "",
    ].filter((f) => f !== "").join(", ")
    : "";
  return `${describeError(error)}${flags ? ` (${flags})` : ""}`;
}

function isFlagged(error: object, flag: string): boolean {
  try {
    return (error as Record<string, unknown>)[flag] === true;
  } catch {
    return false;
  }
}
