// Copyright 2026 the understudy authors. MIT license.
// The end-to-end scenario of the socket server, whatever runs the client
// (Node, a Chromium page): N numbered messages sent in bursts of seeded
// sizes, while the room's object is evicted (ctx.abort(), through the
// fault kit's HostLoss) and workerd is killed and started again on the same
// port, at seeded points. Then every message must have been processed by
// the object's actor once, in order (its own record, in its storage), and
// answered acknowledged once, with no dead letter on the client. Not a
// test file itself.

import assert from "node:assert/strict";
import { HostLoss, seededRandom } from "../../src/testing/mod.ts";
import type { SocketWorkerd } from "./_socket_workerd.ts";

/** What a client gives the scenario. */
export interface ScenarioClient {
  /** Sends each text with a confirming send (acknowledged mode). */
  send(texts: string[]): Promise<void>;
  /** Once every send settled (or `timeoutMs` passed): how they settled. */
  settled(timeoutMs: number): Promise<Outcome>;
}

/** How the sends settled, by text. */
export interface Outcome {
  /** Texts answered `Sent` with `acknowledged: true`, in the order answered (each once: a promise). */
  acknowledged: string[];
  /** Texts answered otherwise, or rejected, with why. */
  failed: string[];
  /** Sends not settled when the wait ended. */
  pending: number;
  /** Dead letters on the client's system. */
  deadLetters: string[];
  /** Connections the client opened. */
  connections: number;
  /** Connections or attempts that closed. */
  closes: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs it; returns a line for the log. */
export async function runSocketScenario(
  worker: SocketWorkerd,
  room: string,
  client: ScenarioClient,
  options: { seed: number; messages: number; restarts: number },
): Promise<string> {
  const { seed, messages, restarts } = options;
  const source = seededRandom(seed);
  const random = () => source.next();
  const evictions = new HostLoss(source.fork("evictions"), 0.25);
  // The restarts, at seeded message numbers (at least one, well inside the run).
  const restartAt = new Set<number>();
  while (restartAt.size < restarts) {
    restartAt.add(
      Math.floor((messages * 0.1 + random() * messages * 0.8) / 10) * 10,
    );
  }
  const texts = Array.from({ length: messages }, (_, i) => `m${i + 1}`);
  let next = 0;
  let restarted = 0;
  const started = Date.now();
  while (next < texts.length) {
    const burst = Math.min(texts.length - next, 1 + Math.floor(random() * 30));
    const before = next;
    await client.send(texts.slice(next, next + burst));
    next += burst;
    await sleep(Math.floor(random() * 25));
    // An eviction at a random point of the burst's processing.
    evictions.offer(() =>
      sleep(Math.floor(random() * 10)).then(() =>
        worker.call(room, "evict").catch(() => {})
      )
    );
    for (const at of restartAt) {
      if (at > before && at <= next) {
        restarted++;
        await worker.restart();
      }
    }
  }
  const outcome = await client.settled(40_000);
  // The last burst's eviction may land on the first read of the record:
  // it is read again from the object's next life (it is in its storage).
  const read = async <R>(what: string): Promise<R> => {
    for (let attempt = 1;; attempt++) {
      try {
        return await worker.call<R>(room, what);
      } catch (error) {
        if (attempt === 3) throw error;
        await sleep(50);
      }
    }
  };
  const log = await read<[string, number, string][]>("log");
  const processed = log.map((entry) => entry[2]);
  const lives = await read<number>("lives");
  const line =
    `seed ${seed}: ${messages} messages, ${evictions.lost} evictions, ${restarted} workerd restarts, ${lives} lives of the object, ${
      Date.now() - started
    } ms; processed ${processed.length}, acknowledged ${outcome.acknowledged.length}, failed ${outcome.failed.length}, pending ${outcome.pending}; ${outcome.connections} connections, ${outcome.closes} closes`;
  const twice = processed.filter((t, i) => processed.indexOf(t) !== i);
  assert.deepEqual(twice.slice(0, 10), [], `${line}: processed twice`);
  assert.deepEqual(
    texts.filter((t) => !processed.includes(t)).slice(0, 10),
    [],
    `${line}: lost`,
  );
  assert.deepEqual(processed, texts, `${line}: order`);
  assert.deepEqual(outcome.failed.slice(0, 10), [], line);
  assert.equal(outcome.pending, 0, line);
  assert.equal(outcome.acknowledged.length, messages, line);
  assert.deepEqual(outcome.deadLetters.slice(0, 10), [], line);
  assert.ok(evictions.lost >= 5, `${line}: too few evictions`);
  // A restart closes the client's socket or attempt (an eviction keeps
  // hibernatable sockets open, unless the object lost messages it had been
  // given); each eviction that found the object active began a new life.
  assert.ok(outcome.closes >= restarts, `${line}: too few closes`);
  assert.ok(lives >= 2 + restarts, `${line}: too few lives`);
  return line;
}
