// @runtimes node
// Copyright 2026 the understudy authors. MIT license.
// A seeded chaos test of durable actor hosts in the real workerd, on a disk
// that outlives the workerd process (tests/durable/_chaos_worker.ts): three
// objects send bursts of numbered tells to each other's sinks, several at a
// time, while objects, senders as well as receivers, are evicted
// (ctx.abort()) at random points in the middle of deliveries, and workerd
// itself is killed and started again on the same storage. Each sink is the
// child of a durable BackoffSupervisor and crashes on some numbers, so that
// messages wait in stored stashes for respawns on the stored schedule; each
// burst starts a stored timer. Afterwards every number from every sender
// to every receiver was taken exactly once, in order, or given up once (a
// dead letter in the sender); every stored timer fired once; no stash or
// outbox is left. Every record is in the objects' storage, so it outlives
// the restarts too. Node only: it starts workerd from outside (see
// workerd.test.ts).
//
// Every draw comes from the fault kit's seeded source (`seededRandom`), the
// evictions through its `HostLoss`; CHAOS_SEED=n picks another seed, and a
// failure names the one it used; CHAOS_DUMP=file writes the nodes' reports
// there.

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { findRepoRoot } from "../meta/_repo.ts";
import { bundleWorker, serveOnDisk, type Workerd } from "./_bundle.ts";
import { HostLoss, seededRandom } from "../../src/testing/mod.ts";
import type { NodeReport } from "./_chaos_worker.ts";

const WORKER = join(findRepoRoot(), "tests", "durable", "_chaos_worker.ts");
const SEED = Number(process.env.CHAOS_SEED ?? 26);
const NODES = ["n0", "n1", "n2"];
const ROUNDS = 36;
/** Rounds in which workerd is killed and started again, at a random point. */
const RESTARTS = 3;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("durable: chaos across objects, evictions and workerd restarts", () => {
  let dir: string;
  let bundle: string;
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

  async function restart(): Promise<void> {
    await worker.stop();
    worker = await serveOnDisk(dir, bundle, { CHAOS: "ChaosNode" });
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "understudy-chaos-"));
    bundle = await bundleWorker(WORKER);
    worker = await serveOnDisk(dir, bundle, { CHAOS: "ChaosNode" });
  });

  after(async () => {
    await worker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`N tells across three objects, senders and receivers evicted, workerd restarted: 0 lost, 0 taken twice, order kept; timers, respawns and stashes survive (seed ${SEED})`, async () => {
    const source = seededRandom(SEED);
    const draws = source.fork("traffic");
    const loss = new HostLoss(source.fork("evictions"), 0.8);
    const kills = source.fork("restarts");
    const pick = <T>(items: T[]): T => items[draws.int(0, items.length - 1)];
    const restartRounds = new Set<number>();
    while (restartRounds.size < RESTARTS) {
      restartRounds.add(kills.int(3, ROUNDS - 3));
    }
    let evictions = 0;
    let restarts = 0;
    let failedCalls = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const work: Promise<unknown>[] = [];
      for (let b = 0; b < 3; b++) {
        const from = pick(NODES);
        const to = pick(NODES.filter((n) => n !== from));
        work.push(
          call(from, "burst", to, draws.int(1, 25), draws.int(20, 400))
            .catch(() => failedCalls++),
        );
      }
      // Any object may go, a sending one too, at a random point of the
      // deliveries.
      loss.offer(() => {
        const victim = pick(NODES);
        const delayMs = draws.int(0, 15);
        work.push(
          sleep(delayMs).then(() =>
            call(victim, "evict").then(
              () => assert.fail("evict returned"),
              () => evictions++,
            )
          ),
        );
      });
      if (restartRounds.has(round)) {
        const delayMs = kills.int(0, 20);
        work.push(sleep(delayMs).then(() => restarts++));
        await work.at(-1);
        await restart();
      }
      await Promise.all(work);
    }

    // Wake every node (an evicted sender's outbox is read back when it is
    // made) until nothing waits: no outbox, no stash, every timer fired.
    let reports: Record<string, NodeReport> = {};
    const until = Date.now() + 30_000;
    for (;;) {
      reports = {};
      for (const node of NODES) reports[node] = await call(node, "report");
      const waiting = NODES.some((n) => {
        const r = reports[n];
        return r.outbox > 0 || r.stash > 0 || r.fired.length < r.started;
      });
      if (!waiting || Date.now() > until) break;
      await sleep(200);
    }

    const problems: string[] = [];
    let sent = 0;
    let takenCount = 0;
    let givenUpCount = 0;
    for (const from of NODES) {
      for (const to of NODES) {
        if (to === from) continue;
        const told = (reports[from].next[to] ?? 1) - 1;
        sent += told;
        const taken = reports[to].taken[from] ?? [];
        const lost = reports[from].givenUp.filter((g) =>
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
        for (let seq = 1; seq <= told; seq++) {
          if (!seen.has(seq)) problems.push(`${from}→${to}: ${seq} lost`);
        }
        for (const seq of taken) {
          if (seq > told) problems.push(`${from}→${to}: ${seq} never told`);
        }
        for (const seq of lost) {
          if (taken.includes(seq)) {
            problems.push(`${from}→${to}: ${seq} taken and given up`);
          }
        }
      }
    }
    for (const node of NODES) {
      const { started, fired, outbox, stash } = reports[node];
      const once = new Set(fired);
      if (once.size !== fired.length) {
        problems.push(`${node}: a stored timer fired twice (${fired})`);
      }
      for (let t = 1; t <= started; t++) {
        if (!once.has(t)) {
          problems.push(`${node}: stored timer ${t} never fired`);
        }
      }
      if (outbox > 0) problems.push(`${node}: ${outbox} outbox rows left`);
      if (stash > 0) problems.push(`${node}: ${stash} messages left stashed`);
    }
    if (process.env.CHAOS_DUMP) {
      (await import("node:fs")).writeFileSync(
        process.env.CHAOS_DUMP,
        JSON.stringify(reports),
      );
    }
    const fired = NODES.reduce((n, node) => n + reports[node].fired.length, 0);
    const summary =
      `seed ${SEED}: ${sent} sent, ${takenCount} taken, ${givenUpCount} given up, ${evictions} evictions, ${restarts} workerd restarts, ${failedCalls} failed bursts, ${fired} stored timers fired`;
    assert.deepEqual(
      problems.slice(0, 20),
      [],
      `${summary}; ${problems.length} problems; reasons given up: ${
        JSON.stringify(
          NODES.flatMap((n) => reports[n].givenUp).slice(0, 3).map((g) =>
            g.reason
          ),
        )
      }`,
    );
    assert.ok(evictions >= 10, `${summary}: too few evictions`);
    assert.equal(restarts, RESTARTS);
    assert.ok(sent > 300, `${summary}: too little traffic`);
    assert.equal(takenCount + givenUpCount, sent, summary);
    // Every receiver comes back: nothing had to be given up.
    assert.equal(givenUpCount, 0, summary);
    console.log(summary);
  });
});
