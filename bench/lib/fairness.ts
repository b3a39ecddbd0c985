// Copyright 2026 the understudy authors. MIT license.

/**
 * How promptly the host's timers run: the measuring side of the fairness
 * workload, shared by the flooded run (bench/impl/understudy.ts) and the
 * idle baseline (bench/impl/baseline.ts). Web-standard APIs only, so it runs
 * in Node, Deno, Bun and Chromium alike.
 *
 * @module
 */

import { now, type Sample } from "./harness.ts";

/** The `setInterval` period whose ticks are timed. */
export const INTERVAL_MS = 10;

/**
 * Arms `setTimeout(fn, 0)` again and again for `durationMs` and returns how
 * late each fired: ms from arming to running. Each is armed from a fresh
 * `MessageChannel` task, not from the previous timer's callback, so no
 * runtime adds its nested-timer clamp (4 ms in browsers and Deno after five
 * levels): what remains is the host's own minimum plus the wait for whatever
 * holds the thread.
 */
export function timeoutDelays(durationMs: number): Promise<number[]> {
  const delays: number[] = [];
  const channel = new MessageChannel();
  const end = now() + durationMs;
  return new Promise((resolve) => {
    let armedAt = 0;
    const fired = (): void => {
      const t = now();
      delays.push(t - armedAt);
      if (t >= end) {
        channel.port1.close();
        resolve(delays);
      } else {
        channel.port2.postMessage(undefined);
      }
    };
    channel.port1.onmessage = () => {
      armedAt = now();
      setTimeout(fired, 0);
    };
    channel.port2.postMessage(undefined);
  });
}

/** Runs a `setInterval(fn, INTERVAL_MS)` for `durationMs`; returns the gaps between its ticks. */
export function intervalGaps(durationMs: number): Promise<number[]> {
  const gaps: number[] = [];
  const start = now();
  return new Promise((resolve) => {
    let last = start;
    const id = setInterval(() => {
      const t = now();
      gaps.push(t - last);
      last = t;
      if (t - start >= durationMs) {
        clearInterval(id);
        resolve(gaps);
      }
    }, INTERVAL_MS);
  });
}

/** The `q` quantile (0–1) of `values`, nearest rank. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil(q * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))];
}

/**
 * Both measurements, one after the other, each for `durationMs`: what a
 * fairness run reports (besides `ms` and `ops`, which the caller adds).
 */
export async function timerPromptness(durationMs: number): Promise<Sample> {
  const delays = await timeoutDelays(durationMs);
  const gaps = await intervalGaps(durationMs);
  return {
    timeoutMedian: quantile(delays, 0.5),
    timeoutP95: quantile(delays, 0.95),
    timeoutCount: delays.length,
    intervalMedian: quantile(gaps, 0.5),
    intervalP95: quantile(gaps, 0.95),
    intervalCount: gaps.length,
  };
}
