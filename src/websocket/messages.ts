// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The messages a WebSocket connection actor accepts, and its reply to a
 * `Send` that has a sender.
 *
 * @module
 */

import { fail } from "../validation.ts";
import type { WebSocketData } from "./websocket_like.ts";

/**
 * Sends `data` over the connection: at once if the socket is open,
 * otherwise after the next successful connect, in order with every other
 * `Send`. If it has a sender (as with `ask`), the sender gets a
 * {@linkcode Sent} once it is delivered, as far as the mode can tell: by
 * default, once its bytes have left the socket's buffer; in acknowledged
 * mode (option `ack`), once the server acknowledged it. By default a
 * message is written at most once: if its connection ends before its
 * bytes left the buffer, it goes to dead letters (an `ask` rejects), and
 * is never sent again, since the server could not tell the copy from a new
 * message. In acknowledged mode it is kept until acknowledged, and sent
 * again, with its id, on the next connection. Past `maxQueued` waiting
 * messages, or over `maxMessageBytes`, it goes to dead letters, and a
 * `WebSocketMessageDropped` event says so.
 *
 * @example Usage
 * ```ts
 * import { ActorSystem } from "@understudy/core";
 * import { Close, Send, websocketProps } from "@understudy/core/websocket";
 *
 * const system = ActorSystem.create("demo", { logLevel: "off" });
 * const chat = system.actorOf(websocketProps({ url: "wss://chat.example/ws", page: false }));
 * chat.tell(new Send(JSON.stringify({ text: "hello" })));
 * chat.tell(new Close());
 * await system.terminate();
 * ```
 */
export class Send {
  /** The frame to send. */
  declare readonly data: WebSocketData;
  // Type only: a plain `{ data }` is no Send (the actor matches by class).
  declare private readonly brand: "send";

  /**
   * Creates the message.
   *
   * @param data Text, an `ArrayBuffer`, a typed array or `DataView`, or a `Blob`.
   * @throws {TypeError} If `data` is none of those.
   */
  constructor(data: WebSocketData) {
    this.data = data;
    if (!isWebSocketData(data)) {
      fail(
        "create Send",
        "data",
        "a string, ArrayBuffer, ArrayBufferView or Blob",
        data,
      );
    }
  }
}

/** Whether `data` is what a WebSocket sends as is: text, an ArrayBuffer, a view of one, or a Blob. Internal. */
export function isWebSocketData(data: unknown): data is WebSocketData {
  return typeof data === "string" || data instanceof ArrayBuffer ||
    ArrayBuffer.isView(data) ||
    (typeof Blob === "function" && data instanceof Blob);
}

/**
 * The byte length of `data` as it goes over the wire: text as UTF-8 (a
 * lone surrogate counted 2 bytes instead of 3). Internal.
 */
export function byteLength(data: WebSocketData): number {
  if (typeof data !== "string") {
    return (data as Blob).size ?? (data as ArrayBuffer).byteLength;
  }
  let bytes = data.length;
  for (let i = 0; i < data.length; i++) {
    const code = data.charCodeAt(i);
    // 2 bytes from U+0080, 3 from U+0800; a surrogate pair (2 units) is 4.
    if (code > 0x7f) bytes += code > 0x7ff && (code >> 11) !== 27 ? 2 : 1;
  }
  return bytes;
}

/**
 * The reply to a {@linkcode Send} that had a sender: it was delivered, as
 * far as the mode can tell. By default (`acknowledged` false) its bytes
 * left the socket's buffer; the server may still not have read it if that
 * connection closes later
 * (`WebSocketClosed.mayNotHaveArrived` counts such messages). In
 * acknowledged mode (`acknowledged` true) the server acknowledged it; each
 * message is answered once.
 *
 * @example Usage
 * ```ts
 * import { ActorSystem } from "@understudy/core";
 * import { Send, Sent, websocketProps } from "@understudy/core/websocket";
 *
 * const system = ActorSystem.create("demo", { logLevel: "off" });
 * const chat = system.actorOf(websocketProps({ url: "wss://chat.example/ws", page: false }));
 * // Resolves once "hello" left the socket's buffer.
 * chat.ask<Sent>(new Send("hello"), 10_000).then((reply) => console.log(reply instanceof Sent), () => {});
 * await system.terminate();
 * ```
 */
export class Sent {
  /** The message that went out. */
  declare readonly send: Send;
  /** Whether the server acknowledged it (acknowledged mode). */
  declare readonly acknowledged: boolean;

  /**
   * Creates the reply.
   *
   * @param send The message that went out.
   * @param acknowledged Whether the server acknowledged it.
   */
  constructor(send: Send, acknowledged = false) {
    this.send = send;
    this.acknowledged = acknowledged;
  }
}

/**
 * Closes the connection for good: the socket is closed with `code` and
 * `reason`, the connection actor and its children stop, every timer and
 * listener they started is cleared, and messages still waiting go to dead
 * letters.
 *
 * @example Usage
 * ```ts
 * import { ActorSystem } from "@understudy/core";
 * import { Close, websocketProps } from "@understudy/core/websocket";
 *
 * const system = ActorSystem.create("demo", { logLevel: "off" });
 * const feed = system.actorOf(websocketProps({ url: "wss://feed.example/ws", page: false }));
 * feed.tell(new Close(1000, "user logged out"));
 * await system.terminate();
 * ```
 */
export class Close {
  // Type only: a plain `{ code, reason }` is no Close.
  declare private readonly brand: "close";
  /** The close code. */
  declare readonly code: number;
  /** The reason. */
  declare readonly reason: string;

  /**
   * Creates the message. Both arguments are checked here, as a browser's
   * `WebSocket.close` would check them (it throws an InvalidAccessError or a
   * SyntaxError), so that a bad one fails at this call rather than when the
   * socket is closed.
   *
   * @param code 1000 or an integer from 3000 to 4999 (what browsers allow a
   * client to send).
   * @param reason A string of at most 123 bytes of UTF-8.
   * @throws {TypeError} If `code` is not a number or `reason` not a string.
   * @throws {RangeError} If `code` or `reason` is out of range.
   */
  constructor(code = 1000, reason = "") {
    this.code = code;
    this.reason = reason;
    // typeof first: comparing a symbol or a bigint would throw.
    if (
      !(typeof code === "number" &&
        (code === 1000 || (code >= 3000 && code <= 4999 && code % 1 === 0)))
    ) {
      fail(
        "create Close",
        "code",
        "1000 or an integer in [3000, 4999]",
        code,
        typeof code === "number",
      );
    }
    if (typeof reason !== "string") {
      fail("create Close", "reason", "a string", reason);
    }
    if (new TextEncoder().encode(reason).length > 123) {
      fail(
        "create Close",
        "reason",
        "at most 123 bytes of UTF-8",
        reason,
        true,
      );
    }
  }
}

/**
 * Connects again now, with the retry count reset: after giving up or after
 * `shouldReconnect` said no, while paused (offline, hidden page), and while
 * connected (the socket is closed with 1000 and replaced). While a backoff
 * delay is being waited out, the wait ends and the attempt is made at once.
 *
 * @example Usage
 * ```ts
 * import { ActorSystem } from "@understudy/core";
 * import { Reconnect, websocketProps } from "@understudy/core/websocket";
 *
 * const system = ActorSystem.create("demo", { logLevel: "off" });
 * const feed = system.actorOf(websocketProps({ url: "wss://feed.example/ws", maxRetries: 5, page: false }));
 * feed.tell(new Reconnect()); // e.g. from a "retry" button after WebSocketGaveUp
 * await system.terminate();
 * ```
 */
export class Reconnect {
  // Type only: without it, any value but null and undefined would type-check
  // as a Reconnect, and so as a message of the connection.
  declare private readonly brand: "reconnect";
}

/**
 * Everything a connection actor accepts.
 *
 * @example Usage
 * ```ts
 * import type { ActorRef } from "@understudy/core";
 * import { Send, type WebSocketCommand } from "@understudy/core/websocket";
 *
 * function greet(connection: ActorRef<WebSocketCommand>): void {
 *   connection.tell(new Send("hello"));
 * }
 * ```
 */
export type WebSocketCommand = Send | Close | Reconnect;
