// Copyright 2026 the understudy authors. MIT license.
// Messages sent while disconnected: kept in order, bounded by maxQueued,
// never lost silently, and delivered only to an open socket.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { UndeliveredError } from "../../mod.ts";
import {
  Close,
  Send,
  Sent,
  WebSocketMessageDropped,
  WebSocketOpened,
} from "../../src/websocket/mod.ts";
import { harness } from "./_setup.ts";

const doubling = { delayFor: (n: number) => 100 * 2 ** n };
const texts = (data: readonly unknown[]) => data.map(String);

describe("sending while disconnected", () => {
  it("keeps messages from every phase and sends them in order on reconnect", async () => {
    const h = harness();
    try {
      h.network.answer = "hang";
      const connection = h.connect({ policy: doubling });
      connection.tell(new Send("1: before the first open"));
      await h.tick(0);
      h.network.last.refuse();
      connection.tell(new Send("2: right after the failure"));
      await h.tick(0);
      connection.tell(new Send("3: during the backoff wait"));
      await h.tick(100); // the second attempt starts, and hangs
      connection.tell(new Send("4: while connecting"));
      await h.tick(0);
      h.network.answer = "accept";
      h.network.last.refuse();
      connection.tell(new Send("5: after the second failure"));
      await h.tick(201);
      assert.equal(h.network.sockets.length, 3);
      assert.deepEqual(texts(h.network.last.sent), [
        "1: before the first open",
        "2: right after the failure",
        "3: during the backoff wait",
        "4: while connecting",
        "5: after the second failure",
      ]);
      assert.deepEqual(
        h.network.sockets.slice(0, 2).map((s) => s.sent.length),
        [0, 0],
      );
      assert.equal(h.deadLetters.length, 0);
    } finally {
      await h.done();
    }
  });

  it("keeps the messages a socket actor took before its socket opened, through its failure", async () => {
    const h = harness();
    try {
      h.network.answer = "hang";
      const connection = h.connect({ policy: doubling });
      await h.tick(0);
      for (const text of ["a", "b", "c"]) connection.tell(new Send(text));
      await h.tick(0); // the socket actor has stashed them: it is alive, its socket connecting
      h.network.answer = "accept";
      h.network.last.refuse(); // ...and now it stops
      await h.tick(101);
      assert.deepEqual(h.network.last.sent, ["a", "b", "c"]);
      assert.equal(h.deadLetters.length, 0);
    } finally {
      await h.done();
    }
  });

  it("does not hand a message to a socket that is closing", async () => {
    const h = harness();
    try {
      const connection = h.connect({ policy: doubling });
      await h.tick(0);
      const first = h.network.last;
      first.readyState = 2; // the server started closing; the close event is on its way
      connection.tell(new Send("late"));
      await h.tick(0);
      first.end({ code: 1001, reason: "", wasClean: true });
      await h.tick(101);
      assert.deepEqual(first.sent, []);
      assert.deepEqual(h.network.last.sent, ["late"]);
    } finally {
      await h.done();
    }
  });

  it("answers an ask for a queued Send once it went out", async () => {
    const h = harness();
    try {
      h.network.answer = "refuse";
      const connection = h.connect({ policy: doubling });
      await h.tick(0);
      const reply = connection.ask<Sent>(new Send("eventually"), 10_000);
      let settled = false;
      reply.finally(() => settled = true);
      await h.tick(50);
      assert.equal(settled, false);
      h.network.answer = "accept";
      await h.tick(51);
      // Answered once its bytes left the buffer, not minUptimeMs later.
      assert.deepEqual(h.network.last.sent, ["eventually"]);
      assert.ok((await reply) instanceof Sent);
    } finally {
      await h.done();
    }
  });
});

describe("the queue limit", () => {
  it("drops the newest messages past maxQueued while disconnected, with dead letters and a count", async () => {
    const h = harness();
    try {
      h.network.answer = "refuse";
      const connection = h.connect({ policy: doubling, maxQueued: 3 });
      await h.tick(0); // failed; the supervisor now waits 100 ms and keeps messages
      for (let i = 1; i <= 5; i++) connection.tell(new Send(`m${i}`));
      await h.tick(0);
      const dropped = h.of(WebSocketMessageDropped);
      assert.deepEqual(dropped.map((e) => (e.message as Send).data), [
        "m4",
        "m5",
      ]);
      assert.deepEqual(dropped.map((e) => e.droppedTotal), [1, 2]);
      assert.equal(dropped[0].reason, "queue full (maxQueued 3)");
      assert.deepEqual(
        h.deadLetters.map((d) => [(d.message as Send).data, d.reason]),
        [["m4", "queue full (maxQueued 3)"], [
          "m5",
          "queue full (maxQueued 3)",
        ]],
      );
      h.network.answer = "accept";
      await h.tick(101);
      assert.deepEqual(h.network.last.sent, ["m1", "m2", "m3"]);
      // Sent messages no longer count: there is room again.
      h.network.answer = "refuse";
      h.network.last.end({ code: 1006, reason: "", wasClean: false });
      for (let i = 6; i <= 8; i++) connection.tell(new Send(`m${i}`));
      await h.tick(0);
      assert.equal(h.of(WebSocketMessageDropped).length, 2);
    } finally {
      await h.done();
    }
  });

  it("drops the newest messages past maxQueued while connecting", async () => {
    const h = harness();
    try {
      h.network.answer = "hang";
      const connection = h.connect({ maxQueued: 2 });
      await h.tick(0);
      for (let i = 1; i <= 4; i++) connection.tell(new Send(`m${i}`));
      await h.tick(0);
      const dropped = h.of(WebSocketMessageDropped);
      assert.deepEqual(
        dropped.map((e) => [(e.message as Send).data, e.droppedTotal]),
        [["m3", 1], ["m4", 2]],
      );
      assert.equal(h.deadLetters.length, 2);
      h.network.last.accept();
      await h.tick(0);
      assert.deepEqual(h.network.last.sent, ["m1", "m2"]);
    } finally {
      await h.done();
    }
  });

  it("passes any number through an open socket, and keeps at most maxQueued of those caught by a close", async () => {
    const h = harness();
    try {
      // minUptimeMs 0: what went out on the first socket is confirmed at once.
      const connection = h.connect({
        policy: doubling,
        maxQueued: 2,
        minUptimeMs: 0,
      });
      await h.tick(1);
      const first = h.network.last;
      for (let i = 1; i <= 3; i++) connection.tell(new Send(`open${i}`));
      await h.tick(0);
      assert.deepEqual(first.sent, ["open1", "open2", "open3"]);
      // A burst in flight when the socket starts closing: 2 are kept, 3 dropped.
      for (let i = 1; i <= 5; i++) connection.tell(new Send(`burst${i}`));
      first.readyState = 2;
      await h.tick(0);
      const dropped = h.of(WebSocketMessageDropped);
      assert.deepEqual(dropped.map((e) => (e.message as Send).data), [
        "burst3",
        "burst4",
        "burst5",
      ]);
      assert.deepEqual(h.deadLetters.map((d) => d.reason), [
        "queue full (maxQueued 2)",
        "queue full (maxQueued 2)",
        "queue full (maxQueued 2)",
      ]);
      first.end({ code: 1001, reason: "", wasClean: true });
      await h.tick(101);
      assert.deepEqual(h.network.last.sent, ["burst1", "burst2"]);
    } finally {
      await h.done();
    }
  });

  it("with maxQueued 0 sends only while open", async () => {
    const h = harness();
    try {
      h.network.answer = "hang";
      const connection = h.connect({ maxQueued: 0 });
      connection.tell(new Send("too early"));
      await h.tick(0);
      h.network.last.accept();
      connection.tell(new Send("on time"));
      await h.tick(0);
      assert.deepEqual(h.network.last.sent, ["on time"]);
      assert.equal(h.of(WebSocketMessageDropped).length, 1);
    } finally {
      await h.done();
    }
  });

  it("fails an ask whose Send was dropped", async () => {
    const h = harness();
    try {
      h.network.answer = "hang";
      const connection = h.connect({ maxQueued: 0 });
      await h.tick(0);
      await assert.rejects(
        connection.ask(new Send("no room"), 1_000),
        UndeliveredError,
      );
    } finally {
      await h.done();
    }
  });
});

describe("messages that cannot be sent", () => {
  it("a socket that throws on send is replaced, and the message goes to dead letters", async () => {
    const h = harness();
    try {
      const connection = h.connect({ policy: doubling });
      await h.tick(0);
      const socket = h.network.last;
      socket.send = () => {
        throw new TypeError("cannot send this");
      };
      connection.tell(new Send("poison"));
      await h.tick(0);
      assert.match(h.deadLetters[0].reason, /cannot send this/);
      assert.equal((h.deadLetters[0].message as Send).data, "poison");
      await h.tick(101);
      assert.equal(h.network.sockets.length, 2);
      assert.equal(h.of(WebSocketOpened).length, 2);
    } finally {
      await h.done();
    }
  });

  it("sends every waiting message to dead letters on Close", async () => {
    const h = harness();
    try {
      h.network.answer = "refuse";
      const connection = h.connect({ policy: doubling });
      connection.tell(new Send("x"));
      await h.tick(0);
      connection.tell(new Send("y"));
      connection.tell(new Close());
      connection.tell(new Send("z"));
      await h.tick(0);
      const data = (messages: unknown[]) =>
        messages.map((m) => (m as Send).data).sort();
      assert.deepEqual(data(h.deadLetters.map((d) => d.message)), [
        "x",
        "y",
        "z",
      ]);
    } finally {
      await h.done();
    }
  });
});
