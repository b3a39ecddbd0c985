// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The server's half of the frames `SocketServer` speaks with the client's
 * `durableSocketAck()` (`src/websocket/durable_socket_ack.ts`, which
 * documents the format; the floors keep the two apart, and
 * tests/durable/socket_server.test.ts checks that they agree). Internal to
 * the module.
 *
 * @module
 */

/** The first character of the frames that are the library's, from the server. */
export const CONTROL = "\u0006";

/** The client's default heartbeat message (`HeartbeatOptions.message`). */
export const DEFAULT_PING = "ping";

/** The default answer to it: a control frame the client swallows. */
export const DEFAULT_PONG = CONTROL;

/** The acknowledgement of message `id`. */
export const ackFrame = (id: number): string => `${CONTROL}${id}`;

/** The longest reason a refusal carries, in UTF-16 code units. */
export const MAX_REASON = 200;

/**
 * The refusal of message `id`: it became a dead letter in the object (its
 * actor never processed it), for `reason` (cut to 200 code units).
 */
export const refusalFrame = (id: number, reason: string): string =>
  `${CONTROL}x${id}:${reason.slice(0, MAX_REASON)}`;

/** The server's word on connect: `id` is the last message it handled. */
export const resumeFrame = (id: number): string => `${CONTROL}r${id}`;

/** A client's message: its id and its data. */
export interface ClientFrame {
  readonly id: number;
  readonly data: string | ArrayBuffer;
}

/** The id and data of a frame `durableSocketAck().encode` made, or `undefined` if it is none. */
export function parseFrame(frame: unknown): ClientFrame | undefined {
  if (typeof frame === "string") {
    const colon = frame.indexOf(":");
    const digits = frame.slice(0, colon);
    if (colon < 1 || !/^\d+$/.test(digits)) return undefined;
    const id = Number(digits);
    return Number.isSafeInteger(id) && id > 0
      ? { id, data: frame.slice(colon + 1) }
      : undefined;
  }
  const bytes = frame instanceof ArrayBuffer
    ? frame
    : ArrayBuffer.isView(frame)
    ? frame.buffer.slice(
      frame.byteOffset,
      frame.byteOffset + frame.byteLength,
    ) as ArrayBuffer
    : undefined;
  if (bytes === undefined || bytes.byteLength < 8) return undefined;
  const id = new DataView(bytes).getFloat64(0);
  return Number.isSafeInteger(id) && id > 0
    ? { id, data: bytes.slice(8) }
    : undefined;
}
