// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The client's half of the frames a Durable Object's `SocketServer`
 * (`@understudy/core/durable`) speaks, as an `ack` option: nobody writes
 * the format by hand. Only a program that imports it pays for it.
 *
 * Client to server: message `id` with text `t` is the text frame `id:t`;
 * with binary data, a binary frame of the id (8 bytes, a big-endian
 * float64) then the bytes. Server to client: an acknowledgement is the text
 * frame U+0006 then the id; a refusal (the message became a dead letter in
 * the object: its actor never processed it) is U+0006 `x`, the id, `:`
 * and the reason (at most 200 characters); the server's word on connect (the last id it
 * handled) is U+0006 `r` then that id; a heartbeat's answer is U+0006
 * alone. Every frame from the server that starts with U+0006 is the
 * library's; all others are the application's messages. The server's half
 * is `src/durable/socket_frames.ts` (the floors keep the two modules apart;
 * tests/durable/socket_server.test.ts checks that they agree).
 *
 * @module
 */

import type { AckOptions } from "./options.ts";
import type { WebSocketData } from "./websocket_like.ts";

/** The first character of the server's frames that are the library's. */
const CONTROL = "\u0006";

/**
 * The `ack` option for a socket served by a Durable Object's
 * `SocketServer` (`@understudy/core/durable`): it frames each message with
 * its id, reads the server's acknowledgements and, as each connection
 * opens, its word on the last id it handled, so that what it already
 * handled is answered `Sent` (acknowledged) instead of sent again. A `Sent`
 * with `acknowledged: true` then means the object's actor has processed
 * the message. Heartbeat answers (the server's `pong`, by default U+0006)
 * are swallowed, not reported as messages. A `Blob` cannot be framed
 * synchronously: its `Send` goes to dead letters (send an `ArrayBuffer`).
 *
 * Give the connection a client id the server can read: by default the
 * `client` parameter of the URL, the same across reconnects of one
 * connection (a tab's `sessionStorage` keeps it across reloads; two tabs
 * must not share one).
 *
 * @example Usage
 * ```ts
 * import { connect, durableSocketAck } from "@understudy/core/websocket";
 *
 * const clientId = crypto.randomUUID();
 * const room = connect(`wss://chat.example/room/lobby?client=${clientId}`, {
 *   ack: durableSocketAck({ maxUnacked: 500 }),
 *   // "ping" is the server's default heartbeat request: answered by the
 *   // platform without waking the object.
 *   heartbeat: { intervalMs: 20_000, timeoutMs: 5_000, message: "ping" },
 *   page: false,
 *   WebSocket: class {
 *     readyState = 3;
 *     bufferedAmount = 0;
 *     protocol = "";
 *     binaryType = "blob";
 *     onopen = null;
 *     onmessage = null;
 *     onclose = null;
 *     onerror = null;
 *     constructor(readonly url: string) {}
 *     send(): void {}
 *     close(): void {}
 *   },
 * });
 * await room.close();
 * ```
 *
 * @param options `maxUnacked` and `maxAttempts`, as in `AckOptions`.
 * @returns The `ack` option.
 */
export function durableSocketAck(
  options: Pick<AckOptions, "maxUnacked" | "maxAttempts"> = {},
): AckOptions {
  return {
    ...options,
    encode(id: number, data: WebSocketData): WebSocketData {
      if (typeof data === "string") return `${id}:${data}`;
      if (!(data instanceof ArrayBuffer || ArrayBuffer.isView(data))) {
        throw new TypeError(
          "durableSocketAck cannot frame a Blob (it cannot be read synchronously): send an ArrayBuffer",
        );
      }
      const bytes = data instanceof ArrayBuffer
        ? new Uint8Array(data)
        : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      const frame = new Uint8Array(8 + bytes.byteLength);
      new DataView(frame.buffer).setFloat64(0, id);
      frame.set(bytes, 8);
      return frame;
    },
    // Every control frame but an acknowledgement is "none of ours" (0).
    decodeAck: (frame: unknown): number | undefined =>
      typeof frame === "string" && frame[0] === CONTROL
        ? Number(frame.slice(1)) || 0
        : undefined,
    decodeResume: (frame: unknown): number | undefined =>
      typeof frame === "string" && frame.startsWith(`${CONTROL}r`)
        ? Number(frame.slice(2))
        : undefined,
    decodeRefusal(frame: unknown): { id: number; reason: string } | undefined {
      const refusal = typeof frame === "string" &&
          frame.startsWith(`${CONTROL}x`)
        ? /^(\d+):/.exec(frame.slice(2))
        : null;
      const id = Number(refusal?.[1]);
      return refusal && Number.isSafeInteger(id) && id > 0
        ? { id, reason: refusal.input.slice(refusal[0].length) }
        : undefined;
    },
  };
}
