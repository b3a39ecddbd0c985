// Copyright 2026 the understudy authors. MIT license.
// Tells across objects over a flaky link (src/testing/flaky_durable_object.ts,
// the Durable Object adapter of the chaos kit's FlakyChannel): calls and
// replies dropped, delayed, duplicated and reordered as the seed decides,
// between three hosts in one process. Every tell is taken exactly once, in
// order per sender, and none is given up: copies from duplicated calls and
// retries after lost replies are dropped by the receivers' high-water
// marks. TEST_SEED=n picks another seed; a failure names the one it used.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Actor, DeadLetter, Props, realScheduler } from "../../mod.ts";
import {
  FlakyNamespace,
  MessageLedger,
  parseSeed,
  seededRandom,
} from "../../src/testing/mod.ts";
import { localNamespace } from "./_local_namespace.ts";

const NODES = ["n0", "n1", "n2"];
const PER_PAIR = 150;

type Tell = { from: string; seq: number };

describe("durable: tells over a flaky link", () => {
  it("calls dropped, delayed, duplicated, reordered: every tell taken once, in order per sender", async () => {
    const seed = parseSeed(
      (globalThis as { process?: { env?: Record<string, string> } }).process
        ?.env?.TEST_SEED,
    ) ?? 2026;
    const random = seededRandom(seed);
    const ledger = new MessageLedger<string>({ seed });
    const last = new Map<string, number>();
    const outOfOrder: string[] = [];
    class Sink extends Actor<Tell> {
      constructor(readonly me: string) {
        super();
      }
      onReceive({ from, seq }: Tell): void {
        const pair = `${from}>${this.me}`;
        if (seq <= (last.get(pair) ?? 0)) outOfOrder.push(`${pair} ${seq}`);
        last.set(pair, seq);
        ledger.handled(`${pair}#${seq}`);
      }
    }
    const ns = localNamespace("NODE", (name) => ({
      system: { logLevel: "off" },
      retry: { maxAttempts: 30, policy: { delayFor: () => 2 } },
      setup: (system, host) => {
        host.expose(system.actorOf(Props.create(() => new Sink(name)), "sink"));
        system.eventStream.subscribe(DeadLetter, (dead) => {
          const tell = dead.message as Tell;
          const to = dead.recipient.path.split("/")[3];
          if (typeof tell?.seq === "number") {
            ledger.deadLettered(`${tell.from}>${to}#${tell.seq}`, dead.reason);
          }
        });
      },
    }));
    const flaky = new FlakyNamespace(ns, {
      random,
      scheduler: realScheduler,
      requests: { drop: 0.1, delayMs: [0, 8], duplicate: 0.2, reorder: 0.1 },
      replies: { drop: 0.1, delayMs: [0, 8], duplicate: 0.05, reorder: 0.1 },
      lostAfterMs: 40,
    });
    ns.env.NODE = flaky;
    try {
      // Bursts from every node to every other, a few tells a turn.
      for (let seq = 1; seq <= PER_PAIR;) {
        const burst = 1 + Math.floor(random.next() * 10);
        for (const from of NODES) {
          for (const to of NODES) {
            if (to === from) continue;
            const ref = ns.host(from).ref<Tell>("NODE", to, "/user/sink");
            for (let s = seq; s < seq + burst && s <= PER_PAIR; s++) {
              ref.tell({ from, seq: s });
              ledger.sent(`${from}>${to}#${s}`);
            }
          }
        }
        seq += burst;
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      for (let i = 0; i < 600 && ledger.counts.pending > 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      ledger.check();
      assert.deepEqual(outOfOrder, [], `seed ${seed}`);
      const counts = ledger.counts;
      assert.equal(counts.handled, NODES.length * 2 * PER_PAIR, `seed ${seed}`);
      assert.equal(counts.deadLettered, 0, `seed ${seed}`);
      const { requests, replies } = flaky.stats;
      // Calls per run depend on timing (batches): the link's work is
      // checked in sum.
      assert.ok(
        requests.dropped + replies.dropped > 0 &&
          requests.duplicated + replies.duplicated > 0 &&
          requests.reordered + replies.reordered > 0,
        `the link did its worst (seed ${seed}): ${JSON.stringify(flaky.stats)}`,
      );
    } finally {
      flaky.close();
      for (let round = 0; round < 2; round++) {
        for (const host of ns.hosts.values()) await host.reset();
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
  });
});
