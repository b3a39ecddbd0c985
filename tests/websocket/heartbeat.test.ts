// Copyright 2026 the understudy authors. MIT license.
// The application-level heartbeat: a probe at open (WebSocketOpened once it
// is answered) and a ping every intervalMs while open; a half-open socket
// (no frame after a ping) closed and replaced; a probe when the page is
// visible again.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Send,
  WebSocketClosed,
  WebSocketConnecting,
  WebSocketOpened,
  WebSocketReconnectScheduled,
} from "../../src/websocket/mod.ts";
import { FakePage } from "./_fake_page.ts";
import { harness } from "./_setup.ts";

const doubling = { delayFor: (n: number) => 100 * 2 ** n };

describe("heartbeat", () => {
  it("pings every intervalMs while open, and not before", async () => {
    const h = harness();
    try {
      h.network.answer = "hang";
      h.connect({ heartbeat: { intervalMs: 1_000, timeoutMs: 500 } });
      await h.tick(5_000);
      const socket = h.network.last;
      assert.deepEqual(socket.sent, []);
      socket.accept();
      await h.tick(0);
      assert.deepEqual(socket.sent, ["ping"], "the probe, at open");
      socket.message("pong");
      await h.tick(999);
      assert.equal(socket.sent.length, 1);
      for (let i = 1; i <= 3; i++) {
        await h.tick(1);
        assert.equal(socket.sent.length, i + 1);
        socket.message("pong");
        await h.tick(999);
      }
      assert.deepEqual(socket.sent, ["ping", "ping", "ping", "ping"]);
      assert.equal(socket.readyState, 1);
    } finally {
      await h.done();
    }
  });

  it("sends the message given, or what a function makes", async () => {
    const h = harness();
    try {
      let n = 0;
      h.connect({
        heartbeat: {
          intervalMs: 100,
          timeoutMs: 1_000,
          message: () => JSON.stringify({ ping: ++n }),
        },
      }, "made");
      h.connect({
        heartbeat: { intervalMs: 100, timeoutMs: 1_000, message: "hb" },
      }, "fixed");
      await h.tick(201);
      const [made, fixed] = h.network.sockets;
      // The probe at open, then one every 100 ms.
      assert.deepEqual(made.sent, ['{"ping":1}', '{"ping":2}', '{"ping":3}']);
      assert.deepEqual(fixed.sent, ["hb", "hb", "hb"]);
    } finally {
      await h.done();
    }
  });

  it("keeps the heartbeat checked at the call, whatever is changed afterwards", async () => {
    const h = harness();
    try {
      const heartbeat = {
        intervalMs: 1_000,
        timeoutMs: 500,
        message: "ping" as unknown,
      };
      h.connect({
        heartbeat: heartbeat as { intervalMs: number; timeoutMs: number },
      });
      // Values websocketProps would have refused: they must not reach a timer.
      heartbeat.intervalMs = 0;
      heartbeat.timeoutMs = 2 ** 40;
      heartbeat.message = 42;
      await h.tick(1_000);
      const socket = h.network.last;
      assert.deepEqual(socket.sent, ["ping"]);
      await h.tick(500);
      assert.equal(
        h.of(WebSocketClosed)[0]?.reason,
        "no frame within 500 ms of a ping",
      );
    } finally {
      await h.done();
    }
  });

  it("any frame counts as an answer", async () => {
    const h = harness();
    try {
      h.network.answer = "hang";
      h.connect({ heartbeat: { intervalMs: 1_000, timeoutMs: 500 } });
      await h.tick(0);
      h.network.last.accept();
      await h.tick(0); // the probe
      h.network.last.message(JSON.stringify({ type: "chat", text: "hi" }));
      await h.tick(1_000); // ping
      h.network.last.message(JSON.stringify({ type: "chat", text: "hi" }));
      await h.tick(999);
      assert.equal(h.of(WebSocketClosed).length, 0);
      await h.tick(501); // the next ping (at 2000) gets nothing back
      assert.equal(h.of(WebSocketClosed).length, 1);
    } finally {
      await h.done();
    }
  });

  it("replaces a half-open socket: no frame within timeoutMs of a ping", async () => {
    const h = harness();
    try {
      h.network.answer = "hang";
      h.connect({
        policy: doubling,
        heartbeat: { intervalMs: 1_000, timeoutMs: 500 },
      });
      await h.tick(0);
      const halfOpen = h.network.last;
      h.network.answer = "accept";
      halfOpen.accept(); // open, but nothing will ever come back
      await h.tick(499); // the probe at open goes unanswered
      assert.equal(h.of(WebSocketClosed).length, 0);
      assert.equal(h.of(WebSocketOpened).length, 0, "never connected");
      await h.tick(1);
      const [closed] = h.of(WebSocketClosed);
      assert.deepEqual([closed.code, closed.reason, closed.wasClean], [
        1006,
        "no frame within 500 ms of a ping",
        false,
      ]);
      assert.deepEqual(halfOpen.closeCalls, [{
        code: 4000,
        reason: "no frame within 500 ms of a ping",
      }]);
      await h.tick(101);
      assert.deepEqual(
        h.of(WebSocketConnecting).map((e) => [e.attempt, e.delayMs]),
        [[1, 0], [2, 100]],
      );
      assert.equal(h.network.last.readyState, 1);
      h.network.last.message("pong");
      await h.tick(0);
      assert.equal(
        h.of(WebSocketOpened).length,
        1,
        "connected after a round trip",
      );
    } finally {
      await h.done();
    }
  });

  it("replaces a socket actor whose heartbeat message function throws, and retries after the policy's delay", async () => {
    const h = harness();
    try {
      let pings = 0;
      const connection = h.connect({
        policy: doubling,
        heartbeat: {
          intervalMs: 1_000,
          timeoutMs: 500,
          message: () => {
            if (++pings === 1) throw new Error("ping bug");
            return "ping";
          },
        },
      });
      connection.tell(new Send("kept"));
      await h.tick(1); // opened, "kept" sent; the probe's message throws
      assert.deepEqual(h.network.sockets[0].sent, ["kept"]);
      assert.deepEqual(h.network.sockets[0].closeCalls, [{
        code: 1000,
        reason: "",
      }]);
      assert.deepEqual(
        h.of(WebSocketReconnectScheduled).map((e) => [e.attempt, e.delayMs]),
        [[2, 100]],
      );
      // The supervisor logged the crash.
      assert.ok(h.logs.some((record) => record.message.includes("ping bug")));
      await h.tick(101);
      assert.equal(h.network.sockets.length, 2);
      assert.equal(h.network.last.readyState, 1);
      assert.deepEqual(h.network.last.sent, ["ping"]);
    } finally {
      await h.done();
    }
  });

  it("reports Opened only once a frame answers the probe sent at open", async () => {
    const h = harness();
    try {
      h.network.answer = "hang";
      h.connect({ heartbeat: { intervalMs: 10_000, timeoutMs: 500 } });
      await h.tick(0);
      const socket = h.network.last;
      socket.accept();
      await h.tick(100);
      assert.deepEqual(socket.sent, ["ping"]);
      assert.equal(h.of(WebSocketOpened).length, 0, "open, not connected yet");
      socket.message("pong");
      await h.tick(0);
      assert.equal(h.of(WebSocketOpened).length, 1);
      socket.message("pong again");
      await h.tick(0);
      assert.equal(h.of(WebSocketOpened).length, 1, "once");
    } finally {
      await h.done();
    }
  });

  it("probes when the page is visible again, and replaces a socket that died meanwhile", async () => {
    const h = harness();
    try {
      const page = new FakePage();
      h.connect({
        page,
        policy: doubling,
        heartbeat: { intervalMs: 60_000, timeoutMs: 500 },
      });
      await h.tick(0);
      const socket = h.network.last;
      socket.message("pong"); // the probe at open
      await h.tick(0);
      page.hide();
      await h.tick(1_000);
      page.show();
      await h.tick(0);
      assert.deepEqual(socket.sent, ["ping", "ping"], "a probe at once");
      await h.tick(500); // no answer: the socket died while hidden
      assert.equal(
        h.of(WebSocketClosed)[0]?.reason,
        "no frame within 500 ms of a ping",
      );
      await h.tick(100); // the first retry's delay
      assert.equal(h.network.sockets.length, 2, "replaced");
    } finally {
      await h.done();
    }
  });
});
