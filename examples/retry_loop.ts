// Copyright 2026 the understudy authors. MIT license.

/**
 * A plain retry loop, no actor involved: call a flaky upstream up to 5 times,
 * waiting an exponentially growing, jittered delay between tries, and print
 * a timeline of what happened.
 *
 * Run it with `deno run examples/retry_loop.ts` (no permissions needed).
 *
 * @module
 */

import { exponentialBackoff } from "../src/backoff/mod.ts";

const MAX_ATTEMPTS = 5;

/** Stands in for a service that is still starting: fails about 60% of calls. */
async function callUpstream(): Promise<string> {
  await sleep(5); // a little network time
  if (Math.random() < 0.6) throw new Error("upstream not ready");
  return "200 OK";
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Prints one line of the timeline, in aligned columns. */
function row(attempt: string, elapsed: string, outcome: string, delay: string) {
  console.log(
    attempt.padEnd(9) + elapsed.padStart(9) + "  " + outcome.padEnd(30) +
      delay.padStart(8),
  );
}

const policy = exponentialBackoff({ minMs: 200, maxMs: 5_000 });
const start = performance.now();

row("attempt", "elapsed", "outcome", "delay");
for (let attempt = 1;; attempt++) {
  const elapsed = `${Math.round(performance.now() - start)} ms`;
  try {
    const answer = await callUpstream();
    row(String(attempt), elapsed, `ok: ${answer}`, "-");
    console.log("Upstream answered.");
    break;
  } catch (error) {
    const outcome = `failed: ${(error as Error).message}`;
    if (attempt === MAX_ATTEMPTS) {
      row(String(attempt), elapsed, outcome, "-");
      console.log(`Gave up after ${MAX_ATTEMPTS} attempts.`);
      break;
    }
    // restartCount is 0-based: after attempt 1 fails, delayFor(0), about
    // 200 ms; then about 400, 800 and 1,600 ms (each ±20%).
    const delay = policy.delayFor(attempt - 1);
    row(String(attempt), elapsed, outcome, `${Math.round(delay)} ms`);
    await sleep(delay);
  }
}
