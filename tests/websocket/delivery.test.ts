// Copyright 2026 the understudy authors. MIT license.
// What "Sent" means: by default, bytes out of the socket's buffer, each
// message written at most once (what was not confirmed when its connection
// ended is a dead letter, never a copy on the next); the "may not have
// arrived" count; maxMessageBytes; and acknowledged mode.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type ActorRef, UndeliveredError } from "../../mod.ts";
import {
  Close,
  Send,
  type Sent,
  WebSocketClosed,
  WebSocketMessage,
  WebSocketMessageDropped,
  websocketProps,
  WebSocketReconnectScheduled,
} from "../../src/websocket/mod.ts";
import { harness } from "./_setup.ts";

const doubling = { delayFor: (n: number) => 100 * 2 ** n };

/** Asks for each text; the replies, by text, as they come. */
function askAll(
  connection: ActorRef<unknown>,
  texts: string[],
  replies: Map<string, Sent>,
  timeoutMs = 60_000,
): void {
  for (const text of texts) {
    connection.ask<Sent>(new Send(text), timeoutMs).then(
      (reply) => replies.set(text, reply),
      () => {},
    );
  }
}

describe("default mode: Sent once the bytes left the buffer", () => {
  it("answers each Send only when bufferedAmount has gone down past it, on a stable connection", async () => {
    const h = harness();
    try {
      const connection = h.connect({ policy: doubling, minUptimeMs: 100 });
      await h.tick(1);
      const socket = h.network.last;
      socket.bufferedAmount = 9; // "aaa", "bbb", "ccc" all still buffered
      const replies = new Map<string, Sent>();
      askAll(connection, ["aaa", "bbb", "ccc"], replies);
      await h.tick(200); // stable, polling
      assert.deepEqual(socket.sent, ["aaa", "bbb", "ccc"]);
      assert.deepEqual([...replies.keys()], []);
      socket.bufferedAmount = 4; // "aaa" left, "bbb" partly
      await h.tick(20);
      assert.deepEqual([...replies.keys()], ["aaa"]);
      assert.equal(replies.get("aaa")!.acknowledged, false);
      socket.bufferedAmount = 0;
      await h.tick(20);
      assert.deepEqual([...replies.keys()], ["aaa", "bbb", "ccc"]);
    } finally {
      await h.done();
    }
  });

  it("does not send again what was still buffered at a close: a dead letter, and the next connection carries only newer messages", async () => {
    const h = harness();
    try {
      const connection = h.connect({ policy: doubling, minUptimeMs: 50 });
      await h.tick(100); // open and stable
      const first = h.network.last;
      const replies = new Map<string, Sent>();
      const failures = new Map<string, unknown>();
      for (const text of ["a1", "a2", "a3"]) {
        connection.ask<Sent>(new Send(text), 60_000).then(
          (reply) => replies.set(text, reply),
          (error) => failures.set(text, error),
        );
      }
      first.bufferedAmount = 4; // a2 and a3 (2 bytes each) never left
      await h.tick(20);
      assert.deepEqual([...replies.keys()], ["a1"]);
      first.end({ code: 1006, reason: "", wasClean: false });
      askAll(connection, ["b1"], replies); // newer: waits for the connection
      await h.tick(101);
      const second = h.network.last;
      assert.notEqual(second, first);
      assert.deepEqual(first.sent, ["a1", "a2", "a3"]);
      assert.deepEqual(second.sent, ["b1"], "a2 and a3 are not sent twice");
      await h.tick(0);
      assert.deepEqual([...replies.keys()], ["a1", "b1"]);
      assert.deepEqual([...failures.keys()], ["a2", "a3"]);
      for (const error of failures.values()) {
        assert.ok(error instanceof UndeliveredError);
      }
      assert.deepEqual(
        h.deadLetters.map((d) => [(d.message as Send).data, d.reason]),
        ["a2", "a3"].map((text) => [
          text,
          "connection ended before its bytes left the buffer; not sent again (the default mode sends at most once: use ack to resend with ids)",
        ]),
      );
      assert.deepEqual(
        h.of(WebSocketMessageDropped).map((e) => [
          (e.message as Send).data,
          e.droppedTotal,
        ]),
        [["a2", 1], ["a3", 2]],
      );
      // a1 was answered Sent on the first connection, then it closed.
      assert.deepEqual(
        h.of(WebSocketClosed).map((e) => e.mayNotHaveArrived),
        [1],
      );
    } finally {
      await h.done();
    }
  });

  it("writes each message once, though its connection closes before minUptimeMs; the backoff keeps growing", async () => {
    const h = harness();
    try {
      const connection = h.connect({ policy: doubling, minUptimeMs: 1_000 });
      const replies = new Map<string, Sent>();
      const texts = Array.from({ length: 20 }, (_, i) => `m${i}`);
      askAll(connection, texts, replies);
      // A server that accepts and closes within 5 ms; attempts at 0, 100,
      // 300, 700, 1500 (and a few ms later each).
      for (let t = 0; t < 1_600; t += 5) {
        await h.tick(5);
        for (const socket of h.network.live) {
          if (socket.readyState === 1) {
            socket.end({ code: 1000, reason: "bye", wasClean: true });
          }
        }
      }
      assert.deepEqual(
        h.of(WebSocketReconnectScheduled).map((e) => e.delayMs).slice(0, 4),
        [100, 200, 400, 800],
      );
      assert.ok(h.network.sockets.length >= 5);
      const [first, ...later] = h.network.sockets;
      assert.deepEqual(first.sent, texts);
      for (const socket of later) assert.deepEqual(socket.sent, []);
      assert.equal(replies.size, 20, "each answered Sent once its bytes left");
      // Sent, and the connection closed: no evidence the server read them.
      assert.deepEqual(
        h.of(WebSocketClosed).map((e) => e.mayNotHaveArrived).slice(0, 2),
        [20, 0],
      );
      assert.equal(h.deadLetters.length, 0);
    } finally {
      await h.done();
    }
  });

  it("sends what was not confirmed to dead letters on Close", async () => {
    const h = harness();
    try {
      const connection = h.connect({ minUptimeMs: 0 });
      await h.tick(1);
      h.network.last.bufferedAmount = 1;
      connection.tell(new Send("x"));
      connection.tell(new Send("y"));
      connection.tell(new Close());
      await h.tick(1);
      assert.deepEqual(
        h.deadLetters.map((d) => [(d.message as Send).data, d.reason]),
        [["y", "connection closed before it was confirmed"]],
      );
    } finally {
      await h.done();
    }
  });
});

describe("maxMessageBytes", () => {
  it("refuses a larger message at once, with a dead letter and an event, and sends the next one", async () => {
    const h = harness();
    try {
      h.network.answer = "hang";
      const connection = h.connect({ maxMessageBytes: 10, minUptimeMs: 0 });
      await h.tick(0);
      const tooBig = connection.ask(new Send("é".repeat(6)), 10_000); // 12 bytes
      connection.tell(new Send(new Uint8Array(10)));
      await assert.rejects(tooBig, (error: unknown) => {
        assert.ok(error instanceof UndeliveredError);
        assert.equal(error.reason, "12 bytes, over maxMessageBytes (10)");
        return true;
      });
      const [dropped] = h.of(WebSocketMessageDropped);
      assert.equal(dropped.reason, "12 bytes, over maxMessageBytes (10)");
      h.network.last.accept();
      await h.tick(0);
      assert.deepEqual(
        h.network.last.sent.map((d) => (d as Uint8Array).length),
        [10],
      );
    } finally {
      await h.done();
    }
  });

  it("is 1 MiB by default, and checked", async () => {
    const h = harness();
    try {
      const connection = h.connect();
      connection.tell(new Send("x".repeat(1_048_577)));
      connection.tell(new Send("x".repeat(1_048_576)));
      await h.tick(1);
      assert.deepEqual(h.deadLetters.map((d) => d.reason), [
        "1048577 bytes, over maxMessageBytes (1048576)",
      ]);
      assert.equal(h.network.last.sent.length, 1);
      for (const bad of [0, 1.5, -1, NaN, "10"]) {
        assert.throws(
          () =>
            websocketProps({
              url: "ws://x.test/",
              page: false,
              WebSocket: h.network.WebSocket,
              maxMessageBytes: bad as number,
            }),
          /maxMessageBytes/,
        );
      }
    } finally {
      await h.done();
    }
  });
});

/** Frames `{id}:{data}`; acknowledgements `ack:{id}`. */
const ack = {
  encode: (id: number, data: unknown) => `${id}:${data}`,
  decodeAck: (data: unknown) =>
    typeof data === "string" && data.startsWith("ack:")
      ? Number(data.slice(4))
      : undefined,
};

describe("acknowledged mode", () => {
  it("answers a Send when its id is acknowledged, once, and reports other frames as messages", async () => {
    const h = harness();
    try {
      const connection = h.connect({ ack });
      await h.tick(1);
      const socket = h.network.last;
      const replies = new Map<string, Sent>();
      askAll(connection, ["a", "b", "c"], replies);
      await h.tick(0);
      assert.deepEqual(socket.sent, ["1:a", "2:b", "3:c"]);
      socket.message("ack:2");
      socket.message("ack:2");
      socket.message("hello");
      await h.tick(0);
      assert.deepEqual([...replies.keys()], ["b"]);
      assert.equal(replies.get("b")!.acknowledged, true);
      assert.deepEqual(h.of(WebSocketMessage).map((e) => e.data), ["hello"]);
      socket.message("ack:1");
      socket.message("ack:3");
      await h.tick(0);
      assert.deepEqual([...replies.keys()], ["b", "a", "c"]);
    } finally {
      await h.done();
    }
  });

  it("sends the unacknowledged again after every reconnect, with their ids, before newer ones", async () => {
    const h = harness();
    try {
      const connection = h.connect({ ack, policy: doubling });
      await h.tick(1);
      for (const text of ["a", "b", "c"]) connection.tell(new Send(text));
      await h.tick(0);
      h.network.last.message("ack:1");
      h.network.last.end({ code: 1012, reason: "", wasClean: true });
      connection.tell(new Send("d"));
      await h.tick(101);
      assert.deepEqual(h.network.last.sent, ["2:b", "3:c", "4:d"]);
      h.network.last.message("ack:3");
      h.network.last.end({ code: 1012, reason: "", wasClean: true });
      await h.tick(201);
      assert.deepEqual(h.network.last.sent, ["2:b", "4:d"]);
      assert.deepEqual(
        h.of(WebSocketClosed).map((e) => e.mayNotHaveArrived),
        [0, 0],
      );
    } finally {
      await h.done();
    }
  });

  it("sends to dead letters past maxUnacked and after maxAttempts", async () => {
    const h = harness();
    try {
      const connection = h.connect({
        ack: { ...ack, maxUnacked: 2, maxAttempts: 2 },
        policy: { delayFor: () => 10 },
      });
      await h.tick(1);
      for (const text of ["a", "b", "c"]) connection.tell(new Send(text));
      await h.tick(0);
      assert.deepEqual(h.network.last.sent, ["1:a", "2:b"]);
      for (let i = 0; i < 2; i++) {
        h.network.last.end({ code: 1006, reason: "", wasClean: false });
        await h.tick(11);
      }
      assert.deepEqual(h.network.sockets.map((s) => s.sent), [
        ["1:a", "2:b"],
        ["1:a", "2:b"],
        [],
      ]);
      assert.deepEqual(
        h.of(WebSocketMessageDropped).map((e) => [
          (e.message as Send).data,
          e.reason,
        ]),
        [
          ["c", "unacknowledged buffer full (maxUnacked 2)"],
          ["a", "not acknowledged after 2 attempts (maxAttempts 2)"],
          ["b", "not acknowledged after 2 attempts (maxAttempts 2)"],
        ],
      );
      assert.equal(h.deadLetters.length, 3);
    } finally {
      await h.done();
    }
  });

  it("checks its options", async () => {
    const h = harness();
    try {
      const make = (value: unknown) =>
        websocketProps({
          url: "ws://x.test/",
          page: false,
          WebSocket: h.network.WebSocket,
          ack: value as typeof ack,
        });
      assert.throws(() => make(1), /"ack"/);
      assert.throws(() => make({ ...ack, encode: 1 }), /ack\.encode/);
      assert.throws(() => make({ ...ack, decodeAck: null }), /ack\.decodeAck/);
      assert.throws(() => make({ ...ack, maxUnacked: 0 }), /ack\.maxUnacked/);
      assert.throws(
        () => make({ ...ack, maxAttempts: 0.5 }),
        /ack\.maxAttempts/,
      );
      make({ ...ack, maxUnacked: Infinity, maxAttempts: Infinity });
    } finally {
      await h.done();
    }
  });
});
