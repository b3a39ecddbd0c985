// Copyright 2026 the understudy authors. MIT license.

/**
 * A `Flaky` actor whose `preStart` fails 70% of the time ("upstream not
 * ready"), under a BackoffSupervisor: each crash is followed by a longer,
 * jittered wait, and the `do-it` messages sent meanwhile are stashed and
 * handled, in order, once a child finally starts.
 *
 * Run it with `deno run examples/flaky_supervisor.ts`.
 *
 * @module
 */

import {
  Actor,
  ActorSystem,
  BackoffChildFailed,
  BackoffChildStarted,
  BackoffScheduled,
  BackoffSupervisor,
  Props,
} from "../mod.ts";

type DoIt = { kind: "do-it"; n: number };
const JOBS = 3;

const start = performance.now();
const elapsed = () =>
  `${String(Math.round(performance.now() - start)).padStart(6)} ms`;
let attempt = 0;

class Flaky extends Actor<DoIt> {
  override preStart(): void {
    attempt++;
    if (Math.random() < 0.7) throw new Error("upstream not ready");
  }
  onReceive(message: DoIt): void {
    console.log(`${elapsed()}  ${this.self.path} did job ${message.n}`);
    if (message.n === JOBS) void this.context.system.terminate();
  }
}

const system = ActorSystem.create("flaky", { logLevel: "off" });
system.eventStream.subscribe(BackoffChildFailed, (event) => {
  console.log(
    `${elapsed()}  attempt ${attempt}: ${(event.error as Error).message}`,
  );
});
system.eventStream.subscribe(BackoffScheduled, (event) => {
  console.log(
    `${elapsed()}  waiting ${Math.round(event.delayMs)} ms (restart ${
      event.restartCount + 1
    })`,
  );
});
system.eventStream.subscribe(BackoffChildStarted, (event) => {
  console.log(`${elapsed()}  attempt ${attempt}: ${event.child.path} is up`);
});

const supervisor = system.actorOf(
  BackoffSupervisor.props({
    childProps: Props.create(() => new Flaky()),
    minBackoff: 200,
    maxBackoff: 10_000,
    randomFactor: 0.2,
  }),
  "flaky-supervisor",
);
for (let n = 1; n <= JOBS; n++) supervisor.tell({ kind: "do-it", n });

await system.whenTerminated;
console.log(`${elapsed()}  all ${JOBS} jobs done after ${attempt} attempts`);
