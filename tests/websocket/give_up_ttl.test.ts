// Copyright 2026 the understudy authors. MIT license.
// A give-up settles every waiting message (a dead letter with its reason,
// its ask rejected), and each sent until Reconnect; ttlMs makes a message
// that waited too long a dead letter at its time, never sent stale.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { UndeliveredError } from "../../mod.ts";
import {
  connect,
  Reconnect,
  Send,
  SendFailedError,
  WebSocketGaveUp,
  WebSocketMessageDropped,
} from "../../src/websocket/mod.ts";
import { harness } from "./_setup.ts";

const doubling = { delayFor: (n: number) => 100 * 2 ** n };

describe("giving up", () => {
  it("rejects every waiting ask with the reason, and each Send until Reconnect", async () => {
    const h = harness();
    try {
      h.network.answer = "refuse";
      const connection = h.connect({ policy: doubling, maxRetries: 1 });
      const outcomes = new Map<string, string>();
      const ask = (text: string) =>
        connection.ask(new Send(text), 60_000).then(
          () => outcomes.set(text, "sent"),
          (error) =>
            outcomes.set(
              text,
              error instanceof UndeliveredError ? error.reason : "other",
            ),
        );
      ask("a");
      ask("b");
      await h.tick(101); // the first attempt and the one retry fail
      assert.equal(h.of(WebSocketGaveUp).length, 1);
      await h.tick(0);
      const reason = "gave up: maxRetries (1) reached";
      assert.deepEqual([...outcomes], [["a", reason], ["b", reason]]);
      ask("c"); // while given up: at once
      await h.tick(0);
      assert.equal(outcomes.get("c"), reason);
      assert.deepEqual(
        h.of(WebSocketMessageDropped).map((e) => [
          (e.message as Send).data,
          e.reason,
          e.droppedTotal,
        ]),
        [["a", reason, 1], ["b", reason, 2], ["c", reason, 3]],
      );
      assert.deepEqual(h.deadLetters.map((d) => d.reason), [
        reason,
        reason,
        reason,
      ]);
      // Reconnect: sending works again, and nothing dropped goes out.
      h.network.answer = "accept";
      connection.tell(new Reconnect());
      ask("d");
      await h.tick(1);
      assert.deepEqual(h.network.last.sent, ["d"]);
      assert.equal(outcomes.get("d"), "sent");
    } finally {
      await h.done();
    }
  });

  it("rejects the unacknowledged messages too, in acknowledged mode", async () => {
    const h = harness();
    try {
      const connection = h.connect({
        policy: doubling,
        maxRetries: 0,
        ack: {
          encode: (id, data) => `${id}:${data}`,
          decodeAck: () => undefined,
        },
      });
      await h.tick(0);
      const failed: string[] = [];
      connection.ask(new Send("x"), 60_000).catch((error) =>
        failed.push(error.reason)
      );
      await h.tick(0);
      assert.deepEqual(h.network.last.sent, ["1:x"]);
      h.network.crash();
      await h.tick(0);
      assert.deepEqual(failed, ["gave up: maxRetries (0) reached"]);
    } finally {
      await h.done();
    }
  });

  it("rejects a confirming send of the front door with kind gave-up", async () => {
    const h = harness();
    try {
      h.network.answer = "refuse";
      const socket = connect("ws://example.test/ws", {
        system: h.system,
        WebSocket: h.network.WebSocket,
        page: false,
        maxRetries: 0,
      });
      const kinds: string[] = [];
      socket.sendConfirmed("hello").catch((error) => {
        assert.ok(error instanceof SendFailedError);
        kinds.push(error.kind);
      });
      await h.tick(1);
      assert.equal(socket.status, "gave-up");
      assert.deepEqual(kinds, ["gave-up"]);
      await socket.close();
    } finally {
      await h.done();
    }
  });
});

describe("ttlMs", () => {
  it("drops a message that waited ttlMs at that moment, and sends the younger ones", async () => {
    const h = harness();
    try {
      h.network.answer = "refuse";
      const connection = h.connect({ policy: doubling, ttlMs: 1_000 });
      const settled: [string, number, string][] = [];
      const ask = (text: string) =>
        connection.ask(new Send(text), 60_000).then(
          () => settled.push([text, h.scheduler.now(), "sent"]),
          (error) => settled.push([text, h.scheduler.now(), error.reason]),
        );
      const start = h.scheduler.now();
      ask("old");
      await h.tick(800);
      ask("young");
      await h.tick(200); // "old" reaches 1,000 ms
      assert.deepEqual(settled, [[
        "old",
        start + 1_000,
        "expired: waited 1000 ms (ttlMs) unsent",
      ]]);
      assert.equal(h.of(WebSocketMessageDropped).length, 1);
      h.network.answer = "accept";
      await h.tick(700); // the retry at 1,500 ms succeeds
      assert.deepEqual(h.network.last.sent, ["young"]);
      assert.equal(settled.at(-1)?.[0], "young");
      assert.equal(settled.at(-1)?.[2], "sent");
    } finally {
      await h.done();
    }
  });

  it("is checked", async () => {
    const h = harness();
    try {
      assert.throws(
        () => h.connect({ ttlMs: 0 }),
        (error: Error) =>
          error instanceof RangeError && /ttlMs/.test(error.message),
      );
      assert.throws(
        () => h.connect({ ttlMs: "1s" as never }),
        (error: Error) =>
          error instanceof TypeError && /ttlMs/.test(error.message),
      );
    } finally {
      await h.done();
    }
  });
});
