// Copyright 2026 the understudy authors. MIT license.
// The connection actor's basic life: connect, send, receive, report.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Actor, Props } from "../../mod.ts";
import {
  Close,
  Send,
  Sent,
  type WebSocketEvent,
  WebSocketMessage,
  WebSocketOpened,
  type WebSocketOptions,
} from "../../src/websocket/mod.ts";
import { describeEvents, harness } from "./_setup.ts";

describe("a WebSocket connection", () => {
  it("connects at once and reports connecting, then opened", async () => {
    const h = harness();
    try {
      h.connect({ protocols: ["v2", "v1"] });
      await h.tick(0);
      assert.equal(h.network.sockets.length, 1);
      const socket = h.network.last;
      assert.equal(socket.url, "ws://example.test/ws");
      assert.deepEqual(socket.protocols, ["v2", "v1"]);
      assert.equal(socket.binaryType, "arraybuffer");
      assert.deepEqual(describeEvents(h.events), [
        "Connecting(1, 0)",
        "Opened()",
      ]);
    } finally {
      await h.done();
    }
  });

  it("reports the subprotocol the server chose", async () => {
    const h = harness();
    try {
      h.network.answer = "hang";
      h.connect({ protocols: "v2" });
      await h.tick(0);
      h.network.last.accept("v2");
      await h.tick(0);
      assert.equal(h.of(WebSocketOpened)[0].protocol, "v2");
    } finally {
      await h.done();
    }
  });

  it("sends in order, and answers a Send that has a sender with Sent once the connection is stable", async () => {
    const h = harness();
    try {
      const connection = h.connect();
      connection.tell(new Send("one"));
      const bytes = new Uint8Array([1, 2, 3]);
      const acknowledged = connection.ask<Sent>(new Send(bytes), 10_000);
      connection.tell(new Send("three"));
      await h.tick(0);
      assert.deepEqual(h.network.last.sent, ["one", bytes, "three"]);
      await h.tick(5_000); // minUptimeMs: the connection counts as a success
      const reply = await acknowledged;
      assert.ok(reply instanceof Sent);
      assert.equal(reply.send.data, bytes);
    } finally {
      await h.done();
    }
  });

  it("delivers incoming frames to a subscriber function, a subscriber actor and the event stream", async () => {
    const h = harness();
    try {
      const seenByFunction: unknown[] = [];
      const seenByActor: unknown[] = [];
      class Listener extends Actor<WebSocketEvent> {
        onReceive(event: WebSocketEvent): void {
          if (event instanceof WebSocketMessage) seenByActor.push(event.data);
        }
      }
      const listener = h.system.actorOf(Props.create(() => new Listener()));
      const collect = (event: WebSocketEvent) => {
        if (event instanceof WebSocketMessage) seenByFunction.push(event.data);
      };
      const a = h.connect({ subscriber: collect }, "a");
      h.connect({ subscriber: listener }, "b");
      await h.tick(0);
      const [socketA, socketB] = h.network.sockets;
      const binary = new ArrayBuffer(4);
      socketA.message("hello");
      socketA.message(binary);
      socketB.message("to b");
      await h.tick(0);
      assert.deepEqual(seenByFunction, ["hello", binary]);
      assert.deepEqual(seenByActor, ["to b"]);
      const onStream = h.of(WebSocketMessage);
      assert.deepEqual(onStream.map((e) => e.data), ["hello", binary, "to b"]);
      assert.equal(onStream[0].connection, a);
    } finally {
      await h.done();
    }
  });

  it("keeps going when the subscriber function throws", async () => {
    const h = harness();
    try {
      let calls = 0;
      const connection = h.connect({
        subscriber: () => {
          calls++;
          throw new Error("subscriber bug");
        },
      });
      await h.tick(0);
      h.network.last.message("x");
      connection.tell(new Send("still works"));
      await h.tick(0);
      assert.deepEqual(h.network.last.sent, ["still works"]);
      assert.equal(calls, 3); // connecting, opened, message
    } finally {
      await h.done();
    }
  });

  it("took a snapshot of its options when the props were made", async () => {
    const h = harness();
    try {
      const options: Partial<WebSocketOptions> = { url: "ws://first.test/" };
      const connection = h.connect(options);
      options.url = "ws://second.test/";
      await h.tick(0);
      assert.equal(h.network.last.url, "ws://first.test/");
      connection.tell(new Close());
    } finally {
      await h.done();
    }
  });
});
