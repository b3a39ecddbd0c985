// @runtimes node
// Copyright 2026 the understudy authors. MIT license.
// A seeded chaos test of tells across Durable Objects in the real workerd:
// three objects send bursts of numbered tells to each other, several at a
// time, while objects are evicted (ctx.abort()) at random points, in the
// middle of deliveries. Afterwards every number from every sender to every
// receiver was taken exactly once, in order, or given up once (a dead
// letter in the sender). Node only: it starts workerd from outside (see
// workerd.test.ts).
//
// What it does not do: evict an object while it is itself sending (its
// hosts have no outbox here; workerd.test.ts tests the outbox on its own),
// or restart workerd. Every draw comes from the fault kit's seeded source
// (`seededRandom`), the evictions through its `HostLoss`; CHAOS_SEED=n picks
// another seed, and a failure names the one it used.

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import process from "node:process";
import { findRepoRoot } from "../meta/_repo.ts";
import { serveWorker, type Workerd } from "./_bundle.ts";
import { HostLoss, seededRandom } from "../../src/testing/mod.ts";

const WORKER = join(findRepoRoot(), "tests", "durable", "_worker.ts");
const SEED = Number(process.env.CHAOS_SEED ?? 26);
const NODES = ["n0", "n1", "n2"];
const ROUNDS = 40;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Report {
  taken: Record<string, Record<string, number[]>>;
  givenUp: Record<string, { to: string; seq: number; reason: string }[]>;
}

describe("durable: chaos across objects, in workerd", () => {
  let worker: Workerd;

  async function call<R>(
    name: string,
    method: string,
    ...args: unknown[]
  ): Promise<R> {
    const res = await fetch(worker.url, {
      method: "POST",
      body: JSON.stringify({ ns: "CHAOS", name, method, args }),
      signal: AbortSignal.timeout(20_000),
    });
    const body = await res.json() as { result?: R; error?: unknown };
    if (res.status !== 200) {
      throw new Error(`${name}.${method}: ${JSON.stringify(body.error)}`);
    }
    return body.result as R;
  }

  before(async () => {
    worker = await serveWorker(WORKER, { CHAOS: "ChaosNode" });
  });

  after(async () => {
    await worker?.stop();
  });

  it(`N tells across three objects evicted at random: 0 lost, 0 taken twice, order per sender kept (seed ${SEED})`, async () => {
    const source = seededRandom(SEED);
    const random = () => source.next();
    const loss = new HostLoss(source.fork("evictions"), 0.8);
    const pick = <T>(items: T[]): T =>
      items[Math.floor(random() * items.length)];
    const next: Record<string, Record<string, number>> = {};
    for (const from of NODES) {
      next[from] = {};
      for (const to of NODES) if (to !== from) next[from][to] = 1;
    }
    let evictions = 0;
    let sent = 0;
    const flushes: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const work: Promise<unknown>[] = [];
      const sending = new Set<string>();
      for (let b = 0; b < 3; b++) {
        const from = pick(NODES);
        const to = pick(NODES.filter((n) => n !== from));
        const count = 1 + Math.floor(random() * 25);
        const first = next[from][to];
        next[from][to] += count;
        sent += count;
        sending.add(from);
        work.push(
          call<string>(from, "burst", to, first, count).then((r) =>
            flushes.push(r)
          ),
        );
      }
      // An object that is not sending this round is evicted, at a random
      // point of the others' deliveries to it.
      const idle = NODES.filter((n) => !sending.has(n));
      if (idle.length > 0) {
        loss.offer(() => {
          const victim = pick(idle);
          const delayMs = Math.floor(random() * 15);
          work.push(
            sleep(delayMs).then(() =>
              call(victim, "evict").catch(() => evictions++)
            ),
          );
        });
      }
      await Promise.all(work);
    }
    await sleep(200);
    const report = await call<Report>("n0", "report");
    const problems: string[] = [];
    let takenCount = 0;
    let givenUpCount = 0;
    for (const from of NODES) {
      for (const to of NODES) {
        if (to === from) continue;
        const taken = report.taken[to]?.[from] ?? [];
        const lost = (report.givenUp[from] ?? []).filter((g) =>
          g.to === `durable://CHAOS/${to}/user/sink`
        ).map((g) => g.seq);
        takenCount += taken.length;
        givenUpCount += lost.length;
        for (let i = 1; i < taken.length; i++) {
          if (taken[i] <= taken[i - 1]) {
            problems.push(
              `${from}→${to}: ${taken[i]} after ${
                taken[i - 1]
              } (twice or out of order)`,
            );
          }
        }
        const seen = new Set([...taken, ...lost]);
        for (let seq = 1; seq < next[from][to]; seq++) {
          if (!seen.has(seq)) problems.push(`${from}→${to}: ${seq} lost`);
        }
        for (const seq of lost) {
          if (taken.includes(seq)) {
            problems.push(`${from}→${to}: ${seq} taken and given up`);
          }
        }
      }
    }
    assert.ok(evictions >= 10, `only ${evictions} evictions`);
    assert.deepEqual(
      problems.slice(0, 20),
      [],
      `seed ${SEED}: ${problems.length} problems; ${sent} sent, ${takenCount} taken, ${givenUpCount} given up, ${evictions} evictions; reasons: ${
        JSON.stringify(
          Object.values(report.givenUp).flat().slice(0, 3).map((g) => g.reason),
        )
      }`,
    );
    assert.equal(takenCount + givenUpCount, sent);
    // Every receiver comes back after its eviction: nothing had to be given up.
    assert.equal(givenUpCount, 0, `seed ${SEED}: given up`);
    console.log(
      `chaos seed ${SEED}: ${sent} tells, ${takenCount} taken once, ${givenUpCount} given up, ${evictions} evictions, flushes ${
        flushes.filter((f) => f === "flushed").length
      }/${flushes.length}`,
    );
  });
});
