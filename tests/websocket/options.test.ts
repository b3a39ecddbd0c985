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
    const expected =
      "an absolute ws:, wss:, http: or https: URL without a fragment (a string or URL), or a function";
    assertRejects(
      { url: "not a url" },
      TypeError,
      '"url"',
      '(got "not a url")',
      expected,
    );
    assertRejects(
      { url: "ftp://example.test/" },
      TypeError,
      '(got "ftp://example.test/")',
    );
    assertRejects({ url: 42 }, TypeError, "(got 42)", expected);
    assertRejects({ url: undefined }, TypeError, "(got undefined)");
  });

  it("rejects at the call a static url no WebSocket would accept, instead of retrying it forever", () => {
    for (
      const url of [
        "", // empty
        "ws://example.test:99999/", // cannot be parsed: port out of range
        "ws://exa<mple.test/", // cannot be parsed: a forbidden host code point
        "ws://[::1/", // cannot be parsed
        "/ws", // relative: no base outside a page
        "//example.test/ws", // no scheme
        "wss://example.test/#", // a fragment, even empty: a SyntaxError in browsers
        "wss://example.test/ws#top",
        "mailto:ops@example.test",
        "about:blank",
        "file:///tmp/socket",
        "ws", // no colon at all
      ]
    ) {
      assertRejects(
        { url },
        TypeError,
        '"url"',
        `(got ${JSON.stringify(url)})`,
      );
    }
    assertRejects(
      { url: new URL("ftp://example.test/") },
      TypeError,
      '"url"',
      "(got an object (URL))",
    );
  });

  it("accepts every URL form WebSocket constructors accept, and URL objects", () => {
    for (
      const url of [
        "ws://example.test/",
        "wss://example.test:8443/path?q=1",
        "WSS://Example.test/ws", // schemes and hosts are case-insensitive
        "http://example.test/ws", // turned into ws: by the WebSocket
        "https://example.test/ws", // turned into wss:
        "ws://127.0.0.1:9000",
        "ws://[::1]:9000/",
        new URL("wss://example.test/ws"),
      ]
    ) {
      websocketProps({ ...base, url } as WebSocketOptions);
    }
  });

  it("describes any bad value safely in its error", () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const throwing = {
      toString(): string {
        throw new Error("toString");
      },
    };
    const cases: [Record<string, unknown>, string][] = [
      [{ url: Object.create(null) }, "(got an object (no prototype))"],
      [{ url: 10n }, "(got 10n)"],
      [{ url: Symbol("u") }, "(got Symbol(u))"],
      [{ url: throwing }, "(got an object (Object))"],
      [{ url: proxy }, "(got an object (unreadable))"],
      [{ minUptimeMs: 10n }, "(got 10n)"],
      [{ maxQueued: Symbol("q") }, "(got Symbol(q))"],
      [{ shouldReconnect: Object.create(null) }, "an object (no prototype)"],
      [{ heartbeat: { intervalMs: throwing, timeoutMs: 1 } }, "(got an object"],
    ];
    for (const [options, shown] of cases) {
      assertRejects(options, TypeError, shown);
    }
    for (const options of [10n, Symbol("o"), null, "ws://example.test/"]) {
      assert.throws(
        () => websocketProps(options as never),
        (error: Error) =>
          error instanceof TypeError && error.message.includes('"options"'),
      );
    }
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
      '(got "me")',
      "an ActorRef or a function",
    );
    assertRejects(
      { policy: { delay: () => 1 } },
      TypeError,
      '"policy" must be a BackoffPolicy (an object with a delayFor(restartCount) method)',
      "(got an object (Object))",
    );
    assertRejects({ policy: null }, TypeError, '"policy"', "(got null)");
    assertRejects(
      { shouldReconnect: true },
      TypeError,
      '"shouldReconnect"',
      "(got true)",
      "a function",
    );
    assertRejects(
      { WebSocket: "ws" },
      TypeError,
      '"WebSocket"',
      '(got "ws")',
      "a WebSocket class",
    );
    assertRejects(
      { page: 1 },
      TypeError,
      '"page"',
      "(got 1)",
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
      "(got -1)",
      "a finite number of milliseconds from 0 to 2147483647",
    );
    assertRejects(
      { connectionTimeoutMs: 0 },
      RangeError,
      '"connectionTimeoutMs"',
      "from 1 to 2147483647 (got 0)",
    );
    assertRejects(
      { connectionTimeoutMs: 2 ** 31 },
      RangeError,
      "(got 2147483648)",
    );
    assertRejects({ minUptimeMs: NaN }, RangeError, "(got NaN)");
    assertRejects({ hiddenCloseMs: -5 }, RangeError, "(got -5)");
    assertRejects(
      { heartbeat: { intervalMs: 0, timeoutMs: 1 } },
      RangeError,
      '"heartbeat.intervalMs"',
      "(got 0)",
    );
    assertRejects(
      { heartbeat: { intervalMs: 1, timeoutMs: "1s" } },
      TypeError,
      '"heartbeat.timeoutMs"',
      '(got "1s")',
    );
  });

  it("checks every timer-bound option against 2^31 − 1 ms, the longest a timer can wait", () => {
    const MAX = 2_147_483_647;
    const at = (value: number): Record<string, unknown>[] => [
      { minUptimeMs: value },
      { connectionTimeoutMs: value },
      { hiddenCloseMs: value },
      { heartbeat: { intervalMs: value, timeoutMs: 1 } },
      { heartbeat: { intervalMs: 1, timeoutMs: value } },
    ];
    for (const options of at(MAX)) {
      websocketProps({ ...base, ...options } as WebSocketOptions);
    }
    for (const value of [MAX + 1, 1e12, Number.MAX_VALUE]) {
      for (const options of at(value)) {
        const [name, given] = Object.entries(options)[0];
        const field = typeof given === "object"
          ? `${name}.${
            Object.entries(given as object).find(([, v]) => v === value)![0]
          }`
          : name;
        assertRejects(
          options,
          RangeError,
          `"${field}"`,
          `(got ${value})`,
          `to ${MAX}`,
        );
      }
    }
    // Infinity means "never" where it is the default, and only there.
    websocketProps({ ...base, hiddenCloseMs: Infinity });
    assertRejects({ minUptimeMs: Infinity }, RangeError, "minUptimeMs");
    assertRejects(
      { heartbeat: { intervalMs: Infinity, timeoutMs: 1 } },
      RangeError,
      "(got Infinity)",
    );
  });

  it("rejects a heartbeat message that is not a frame or a function", () => {
    for (
      const message of [
        "ping",
        new Uint8Array(1),
        new ArrayBuffer(1),
        () => "p",
      ]
    ) {
      websocketProps({
        ...base,
        heartbeat: { intervalMs: 1, timeoutMs: 1, message },
      });
    }
    assertRejects(
      { heartbeat: { intervalMs: 1, timeoutMs: 1, message: 42 } },
      TypeError,
      '"heartbeat.message"',
      "(got 42)",
      "a string, ArrayBuffer, ArrayBufferView, Blob or a function",
    );
    assertRejects(
      { heartbeat: { intervalMs: 1, timeoutMs: 1, message: { type: "ping" } } },
      TypeError,
      "(got an object (Object))",
    );
  });

  it("rejects counts that are not whole numbers", () => {
    assertRejects(
      { maxRetries: -1 },
      RangeError,
      '"maxRetries"',
      "(got -1)",
      "a whole number >= 0 or Infinity",
    );
    assertRejects({ maxRetries: 1.5 }, RangeError, "(got 1.5)");
    assertRejects(
      { maxQueued: Infinity },
      RangeError,
      "(got Infinity)",
      "an integer",
    );
    assertRejects({ maxQueued: "10" }, TypeError, '(got "10")');
  });

  it("rejects a size or count of 0 where 0 could send nothing", () => {
    const ack = { encode: String, decodeAck: () => undefined };
    const cases: [Record<string, unknown>, string, string][] = [
      [{ maxMessageBytes: 0 }, "maxMessageBytes", "0"],
      [{ maxMessageBytes: 2.5 }, "maxMessageBytes", "2.5"],
      [{ ack: { ...ack, maxUnacked: 0 } }, "ack.maxUnacked", "0"],
      [{ ack: { ...ack, maxAttempts: -1 } }, "ack.maxAttempts", "-1"],
    ];
    for (const [options, option, shown] of cases) {
      assertRejects(
        options,
        RangeError,
        `"${option}" must be a whole number >= 1 or Infinity (got ${shown})`,
      );
    }
    assertRejects(
      { ack: { ...ack, maxAttempts: "3" } },
      TypeError,
      '"ack.maxAttempts" must be a whole number >= 1 or Infinity (got "3")',
    );
    websocketProps({
      ...base,
      maxMessageBytes: Infinity,
      ack: { ...ack, maxUnacked: Infinity, maxAttempts: Infinity },
    } as WebSocketOptions);
  });

  it("takes ack.decodeRefusal as a function or undefined, and nothing else", () => {
    const ack = { encode: String, decodeAck: () => undefined };
    for (const decodeRefusal of ["\u0006x", 1, null, {}]) {
      assertRejects(
        { ack: { ...ack, decodeRefusal } },
        TypeError,
        '"ack.decodeRefusal" must be a function',
        "(got ",
      );
    }
    websocketProps({ ...base, ack: { ...ack, decodeRefusal: undefined } });
    websocketProps({
      ...base,
      ack: { ...ack, decodeRefusal: () => undefined },
    });
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
    for (const code of [1001, 1006, 2999, 5000, 4000.5, NaN, Infinity, -1]) {
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

  it("Close takes a reason of up to 123 bytes of UTF-8, counted as a browser counts them", () => {
    assert.equal(new Close(1000, "a".repeat(123)).reason.length, 123);
    assert.equal(new Close(1000, "€".repeat(41)).reason.length, 41); // 3 bytes each
    assert.equal(new Close(3000, "😀".repeat(30) + "abc").code, 3000); // 4 bytes each
    for (const reason of ["a".repeat(124), "€".repeat(42), "😀".repeat(31)]) {
      assert.throws(() => new Close(1000, reason), RangeError);
    }
  });

  it("Close rejects a code that is not a number or a reason that is not a string, with a TypeError", () => {
    for (
      const [code, shown] of [
        ["1000", '(got "1000")'],
        [1000n, "(got 1000n)"],
        [null, "(got null)"],
        [Symbol("c"), "(got Symbol(c))"],
        [Object.create(null), "(got an object (no prototype))"],
      ] as [unknown, string][]
    ) {
      assert.throws(
        () => new Close(code as number),
        (error: Error) =>
          error instanceof TypeError && error.message.includes('"code"') &&
          error.message.includes(shown),
        shown,
      );
    }
    for (
      const [reason, shown] of [
        [42, "(got 42)"],
        [null, "(got null)"],
        [Symbol("r"), "(got Symbol(r))"],
        [10n, "(got 10n)"],
        [{ toString: () => "bye" }, "(got an object (Object))"],
        [Object.create(null), "(got an object (no prototype))"],
        [["bye"], "(got an array)"],
      ] as [unknown, string][]
    ) {
      assert.throws(
        () => new Close(1000, reason as string),
        (error: Error) =>
          error instanceof TypeError && error.message.includes('"reason"') &&
          error.message.includes("a string") && error.message.includes(shown),
        shown,
      );
    }
    // Omitted arguments take their defaults.
    assert.deepEqual({ ...new Close(undefined, undefined) }, {
      code: 1000,
      reason: "",
    });
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
