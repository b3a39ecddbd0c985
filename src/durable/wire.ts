// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * What crosses between two Durable Objects: the shapes of the two RPC
 * methods an actor host answers, `understudyDeliver` (tells, in batches)
 * and `understudyAsk` (one ask, answered by the call's result). Arrays, not
 * objects, to keep each message small on the wire. Internal: the package
 * exports none of it.
 *
 * @module
 */

/** A told message: `[recipient path, message]`, plus its sender's address if it has one. */
export type WirePacket =
  | [to: string, message: unknown]
  | [to: string, message: unknown, binding: string, name: string, path: string];

/** Which object the caller meant: `[binding, object name]`. */
export type WireTarget = [binding: string, name: string];

/** An ask's outcome: the reply, a timeout (with the timeout used), or why it was not delivered. */
export type WireOutcome =
  | [kind: 0, reply: unknown]
  | [kind: 1, timeoutMs: number]
  | [kind: 2, reason: string];

/** The RPC methods of an actor host, as a stub offers them. */
export interface HostStub {
  understudyDeliver(batch: WirePacket[], target: WireTarget): Promise<unknown>;
  understudyAsk(
    packet: WirePacket,
    target: WireTarget,
    timeoutMs: number,
  ): Promise<unknown>;
}

/** Whether `value` looks like a {@linkcode WirePacket}. */
export function isWirePacket(value: unknown): value is WirePacket {
  return Array.isArray(value) && typeof value[0] === "string" &&
    (value.length === 2 ||
      (value.length === 5 && typeof value[2] === "string" &&
        typeof value[3] === "string" && typeof value[4] === "string"));
}

/** Whether `value` looks like a {@linkcode WireTarget}. */
export function isWireTarget(value: unknown): value is WireTarget {
  return Array.isArray(value) && value.length === 2 &&
    typeof value[0] === "string" && typeof value[1] === "string";
}
