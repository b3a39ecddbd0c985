// Copyright 2026 the understudy authors. MIT license.
// The front door: connect(url, options) gives a supervised socket with
// send, a confirming send, a status and readyState, close, WebSocket-style
// listeners and a store (subscribe/getSnapshot) for React, Svelte, Vue and
// Solid; its own actor system when none is given, terminated by close.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  connect,
  SendFailedError,
  Sent,
  type SocketSnapshot,
  type WebSocketMessage,
  WebSocketOpened,
} from "../../src/websocket/mod.ts";
import { FakeNetwork } from "./_fake_websocket.ts";
import { harness } from "./_setup.ts";

const doubling = { delayFor: (n: number) => 100 * 2 ** n };

describe("connect", () => {
  it("follows the connection in its snapshot, the same object until it changes", async () => {
    const h = harness();
    try {
      const socket = connect("ws://example.test/ws", {
        system: h.system,
        WebSocket: h.network.WebSocket,
        page: false,
        policy: doubling,
      });
      const first = socket.getSnapshot();
      assert.equal(socket.getSnapshot(), first, "stable identity");
      assert.deepEqual(
        [first.status, first.readyState, first.attempt],
        ["connecting", 0, 1],
      );
      await h.tick(0);
      const open = socket.getSnapshot();
      assert.notEqual(open, first);
      assert.deepEqual([open.status, open.readyState, open.attempt], [
        "open",
        1,
        1,
      ]);
      assert.equal(socket.status, "open");
      assert.equal(socket.readyState, 1);
      // A frame changes nothing a store reader renders.
      h.network.last.message("hi");
      await h.tick(0);
      assert.equal(socket.getSnapshot(), open);
      h.network.last.end({ code: 1006, reason: "", wasClean: false });
      await h.tick(0);
      const lost = socket.getSnapshot();
      assert.equal(lost.status, "reconnecting");
      assert.deepEqual(lost.lastClose, {
        code: 1006,
        reason: "",
        wasClean: false,
      });
      await h.tick(100);
      assert.equal(socket.status, "open");
      assert.equal(socket.getSnapshot().lastClose?.code, 1006);
      await socket.close();
      assert.deepEqual(
        [socket.status, socket.readyState],
        ["closed", 3],
      );
      assert.deepEqual(h.network.last.closeCalls, [{ code: 1000, reason: "" }]);
    } finally {
      await h.done();
    }
  });

  it("subscribe calls at once and on each change, as Svelte's store contract asks; getSnapshot and subscribe work unbound, as useSyncExternalStore calls them", async () => {
    const h = harness();
    try {
      const socket = connect("ws://example.test/ws", {
        system: h.system,
        WebSocket: h.network.WebSocket,
        page: false,
      });
      const { subscribe, getSnapshot } = socket;
      const seen: SocketSnapshot[] = [];
      const unsubscribe = subscribe((snapshot) => seen.push(snapshot));
      assert.deepEqual(seen, [getSnapshot()], "called at once, in the call");
      await h.tick(0);
      assert.deepEqual(
        seen.map((s) => `${s.status} ${s.attempt}`),
        ["connecting 1", "open 1"],
      );
      assert.equal(seen.at(-1), getSnapshot());
      unsubscribe();
      h.network.last.end({ code: 1001, reason: "", wasClean: true });
      await h.tick(0);
      assert.equal(seen.length, 2, "nothing after unsubscribe");
      assert.equal(getSnapshot().status, "reconnecting");
      // React's store notification takes no argument: any callback will do.
      let notified = 0;
      const stop = subscribe(() => notified++);
      assert.equal(notified, 1);
      stop();
      await socket.close();
    } finally {
      await h.done();
    }
  });

  it("hears open, message and close with addEventListener, until removed", async () => {
    const h = harness();
    try {
      const given: string[] = [];
      const socket = connect("ws://example.test/ws", {
        system: h.system,
        WebSocket: h.network.WebSocket,
        page: false,
        policy: doubling,
        subscriber: (event) => given.push(event.constructor.name),
      });
      const heard: string[] = [];
      const onMessage = (event: WebSocketMessage) =>
        heard.push(`message ${event.data}`);
      socket.addEventListener("open", (event) => {
        assert.ok(event instanceof WebSocketOpened);
        heard.push("open");
      });
      socket.addEventListener("message", onMessage);
      socket.addEventListener(
        "close",
        (event) => heard.push(`close ${event.code}`),
      );
      socket.addEventListener("message", () => {
        throw new Error("a listener that throws");
      });
      await h.tick(0);
      h.network.last.message("one");
      await h.tick(0);
      socket.removeEventListener("message", onMessage);
      h.network.last.message("two");
      h.network.last.end({ code: 4000, reason: "", wasClean: false });
      await h.tick(0);
      assert.deepEqual(heard, ["open", "message one", "close 4000"]);
      // The subscriber given still hears every event, the thrown-on ones too.
      assert.equal(
        given.filter((name) => name === "WebSocketMessage").length,
        2,
      );
      assert.deepEqual(
        h.logs.map((record) => record.message),
        ["WebSocket subscriber threw", "WebSocket subscriber threw"],
      );
      await socket.close();
    } finally {
      await h.done();
    }
  });

  it("sendConfirmed resolves once written to an open socket; send and it go in order", async () => {
    const h = harness();
    try {
      h.network.answer = "hang";
      const socket = connect("ws://example.test/ws", {
        system: h.system,
        WebSocket: h.network.WebSocket,
        page: false,
      });
      socket.send("a");
      const got: { sent?: Sent } = {};
      const latest = () => got.sent; // read afresh: no narrowing
      socket.sendConfirmed("b").then((reply) => got.sent = reply);
      await h.tick(100);
      assert.ok(!latest(), "not while connecting");
      h.network.last.accept();
      await h.tick(0);
      assert.deepEqual(h.network.last.sent, ["a", "b"]);
      assert.ok(latest() instanceof Sent);
      assert.equal(latest()?.send.data, "b");
      assert.equal(latest()?.acknowledged, false);
      await socket.close();
    } finally {
      await h.done();
    }
  });

  it("sendConfirmed resolves on the acknowledgement in acknowledged mode", async () => {
    const h = harness();
    try {
      const socket = connect("ws://example.test/ws", {
        system: h.system,
        WebSocket: h.network.WebSocket,
        page: false,
        ack: {
          encode: (id, data) => `${id}:${data}`,
          decodeAck: (data) =>
            typeof data === "string" && data.startsWith("ack:")
              ? Number(data.slice(4))
              : undefined,
        },
      });
      const got: { sent?: Sent } = {};
      const latest = () => got.sent; // read afresh: no narrowing
      socket.sendConfirmed("x").then((reply) => got.sent = reply);
      await h.tick(0);
      assert.deepEqual(h.network.last.sent, ["1:x"]);
      await h.tick(50);
      assert.ok(!latest(), "written, not acknowledged");
      h.network.last.message("ack:1");
      await h.tick(0);
      assert.equal(latest()?.acknowledged, true);
      await socket.close();
    } finally {
      await h.done();
    }
  });

  it("sendConfirmed rejects with a SendFailedError whose kind says why", async () => {
    const h = harness();
    try {
      h.network.answer = "hang";
      const socket = connect("ws://example.test/ws", {
        system: h.system,
        WebSocket: h.network.WebSocket,
        page: false,
        maxMessageBytes: 4,
      });
      const failures: SendFailedError[] = [];
      const record = (error: unknown) => {
        assert.ok(error instanceof SendFailedError);
        failures.push(error);
      };
      socket.sendConfirmed("too long").catch(record);
      await h.tick(0);
      assert.equal(socket.getSnapshot().dropped, 1);
      socket.sendConfirmed("wait").catch(record);
      await h.tick(0);
      await socket.close();
      await h.tick(0);
      assert.deepEqual(failures.map((f) => f.kind), ["too-large", "closed"]);
      assert.throws(() => socket.send(42 as never), TypeError);
    } finally {
      await h.done();
    }
  });

  it("makes its own system when given none, and close terminates it", async () => {
    const network = new FakeNetwork(); // real timers
    const socket = connect("ws://example.test/ws", {
      WebSocket: network.WebSocket,
      page: false,
    });
    await new Promise<void>((resolve) => {
      const stop = socket.subscribe((s) => {
        if (s.status !== "open") return;
        queueMicrotask(() => stop());
        resolve();
      });
    });
    let terminated = false;
    socket.system.whenTerminated.then(() => terminated = true);
    assert.equal(socket.ref.path, "/user/" + socket.ref.path.split("/")[2]);
    const closing = socket.close();
    assert.equal(socket.close(), closing, "a second close, the same promise");
    assert.equal(socket.status, "closing");
    await closing;
    assert.ok(terminated);
    assert.equal(socket.status, "closed");
    assert.deepEqual(network.last.closeCalls, [{ code: 1000, reason: "" }]);
  });

  it("checks its options at the call, naming the one that is wrong", () => {
    assert.throws(
      () => connect("ftp://example.test", { page: false }),
      (error: Error) => error instanceof TypeError && /url/.test(error.message),
    );
    assert.throws(
      () => connect("ws://example.test", { page: false, maxRetries: -1 }),
      (error: Error) =>
        error instanceof RangeError && /maxRetries/.test(error.message),
    );
    assert.throws(
      () => connect("ws://example.test", { page: false, system: {} as never }),
      (error: Error) =>
        error instanceof TypeError && /system/.test(error.message),
    );
  });
});
