// @runtimes deno
// Copyright 2026 the understudy authors. MIT license.
// Needs Deno.serve for a real local server, so Deno only.
//
// The socket's random spec over a real connection: Deno's own WebSocket
// to a Deno.serve server on 127.0.0.1 that acknowledges every copy it
// gets, through flakyWebSockets on real time (10–30% of the frames dropped
// each way, 0–20 ms late, some doubled and reordered, 3% of them breaking
// the connection). Each seed's faults are the same decisions frame by
// frame; real I/O times them, so a replay is close, not exact (the
// virtual-time spec, delivery_random.test.ts, is exact). Every message must
// be acknowledged once, reach the server under one id, and no id may
// carry two messages.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ActorSystem, realScheduler } from "../../mod.ts";
import {
  flakyWebSockets,
  MessageLedger,
  seededRandom,
} from "../../src/testing/mod.ts";
import {
  Reconnect,
  Send,
  type Sent,
  websocketProps,
} from "../../src/websocket/mod.ts";
import { forEachSeed, seedsToRun } from "../testing/_seeds.ts";

const SEEDS = seedsToRun(40_000, 3);
const MESSAGES = 20;

/** A server that acknowledges every frame `id:text` with `ack:id`. */
function serve(byId: Map<number, string>, breaches: string[]) {
  const sockets = new Set<WebSocket>();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: () => {},
  }, (request) => {
    const { socket, response } = Deno.upgradeWebSocket(request);
    sockets.add(socket);
    socket.onclose = () => sockets.delete(socket);
    socket.onmessage = (event) => {
      const frame = String(event.data);
      const colon = frame.indexOf(":");
      const id = Number(frame.slice(0, colon));
      const text = frame.slice(colon + 1);
      const known = byId.get(id);
      if (known !== undefined && known !== text) {
        breaches.push(`id ${id} carried ${known} and ${text}`);
      }
      for (const [otherId, other] of byId) {
        if (other === text && otherId !== id) {
          breaches.push(
            `${text} came as ids ${otherId} and ${id}: processed twice`,
          );
        }
      }
      byId.set(id, text);
      if (socket.readyState === WebSocket.OPEN) socket.send(`ack:${id}`);
    };
    return response;
  });
  return {
    port: (server.addr as Deno.NetAddr).port,
    async close() {
      for (const socket of sockets) socket.close(1001, "done");
      await server.shutdown();
    },
  };
}

async function until(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return condition();
}

async function run(seed: number): Promise<void> {
  const random = seededRandom(seed);
  const byId = new Map<number, string>();
  const breaches: string[] = [];
  const server = serve(byId, breaches);
  const system = ActorSystem.create("e2e-random", { logLevel: "off" });
  const ledger = new MessageLedger<string>({ seed });
  ledger.watchDeadLetters(
    system,
    (m) => (m instanceof Send ? String(m.data) : undefined),
  );
  const direction = () => ({
    drop: random.between(0.1, 0.3),
    delayMs: [0, 20] as const,
    duplicate: 0.05,
    reorder: 0.1,
  });
  const flaky = flakyWebSockets(WebSocket, {
    random: random.fork("link"),
    scheduler: realScheduler,
    faults: { toServer: direction(), toClient: direction(), disconnect: 0.03 },
  });
  try {
    const connection = system.actorOf(websocketProps({
      url: `ws://127.0.0.1:${server.port}/`,
      page: false,
      WebSocket: flaky.WebSocket,
      policy: { delayFor: () => 20 },
      minUptimeMs: 100,
      ack: {
        encode: (id, data) => `${id}:${data}`,
        decodeAck: (data) =>
          typeof data === "string" && data.startsWith("ack:")
            ? Number(data.slice(4))
            : undefined,
        maxAttempts: Infinity,
      },
    }));
    for (let i = 1; i <= MESSAGES; i++) {
      const text = ledger.sent(`m${i}`);
      connection.ask<Sent>(new Send(text), 60_000).then(
        () => ledger.handled(text),
        () => {},
      );
      await new Promise((resolve) => setTimeout(resolve, random.int(0, 10)));
    }
    await until(() => ledger.counts.handled === MESSAGES, 1_000);
    flaky.heal();
    connection.tell(new Reconnect());
    await until(() => ledger.counts.handled === MESSAGES, 10_000);
    ledger.check();
    assert.deepEqual(breaches, [], `seed ${seed}`);
    assert.equal(
      new Set(byId.values()).size,
      MESSAGES,
      `seed ${seed}: all reached the server`,
    );
  } finally {
    await system.terminate();
    flaky.close();
    await server.close();
  }
}

describe("acknowledged mode over a real local connection under random faults", () => {
  if (typeof (globalThis as { Deno?: unknown }).Deno === "undefined") {
    throw new Error(
      "this file needs Deno (Deno.serve): run it with node scripts/test.mjs",
    );
  }
  it(`loses nothing and processes nothing twice (${SEEDS.length} seeds)`, async () => {
    await forEachSeed(SEEDS, run);
  });
});
