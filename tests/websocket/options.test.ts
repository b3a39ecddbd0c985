// Copyright 2026 the understudy authors. MIT license.
// Bad input fails at the call, naming the option, the value and what was
// expected; good input has the documented defaults.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { exponentialBackoff } from "../../mod.ts";
import {
  Close,
  defaultReconnectPolicy,
  Send,
  type WebSocketOptions,
  websocketProps,
} from "../../src/websocket/mod.ts";
import { FakeNetwork } from "./_fake_websocket.ts";

const WebSocket = new FakeNetwork().WebSocket;
const base: WebSocketOptions = {
  url: "ws://example.test/",
  page: false,
  WebSocket,
};

function assertRejects(
  options: Record<string, unknown>,
  ErrorClass: typeof TypeError | typeof RangeError,
  ...fragments: string[]
): void {
  const call = () =>
    websocketProps({ ...base, ...options } as WebSocketOptions);
  assert.throws(call, ErrorClass);
  assert.throws(call, /Cannot create WebSocket connection/);
  for (const fragment of fragments) {
    assert.throws(
      call,
      (error: Error) => error.message.includes(fragment),
      `message lacks ${fragment}`,
    );
  }
}

describe("websocketProps options", () => {
  it("accepts a minimal configuration and every documented option", () => {
    websocketProps(base);
    websocketProps({
      ...base,
      url: () => Promise.resolve("wss://example.test/"),
      protocols: ["chat.v2", "chat.v1"],
      subscriber: () => {},
      policy: exponentialBackoff({ minMs: 10, maxMs: 100 }),
      minUptimeMs: 0,
      connectionTimeoutMs: 1,
      maxRetries: 0,
      maxQueued: 0,
      shouldReconnect: () => false,
      heartbeat: { intervalMs: 1_000, timeoutMs: 500, message: () => "ping" },
      hiddenCloseMs: 0,
    });
  });

  it("rejects a url that is not a WebSocket URL or a function", () => {
    const expected = "a ws:, wss:, http: or https: URL, or a function";
    assertRejects(
      { url: "not a url" },
      TypeError,
      '"url"',
      'url="not a url"',
      expected,
    );
    assertRejects(
      { url: "ftp://example.test/" },
      TypeError,
      'url="ftp://example.test/"',
    );
    assertRejects({ url: 42 }, TypeError, "url=42", expected);
    assertRejects({ url: undefined }, TypeError, "url=undefined");
  });

  it("rejects bad protocols, subscriber, policy, callbacks and classes", () => {
    assertRejects(
      { protocols: ["ok", 3] },
      TypeError,
      '"protocols"',
      "a string or an array of strings",
    );
    assertRejects(
      { subscriber: "me" },
      TypeError,
      '"subscriber"',
      'subscriber="me"',
      "an ActorRef or a function",
    );
    assertRejects(
      { policy: { delay: () => 1 } },
      TypeError,
      '"policy"',
      "delayFor",
    );
    assertRejects(
      { shouldReconnect: true },
      TypeError,
      '"shouldReconnect"',
      "shouldReconnect=true",
      "a function",
    );
    assertRejects(
      { WebSocket: "ws" },
      TypeError,
      '"WebSocket"',
      'WebSocket="ws"',
      "a WebSocket class",
    );
    assertRejects(
      { page: 1 },
      TypeError,
      '"page"',
      "page=1",
      "false or an EventTarget",
    );
    assertRejects(
      { heartbeat: "often" },
      TypeError,
      '"heartbeat"',
      "intervalMs",
    );
  });

  it("rejects times a timer cannot honour", () => {
    assertRejects(
      { minUptimeMs: -1 },
      RangeError,
      '"minUptimeMs"',
      "minUptimeMs=-1",
      "[0, 2147483647]",
    );
    assertRejects(
      { connectionTimeoutMs: 0 },
      RangeError,
      '"connectionTimeoutMs"',
      "[1, 2147483647]",
    );
    assertRejects(
      { connectionTimeoutMs: 2 ** 31 },
      RangeError,
      "connectionTimeoutMs=2147483648",
    );
    assertRejects({ minUptimeMs: NaN }, RangeError, "minUptimeMs=NaN");
    assertRejects({ hiddenCloseMs: -5 }, RangeError, "hiddenCloseMs=-5");
    assertRejects(
      { heartbeat: { intervalMs: 0, timeoutMs: 1 } },
      RangeError,
      '"heartbeat.intervalMs"',
      "=0",
    );
    assertRejects(
      { heartbeat: { intervalMs: 1, timeoutMs: "1s" } },
      TypeError,
      '"heartbeat.timeoutMs"',
      '="1s"',
    );
  });

  it("rejects counts that are not whole numbers", () => {
    assertRejects(
      { maxRetries: -1 },
      RangeError,
      '"maxRetries"',
      "maxRetries=-1",
      "an integer",
    );
    assertRejects({ maxRetries: 1.5 }, RangeError, "maxRetries=1.5");
    assertRejects(
      { maxQueued: Infinity },
      RangeError,
      "maxQueued=Infinity",
      "an integer",
    );
    assertRejects({ maxQueued: "10" }, TypeError, 'maxQueued="10"');
  });

  it("asks for a WebSocket class where the runtime has none", () => {
    const host = globalThis as { WebSocket?: unknown };
    const saved = Object.getOwnPropertyDescriptor(host, "WebSocket");
    Object.defineProperty(host, "WebSocket", {
      value: undefined,
      configurable: true,
      writable: true,
    });
    try {
      assertRejects(
        { WebSocket: undefined },
        TypeError,
        '"WebSocket"',
        'on Node 20, pass WebSocket from "ws"',
      );
    } finally {
      if (saved) Object.defineProperty(host, "WebSocket", saved);
      else delete host.WebSocket;
    }
  });
});

describe("Send and Close", () => {
  it("Send takes text and binary data, and rejects anything else", () => {
    for (
      const data of [
        "text",
        new ArrayBuffer(2),
        new Uint8Array(2),
        new DataView(new ArrayBuffer(1)),
        new Blob(["b"]),
      ]
    ) {
      assert.equal(new Send(data).data, data);
    }
    for (const data of [undefined, 42, { text: "hi" }]) {
      assert.throws(
        () => new Send(data as never),
        (error: Error) =>
          error instanceof TypeError && error.message.includes('"data"') &&
          error.message.includes("string, ArrayBuffer"),
      );
    }
  });

  it("Close takes the codes a browser may send and a short reason", () => {
    assert.deepEqual({ ...new Close() }, { code: 1000, reason: "" });
    assert.equal(new Close(4001, "logged out").code, 4001);
    for (const code of [1001, 1006, 2999, 5000, 4000.5]) {
      assert.throws(
        () => new Close(code),
        (error: Error) =>
          error instanceof RangeError && error.message.includes('"code"') &&
          error.message.includes(String(code)),
      );
    }
    assert.throws(
      () => new Close(1000, "é".repeat(62)),
      (error: Error) =>
        error instanceof RangeError && error.message.includes('"reason"') &&
        error.message.includes("123"),
    );
  });
});

describe("defaultReconnectPolicy", () => {
  it("starts near 1 s and jitters ±50% around a 30 s cap", () => {
    const low = defaultReconnectPolicy(() => 0);
    const high = defaultReconnectPolicy(() => 1 - 2 ** -32);
    assert.equal(low.delayFor(0), 500);
    assert.ok(Math.abs(high.delayFor(0) - 1_500) < 0.01);
    assert.equal(low.delayFor(50), 15_000);
    assert.ok(Math.abs(high.delayFor(50) - 45_000) < 0.01);
  });
});
