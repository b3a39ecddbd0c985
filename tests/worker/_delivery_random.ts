// Copyright 2026 the understudy authors. MIT license.
// (The run of one seed, not a test file itself: the test beside it and
// bench/soak.mjs run it.)
// Akka's reliable-delivery random spec, against the worker transport, as
// far as its channel can fail: a postMessage channel never loses, doubles
// or reorders a message while it is up, so each seed delays every message
// 0–40 ms each way (in order) and loses the worker at a rate of 0.5–2% per
// message either way (flakyWorkers over the fake worker: the channel is
// cut with what was on it, and the owner is told the worker died; a
// BackoffSupervisor starts the next). Every job must be handled once or
// dead-lettered once; jobs are handled in the order sent. Both at once only
// in doubt: a job the worker handled whose acknowledgement was lost with
// the worker, or still on its way at the stop, is dead-lettered as the
// README's accounting says (handled means handled and acknowledged), and
// its reason, "worker died before handling it" or "worker stopped before
// handling it", is then not true (seed 20002 first showed it; reported,
// not changed here). Answered, though, is never in doubt: a job answers its
// sender (one reply, or, one in five, 2,100: more than a batch holds, so
// that the turn fills a batch), and a job whose answer reached the main side
// is never also a dead letter, since its acknowledgement crosses in the same
// post as its replies. A failure names its seed; UNDERSTUDY_SEED=<seed>
// replays it alone.
import { workerBackoff } from "../../src/worker/worker_backoff.ts";
import assert from "node:assert/strict";
import { Actor } from "../../src/runtime/actor.ts";
import { ActorSystem } from "../../src/runtime/actor_system.ts";
import { DeadLetter } from "../../src/runtime/event_stream.ts";
import { Props } from "../../src/runtime/props.ts";
import {
  flakyWorkers,
  ManualScheduler,
  MessageLedger,
  seededRandom,
} from "../../src/testing/mod.ts";
import { spawnInWorker, workerProps } from "../../src/worker/worker_props.ts";
import { fakeWorkers } from "./_fake_endpoint.ts";

/** The first seed the suite runs (bench/soak.mjs goes on from there). */
export const BASE_SEED = 20_000;
const JOBS = 30;

/** One seeded run; throws with the seed on any breach. */
export async function workerRandomRun(
  seed: number,
): Promise<{ lost: number; inDoubt: number }> {
  const random = seededRandom(seed);
  const scheduler = new ManualScheduler();
  const ledger = new MessageLedger<number>({ seed, clock: scheduler });
  const handledOrder: number[] = [];
  class Job extends Actor<{ n: number; replies: number }> {
    onReceive(job: { n: number; replies: number }): void {
      ledger.handled(job.n);
      handledOrder.push(job.n);
      for (let k = 0; k < job.replies; k++) this.sender?.tell(job.n);
    }
  }
  /** The jobs whose answer reached the main side. */
  const answered = new Set<number>();
  class Answers extends Actor<number> {
    onReceive(n: number): void {
      answered.add(n);
    }
  }
  const dead = new Set<number>();
  const fakes = fakeWorkers({ Job: () => new Job() });
  const flaky = flakyWorkers(fakes.create, {
    random: random.fork("link"),
    scheduler,
    outbound: { delayMs: [0, 40] },
    inbound: { delayMs: [0, 40] },
    loss: random.between(0.005, 0.02),
  });
  const system = ActorSystem.create("main", { scheduler, logLevel: "off" });
  ledger.watchDeadLetters(
    system,
    (m) =>
      typeof m === "object" && m !== null && "n" in m
        ? (m as { n: number }).n
        : undefined,
    { inDoubt: (dead) => /^worker (died|stopped) before/.test(dead.reason) },
  );
  system.eventStream.subscribe(DeadLetter, ({ message: m }) => {
    if (typeof m === "object" && m !== null && "n" in m) {
      dead.add((m as { n: number }).n);
    }
  });
  try {
    const worker = system.actorOf(
      workerProps({
        create: flaky.create,
        backoff: workerBackoff({ minBackoff: 10, maxBackoff: 100 }),
      }),
      "compute",
    );
    const spawned = spawnInWorker<{ n: number; replies: number }>(
      worker,
      "job",
      "Job",
      [],
      60_000,
    );
    const answers = system.actorOf(Props.create(() => new Answers()));
    let ref: Awaited<typeof spawned> | undefined;
    spawned.then((r) => (ref = r), () => {});
    while (ref === undefined) await scheduler.timePasses(10);
    for (let n = 1; n <= JOBS; n++) {
      const replies = random.chance(0.2) ? 2_100 : 1;
      ref.tell({ n: ledger.sent(n, `job ${n}`), replies }, answers);
      await scheduler.timePasses(random.int(0, 15));
    }
    await scheduler.timePasses(5_000);
    ledger.check();
    assert.ok(
      handledOrder.every((n, i) => i === 0 || n > handledOrder[i - 1]),
      `seed ${seed}: handled in order ${handledOrder}`,
    );
  } finally {
    const terminated = system.terminate();
    await scheduler.timePasses(10_000);
    await terminated;
    await fakes.closed();
  }
  ledger.check();
  const both = [...answered].filter((n) => dead.has(n));
  assert.deepEqual(both, [], `seed ${seed}: answered and dead-lettered`);
  return { lost: flaky.lost, inDoubt: ledger.counts.inDoubt };
}
