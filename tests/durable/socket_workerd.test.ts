// @runtimes node
// Copyright 2026 the understudy authors. MIT license.
// The socket server in the real workerd, from a Node client (the `ws`
// package's WebSocket, as Node 20 has none): 1,000 numbered messages
// through evictions of the room's object and workerd restarts at seeded
// points (_socket_scenario.ts; CHAOS_SEED=n picks another seed, and every
// failure names the one it used). Node only: it starts workerd from
// outside. The Chromium client is socket_workerd_browser.test.ts.

import { after, before, describe, it } from "node:test";
import process from "node:process";
import { WebSocket } from "ws";
import { ActorSystem, DeadLetter } from "../../mod.ts";
import {
  connect,
  durableSocketAck,
  type Sent,
  WebSocketClosed,
  type WebSocketConstructor,
  WebSocketOpened,
} from "../../src/websocket/mod.ts";
import { serveSockets, type SocketWorkerd } from "./_socket_workerd.ts";
import { type Outcome, runSocketScenario } from "./_socket_scenario.ts";

const SEED = Number(process.env.CHAOS_SEED ?? 27);

describe("socket server in workerd, from Node", () => {
  let worker: SocketWorkerd;

  before(async () => {
    worker = await serveSockets();
  });

  after(async () => {
    await worker?.stop();
  });

  it(`1,000 messages through evictions and workerd restarts: each processed once, in order, acknowledged once (seed ${SEED})`, async () => {
    const system = ActorSystem.create("node-client", { logLevel: "off" });
    const deadLetters: string[] = [];
    system.eventStream.subscribe(
      DeadLetter,
      (dead) => deadLetters.push(`${String(dead.message)}: ${dead.reason}`),
    );
    const socket = connect(
      `${worker.url.replace("http", "ws")}/room/node?client=node-1`,
      {
        system,
        WebSocket: WebSocket as unknown as WebSocketConstructor,
        page: false,
        ack: durableSocketAck(),
        heartbeat: { intervalMs: 1_000, timeoutMs: 3_000 },
        policy: { delayFor: () => 50 + Math.random() * 100 },
        connectionTimeoutMs: 5_000,
      },
    );
    let connections = 0;
    let closes = 0;
    system.eventStream.subscribe(WebSocketOpened, () => connections++);
    system.eventStream.subscribe(WebSocketClosed, () => closes++);
    const acknowledged: string[] = [];
    const failed: string[] = [];
    const sends: Promise<unknown>[] = [];
    try {
      const line = await runSocketScenario(worker, "node", {
        send(texts) {
          for (const text of texts) {
            sends.push(
              socket.sendConfirmed(text).then(
                (sent: Sent) =>
                  sent.acknowledged
                    ? acknowledged.push(text)
                    : failed.push(`${text}: not acknowledged`),
                (error) => failed.push(`${text}: ${error}`),
              ),
            );
          }
          return Promise.resolve();
        },
        async settled(timeoutMs): Promise<Outcome> {
          let done = 0;
          for (const send of sends) send.then(() => done++);
          const deadline = Date.now() + timeoutMs;
          while (done < sends.length && Date.now() < deadline) {
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          return {
            acknowledged,
            failed,
            pending: sends.length - done,
            deadLetters,
            connections,
            closes,
          };
        },
      }, { seed: SEED, messages: 1_000, restarts: 2 });
      console.log(`socket server, Node client: ${line}`);
    } finally {
      await socket.close();
      await system.terminate();
    }
  });
});
