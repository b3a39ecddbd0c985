// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * What crosses between two Durable Objects: the shapes of the RPC methods
 * an actor host answers, `understudyDeliver` (tells, in numbered batches),
 * `understudyAsk` (one ask, answered by the call's result) and
 * `understudyVouch` (whether a caller is who it says). Arrays, not objects,
 * to keep each message small on the wire. Internal: the package exports
 * none of it.
 *
 * @module
 */

/**
 * A told message: `[recipient path, message]`, plus its sender's path in
 * the calling object if it has one. The sender's object is the call's
 * {@linkcode WireFrom}, never a per-message claim.
 */
export type WirePacket =
  | [to: string, message: unknown]
  | [to: string, message: unknown, senderPath: string];

/**
 * Who calls: the calling host's own `[binding, object name]`, as it knows
 * itself (its `binding` option and `ctx.id.name`), and the incarnation of
 * its way to this object (a random id, new after every reset or eviction
 * of the caller). Tells are numbered per incarnation.
 */
export type WireFrom = [binding: string, name: string, incarnation: string];

/** An ask's outcome: the reply, a timeout (with the timeout used), or why it was not delivered. */
export type WireOutcome =
  | [kind: 0, reply: unknown]
  | [kind: 1, timeoutMs: number]
  | [kind: 2, reason: string];

/** The RPC methods of an actor host, as a stub offers them. */
export interface HostStub {
  understudyDeliver(
    from: WireFrom | null,
    first: number,
    batch: WirePacket[],
  ): Promise<unknown>;
  understudyAsk(
    from: WireFrom | null,
    packet: WirePacket,
    timeoutMs: number,
  ): Promise<unknown>;
  understudyVouch(
    incarnation: string,
    binding: string,
    name: string,
  ): Promise<unknown>;
  /** Starts watching the actor at `path` for the caller; resolves with `null`, or why not. */
  understudyWatch(
    from: WireFrom | null,
    path: string,
    watchId: string,
  ): Promise<unknown>;
  /** Which of `watchIds` the object does not know (any more): their actors are gone. */
  understudyWatchCheck(watchIds: string[]): Promise<unknown>;
  /** Stops a watch. */
  understudyUnwatch(watchId: string): Promise<unknown>;
  /** The watched actor of `watchId` stopped (said by the object it was in). */
  understudyWatchEnded(watchId: string, reason: string): Promise<unknown>;
}

/** Whether `value` looks like a {@linkcode WirePacket}. */
export function isWirePacket(value: unknown): value is WirePacket {
  return Array.isArray(value) && typeof value[0] === "string" &&
    (value.length === 2 ||
      (value.length === 3 && typeof value[2] === "string"));
}

/** Whether `value` looks like a {@linkcode WireFrom}. */
export function isWireFrom(value: unknown): value is WireFrom {
  return Array.isArray(value) && value.length === 3 &&
    typeof value[0] === "string" && typeof value[1] === "string" &&
    typeof value[2] === "string" && value[2].length > 0 &&
    value[2].length <= 64;
}
