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
 * A batch of told messages as it crosses: the messages in order, and the
 * runs of them that share a recipient path and a sender path (`""` for
 * none), flat: `[to, senderPath, count, to, senderPath, count, …]`, the
 * counts adding up to the messages'. A path crosses once a run, not once
 * a message: in a batch of small messages the paths were most of what
 * was serialized (bench/durable.mjs, `rpc-packets-to-actor`). A receiver
 * takes this and an array of {@linkcode WirePacket}s alike.
 */
export interface WireBatch {
  readonly runs: (string | number)[];
  readonly messages: unknown[];
}

/**
 * A batch as a receiver reads it: its messages, and runs of them that share
 * a recipient and a sender path (`undefined`: none; a recipient of
 * `undefined` marks a malformed entry, whose message is the entry itself).
 */
export interface ReadBatch {
  readonly messages: unknown[];
  /** `[to, senderPath, end]` a run: it covers the messages before `end` and from the previous run's `end` on. */
  readonly runs: [string | undefined, string | undefined, number][];
}

/**
 * Reads `value`, a {@linkcode WireBatch} or an array of
 * {@linkcode WirePacket}s (as hosts called by hand send); `undefined` if it
 * is neither.
 */
export function readBatch(value: unknown): ReadBatch | undefined {
  const runs: [string | undefined, string | undefined, number][] = [];
  if (Array.isArray(value)) {
    const messages: unknown[] = new Array(value.length);
    let to: string | undefined;
    let from: string | undefined;
    for (let i = 0; i < value.length; i++) {
      const packet: unknown = value[i];
      let path: string | undefined;
      let senderPath: string | undefined;
      if (isWirePacket(packet)) {
        path = packet[0];
        senderPath = packet[2];
        messages[i] = packet[1];
      } else messages[i] = packet;
      // A malformed entry is a run of its own.
      if (i === 0 || path !== to || senderPath !== from || path === undefined) {
        if (i > 0) runs.push([to, from, i]);
        to = path;
        from = senderPath;
      }
    }
    if (value.length > 0) runs.push([to, from, value.length]);
    return { messages, runs };
  }
  const batch = value as Partial<WireBatch> | null;
  const flat = batch?.runs;
  const messages = batch?.messages;
  if (
    !Array.isArray(flat) || !Array.isArray(messages) || flat.length % 3 !== 0
  ) return undefined;
  let end = 0;
  for (let r = 0; r < flat.length; r += 3) {
    const to = flat[r];
    const senderPath = flat[r + 1];
    const count = flat[r + 2];
    if (
      typeof to !== "string" || typeof senderPath !== "string" ||
      !Number.isSafeInteger(count) || (count as number) < 1 ||
      end + (count as number) > messages.length
    ) return undefined;
    end += count as number;
    runs.push([to, senderPath === "" ? undefined : senderPath, end]);
  }
  return end === messages.length ? { messages, runs } : undefined;
}

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
    batch: WireBatch | WirePacket[],
  ): Promise<unknown>;
  /** `askId`: the ask's number on the caller's way (its retries carry it). */
  understudyAsk(
    from: WireFrom | null,
    packet: WirePacket,
    timeoutMs: number,
    askId?: number,
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
