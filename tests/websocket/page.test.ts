// Copyright 2026 the understudy authors. MIT license.
// The browser page: no attempts while offline, a prompt (and spread)
// reconnect on `online` with the retry count reset, and closing while the
// page stays hidden. All of it detachable.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Close,
  Send,
  WebSocketClosed,
  WebSocketConnecting,
  WebSocketPaused,
} from "../../src/websocket/mod.ts";
import { describeEvents, harness } from "./_setup.ts";
import { FakePage } from "./_fake_page.ts";

const doubling = { delayFor: (n: number) => 100 * 2 ** n };

describe("online and offline", () => {
  it("coming online during a long backoff wait reconnects after policy.delayFor(0), not the rest of the wait", async () => {
    const h = harness();
    try {
      const page = new FakePage();
      h.network.answer = "refuse";
      h.connect({
        page,
        policy: { delayFor: (n: number) => n === 0 ? 100 : 60_000 },
      });
      await h.tick(200); // attempts at 0 and ~100 refused: the next waits 60 s
      assert.equal(h.network.sockets.length, 2);
      page.goOffline();
      await h.tick(1_000);
      h.network.answer = "accept";
      page.goOnline();
      await h.tick(99);
      assert.equal(h.network.sockets.length, 2, "spread: not at once");
      await h.tick(2);
      assert.equal(h.network.sockets.length, 3, "after delayFor(0) = 100 ms");
      await h.tick(120_000);
      assert.equal(h.network.sockets.length, 3, "connected; no more attempts");
    } finally {
      await h.done();
    }
  });

  it("coming online with a policy that throws waits 30 s and logs it, instead of crashing the connection", async () => {
    const h = harness();
    try {
      const page = new FakePage();
      h.network.answer = "refuse";
      h.connect({
        page,
        policy: {
          delayFor: (n: number) => {
            if (n === 0 && page.navigator.onLine) throw new Error("policy bug");
            return 60_000;
          },
        },
      });
      await h.tick(10); // refused; the next attempt waits 30 s (delayFor(0) threw)
      page.goOffline();
      await h.tick(10);
      h.network.answer = "accept";
      page.goOnline();
      await h.tick(29_999);
      assert.equal(h.network.sockets.length, 1, "not at once, nor a storm");
      await h.tick(2);
      assert.equal(h.network.sockets.length, 2, "after the 30 s fallback");
      await h.tick(10);
      assert.equal(h.network.last.readyState, 1);
      assert.ok(h.logs.length >= 2);
      for (const record of h.logs) {
        assert.equal(record.level, "error");
        assert.match(
          record.message,
          /policy\.delayFor\(0\) threw; waiting (maxBackoff \()?30000 ms/,
        );
      }
    } finally {
      await h.done();
    }
  });

  it("stops attempting while offline, and reconnects soon after online with the count reset", async () => {
    const h = harness();
    try {
      const page = new FakePage();
      h.network.answer = "refuse";
      const connection = h.connect({ page, policy: doubling });
      await h.tick(400); // attempts at 0, ~100 and ~300 failed: the next waits 400
      assert.equal(h.network.sockets.length, 3);
      h.network.answer = "hang";
      await h.tick(310);
      assert.equal(h.network.sockets.length, 4); // the 4th attempt, under way
      page.goOffline();
      await h.tick(0);
      const abandoned = h.network.last;
      assert.equal(
        abandoned.closeCalls.length,
        1,
        "the attempt under way is abandoned",
      );
      connection.tell(new Send("written offline"));
      await h.tick(60_000);
      assert.equal(h.network.sockets.length, 4, "no attempt while offline");
      assert.deepEqual(describeEvents(h.of(WebSocketPaused)), [
        "Paused(offline)",
      ]);

      h.network.answer = "accept";
      page.goOnline();
      await h.tick(99);
      assert.equal(h.network.sockets.length, 4);
      await h.tick(1);
      assert.equal(
        h.network.sockets.length,
        5,
        "after policy.delayFor(0), not 800 ms",
      );
      assert.deepEqual(
        [
          h.of(WebSocketConnecting).at(-1)!.attempt,
          h.of(WebSocketConnecting).at(-1)!.delayMs,
        ],
        [1, 100],
      );
      await h.tick(1);
      assert.deepEqual(h.network.last.sent, ["written offline"]);
    } finally {
      await h.done();
    }
  });

  it("keeps an open socket while offline, and does not retry if it closes then", async () => {
    const h = harness();
    try {
      const page = new FakePage();
      h.connect({ page, policy: doubling });
      await h.tick(1);
      page.goOffline();
      await h.tick(10_000);
      assert.equal(
        h.network.last.readyState,
        1,
        "an offline blip does not kill a working socket",
      );
      h.network.last.end({ code: 1006, reason: "", wasClean: false });
      await h.tick(10_000);
      assert.equal(h.network.sockets.length, 1);
      assert.deepEqual(describeEvents(h.of(WebSocketPaused)), [
        "Paused(offline)",
      ]);
      page.goOnline();
      await h.tick(101);
      assert.equal(h.network.sockets.length, 2);
      assert.equal(h.network.last.readyState, 1);
    } finally {
      await h.done();
    }
  });

  it("starts paused when the page is offline already", async () => {
    const h = harness();
    try {
      const page = new FakePage();
      page.navigator.onLine = false;
      h.connect({ page, policy: doubling });
      await h.tick(5_000);
      assert.equal(h.network.sockets.length, 0);
      page.goOnline();
      await h.tick(101);
      assert.equal(h.network.last.readyState, 1);
    } finally {
      await h.done();
    }
  });

  it("ignores an online event while not offline", async () => {
    const h = harness();
    try {
      const page = new FakePage();
      h.connect({ page });
      await h.tick(1);
      page.dispatch("online");
      await h.tick(10_000);
      assert.equal(h.network.sockets.length, 1);
    } finally {
      await h.done();
    }
  });
});

describe("hidden pages", () => {
  it("closes after the page was hidden hiddenCloseMs, and reconnects at once when visible", async () => {
    const h = harness();
    try {
      const page = new FakePage();
      const connection = h.connect({ page, hiddenCloseMs: 60_000 });
      await h.tick(1);
      page.hide();
      await h.tick(59_999);
      assert.equal(h.network.last.readyState, 1);
      await h.tick(1);
      assert.deepEqual(h.network.last.closeCalls, [{
        code: 1000,
        reason: "paused: hidden",
      }]);
      assert.deepEqual(describeEvents(h.events).slice(-2), [
        "Closed(1000, paused: hidden, true)",
        "Paused(hidden)",
      ]);
      connection.tell(new Send("while hidden"));
      await h.tick(600_000);
      assert.equal(h.network.sockets.length, 1);
      page.show();
      await h.tick(0);
      assert.equal(h.network.sockets.length, 2);
      assert.deepEqual(
        describeEvents(h.of(WebSocketConnecting)).at(-1),
        "Connecting(1, 0)",
      );
      await h.tick(1);
      assert.deepEqual(h.network.last.sent, ["while hidden"]);
    } finally {
      await h.done();
    }
  });

  it("does nothing when the page is visible again before hiddenCloseMs", async () => {
    const h = harness();
    try {
      const page = new FakePage();
      h.connect({ page, hiddenCloseMs: 1_000 });
      await h.tick(1);
      page.hide();
      await h.tick(999);
      page.show();
      await h.tick(60_000);
      assert.equal(h.network.sockets.length, 1);
      assert.equal(h.of(WebSocketClosed).length, 0);
    } finally {
      await h.done();
    }
  });

  it("never closes for a hidden page by default", async () => {
    const h = harness();
    try {
      const page = new FakePage();
      h.connect({ page });
      await h.tick(1);
      page.hide();
      await h.tick(24 * 3_600_000);
      assert.equal(h.network.last.readyState, 1);
    } finally {
      await h.done();
    }
  });

  it("starts the hidden clock when the page is hidden at start", async () => {
    const h = harness();
    try {
      const page = new FakePage();
      page.document.visibilityState = "hidden";
      h.connect({ page, hiddenCloseMs: 1_000 });
      await h.tick(1_000);
      assert.deepEqual(describeEvents(h.of(WebSocketPaused)), [
        "Paused(hidden)",
      ]);
    } finally {
      await h.done();
    }
  });
});

describe("page listeners", () => {
  it("are removed on Close", async () => {
    const h = harness();
    try {
      const page = new FakePage();
      const connection = h.connect({ page, hiddenCloseMs: 1_000 });
      await h.tick(1);
      assert.equal(page.allListeners, 7); // online, offline, pagehide, pageshow; visibilitychange, freeze, resume
      connection.tell(new Close());
      await h.tick(1);
      assert.equal(page.allListeners, 0);
    } finally {
      await h.done();
    }
  });

  it("are not added with page: false", async () => {
    const h = harness();
    try {
      h.connect({ page: false });
      await h.tick(1);
      assert.equal(h.network.last.readyState, 1);
    } finally {
      await h.done();
    }
  });
});
