// Copyright 2026 the understudy authors. MIT license.
// `Close` leaves nothing behind, whatever the connection was doing: no
// socket, no timer, no listener, no actor.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ActorStarted, ActorStopped, ActorSystem } from "../../mod.ts";
import {
  Close,
  Reconnect,
  Send,
  WebSocketClosed,
  type WebSocketOptions,
  websocketProps,
} from "../../src/websocket/mod.ts";
import { FakeNetwork } from "./_fake_websocket.ts";
import { FakePage } from "./_fake_page.ts";
import { type Harness, harness } from "./_setup.ts";

const everything = (page: FakePage): Partial<WebSocketOptions> => ({
  page,
  policy: { delayFor: () => 60_000 },
  heartbeat: { intervalMs: 1_000, timeoutMs: 500 },
  hiddenCloseMs: 30_000,
  minUptimeMs: 5_000,
  connectionTimeoutMs: 10_000,
});

/** Puts a connection in one state, with as many timers running as that state has. */
const phases: Record<string, (h: Harness, page: FakePage) => Promise<void>> = {
  "connecting": async (h) => {
    h.network.answer = "hang";
    await h.tick(0);
  },
  "open (heartbeat, stability and hidden timers running)": async (h, page) => {
    await h.tick(1);
    h.network.last.message("pong"); // answers the probe at open
    page.hide();
    await h.tick(1_000);
  },
  "waiting out a backoff delay": async (h) => {
    h.network.answer = "refuse";
    await h.tick(1_000);
  },
  "paused offline": async (h, page) => {
    h.network.answer = "hang";
    await h.tick(0);
    page.goOffline();
    await h.tick(0);
  },
  "gave up": async (h) => {
    h.network.answer = "refuse";
    await h.tick(1);
  },
};

describe("Close", () => {
  for (const [phase, enter] of Object.entries(phases)) {
    it(`while ${phase}: no socket, timer, listener or actor is left`, async () => {
      const h = harness();
      try {
        const page = new FakePage();
        const started: string[] = [];
        const stopped: string[] = [];
        h.system.eventStream.subscribe(
          ActorStarted,
          (e) => started.push(e.ref.path),
        );
        h.system.eventStream.subscribe(
          ActorStopped,
          (e) => stopped.push(e.ref.path),
        );
        const connection = h.connect(
          {
            ...everything(page),
            maxRetries: phase === "gave up" ? 0 : Infinity,
          },
          "conn",
        );
        connection.tell(new Send("pending"));
        await enter(h, page);
        connection.tell(new Close(4002, "bye"));
        await h.tick(1); // and the fake server completes any closing handshake
        assert.equal(h.pendingTimers(), 0, "timers left");
        assert.deepEqual(h.network.live, [], "sockets left open");
        assert.equal(page.allListeners, 0, "page listeners left");
        // Every actor of the connection (the socket actors: one per attempt) stopped.
        const ours = (paths: string[]) =>
          paths.filter((p) => p.startsWith("/user/conn")).sort();
        assert.deepEqual(ours(stopped), ours(started));
        assert.ok(
          ["/user/conn", "/user/conn/backoff", "/user/conn/backoff/socket-1"]
            .every((path) => stopped.includes(path)),
        );
        const socket = h.network.last;
        if (phase === "connecting" || phase.startsWith("open")) {
          assert.deepEqual(socket.closeCalls, [{ code: 4002, reason: "bye" }]);
          assert.deepEqual([
            h.of(WebSocketClosed).at(-1)!.code,
            h.of(WebSocketClosed).at(-1)!.reason,
          ], [4002, "bye"]);
        }
      } finally {
        await h.done();
      }
    });
  }

  it("while a socket actor is being replaced: nothing is left, and the waiting message is a dead letter", async () => {
    const h = harness();
    try {
      const started: string[] = [];
      const stopped: string[] = [];
      h.system.eventStream.subscribe(
        ActorStarted,
        (e) => started.push(e.ref.path),
      );
      h.system.eventStream.subscribe(
        ActorStopped,
        (e) => stopped.push(e.ref.path),
      );
      h.network.answer = "hang";
      const connection = h.connect({}, "conn");
      await h.tick(0);
      h.network.last.refuse(); // the socket actor ends its attempt and stops
      connection.tell(new Send("pending"));
      connection.tell(new Close(4002, "bye")); // held for the next socket actor
      await h.tick(1);
      const ours = (paths: string[]) =>
        paths.filter((p) => p.startsWith("/user/conn")).sort();
      assert.deepEqual(ours(stopped), ours(started));
      assert.equal(ours(stopped).length, 4); // conn, backoff, socket-1 and -2
      assert.equal(h.pendingTimers(), 0);
      assert.deepEqual(
        h.deadLetters.map((d) => (d.message as Send).data),
        ["pending"],
      );
    } finally {
      await h.done();
    }
  });

  it("makes later messages dead letters, Reconnect included", async () => {
    const h = harness();
    try {
      const connection = h.connect();
      await h.tick(1);
      connection.tell(new Close());
      await h.tick(1);
      connection.tell(new Reconnect());
      connection.tell(new Send("too late"));
      await h.tick(1);
      assert.equal(h.network.sockets.length, 1);
      assert.deepEqual(h.deadLetters.map((d) => d.reason), [
        "recipient stopped",
        "recipient stopped",
      ]);
    } finally {
      await h.done();
    }
  });
});

describe("Close with real timers", () => {
  it("clears every timer the connection started, without terminating the system", async () => {
    // Count the host's timers the library starts; under Deno the sanitizers check too.
    const host = globalThis as unknown as Record<
      string,
      (...args: unknown[]) => unknown
    >;
    const saved = ["setTimeout", "clearTimeout", "setInterval", "clearInterval"]
      .map((name) => [name, host[name]] as const);
    const pending = new Set<unknown>();
    const [setTimeout_, clearTimeout_, setInterval_, clearInterval_] = saved
      .map(([, fn]) => fn);
    host.setTimeout = (callback, ...rest) => {
      const handle: unknown = setTimeout_((...args: unknown[]) => {
        pending.delete(handle);
        (callback as (...a: unknown[]) => void)(...args);
      }, ...rest);
      pending.add(handle);
      return handle;
    };
    host.clearTimeout = (handle) => {
      pending.delete(handle);
      return clearTimeout_(handle);
    };
    host.setInterval = (...args) => {
      const handle = setInterval_(...args);
      pending.add(handle);
      return handle;
    };
    host.clearInterval = (handle) => {
      pending.delete(handle);
      return clearInterval_(handle);
    };
    const system = ActorSystem.create("real-time", { logLevel: "off" });
    try {
      const network = new FakeNetwork();
      const page = new FakePage();
      network.answer = "hang";
      const stopped = new Promise<void>((resolve) =>
        system.eventStream.subscribe(
          ActorStopped,
          (e) => e.ref.path === "/user/conn" && resolve(),
        )
      );
      const connection = system.actorOf(
        websocketProps({
          url: "ws://example.test/",
          WebSocket: network.WebSocket,
          ...everything(page),
        }),
        "conn",
      );
      // Connecting, with the connection timeout running...
      await new Promise((resolve) => setTimeout_(resolve, 5));
      assert.ok(pending.size > 0, "the attempt has a timeout running");
      network.last.refuse(); // ...then waiting out a 60 s backoff delay: the classic leak.
      await new Promise((resolve) => setTimeout_(resolve, 5));
      connection.tell(new Close());
      await stopped;
      assert.equal(
        pending.size,
        0,
        `${pending.size} timer(s) left after Close`,
      );
      assert.equal(page.allListeners, 0);
    } finally {
      for (const [name, fn] of saved) host[name] = fn;
      await system.terminate();
    }
  });
});

describe("the event stream", () => {
  it("gets no listener from a connection", async () => {
    const h = harness();
    const system = ActorSystem.create("listener", { logLevel: "off" });
    try {
      const connection = system.actorOf(websocketProps({
        url: "ws://example.test/",
        page: false,
        WebSocket: h.network.WebSocket,
      }));
      await h.tick(1);
      assert.equal(h.network.last.readyState, 1);
      assert.equal(system.eventStream.hasSubscribers, false);
      connection.tell(new Close());
    } finally {
      const terminated = system.terminate();
      await h.tick(1);
      await terminated;
      await h.done();
    }
  });
});
