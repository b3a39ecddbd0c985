// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The options of `websocketProps`, their defaults, and their validation.
 *
 * @module
 */

import type { BackoffPolicy } from "../backoff/backoff_policy.ts";
import { exponentialBackoff } from "../backoff/exponential.ts";
import {
  checkCount,
  checkDelay,
  checkNumber,
  checkPolicy,
  fail,
} from "../validation.ts";
import { ActorRef } from "../runtime/actor_ref.ts";
import type { WebSocketEvent } from "./events.ts";
import { isWebSocketData } from "./messages.ts";
import type { PageLike } from "./page_like.ts";
import type {
  CloseInfo,
  WebSocketConstructor,
  WebSocketData,
} from "./websocket_like.ts";

/**
 * An application-level heartbeat, for half-open sockets (a NAT that forgot
 * the connection, a laptop that slept): browsers cannot send ping frames,
 * and such a socket stays "open" without a close event for minutes.
 *
 * With one, a socket counts as connected only after a first round trip: a
 * ping goes out as it opens, and `WebSocketOpened` is published when a
 * frame comes back (if none does within `timeoutMs`, the attempt fails).
 * When a page becomes visible again, a ping goes out at once too (timers
 * may not have run while it was hidden).
 *
 * @example Usage
 * ```ts
 * import type { HeartbeatOptions } from "@understudy/core/websocket";
 *
 * const heartbeat: HeartbeatOptions = { intervalMs: 20_000, timeoutMs: 5_000, message: '{"type":"ping"}' };
 * ```
 */
export interface HeartbeatOptions {
  /** Sends `message` this often while the socket is open. */
  intervalMs: number;
  /** If no frame at all arrives within this long after a ping, the socket is closed and replaced. */
  timeoutMs: number;
  /** The ping (text or binary data), or a function making it. Default `"ping"`. */
  message?: WebSocketData | (() => WebSocketData);
}

/**
 * Acknowledged mode: each outgoing message carries an id, and counts as
 * delivered only when the server acknowledges that id. Until then it stays
 * in a bounded buffer, and after every reconnect the unacknowledged
 * messages are sent again, in order, before any newer one. The server must
 * acknowledge every copy it receives (it may receive one more than once)
 * and can skip the ids it has already seen.
 *
 * @example Usage
 * ```ts
 * import type { AckOptions } from "@understudy/core/websocket";
 *
 * const ack: AckOptions = {
 *   encode: (id, data) => JSON.stringify({ id, data }),
 *   decodeAck: (data) => {
 *     const frame = typeof data === "string" && data.startsWith('{"ack":') ? JSON.parse(data) : undefined;
 *     return typeof frame?.ack === "number" ? frame.ack : undefined;
 *   },
 *   maxUnacked: 500,
 *   maxAttempts: 5,
 * };
 * ```
 */
export interface AckOptions {
  /**
   * The frame that carries message `id` (1, 2, 3, … for each connection
   * actor, kept by each copy sent again) and the `Send`'s data. If it throws
   * or returns no text or binary data, the message goes to dead letters.
   */
  encode(id: number, data: WebSocketData): WebSocketData;
  /**
   * The id an incoming frame acknowledges, or `undefined` if it is no
   * acknowledgement (then it is reported as a `WebSocketMessage`).
   * Acknowledgements are not reported as messages.
   */
  decodeAck(data: unknown): number | undefined;
  /**
   * For a server that says, as each connection opens, the last id it has
   * handled from this client (a Durable Object's `SocketServer` does): that
   * id, if an incoming frame is that word, else `undefined`. With it,
   * nothing is written on a new socket until the word came; then the
   * messages waiting with an id up to it are answered `Sent`
   * (acknowledged), the others are sent again, and new ids continue after
   * it. Optional: without it, every unacknowledged message is sent again.
   */
  decodeResume?(data: unknown): number | undefined;
  /**
   * For a server that refuses a message it will never process (a Durable
   * Object's `SocketServer` refuses one that became a dead letter there):
   * the id and the server's reason, if an incoming frame is a refusal,
   * else `undefined`. A refused message still waiting for its
   * acknowledgement leaves the buffer (it is never sent again) and goes to
   * dead letters, as "refused by the server: " and the reason (a
   * `"dropped"` event; its `sendConfirmed` rejects). Refusals are not
   * reported as messages, and are heard before the server's word too
   * (`decodeResume`). Optional: without it, the server can only
   * acknowledge.
   */
  decodeRefusal?(data: unknown): { id: number; reason: string } | undefined;
  /**
   * How many messages may wait for their acknowledgement; a message that
   * would be one more goes to dead letters. Default 1000 (`Infinity`: no
   * limit).
   */
  maxUnacked?: number;
  /**
   * How many times a message is sent (the first time included) without an
   * acknowledgement before it goes to dead letters. Default 10
   * (`Infinity`: until acknowledged or closed).
   */
  maxAttempts?: number;
}

/**
 * Options of {@linkcode websocketProps}. Only `url` is required.
 *
 * @example Usage
 * ```ts
 * import { exponentialBackoff } from "@understudy/core";
 * import type { WebSocketOptions } from "@understudy/core/websocket";
 *
 * const options: WebSocketOptions = {
 *   url: async () => `wss://api.example/ws?token=${await Promise.resolve("t0k3n")}`,
 *   policy: exponentialBackoff({ minMs: 500, maxMs: 20_000, randomFactor: 0.5 }),
 *   maxRetries: 20,
 *   shouldReconnect: (close) => close.code !== 1008 && close.code !== 4001,
 *   heartbeat: { intervalMs: 25_000, timeoutMs: 5_000 },
 *   hiddenCloseMs: 5 * 60_000,
 *   subscriber: (event) => console.log(event.constructor.name),
 * };
 * ```
 */
export interface WebSocketOptions {
  /**
   * Where to connect: an absolute URL (a string or a `URL`) with scheme
   * `ws:`, `wss:`, `http:` or `https:` and no fragment (`#…`), which is what
   * every WebSocket constructor accepts; or a function returning one, maybe
   * asynchronously (for instance with a fresh token). A URL given directly is
   * checked at the call: one that cannot be parsed, has another scheme or a
   * fragment throws a TypeError there, instead of failing every attempt. A
   * function is called at each attempt: if it throws, rejects, or returns
   * something that is not such a URL, that attempt fails
   * (`WebSocketClosed(1006, "url failed: …")`, the last case also logged as
   * an error) and is retried with backoff, counting towards `maxRetries`.
   */
  url:
    | string
    | URL
    | (() => string | URL | PromiseLike<string | URL>);
  /** Subprotocols to offer. */
  protocols?: string | string[];
  /** Who hears the events ({@linkcode WebSocketEvent}), incoming frames included: an actor or a function. */
  subscriber?: ActorRef<WebSocketEvent> | ((event: WebSocketEvent) => void);
  /** The delay before each retry. Default {@linkcode defaultReconnectPolicy}. */
  policy?: BackoffPolicy;
  /**
   * How long a connection must stay open to count as a success: then the
   * retry count goes back to 0. One that closes sooner is a failed attempt:
   * the backoff keeps growing. (It does not decide what is sent again: in
   * the default mode nothing is; in acknowledged mode whatever was not
   * acknowledged.) Default 5000.
   */
  minUptimeMs?: number;
  /** How long an attempt (URL function included) may take before it fails. Default 10,000. */
  connectionTimeoutMs?: number;
  /** Retries without a stable connection before giving up (`WebSocketGaveUp`). Default `Infinity`; 0 never retries. */
  maxRetries?: number;
  /**
   * How many `Send`s may wait for a connection; past that, new ones go to
   * dead letters (with a `WebSocketMessageDropped` event). Default 1000.
   */
  maxQueued?: number;
  /**
   * The largest message, in bytes (text counted as UTF-8), that a `Send` may
   * carry; a larger one goes to dead letters at once, with a
   * `WebSocketMessageDropped` event. Default 1 MiB (1,048,576), what every
   * common server accepts: Cloudflare Workers close the socket (1009) above
   * it; Bun's server accepts 16 MiB, Deno's 64 MiB, the `ws` package's
   * 100 MiB. Raise it to what your server accepts (`Infinity`: no limit).
   */
  maxMessageBytes?: number;
  /**
   * How long a `Send` may wait for a connection, in milliseconds from when
   * the connection actor got it: one that waited this long is a dead letter
   * (`"expired: …"`, with a `WebSocketMessageDropped` event; its ask
   * rejects), never sent stale. In acknowledged mode it bounds the resends
   * too. Default `Infinity` (no limit).
   */
  ttlMs?: number;
  /** Acknowledged mode (see {@linkcode AckOptions}). Default: off. */
  ack?: AckOptions;
  /**
   * Whether to retry after a close or a failed attempt (not called for the
   * client's own closes: `Close`, `Reconnect`, pauses). If it throws, the
   * connection retries. Default: always.
   */
  shouldReconnect?: (close: CloseInfo) => boolean;
  /** An application-level ping, to detect half-open sockets. Default: none. */
  heartbeat?: HeartbeatOptions;
  /** Close while the page has been hidden this long, and connect again when it is visible. Default `Infinity` (never). */
  hiddenCloseMs?: number;
  /**
   * The page whose `online`, `offline`, `visibilitychange`, `pagehide`,
   * `pageshow`, `freeze` and `resume` events count; `false` to ignore them.
   * Default: `globalThis` if it has `addEventListener`.
   */
  page?: PageLike | false;
  /** The WebSocket class. Default: `globalThis.WebSocket`, read at each attempt. */
  WebSocket?: WebSocketConstructor;
}

/**
 * The default retry delays: 1 s, doubling up to 30 s, each moved by up to
 * ±50% at random, the cap included, so a fleet of clients that lost the
 * same server keeps spreading its retries instead of retrying in step.
 *
 * @example Usage
 * ```ts
 * import { defaultReconnectPolicy } from "@understudy/core/websocket";
 *
 * const delay = defaultReconnectPolicy().delayFor(10); // 15,000 to 45,000 ms
 * console.log(delay >= 15_000 && delay <= 45_000); // true
 * ```
 *
 * @param random Uniform numbers in [0, 1); default `secureRandom`.
 * @returns The policy.
 */
export function defaultReconnectPolicy(random?: () => number): BackoffPolicy {
  return exponentialBackoff({
    minMs: 1_000,
    maxMs: 30_000,
    randomFactor: 0.5,
    random,
  });
}

/** Options after defaults and validation. */
export interface Settings
  extends Omit<WebSocketOptions, "page" | "url" | "ack"> {
  /** A checked URL (see {@linkcode webSocketUrl}), or the function. */
  readonly url: string | (() => string | URL | PromiseLike<string | URL>);
  readonly policy: BackoffPolicy;
  readonly minUptimeMs: number;
  readonly connectionTimeoutMs: number;
  readonly maxRetries: number;
  readonly maxQueued: number;
  readonly maxMessageBytes: number;
  readonly ttlMs: number;
  readonly ack:
    | Required<Omit<AckOptions, "decodeResume" | "decodeRefusal">>
      & Pick<AckOptions, "decodeResume" | "decodeRefusal">
    | undefined;
  readonly hiddenCloseMs: number;
  readonly page: PageLike | undefined;
}

const ACTION = "create WebSocket connection";

const bad = (name: string, expected: string, value: unknown): never =>
  fail(ACTION, name, expected, value);

/** A time a timer can wait. */
const time = (name: string, value: number, lowest = 0) =>
  checkDelay(ACTION, name, value, lowest);

/** A size with no "unlimited": a whole number from 0. */
const count = (name: string, value: number) =>
  checkNumber(ACTION, name, value, 0, Number.MAX_SAFE_INTEGER, true);

/** What a URL must be, for messages. */
export const URL_EXPECTED =
  "an absolute ws:, wss:, http: or https: URL without a fragment";

/**
 * The URL to hand a WebSocket constructor, as a string, if `url` is one
 * every WebSocket accepts: a string or `URL` that parses as an absolute URL
 * with scheme ws:, wss:, http: or https: (browsers, Deno, Bun and the `ws`
 * package turn the last two into ws: and wss:) and no fragment, not even an
 * empty one (a SyntaxError in browsers, Deno and Bun). Else undefined. Never
 * throws.
 */
export function webSocketUrl(url: unknown): string | undefined {
  try {
    const href = url instanceof URL
      ? url.href
      : typeof url === "string"
      ? new URL(url).href
      : "";
    // `href` has its scheme in lower case, and a `#` only before a fragment.
    return /^(wss?|https?):/.test(href) && !href.includes("#")
      ? href
      : undefined;
  } catch {
    return undefined; // not parseable, or a URL-like object that throws
  }
}

/** Checks every option; throws `TypeError` or `RangeError` naming the first bad one. */
export function settingsFrom(options: WebSocketOptions): Settings {
  if (typeof options !== "object" || options === null) {
    bad("options", "an object", options);
  }
  const host = globalThis as unknown as Partial<PageLike> & {
    WebSocket?: unknown;
  };
  const {
    url,
    protocols,
    subscriber,
    policy = defaultReconnectPolicy(),
    minUptimeMs = 5_000,
    connectionTimeoutMs = 10_000,
    maxRetries = Infinity,
    maxQueued = 1_000,
    maxMessageBytes = 1_048_576,
    ttlMs = Infinity,
    ack,
    shouldReconnect,
    heartbeat,
    hiddenCloseMs = Infinity,
    page = typeof host.addEventListener === "function" && host as PageLike,
    WebSocket,
  } = options;
  // A URL given directly is copied now: one changed later is not re-checked.
  const checkedUrl = (typeof url === "function" ? url : webSocketUrl(url)) ??
    bad("url", `${URL_EXPECTED} (a string or URL), or a function`, url);
  if (
    protocols !== undefined &&
    [protocols].flat().some((protocol) => typeof protocol !== "string")
  ) {
    bad("protocols", "a string or an array of strings", protocols);
  }
  if (
    subscriber !== undefined && typeof subscriber !== "function" &&
    !(subscriber instanceof ActorRef)
  ) {
    bad("subscriber", "an ActorRef or a function", subscriber);
  }
  checkPolicy(ACTION, "policy", policy);
  time("minUptimeMs", minUptimeMs);
  time("connectionTimeoutMs", connectionTimeoutMs, 1);
  // Infinity, where it is the default, means never.
  checkCount(ACTION, "maxRetries", maxRetries);
  count("maxQueued", maxQueued);
  // Neither 0 bytes nor 0 unacknowledged messages nor 0 tries could send anything.
  checkCount(ACTION, "maxMessageBytes", maxMessageBytes, 1);
  if (ttlMs !== Infinity) time("ttlMs", ttlMs, 1);
  let acks: Settings["ack"];
  if (ack !== undefined) {
    if (typeof ack !== "object" || ack === null) {
      bad(
        "ack",
        "{ encode, decodeAck, decodeResume?, decodeRefusal?, maxUnacked?, maxAttempts? }",
        ack,
      );
    }
    // Copied, as the heartbeat is.
    const {
      encode,
      decodeAck,
      decodeResume,
      decodeRefusal,
      maxUnacked = 1_000,
      maxAttempts = 10,
    } = ack;
    if (typeof encode !== "function") bad("ack.encode", "a function", encode);
    if (typeof decodeAck !== "function") {
      bad("ack.decodeAck", "a function", decodeAck);
    }
    if (decodeResume !== undefined && typeof decodeResume !== "function") {
      bad("ack.decodeResume", "a function", decodeResume);
    }
    if (decodeRefusal !== undefined && typeof decodeRefusal !== "function") {
      bad("ack.decodeRefusal", "a function", decodeRefusal);
    }
    checkCount(ACTION, "ack.maxUnacked", maxUnacked, 1);
    checkCount(ACTION, "ack.maxAttempts", maxAttempts, 1);
    acks = {
      encode,
      decodeAck,
      decodeResume,
      decodeRefusal,
      maxUnacked,
      maxAttempts,
    };
  }
  if (shouldReconnect !== undefined && typeof shouldReconnect !== "function") {
    bad("shouldReconnect", "a function", shouldReconnect);
  }
  let ping: HeartbeatOptions | undefined;
  if (heartbeat !== undefined) {
    if (typeof heartbeat !== "object" || heartbeat === null) {
      bad("heartbeat", "{ intervalMs, timeoutMs, message? }", heartbeat);
    }
    // Copied, so that a change after this call cannot bypass the checks.
    const { intervalMs, timeoutMs, message } = heartbeat;
    time("heartbeat.intervalMs", intervalMs, 1);
    time("heartbeat.timeoutMs", timeoutMs, 1);
    if (
      message !== undefined && typeof message !== "function" &&
      !isWebSocketData(message)
    ) {
      bad(
        "heartbeat.message",
        "a string, ArrayBuffer, ArrayBufferView, Blob or a function",
        message,
      );
    }
    ping = { intervalMs, timeoutMs, message };
  }
  if (hiddenCloseMs !== Infinity) time("hiddenCloseMs", hiddenCloseMs);
  if (page !== false && typeof page?.addEventListener !== "function") {
    bad("page", "false or an EventTarget", page);
  }
  if (typeof (WebSocket ?? host.WebSocket) !== "function") {
    bad(
      "WebSocket",
      'a WebSocket class (on Node 20, pass WebSocket from "ws")',
      WebSocket,
    );
  }
  return {
    url: checkedUrl,
    protocols,
    subscriber,
    policy,
    minUptimeMs,
    connectionTimeoutMs,
    maxRetries,
    maxQueued,
    maxMessageBytes,
    ttlMs,
    ack: acks,
    shouldReconnect,
    heartbeat: ping,
    hiddenCloseMs,
    page: page || undefined,
    WebSocket,
  };
}
