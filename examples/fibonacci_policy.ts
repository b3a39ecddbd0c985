// Copyright 2026 the understudy authors. MIT license.

/**
 * A custom backoff policy: delays grow along the Fibonacci sequence (100,
 * 100, 200, 300, 500, 800, … ms) up to `maxMs`. Any object with
 * `delayFor(restartCount)` is a policy; pass it to the BackoffSupervisor as
 * `policy`.
 *
 * Run it with `deno run examples/fibonacci_policy.ts`.
 *
 * @module
 */

import {
  Actor,
  ActorSystem,
  BackoffChildFailed,
  type BackoffPolicy,
  BackoffScheduled,
  BackoffSupervisor,
  Props,
} from "../mod.ts";

/** Fibonacci delays: `unitMs` × 1, 1, 2, 3, 5, 8, …, capped at `maxMs`. */
function fibonacciBackoff(
  { unitMs, maxMs }: { unitMs: number; maxMs: number },
): BackoffPolicy {
  return {
    delayFor(restartCount: number): number {
      let [previous, current] = [0, 1];
      // Stop adding once past the cap: the count may be huge, the loop stays short.
      for (let i = 0; i < restartCount && current * unitMs < maxMs; i++) {
        [previous, current] = [current, previous + current];
      }
      return Math.min(current * unitMs, maxMs);
    },
  };
}

const start = performance.now();
const elapsed = () =>
  `${String(Math.round(performance.now() - start)).padStart(5)} ms`;
const FAILURES = 6;
let attempts = 0;

class Connection extends Actor<string> {
  override preStart(): void {
    if (++attempts <= FAILURES) throw new Error("connection refused");
  }
  onReceive(message: string): void {
    console.log(
      `${elapsed()}  attempt ${attempts} connected; handled "${message}"`,
    );
    void this.context.system.terminate();
  }
}

const system = ActorSystem.create("fibonacci", { logLevel: "off" });
system.eventStream.subscribe(BackoffChildFailed, (event) => {
  console.log(
    `${elapsed()}  attempt ${attempts}: ${(event.error as Error).message}`,
  );
});
system.eventStream.subscribe(BackoffScheduled, (event) => {
  console.log(`${elapsed()}  next attempt in ${event.delayMs} ms`);
});
system.actorOf(
  BackoffSupervisor.props({
    childProps: Props.create(() => new Connection()),
    minBackoff: 100,
    maxBackoff: 1_000,
    policy: fibonacciBackoff({ unitMs: 100, maxMs: 1_000 }),
  }),
).tell("hello");
await system.whenTerminated;
