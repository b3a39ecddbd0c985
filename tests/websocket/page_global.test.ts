// @runtimes deno bun browser
// Copyright 2026 the understudy authors. MIT license.
// Page events default to globalThis where it is an event target (browsers,
// Deno, Bun; not Node 20, whose globalThis dispatches no events).

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { WebSocketPaused } from "../../src/websocket/mod.ts";
import { describeEvents, harness } from "./_setup.ts";

const doubling = { delayFor: (n: number) => 100 * 2 ** n };

describe("page events without a page option", () => {
  it("default to globalThis where it is an event target", async () => {
    const host = globalThis as unknown as EventTarget;
    const h = harness();
    try {
      h.network.answer = "hang";
      h.connect({ page: undefined, policy: doubling });
      await h.tick(0);
      host.dispatchEvent(new Event("offline"));
      await h.tick(0);
      assert.deepEqual(describeEvents(h.of(WebSocketPaused)), [
        "Paused(offline)",
      ]);
      host.dispatchEvent(new Event("online"));
      await h.tick(100);
      assert.equal(h.network.sockets.length, 2);
    } finally {
      await h.done();
    }
  });
});
