// Copyright 2026 the understudy authors. MIT license.
// The socket actor handles its socket's events in its own turns: in mailbox
// order, after the messages before them, and only while their attempt is
// the current one.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Reconnect,
  Send,
  type WebSocketEvent,
  WebSocketMessage,
} from "../../src/websocket/mod.ts";
import { describeEvents, harness } from "./_setup.ts";
import type { FakeWebSocket } from "./_fake_websocket.ts";

describe("the socket actor's events", () => {
  it("handles a frame that arrives while it is busy after the messages queued before it", async () => {
    const h = harness();
    try {
      const order: string[] = [];
      const connection = h.connect({
        subscriber: (event: WebSocketEvent) => {
          if (event instanceof WebSocketMessage) {
            order.push(`received ${event.data}`);
          }
        },
      });
      await h.tick(0); // open
      h.network.onSend = (socket: FakeWebSocket, data) => {
        order.push(`sent ${data}`);
        // The server answers while the socket actor is still writing "a",
        // with "b" and "c" already in its mailbox.
        if (data === "a") socket.message("reply to a");
      };
      for (const text of ["a", "b", "c"]) connection.tell(new Send(text));
      await h.tick(0);
      assert.deepEqual(order, [
        "sent a",
        "sent b",
        "sent c",
        "received reply to a",
      ]);
      assert.equal(h.deadLetters.length, 0);
    } finally {
      await h.done();
    }
  });

  it("ignores the events of an attempt that ended before they were handled", async () => {
    const h = harness();
    try {
      const received: unknown[] = [];
      const connection = h.connect({
        subscriber: (event: WebSocketEvent) => {
          if (event instanceof WebSocketMessage) received.push(event.data);
        },
      });
      await h.tick(0);
      const first = h.network.last;
      // While "a" is written, a frame comes in; the Disconnect of the
      // Reconnect is already queued before it, and ends the attempt first.
      // The frame's event is then handed to the next socket actor with the
      // messages the first did not take, and must change nothing there;
      // the first socket's close event, later still, too.
      h.network.onSend = (socket: FakeWebSocket) => {
        if (socket === first) socket.message("late");
      };
      connection.tell(new Send("a"));
      connection.tell(new Reconnect());
      await h.tick(10);
      assert.deepEqual(received, []);
      assert.equal(first.readyState, 3, "the first socket closed");
      assert.deepEqual(first.closeCalls, [{ code: 1000, reason: "reconnect" }]);
      assert.equal(h.network.sockets.length, 2);
      const second = h.network.last;
      assert.equal(second.readyState, 1);
      // Written once, on the first socket, and its bytes left: not again.
      assert.deepEqual(first.sent, ["a"]);
      assert.deepEqual(second.sent, []);
      assert.deepEqual(describeEvents(h.events), [
        "Connecting(1, 0)",
        "Opened()",
        "Closed(1000, reconnect, true, 1)", // "a": Sent, may not have arrived
        "Connecting(1, 0)",
        "Opened()",
      ]);
      assert.equal(h.deadLetters.length, 0);
      assert.deepEqual(h.logs, []);
      // The new attempt is unaffected: frames of the second socket arrive.
      second.message("fresh");
      await h.tick(0);
      assert.deepEqual(received, ["fresh"]);
    } finally {
      await h.done();
    }
  });

  it("ignores a URL function's result that comes after its attempt timed out", async () => {
    const h = harness();
    try {
      const resolvers: ((url: string) => void)[] = [];
      h.connect({
        url: () => new Promise<string>((resolve) => resolvers.push(resolve)),
        connectionTimeoutMs: 1_000,
        policy: { delayFor: () => 5_000 },
      });
      await h.tick(1_000); // the first attempt times out, waiting for its URL
      assert.equal(resolvers.length, 1);
      resolvers[0]("ws://example.test/late");
      await h.tick(10);
      assert.equal(h.network.sockets.length, 0, "no socket for a late URL");
      await h.tick(5_000);
      resolvers[1]("ws://example.test/second");
      await h.tick(0);
      assert.deepEqual(h.network.sockets.map((s) => s.url), [
        "ws://example.test/second",
      ]);
      assert.equal(h.network.last.readyState, 1);
      assert.equal(h.deadLetters.length, 0);
    } finally {
      await h.done();
    }
  });
});
