// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * What the connection actor and its socket actors say to each other. All of
 * it goes through the BackoffSupervisor between them: the connection's
 * orders are forwarded to the current socket actor (and held, in order with
 * the `Send`s, while a new one is being spawned); a socket actor's reports
 * to its parent are passed on to the supervisor's parent, the connection
 * actor.
 *
 * Nothing else is shared: the connection actor owns the decisions (when to
 * connect, pauses, retries, giving up) and the counts; a socket actor owns
 * its WebSocket, its timers, the `Send`s waiting for that socket to open and
 * the messages it wrote and has not confirmed yet ({@linkcode Outgoing}).
 * In acknowledged mode those go back with its `SocketEnded` (by default
 * they are dead letters: written at most once); the connection actor keeps them
 * until its next `Connect` hands them to the next socket actor, which writes
 * them first: so they go out again before anything newer.
 *
 * ```
 * connection ── Connect, Disconnect, Close, Send ──▶ socket
 * connection ◀── SocketReady, SocketOpened, SocketStable,
 *                SocketEnded, SocketClosed, SendDropped ── socket
 * ```
 *
 * Internal to this module.
 *
 * @module
 */

import type { ActorRef } from "../runtime/actor_ref.ts";
import type { Send } from "./messages.ts";
import type { CloseInfo } from "./websocket_like.ts";

/**
 * A message written to a socket and not confirmed yet, or one to write
 * again. Owned by one actor at a time (the socket actor that wrote it, the
 * connection actor between two attempts, the next socket actor); only its
 * owner changes it.
 */
export interface Outgoing {
  readonly send: Send;
  readonly sender: ActorRef<unknown> | undefined;
  /** Its id in acknowledged mode (0 until first written). */
  id: number;
  /** How many times it was written. */
  tries: number;
  /** Bytes written to its socket up to its end (for `bufferedAmount`). */
  end: number;
}

// ───── the connection's orders ─────

/**
 * Start the attempt. Told once per attempt; when the socket actor that
 * ended the last one is still stopping, the supervisor holds it for the
 * next. `resend`: the messages earlier attempts wrote and did not confirm,
 * to write first; `nextId`: the next id (acknowledged mode).
 */
export class Connect {
  declare readonly resend: Outgoing[];
  declare readonly nextId: number;
  constructor(resend: Outgoing[], nextId: number) {
    this.resend = resend;
    this.nextId = nextId;
  }
}

/**
 * End the attempt, with code 1000 and `reason`: a pause, or a `Reconnect`.
 * One that finds no attempt (it ended on its own meanwhile) changes nothing.
 */
export class Disconnect {
  /** The close reason, such as "paused: offline". */
  declare readonly reason: string;
  constructor(reason: string) {
    this.reason = reason;
  }
}

/**
 * The connection gave up: every `Send` waiting goes to dead letters with
 * `reason` (their asks reject), until the next `Connect`.
 */
export class DropQueued {
  declare readonly reason: string;
  constructor(reason: string) {
    this.reason = reason;
  }
}

/** With a heartbeat: ping now (the page is visible again), and fail the socket if no frame answers. */
export class Probe {
  declare private readonly brand: "probe";
}

// ───── a socket actor's reports ─────

/**
 * A socket actor started. One that comes before the previous socket actor
 * reported its `SocketEnded` means that one crashed.
 */
export class SocketReady {
  declare private readonly brand: "ready";
}

/** The socket opened. */
export class SocketOpened {
  declare private readonly brand: "opened";
}

/**
 * The socket has been open for `minUptimeMs`: the retries start again from
 * 0. (The socket actor's "stable" timer delivers it, and it is passed on.)
 */
export class SocketStable {
  declare private readonly brand: "stable";
}

/**
 * The attempt ended: the socket closed or failed, or a `Disconnect` ended
 * it. The socket actor stops; the supervisor spawns the next one at once.
 * `unconfirmed` are the messages to write again (acknowledged mode only),
 * oldest first; `nextId` the
 * next id. (The socket actor's deadline timer delivers one to itself, with
 * only `close`: the attempt failed.)
 */
export class SocketEnded {
  /** How it ended (as `WebSocketClosed` reported it). */
  declare readonly close: CloseInfo;
  declare readonly unconfirmed: Outgoing[];
  declare readonly nextId: number;
  constructor(close: CloseInfo, unconfirmed: Outgoing[] = [], nextId = 1) {
    this.close = close;
    this.unconfirmed = unconfirmed;
    this.nextId = nextId;
  }
}

/** The `Close` was done: the socket, if any, is closed. The connection may stop. */
export class SocketClosed {
  declare private readonly brand: "closed";
}

/** A `Send` went to dead letters, for `reason`; the connection counts it and reports it. */
export class SendDropped {
  /** The message. */
  declare readonly send: Send;
  declare readonly reason: string;
  constructor(send: Send, reason: string) {
    this.send = send;
    this.reason = reason;
  }
}
