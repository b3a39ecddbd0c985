// Copyright 2026 the understudy authors. MIT license.
// Retrying: the delays of the policy, the reset after minUptimeMs, giving up
// (maxRetries, shouldReconnect) and starting again (Reconnect), timeouts,
// and URL functions that fail.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  defaultReconnectPolicy,
  Reconnect,
  Send,
  WebSocketClosed,
  WebSocketConnecting,
  WebSocketGaveUp,
  WebSocketReconnectScheduled,
} from "../../src/websocket/mod.ts";
import { describeEvents, harness, seededRandom } from "./_setup.ts";
import { FakePage } from "./_fake_page.ts";

/** 100, 200, 400, ... ms: easy to read in assertions. */
const doubling = { delayFor: (n: number) => 100 * 2 ** n };

describe("reconnecting", () => {
  it("Reconnect during a backoff wait connects at once, not when the wait runs out", async () => {
    const h = harness();
    try {
      h.network.answer = "refuse";
      const connection = h.connect({ policy: { delayFor: () => 60_000 } });
      await h.tick(10); // the first attempt was refused; the next waits 60 s
      assert.equal(h.network.sockets.length, 1);
      h.network.answer = "accept";
      connection.tell(new Reconnect());
      await h.tick(10);
      assert.equal(h.network.sockets.length, 2, "attempted at once");
      assert.ok(h.network.last.openedAt <= 20, `at ${h.network.last.openedAt}`);
      await h.tick(120_000);
      assert.equal(
        h.network.sockets.length,
        2,
        "the cancelled wait made no attempt",
      );
    } finally {
      await h.done();
    }
  });

  it("retries after each delay of the policy, and the default jitters every delay, the cap included", async () => {
    const h = harness();
    try {
      h.network.answer = "refuse";
      h.connect({
        policy: defaultReconnectPolicy(seededRandom(7)),
        connectionTimeoutMs: 60_000,
      });
      await h.tick(10 * 60_000);
      const closedAt: number[] = [];
      const attempts = h.of(WebSocketConnecting);
      const scheduled = h.of(WebSocketReconnectScheduled);
      assert.ok(
        attempts.length >= 20,
        `only ${attempts.length} attempts in 10 minutes`,
      );
      // Each attempt waited what was scheduled, and the socket was opened then.
      for (let i = 1; i < attempts.length; i++) {
        assert.equal(attempts[i].attempt, i + 1);
        assert.equal(scheduled[i - 1].attempt, i + 1);
        assert.equal(attempts[i].delayMs, scheduled[i - 1].delayMs);
        closedAt.push(h.network.sockets[i - 1].openedAt);
        const waited = h.network.sockets[i].openedAt -
          h.network.sockets[i - 1].openedAt;
        assert.ok(
          Math.abs(waited - scheduled[i - 1].delayMs) <= 1,
          `attempt ${i + 1} waited ${waited}`,
        );
      }
      // Within ±50% of min(1000 × 2^n, 30,000), and spread out even at the cap.
      scheduled.forEach(({ delayMs }, n) => {
        const nominal = Math.min(1_000 * 2 ** n, 30_000);
        assert.ok(
          delayMs >= nominal * 0.5 && delayMs <= nominal * 1.5,
          `delay ${n}: ${delayMs}`,
        );
      });
      const capped = scheduled.slice(6).map((e) => e.delayMs);
      assert.ok(
        Math.max(...capped) - Math.min(...capped) > 10_000,
        `capped delays ${capped} do not spread`,
      );
      assert.equal(new Set(capped).size, capped.length);
    } finally {
      await h.done();
    }
  });

  it("resets the delays only after a connection stayed up minUptimeMs", async () => {
    const h = harness();
    try {
      h.connect({ policy: doubling, minUptimeMs: 1_000 });
      await h.tick(0);
      // A socket opens as it is made (the fake server answers in a 0 ms timer).
      const cut = async (afterMs: number) => {
        await h.tick(afterMs);
        h.network.last.end({
          code: 1001,
          reason: "going away",
          wasClean: true,
        });
        await h.tick(0);
        return h.of(WebSocketReconnectScheduled).at(-1)!.delayMs;
      };
      assert.equal(await cut(10), 100);
      await h.tick(100);
      assert.equal(await cut(999), 200); // up 999 ms: not stable
      await h.tick(200);
      assert.equal(await cut(500), 400);
      await h.tick(400);
      assert.equal(await cut(1_000), 100); // up 1000 ms: stable, back to the first delay
    } finally {
      await h.done();
    }
  });

  it("gives up after maxRetries retries, drops its messages, and starts again on Reconnect", async () => {
    const h = harness();
    try {
      h.network.answer = "refuse";
      const connection = h.connect({ policy: doubling, maxRetries: 3 });
      connection.tell(new Send("dropped"));
      await h.tick(60_000);
      assert.equal(h.network.sockets.length, 4); // the first attempt and 3 retries
      assert.deepEqual(describeEvents(h.of(WebSocketReconnectScheduled)), [
        "ReconnectScheduled(2, 100)",
        "ReconnectScheduled(3, 200)",
        "ReconnectScheduled(4, 400)",
      ]);
      const [gaveUp] = h.of(WebSocketGaveUp);
      assert.equal(gaveUp.reason, "maxRetries (3) reached");
      assert.equal(gaveUp.close.code, 1006);
      assert.equal(
        h.pendingTimers(),
        0,
        "nothing left scheduled after giving up",
      );

      h.network.answer = "accept";
      connection.tell(new Reconnect());
      await h.tick(0);
      assert.equal(h.network.sockets.length, 5);
      // What waited went to dead letters at the give-up (give_up_ttl.test.ts).
      assert.deepEqual(h.network.last.sent, []);
      assert.deepEqual(h.deadLetters.map((d) => (d.message as Send).data), [
        "dropped",
      ]);
      assert.equal(h.of(WebSocketConnecting).at(-1)!.attempt, 1);
      // And the retry count starts again from 0.
      h.network.crash();
      await h.tick(0);
      assert.equal(h.of(WebSocketReconnectScheduled).at(-1)!.delayMs, 100);
    } finally {
      await h.done();
    }
  });

  it("with maxRetries 0 never retries", async () => {
    const h = harness();
    try {
      h.network.answer = "refuse";
      h.connect({ maxRetries: 0 });
      await h.tick(60_000);
      assert.equal(h.network.sockets.length, 1);
      assert.equal(h.of(WebSocketGaveUp).length, 1);
      assert.equal(h.of(WebSocketReconnectScheduled).length, 0);
    } finally {
      await h.done();
    }
  });

  it("stops for good when shouldReconnect says so, and Reconnect still works", async () => {
    const h = harness();
    try {
      const seen: number[] = [];
      const connection = h.connect({
        policy: doubling,
        shouldReconnect: (close) => {
          seen.push(close.code);
          return close.code !== 4001;
        },
      });
      await h.tick(0);
      h.network.last.end({ code: 1012, reason: "restart", wasClean: true });
      await h.tick(100);
      assert.equal(h.network.sockets.length, 2);
      h.network.last.end({ code: 4001, reason: "logged out", wasClean: true });
      await h.tick(60_000);
      assert.equal(h.network.sockets.length, 2);
      assert.deepEqual(seen, [1012, 4001]);
      const [gaveUp] = h.of(WebSocketGaveUp);
      assert.deepEqual({ ...gaveUp.close }, {
        code: 4001,
        reason: "logged out",
        wasClean: true,
      });
      assert.match(
        gaveUp.reason,
        /shouldReconnect returned false for code 4001/,
      );
      connection.tell(new Reconnect());
      await h.tick(0);
      assert.equal(h.network.sockets.length, 3);
      assert.equal(h.network.last.readyState, 1);
    } finally {
      await h.done();
    }
  });

  it("fails an attempt that takes longer than connectionTimeoutMs, closing its socket", async () => {
    const h = harness();
    try {
      h.network.answer = "hang";
      h.connect({ policy: doubling, connectionTimeoutMs: 3_000 });
      await h.tick(2_999);
      assert.equal(h.of(WebSocketClosed).length, 0);
      await h.tick(1);
      const [closed] = h.of(WebSocketClosed);
      assert.deepEqual([closed.code, closed.reason], [
        1006,
        "connection timed out after 3000 ms",
      ]);
      assert.deepEqual(h.network.sockets[0].closeCalls, [{
        code: 4000,
        reason: "connection timed out after 3000 ms",
      }]);
      await h.tick(100);
      assert.equal(h.network.sockets.length, 2);
    } finally {
      await h.done();
    }
  });

  it("calls a url function for each attempt; one that fails counts as a failed attempt", async () => {
    const h = harness();
    try {
      let calls = 0;
      h.connect({
        policy: doubling,
        url: async () => {
          calls++;
          await Promise.resolve(); // a token fetch
          if (calls === 1) throw new Error("token service down");
          if (calls === 2) return 42 as unknown as string;
          return `ws://example.test/ws?token=${calls}`;
        },
      });
      await h.tick(0);
      await h.tick(100);
      await h.tick(201);
      assert.equal(calls, 3);
      const [failed, notAUrl] = h.of(WebSocketClosed).map((e) => e.reason);
      assert.equal(failed, "url failed: Error: token service down");
      assert.equal(
        notAUrl,
        "url failed: url() returned 42, not an absolute ws:, wss:, http: or https: URL without a fragment",
      );
      assert.equal(h.network.sockets.length, 1);
      assert.equal(h.network.last.url, "ws://example.test/ws?token=3");
      assert.equal(h.network.last.readyState, 1);
    } finally {
      await h.done();
    }
  });

  it("fails the attempt, logs it and backs off when a url function returns no usable URL", async () => {
    const h = harness();
    try {
      const results: unknown[] = [
        "not a url",
        "ftp://example.test/",
        "wss://example.test/ws#frag",
        undefined,
        Object.create(null),
        new URL("ws://example.test/from-url-object"),
      ];
      let calls = 0;
      h.connect({ policy: doubling, url: () => results[calls++] as string });
      // Attempts at 0, then after 100, 200, 400, 800 and 1,600 ms.
      await h.tick(0);
      for (const wait of [100, 200, 400, 800]) {
        const before = calls;
        await h.tick(wait - 1);
        assert.equal(calls, before, `no attempt before ${wait} ms`);
        await h.tick(1);
        assert.equal(calls, before + 1, `an attempt after ${wait} ms`);
      }
      await h.tick(1_600);
      assert.equal(calls, 6);
      await h.tick(10); // the fake server answers
      const expected =
        ", not an absolute ws:, wss:, http: or https: URL without a fragment";
      assert.deepEqual(h.of(WebSocketClosed).map((e) => [e.code, e.reason]), [
        [1006, `url failed: url() returned "not a url"${expected}`],
        [1006, `url failed: url() returned "ftp://example.test/"${expected}`],
        [
          1006,
          `url failed: url() returned "wss://example.test/ws#frag"${expected}`,
        ],
        [1006, `url failed: url() returned undefined${expected}`],
        [
          1006,
          `url failed: url() returned an object (no prototype)${expected}`,
        ],
      ]);
      // A programming error, not a network one: each is logged as an error.
      assert.deepEqual(
        h.logs.map((record) => [record.level, record.message]),
        h.of(WebSocketClosed).map((e) => ["error", e.reason]),
      );
      // The URL object a function returns is used; nothing else reached the network.
      assert.deepEqual(h.network.sockets.map((socket) => socket.url), [
        "ws://example.test/from-url-object",
      ]);
      assert.equal(h.network.last.readyState, 1);
    } finally {
      await h.done();
    }
  });

  it("gives up after maxRetries when a url function never returns a usable URL", async () => {
    const h = harness();
    try {
      let calls = 0;
      h.connect({
        policy: doubling,
        maxRetries: 2,
        url: () => {
          calls++;
          return "ws://example.test:99999/";
        },
      });
      await h.tick(60_000);
      assert.equal(calls, 3, "the first attempt and 2 retries, then no more");
      const [gaveUp] = h.of(WebSocketGaveUp);
      assert.equal(gaveUp.reason, "maxRetries (2) reached");
      assert.match(
        gaveUp.close.reason,
        /^url failed: url\(\) returned "ws:\/\/example\.test:99999\/", not /,
      );
      assert.equal(h.network.sockets.length, 0);
    } finally {
      await h.done();
    }
  });

  it("describes a rejection or a constructor error that cannot be printed, and retries", async () => {
    const h = harness();
    try {
      let calls = 0;
      const Real = h.network.WebSocket;
      class Hostile extends Real {
        constructor(url: string, protocols?: string | string[]) {
          if (calls === 3) throw Object.create(null);
          super(url, protocols);
        }
      }
      h.connect({
        policy: doubling,
        WebSocket: Hostile,
        url: () => {
          calls++;
          if (calls === 1) return Promise.reject(Object.create(null));
          if (calls === 2) throw Symbol("no token");
          return "ws://example.test/ws";
        },
      });
      await h.tick(0);
      await h.tick(100);
      await h.tick(200);
      await h.tick(400);
      await h.tick(10); // the fake server answers
      assert.deepEqual(h.of(WebSocketClosed).map((e) => e.reason), [
        "url failed: an object (no prototype)",
        "url failed: Symbol(no token)",
        "cannot open: an object (no prototype)",
      ]);
      assert.equal(calls, 4);
      assert.equal(h.network.last.readyState, 1);
    } finally {
      await h.done();
    }
  });

  it("uses a URL object's address as it was when websocketProps was called", async () => {
    const h = harness();
    try {
      const url = new URL("wss://example.test/ws?v=1");
      h.connect({ url });
      url.search = "?v=2";
      url.hash = "#not-allowed";
      await h.tick(0);
      assert.equal(h.network.last.url, "wss://example.test/ws?v=1");
      assert.equal(h.network.last.readyState, 1);
    } finally {
      await h.done();
    }
  });

  it("waits 30 s, logs an error, and keeps timers honest when a custom policy misbehaves", async () => {
    const h = harness();
    try {
      h.network.answer = "refuse";
      const delays: unknown[] = [
        "throw",
        NaN,
        -5,
        "100",
        undefined,
        1e12, // beyond what a timer can wait: clamped, not fired at once
      ];
      h.connect({
        policy: {
          delayFor: (n: number) => {
            if (delays[n] === "throw") throw new Error("policy bug");
            return delays[n] as number;
          },
        },
      });
      await h.tick(5 * 30_000 + 100);
      assert.deepEqual(
        h.of(WebSocketReconnectScheduled).map((e) => e.delayMs),
        [30_000, 30_000, 30_000, 30_000, 30_000, 2_147_483_647],
      );
      assert.equal(h.network.sockets.length, 6, "one attempt per 30 s wait");
      await h.tick(2_147_483_647 - 1_000);
      assert.equal(h.network.sockets.length, 6, "the long wait is honoured");
      const logged = h.logs.map((record) => record.message);
      assert.equal(logged.length, 5);
      assert.match(
        logged[0],
        /policy\.delayFor\(0\) threw; waiting (maxBackoff \()?30000 ms/,
      );
      assert.match(logged[1], /policy\.delayFor\(1\) returned NaN/);
      assert.match(logged[3], /returned "100", not a delay/);
      assert.ok(h.logs.every((record) => record.level === "error"));
    } finally {
      await h.done();
    }
  });

  it("times out a url function that never answers, and ignores its late answer", async () => {
    const h = harness();
    try {
      let release!: (url: string) => void;
      let calls = 0;
      h.connect({
        policy: doubling,
        connectionTimeoutMs: 1_000,
        url: () => {
          calls++;
          return calls === 1
            ? new Promise<string>((resolve) => release = resolve)
            : "ws://example.test/2";
        },
      });
      await h.tick(1_000);
      assert.equal(
        h.of(WebSocketClosed)[0].reason,
        "connection timed out after 1000 ms",
      );
      release("ws://example.test/late");
      await h.tick(100);
      assert.deepEqual(h.network.sockets.map((s) => s.url), [
        "ws://example.test/2",
      ]);
      assert.equal(h.deadLetters.length, 0);
    } finally {
      await h.done();
    }
  });

  it("treats a WebSocket constructor that throws as a failed attempt", async () => {
    const h = harness();
    try {
      let calls = 0;
      const Real = h.network.WebSocket;
      class Picky extends Real {
        constructor(url: string, protocols?: string | string[]) {
          if (++calls === 1) throw new SyntaxError("bad url");
          super(url, protocols);
        }
      }
      h.connect({ policy: doubling, WebSocket: Picky });
      await h.tick(101);
      assert.equal(
        h.of(WebSocketClosed)[0].reason,
        "cannot open: SyntaxError: bad url",
      );
      assert.equal(h.network.last.readyState, 1);
    } finally {
      await h.done();
    }
  });

  it("Reconnect while open replaces the socket at once", async () => {
    const h = harness();
    try {
      const connection = h.connect({ policy: doubling });
      await h.tick(0);
      connection.tell(new Reconnect());
      await h.tick(0);
      assert.equal(h.network.sockets.length, 2);
      assert.deepEqual(h.network.sockets[0].closeCalls, [{
        code: 1000,
        reason: "reconnect",
      }]);
      assert.equal(h.network.last.readyState, 1);
      assert.equal(h.of(WebSocketReconnectScheduled).length, 0);
    } finally {
      await h.done();
    }
  });

  it("Reconnect right after a pause began, while the attempt is being ended, connects again at once", async () => {
    const h = harness();
    try {
      const page = new FakePage();
      h.network.answer = "hang";
      const connection = h.connect({ page, policy: doubling });
      await h.tick(0);
      page.goOffline(); // the attempt under way is being abandoned...
      connection.tell(new Reconnect()); // ...and Reconnect goes on regardless
      await h.tick(0);
      assert.equal(h.network.sockets.length, 2);
      assert.deepEqual(h.network.sockets[0].closeCalls, [{
        code: 1000,
        reason: "paused: offline",
      }]);
      assert.deepEqual(
        h.of(WebSocketConnecting).map((e) => [e.attempt, e.delayMs]),
        [[1, 0], [1, 0]],
      );
    } finally {
      await h.done();
    }
  });
});
