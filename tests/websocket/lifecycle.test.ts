// Copyright 2026 the understudy authors. MIT license.
// The page's lifecycle: a page frozen or left (freeze, pagehide) closes its
// socket, so that the back-forward cache can keep it and no socket dies
// unseen in a frozen page, and pauses; resume or pageshow connects again at
// once, and what was sent meanwhile goes out then.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { connect, Send, WebSocketPaused } from "../../src/websocket/mod.ts";
import { FakePage } from "./_fake_page.ts";
import { describeEvents, harness } from "./_setup.ts";

const doubling = { delayFor: (n: number) => 100 * 2 ** n };

for (
  const [leave, back] of [["freeze", "resume"], [
    "pagehide",
    "pageshow",
  ]] as const
) {
  describe(`${leave}, then ${back}`, () => {
    it(`closes the socket on ${leave}, pauses, and connects again at once on ${back}`, async () => {
      const h = harness();
      try {
        const page = new FakePage();
        const connection = h.connect({ page, policy: doubling });
        await h.tick(0);
        const first = h.network.last;
        assert.equal(first.readyState, 1);
        page[leave]();
        await h.tick(0);
        assert.deepEqual(first.closeCalls, [{
          code: 1000,
          reason: "paused: frozen",
        }]);
        assert.deepEqual(
          h.of(WebSocketPaused).map((e) => e.reason),
          ["frozen"],
        );
        connection.tell(new Send("while away"));
        await h.tick(60_000);
        assert.equal(h.network.sockets.length, 1, "no attempt while frozen");
        page[back]();
        await h.tick(0);
        assert.equal(h.network.sockets.length, 2);
        assert.deepEqual(h.network.last.sent, ["while away"]);
        assert.deepEqual(describeEvents(h.events).slice(-4), [
          "Closed(1000, paused: frozen, true)",
          "Paused(frozen)",
          "Connecting(1, 0)",
          "Opened()",
        ]);
        assert.equal(h.deadLetters.length, 0);
      } finally {
        await h.done();
      }
    });
  });
}

describe("the page's lifecycle", () => {
  it(`stops a connecting attempt on freeze; ${"pageshow"} without a pagehide changes nothing`, async () => {
    const h = harness();
    try {
      const page = new FakePage();
      h.network.answer = "hang";
      h.connect({ page, policy: doubling });
      await h.tick(0);
      page.pageshow(); // the first load's pageshow
      await h.tick(0);
      assert.equal(h.network.sockets.length, 1);
      page.freeze();
      await h.tick(0);
      assert.deepEqual(h.network.last.closeCalls, [{
        code: 1000,
        reason: "paused: frozen",
      }]);
      h.network.answer = "accept";
      page.resume();
      await h.tick(0);
      assert.equal(h.network.sockets.length, 2);
      assert.equal(h.network.last.readyState, 1);
    } finally {
      await h.done();
    }
  });

  it("shows in the front door's status, and leaves no listener after close", async () => {
    const h = harness();
    try {
      const page = new FakePage();
      const socket = connect("ws://example.test/ws", {
        system: h.system,
        WebSocket: h.network.WebSocket,
        page,
      });
      const statuses: string[] = [];
      socket.subscribe(({ status }) => {
        if (statuses.at(-1) !== status) statuses.push(status);
      });
      await h.tick(0);
      assert.equal(socket.status, "open");
      page.pagehide();
      await h.tick(0);
      assert.equal(socket.status, "paused");
      page.pageshow();
      await h.tick(0);
      assert.equal(socket.status, "open");
      await socket.close();
      assert.deepEqual(statuses, [
        "connecting",
        "open",
        "paused", // at the close, not "reconnecting" first
        "connecting",
        "open",
        "closing",
        "closed",
      ]);
      assert.equal(page.allListeners, 0);
    } finally {
      await h.done();
    }
  });
});
