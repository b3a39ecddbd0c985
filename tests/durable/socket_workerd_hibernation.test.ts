// @runtimes node
// Copyright 2026 the understudy authors. MIT license.
// Hibernation in the real workerd: a Node client keeps its socket open to
// a room and sends heartbeats (answered by the platform's auto-response)
// while the object has nothing to do; workerd hibernates it (its memory
// goes, the socket stays). The next message wakes a new life of the
// object, which knows the socket's client by its attachment and its mark
// by storage: processed once, acknowledged, on the same connection. That
// it hibernated at all under a ping a second shows the pings never reached
// it (each would be an event keeping it awake).

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { WebSocket } from "ws";
import { ActorSystem } from "../../mod.ts";
import {
  connect,
  durableSocketAck,
  type WebSocketConstructor,
  WebSocketOpened,
} from "../../src/websocket/mod.ts";
import { serveSockets, type SocketWorkerd } from "./_socket_workerd.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("socket server in workerd: hibernation", () => {
  let worker: SocketWorkerd;

  before(async () => {
    worker = await serveSockets();
  });

  after(async () => {
    await worker?.stop();
  });

  it("an idle object hibernates under its heartbeats and wakes knowing its client", async () => {
    const system = ActorSystem.create("hibernation-client", {
      logLevel: "off",
    });
    let connections = 0;
    system.eventStream.subscribe(WebSocketOpened, () => connections++);
    const socket = connect(
      `${worker.url.replace("http", "ws")}/room/idle?client=sleeper`,
      {
        system,
        WebSocket: WebSocket as unknown as WebSocketConstructor,
        page: false,
        ack: durableSocketAck(),
        heartbeat: { intervalMs: 1_000, timeoutMs: 3_000 },
      },
    );
    try {
      assert.equal((await socket.sendConfirmed("before")).acknowledged, true);
      const lives = await worker.call<number>("idle", "lives");
      // Idle but for the heartbeats, which the platform answers.
      await sleep(15_000);
      assert.equal((await socket.sendConfirmed("after")).acknowledged, true);
      const log = await worker.call<[string, number, string][]>("idle", "log");
      assert.deepEqual(log, [["sleeper", 1, "before"], [
        "sleeper",
        2,
        "after",
      ]]);
      assert.equal(connections, 1, "the same connection throughout");
      const livesAfter = await worker.call<number>("idle", "lives");
      console.log(`hibernation: lives ${lives} -> ${livesAfter}`);
      assert.ok(livesAfter > lives, "the object woke in a new life");
    } finally {
      await socket.close();
      await system.terminate();
    }
  });
});
