// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The messages a WebSocket connection actor accepts, and its replies.
 *
 * @module
 */

import { describeValue } from "../supervision/describe_value.ts";
import type { WebSocketData } from "./websocket_like.ts";

function isData(data: unknown): data is WebSocketData {
  return typeof data === "string" || data instanceof ArrayBuffer ||
    ArrayBuffer.isView(data) ||
    (typeof Blob === "function" && data instanceof Blob);
}

/**
 * Sends `data` over the connection: at once if the socket is open,
 * otherwise after the next successful connect, in order with every other
 * `Send`. It counts as delivered only when handed to an open socket; then,
 * if it has a sender (as with `ask`), the sender gets a {@linkcode Sent}.
 * Past `maxQueued` waiting messages it goes to dead letters, and a
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
  /**
   * Creates the message.
   *
   * @param data Text, an `ArrayBuffer`, a typed array or `DataView`, or a `Blob`.
   * @throws {TypeError} If `data` is none of those.
   */
  constructor(readonly data: WebSocketData) {
    if (!isData(data)) {
      throw new TypeError(
        `Cannot create Send: "data" must be a string, ArrayBuffer, ArrayBufferView or Blob (got ${
          describeValue(data)
        })`,
      );
    }
  }
}

/**
 * The reply to a {@linkcode Send} that had a sender: its data was handed to
 * an open socket.
 *
 * @example Usage
 * ```ts
 * import { ActorSystem } from "@understudy/core";
 * import { Send, Sent, websocketProps } from "@understudy/core/websocket";
 *
 * const system = ActorSystem.create("demo", { logLevel: "off" });
 * const chat = system.actorOf(websocketProps({ url: "wss://chat.example/ws", page: false }));
 * // Resolves once "hello" was handed to an open socket.
 * chat.ask<Sent>(new Send("hello"), 10_000).then((reply) => console.log(reply instanceof Sent), () => {});
 * await system.terminate();
 * ```
 */
export class Sent {
  /**
   * Creates the reply.
   *
   * @param send The message that went out.
   */
  constructor(readonly send: Send) {}
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
  /**
   * Creates the message.
   *
   * @param code 1000 or 3000–4999 (what browsers allow a client to send).
   * @param reason At most 123 bytes of UTF-8.
   * @throws {RangeError} If `code` or `reason` is out of range.
   */
  constructor(readonly code: number = 1000, readonly reason: string = "") {
    if (
      code !== 1000 && !(Number.isInteger(code) && code >= 3000 && code <= 4999)
    ) {
      throw new RangeError(
        `Cannot create Close: "code" must be 1000 or a whole number from 3000 to 4999 (got ${
          describeValue(code)
        })`,
      );
    }
    if (
      typeof reason !== "string" ||
      new TextEncoder().encode(reason).length > 123
    ) {
      throw new RangeError(
        `Cannot create Close: "reason" must be a string of at most 123 UTF-8 bytes (got ${
          describeValue(reason)
        })`,
      );
    }
  }
}

/**
 * Connects again now, with the retry count reset: after giving up or after
 * `shouldReconnect` said no, while paused (offline, hidden page), and while
 * connected (the socket is closed with 1000 and replaced). While a backoff
 * delay is being waited out, the count is reset and the wait runs out first.
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
export class Reconnect {}

/**
 * Asks for the connection's {@linkcode ConnectionStatus}.
 *
 * @example Usage
 * ```ts
 * import { ActorSystem } from "@understudy/core";
 * import { type ConnectionStatus, GetConnectionStatus, websocketProps } from "@understudy/core/websocket";
 *
 * const system = ActorSystem.create("demo", { logLevel: "off" });
 * const feed = system.actorOf(websocketProps({ url: "wss://feed.example/ws", page: false }));
 * const status = await feed.ask<ConnectionStatus>(new GetConnectionStatus());
 * console.log(status.state); // "connecting"
 * await system.terminate();
 * ```
 */
export class GetConnectionStatus {}

/**
 * Where a connection is:
 * - `"connecting"`: an attempt is under way (resolving the URL or opening);
 * - `"open"`: the socket is open;
 * - `"waiting"`: waiting out a backoff delay before the next attempt;
 * - `"offline"`, `"hidden"`: paused by the page (network down, page hidden);
 * - `"gave-up"`: `maxRetries` reached or `shouldReconnect` said no; waits
 *   for `Reconnect`;
 * - `"closed"`: closed for good.
 *
 * @example Usage
 * ```ts
 * import type { ConnectionState } from "@understudy/core/websocket";
 *
 * const usable = (state: ConnectionState) => state === "open";
 * ```
 */
export type ConnectionState =
  | "connecting"
  | "open"
  | "waiting"
  | "offline"
  | "hidden"
  | "gave-up"
  | "closed";

/**
 * The reply to {@linkcode GetConnectionStatus}.
 *
 * @example Usage
 * ```ts
 * import { ConnectionStatus } from "@understudy/core/websocket";
 *
 * const status = new ConnectionStatus("waiting", 3, 0);
 * console.log(`${status.state}, attempt ${status.attempt}`);
 * ```
 */
export class ConnectionStatus {
  /**
   * Creates the reply.
   *
   * @param state Where the connection is.
   * @param attempt Attempts since the last stable connection (or reset).
   * @param dropped Messages dropped so far (queue full, closed, or unsendable).
   */
  constructor(
    readonly state: ConnectionState,
    readonly attempt: number,
    readonly dropped: number,
  ) {}
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
export type WebSocketCommand = Send | Close | Reconnect | GetConnectionStatus;
