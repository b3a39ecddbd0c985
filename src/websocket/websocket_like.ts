// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The few shapes this module needs from its host, declared here so that
 * `src/` depends on no DOM or runtime types: a WebSocket, its constructor,
 * and what a close tells.
 *
 * @module
 */

/**
 * What can be sent over a WebSocket: text or binary data.
 *
 * @example Usage
 * ```ts
 * import type { WebSocketData } from "@understudy/core/websocket";
 *
 * const frames: WebSocketData[] = ["hello", new Uint8Array([1, 2, 3])];
 * ```
 */
export type WebSocketData = string | ArrayBuffer | ArrayBufferView | Blob;

/**
 * The part of a WebSocket this module uses. The global `WebSocket` of
 * browsers, Deno, Bun and Node 22+, and the `ws` package's, all fit. The
 * event handler properties are typed `unknown` because every implementation
 * types its events differently; this module only assigns them.
 *
 * @example Usage
 * ```ts
 * import type { WebSocketLike } from "@understudy/core/websocket";
 *
 * function isOpen(socket: WebSocketLike): boolean {
 *   return socket.readyState === 1;
 * }
 * ```
 */
export interface WebSocketLike {
  /** 0 connecting, 1 open, 2 closing, 3 closed. */
  readonly readyState: number;
  /**
   * Bytes handed to `send` and not yet sent on the network. Messages count
   * as sent only once it has gone down past them.
   */
  readonly bufferedAmount: number;
  /** The subprotocol the server chose. */
  readonly protocol: string;
  /** How binary frames arrive: `"arraybuffer"` or `"blob"`. */
  binaryType: string;
  /** Called when the socket opens. */
  onopen: unknown;
  /** Called with each incoming frame (`event.data`). */
  onmessage: unknown;
  /** Called when the socket closed (`event.code`, `event.reason`, `event.wasClean`). */
  onclose: unknown;
  /** Called on an error; a close always follows. */
  onerror: unknown;
  /**
   * Queues data for sending.
   *
   * @param data The frame.
   */
  send(data: WebSocketData): void;
  /**
   * Starts the closing handshake.
   *
   * @param code 1000 or 3000–4999.
   * @param reason At most 123 bytes of UTF-8.
   */
  close(code?: number, reason?: string): void;
}

/**
 * A WebSocket class: `globalThis.WebSocket`, or `WebSocket` from the `ws`
 * package (Node 20 has no global one).
 *
 * @example Usage
 * ```ts
 * import type { WebSocketConstructor } from "@understudy/core/websocket";
 *
 * const Native: WebSocketConstructor = globalThis.WebSocket;
 * ```
 */
export interface WebSocketConstructor {
  /**
   * Opens a socket.
   *
   * @param url A `ws:`, `wss:`, `http:` or `https:` URL.
   * @param protocols Subprotocols to offer.
   */
  new (url: string, protocols?: string | string[]): WebSocketLike;
}

/**
 * How a connection ended, as a `CloseEvent` tells it. When the client
 * itself ended an attempt (a timeout, a failing URL provider, a constructor
 * that threw), `code` is 1006 (abnormal closure) and `reason` says why.
 *
 * @example Usage
 * ```ts
 * import type { CloseInfo } from "@understudy/core/websocket";
 *
 * const policyViolation = (close: CloseInfo) => close.code === 1008;
 * ```
 */
export interface CloseInfo {
  /** The close code. */
  readonly code: number;
  /** The reason the other side gave, or what the client detected. */
  readonly reason: string;
  /** Whether the closing handshake completed. */
  readonly wasClean: boolean;
}
