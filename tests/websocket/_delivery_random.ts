// Copyright 2026 the understudy authors. MIT license.
// (The run of one seed, not a test file itself: the test beside it and
// bench/soak.mjs run it.)
// Akka's reliable-delivery random spec, against the connection's
// acknowledged mode: each seed drops 10–30% of the frames each way, delays
// them 0–40 ms, doubles and reorders a few, and breaks the connection now
// and then (flakyWebSockets over the fake network, on the ManualScheduler).
// Every message must be answered Sent once (acknowledged) or go to dead
// letters once; with no limit on tries, none may be given up; the server
// sees each message under one id and each id carrying one message (so a
// server that drops the ids it has seen processes each message once); and
// on every connection the client writes ids in increasing order (what was
// not acknowledged first, then newer ones). A failure names its seed;
// UNDERSTUDY_SEED=<seed> replays it alone.
import assert from "node:assert/strict";
import {
  flakyWebSockets,
  MessageLedger,
  seededRandom,
} from "../../src/testing/mod.ts";
import { Reconnect, Send, type Sent } from "../../src/websocket/mod.ts";
import { harness } from "./_setup.ts";

/** The first seed the suite runs (bench/soak.mjs goes on from there). */
export const BASE_SEED = 30_000;
const MESSAGES = 30;

/** One seeded run; throws with the seed on any breach. */
export async function websocketRandomRun(
  seed: number,
): Promise<{ dropped: number; broken: number; trace: string[] }> {
  const random = seededRandom(seed);
  const h = harness();
  const ledger = new MessageLedger<string>({ seed, clock: h.scheduler });
  let dropped = 0;
  let broken = 0;
  const trace: string[] = [];
  try {
    const direction = () => ({
      drop: random.between(0.1, 0.3),
      delayMs: [0, 40] as const,
      duplicate: 0.05,
      reorder: 0.1,
    });
    const flaky = flakyWebSockets(h.network.WebSocket, {
      random: random.fork("link"),
      scheduler: h.scheduler,
      faults: {
        toServer: direction(),
        toClient: direction(),
        disconnect: 0.02,
      },
    });
    // The server: acknowledges every copy; records each id's message.
    const byId = new Map<number, string>();
    const idOf = new Map<string, number>();
    const breaches: string[] = [];
    h.network.onSend = (socket, data) => {
      const frame = String(data);
      const colon = frame.indexOf(":");
      const id = Number(frame.slice(0, colon));
      const text = frame.slice(colon + 1);
      const known = byId.get(id);
      if (known !== undefined && known !== text) {
        breaches.push(`id ${id} carried ${known} and then ${text}`);
      }
      const knownId = idOf.get(text);
      if (knownId !== undefined && knownId !== id) {
        breaches.push(
          `${text} came as id ${knownId} and as id ${id}: processed twice`,
        );
      }
      byId.set(id, text);
      idOf.set(text, id);
      h.scheduler.setTimeout(() => socket.message(`ack:${id}`), 0);
    };
    // The ids the client writes, per connection, in order.
    const written = new Map<number, number[]>();
    const connection = h.connect({
      WebSocket: flaky.WebSocket,
      policy: { delayFor: () => 20 },
      minUptimeMs: 100,
      ack: {
        encode: (id, data) => {
          const socket = flaky.links.length;
          written.set(socket, [...(written.get(socket) ?? []), id]);
          return `${id}:${data}`;
        },
        decodeAck: (data) =>
          typeof data === "string" && data.startsWith("ack:")
            ? Number(data.slice(4))
            : undefined,
        maxAttempts: Infinity,
      },
    });
    ledger.watchDeadLetters(
      h.system,
      (m) => (m instanceof Send ? String(m.data) : undefined),
    );
    for (let i = 1; i <= MESSAGES; i++) {
      const text = ledger.sent(`m${i}`);
      connection.ask<Sent>(new Send(text), 600_000).then(
        (sent) => {
          if (!sent.acknowledged) breaches.push(`${text} Sent unacknowledged`);
          ledger.handled(text);
        },
        () => {}, // a dead letter: the ledger counts it
      );
      await h.tick(random.int(0, 15));
    }
    await h.tick(1_000);
    // Heal the link, and reconnect: what is still unacknowledged goes again.
    flaky.heal();
    connection.tell(new Reconnect());
    await h.tick(2_000);
    ledger.check();
    assert.deepEqual(breaches, [], `seed ${seed}`);
    assert.equal(
      ledger.counts.handled,
      MESSAGES,
      `seed ${seed}: all acknowledged`,
    );
    for (const [socket, ids] of written) {
      for (let i = 1; i < ids.length; i++) {
        assert.ok(
          ids[i] > ids[i - 1],
          `seed ${seed}: socket ${socket} wrote ids ${
            ids.join(",")
          }: not in order`,
        );
      }
    }
    for (const text of ledger.pending) assert.fail(`${text} pending`);
    assert.equal(
      idOf.size,
      MESSAGES,
      `seed ${seed}: each message reached the server`,
    );
    flaky.close();
    for (const link of flaky.links) {
      dropped += link.toServer.stats.dropped + link.toClient.stats.dropped;
      if (link.broken) broken++;
      trace.push(...link.toServer.trace, ...link.toClient.trace);
    }
  } finally {
    await h.done();
  }
  assert.equal(h.pendingTimers(), 0, `seed ${seed}: timers left`);
  return { dropped, broken, trace };
}
