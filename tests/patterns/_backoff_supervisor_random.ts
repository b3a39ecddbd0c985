// Copyright 2026 the understudy authors. MIT license.
// (The run of one seed, not a test file itself: the test beside it and
// bench/soak.mjs run it.)
// The BackoffSupervisor under random actor faults: per seed, its options
// (forward stash or drop, triggerOn, maxStashSize, maxRestarts) and a
// child from faultyProps that crashes on 0–30% of its messages, stops
// itself after 0–10%, hangs (never settles) on some, and throws in every
// hook at random; the child's handler is synchronous or async (0–20 ms);
// now and then the supervisor itself is stopped. Every message must be
// handled once or dead-lettered once (a crash's message, the stash's
// overflow, `forward: "drop"`, a stop: all dead letters), none left at the
// end, and no timer after terminate. A failure names its seed.
import assert from "node:assert/strict";
import { Actor, ActorSystem, BackoffSupervisor, Props } from "../../mod.ts";
import {
  faultyProps,
  ManualScheduler,
  MessageLedger,
  seededRandom,
} from "../../src/testing/mod.ts";

/** The first seed the suite runs (bench/soak.mjs goes on from there). */
export const BASE_SEED = 50_000;
const MESSAGES = 40;

/** One seeded run; throws with the seed on any breach. */
export async function backoffSupervisorRandomRun(
  seed: number,
): Promise<{ faults: number }> {
  const random = seededRandom(seed);
  const scheduler = new ManualScheduler();
  const system = ActorSystem.create("random", { scheduler, logLevel: "off" });
  const ledger = new MessageLedger<number>({ seed, clock: scheduler });
  ledger.watchDeadLetters(
    system,
    (m) => (typeof m === "number" ? m : undefined),
  );
  const asynchronous = random.chance(0.5);
  class Worker extends Actor<number> {
    onReceive(n: number): void | Promise<void> {
      if (!asynchronous) return ledger.handled(n);
      return new Promise<void>((resolve) =>
        scheduler.setTimeout(() => {
          ledger.handled(n);
          resolve();
        }, random.int(0, 20))
      );
    }
  }
  const maxRestarts = random.pick([undefined, 0, 3, 10]);
  let faults = 0;
  const supervisor = system.actorOf(BackoffSupervisor.props({
    childProps: faultyProps(Props.create(() => new Worker()), {
      random: random.fork("child"),
      crash: random.between(0, 0.3),
      stop: random.between(0, 0.1),
      hang: random.pick([0, 0, 0.02]),
      hooks: {
        preStart: random.between(0, 0.2),
        postStop: random.between(0, 0.2),
        preRestart: 0.1,
        postRestart: 0.1,
      },
      onFault: () => faults++,
    }),
    minBackoff: 5,
    maxBackoff: 100,
    randomFactor: 0.2,
    forward: random.pick(["stash", "drop"] as const),
    triggerOn: random.pick(["any", "failure", "stop"] as const),
    maxStashSize: random.pick([1, 5, 1000]),
    ...(maxRestarts === undefined ? {} : { maxRestarts }),
  }));
  try {
    for (let n = 1; n <= MESSAGES; n++) {
      supervisor.tell(ledger.sent(n));
      if (random.chance(0.02)) system.stop(supervisor);
      await scheduler.timePasses(random.int(0, 10));
    }
    await scheduler.timePasses(5_000);
  } finally {
    const terminated = system.terminate();
    await scheduler.timePasses(60_000); // the shutdown deadlines of hung handlers
    await terminated;
  }
  ledger.check();
  assert.equal(scheduler.pendingTimers, 0, `seed ${seed}: timers left`);
  return { faults };
}
