// Copyright 2026 the understudy authors. MIT license.
// connectShared: where there are Web Locks (browsers, Deno), two shared
// sockets of one name make one connection: the first leads, the second
// sends through it and hears its frames and status, and takes over when the
// first closes. Where there are none (Node, Bun), each leads on its own.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { connectShared, SendFailedError } from "../../src/websocket/mod.ts";
import { FakeNetwork } from "./_fake_websocket.ts";
import { waitFor } from "./_e2e_scenario.ts";

const hasLocks =
  typeof (globalThis as { navigator?: { locks?: unknown } }).navigator
    ?.locks === "object";

describe("connectShared", () => {
  it(
    hasLocks
      ? "makes one connection for two sockets of a name, and hands it over when the leader closes"
      : "leads on its own without Web Locks",
    async () => {
      const network = new FakeNetwork(); // real timers: the channel's are real
      const name = `test-${Math.random().toString(36).slice(2)}`;
      const options = { WebSocket: network.WebSocket, page: false as const };
      const first = connectShared(name, "ws://example.test/ws", options);
      await waitFor(
        "the first to lead",
        () => first.leader && first.status === "open",
      );
      const second = connectShared(name, "ws://example.test/ws", options);
      try {
        if (!hasLocks) {
          await waitFor("the second to lead", () => second.status === "open");
          assert.equal(second.leader, true);
          assert.equal(network.sockets.length, 2);
          return;
        }
        await waitFor(
          "the second to hear the status",
          () => second.status === "open",
        );
        assert.equal(second.leader, false);
        assert.equal(network.sockets.length, 1, "one connection");
        const heard: unknown[] = [];
        second.addEventListener("message", (data) => heard.push(data));
        await second.send("through the leader");
        assert.deepEqual(network.last.sent, ["through the leader"]);
        network.last.message("to every tab");
        await waitFor("the frame in the follower", () => heard.length === 1);
        assert.deepEqual(heard, ["to every tab"]);

        await first.close();
        await waitFor(
          "the second to take over",
          () => second.leader && second.status === "open",
        );
        assert.equal(network.sockets.length, 2);
        assert.equal(network.live.length, 1);
        await second.send("after the takeover");
        assert.deepEqual(network.last.sent, ["after the takeover"]);
      } finally {
        await first.close();
        await second.close();
      }
      await assert.rejects(second.send("late"), SendFailedError);
    },
  );

  it("checks its name and options at the call", () => {
    assert.throws(
      () => connectShared("", "ws://example.test/ws", { page: false }),
      (error: Error) =>
        error instanceof TypeError && /name/.test(error.message),
    );
    assert.throws(
      () =>
        connectShared("x", "ws://example.test/ws", {
          page: false,
          maxRetries: -1,
        }),
      (error: Error) =>
        error instanceof RangeError && /maxRetries/.test(error.message),
    );
  });
});
