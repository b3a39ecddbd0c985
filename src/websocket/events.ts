// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * What a WebSocket connection reports, to its `subscriber` and on the
 * system's event stream: one class per kind of event, all extending
 * {@linkcode WebSocketEvent}, so listeners can filter with `instanceof`.
 *
 * @module
 */

import type { Actor } from "../runtime/actor.ts";
import type { ActorRef } from "../runtime/actor_ref.ts";
import type { WebSocketCommand } from "./messages.ts";
import type { WebSocketOptions } from "./options.ts";
import type { CloseInfo } from "./websocket_like.ts";

/**
 * Base of every WebSocket connection event; subscribe to it for all of
 * them.
 *
 * @example Usage
 * ```ts
 * import { ActorSystem } from "@understudy/core";
 * import { WebSocketEvent } from "@understudy/core/websocket";
 *
 * const system = ActorSystem.create("demo");
 * system.eventStream.subscribe(WebSocketEvent, (event) => console.log(event.constructor.name));
 * await system.terminate();
 * ```
 */
export abstract class WebSocketEvent {
  /** The connection actor that reports it. */
  declare readonly connection: ActorRef<WebSocketCommand>;

  /**
   * Creates the event.
   *
   * @param connection The connection actor that reports it.
   */
  constructor(connection: ActorRef<WebSocketCommand>) {
    this.connection = connection;
  }
}

/**
 * An attempt to connect starts: `attempt` counts attempts since the last
 * stable connection (1 for the first), `delayMs` is how long it waited
 * before starting.
 *
 * @example Usage
 * ```ts
 * import { type WebSocketEvent, WebSocketConnecting } from "@understudy/core/websocket";
 *
 * const onEvent = (event: WebSocketEvent) => {
 *   if (event instanceof WebSocketConnecting) console.log(`attempt ${event.attempt} after ${event.delayMs} ms`);
 * };
 * ```
 */
export class WebSocketConnecting extends WebSocketEvent {
  /** Attempts since the last stable connection, this one included. */
  declare readonly attempt: number;
  /** The wait before this attempt. */
  declare readonly delayMs: number;

  /**
   * Creates the event.
   *
   * @param connection The connection actor.
   * @param attempt Attempts since the last stable connection, this one included.
   * @param delayMs The wait before this attempt.
   */
  constructor(
    connection: ActorRef<WebSocketCommand>,
    attempt: number,
    delayMs: number,
  ) {
    super(connection);
    this.attempt = attempt;
    this.delayMs = delayMs;
  }
}

/**
 * The socket opened; waiting messages are being sent. With a heartbeat,
 * published only once a first frame came back after the socket opened (a
 * round trip: the ping sent at open, answered).
 *
 * @example Usage
 * ```ts
 * import { type WebSocketEvent, WebSocketOpened } from "@understudy/core/websocket";
 *
 * const onEvent = (event: WebSocketEvent) => {
 *   if (event instanceof WebSocketOpened) console.log(`open (${event.protocol || "no subprotocol"})`);
 * };
 * ```
 */
export class WebSocketOpened extends WebSocketEvent {
  /** The subprotocol the server chose ("" if none). */
  declare readonly protocol: string;

  /**
   * Creates the event.
   *
   * @param connection The connection actor.
   * @param protocol The subprotocol the server chose ("" if none).
   */
  constructor(connection: ActorRef<WebSocketCommand>, protocol: string) {
    super(connection);
    this.protocol = protocol;
  }
}

/**
 * A frame arrived: text as a string, binary as an `ArrayBuffer` (in every
 * runtime). Published in order with the connection's other events; a frame
 * that reaches the socket actor only after it ended the attempt (a
 * `Reconnect`, a pause, a `Close` or a timeout came first) is dropped, as a
 * browser drops the frames that arrive once `close()` was called.
 *
 * @example Usage
 * ```ts
 * import { type WebSocketEvent, WebSocketMessage } from "@understudy/core/websocket";
 *
 * const onEvent = (event: WebSocketEvent) => {
 *   if (event instanceof WebSocketMessage && typeof event.data === "string") console.log(JSON.parse(event.data));
 * };
 * ```
 */
export class WebSocketMessage extends WebSocketEvent {
  /** The frame's data. */
  declare readonly data: unknown;

  /**
   * Creates the event.
   *
   * @param connection The connection actor.
   * @param data The frame's data.
   */
  constructor(connection: ActorRef<WebSocketCommand>, data: unknown) {
    super(connection);
    this.data = data;
  }
}

/**
 * A socket closed, or an attempt failed before it opened.
 * `mayNotHaveArrived` counts the messages answered {@linkcode Sent} on that
 * connection (in the default mode) for which there is no evidence that the
 * server read them: their bytes left the client, but the client cannot know
 * whether the server read them before the connection ended. Only
 * acknowledged mode gives that evidence (it is 0 there).
 *
 * @example Usage
 * ```ts
 * import { type WebSocketEvent, WebSocketClosed } from "@understudy/core/websocket";
 *
 * const onEvent = (event: WebSocketEvent) => {
 *   if (event instanceof WebSocketClosed) console.log(`closed ${event.code}; ${event.mayNotHaveArrived} may not have arrived`);
 * };
 * ```
 */
export class WebSocketClosed extends WebSocketEvent implements CloseInfo {
  /** The close code (1006 when the client ended a failed attempt). */
  declare readonly code: number;
  /** The reason given, or what the client detected. */
  declare readonly reason: string;
  /** Whether the closing handshake completed. */
  declare readonly wasClean: boolean;
  /** Messages answered `Sent` on this connection with no evidence that the server read them. */
  declare readonly mayNotHaveArrived: number;

  /**
   * Creates the event.
   *
   * @param connection The connection actor.
   * @param code The close code (1006 when the client ended a failed attempt).
   * @param reason The reason given, or what the client detected.
   * @param wasClean Whether the closing handshake completed.
   * @param mayNotHaveArrived Messages answered `Sent` on this connection with no evidence that the server read them.
   */
  constructor(
    connection: ActorRef<WebSocketCommand>,
    code: number,
    reason: string,
    wasClean: boolean,
    mayNotHaveArrived = 0,
  ) {
    super(connection);
    this.code = code;
    this.reason = reason;
    this.wasClean = wasClean;
    this.mayNotHaveArrived = mayNotHaveArrived;
  }
}

/**
 * The next attempt, number `attempt`, starts after `delayMs`, as the
 * backoff policy chose.
 *
 * @example Usage
 * ```ts
 * import { type WebSocketEvent, WebSocketReconnectScheduled } from "@understudy/core/websocket";
 *
 * const onEvent = (event: WebSocketEvent) => {
 *   if (event instanceof WebSocketReconnectScheduled) console.log(`retrying in ${Math.round(event.delayMs)} ms`);
 * };
 * ```
 */
export class WebSocketReconnectScheduled extends WebSocketEvent {
  /** The number the next attempt will have. */
  declare readonly attempt: number;
  /** The wait before it. */
  declare readonly delayMs: number;

  /**
   * Creates the event.
   *
   * @param connection The connection actor.
   * @param attempt The number the next attempt will have.
   * @param delayMs The wait before it.
   */
  constructor(
    connection: ActorRef<WebSocketCommand>,
    attempt: number,
    delayMs: number,
  ) {
    super(connection);
    this.attempt = attempt;
    this.delayMs = delayMs;
  }
}

/**
 * The connection stopped trying: `maxRetries` was reached, or
 * `shouldReconnect` returned `false`. Every message waiting goes to dead
 * letters with the reason `"gave up: …"` (each with a
 * `WebSocketMessageDropped` event; their asks reject), and so does each
 * `Send` until a `Reconnect`, which tries again.
 *
 * @example Usage
 * ```ts
 * import { Reconnect, type WebSocketEvent, WebSocketGaveUp } from "@understudy/core/websocket";
 *
 * const onEvent = (event: WebSocketEvent) => {
 *   if (event instanceof WebSocketGaveUp) {
 *     console.log(event.reason);
 *     event.connection.tell(new Reconnect()); // or wait for the user
 *   }
 * };
 * ```
 */
export class WebSocketGaveUp extends WebSocketEvent {
  /** Why, in words. */
  declare readonly reason: string;
  /** The close that ended the last attempt. */
  declare readonly close: CloseInfo;

  /**
   * Creates the event.
   *
   * @param connection The connection actor.
   * @param reason Why, in words.
   * @param close The close that ended the last attempt.
   */
  constructor(
    connection: ActorRef<WebSocketCommand>,
    reason: string,
    close: CloseInfo,
  ) {
    super(connection);
    this.reason = reason;
    this.close = close;
  }
}

/**
 * The connection stopped trying for a while: the network is `"offline"`,
 * the page was `"hidden"` for `hiddenCloseMs`, or it was `"frozen"` or left
 * (`freeze`, `pagehide`: an open socket would keep it out of the
 * back-forward cache). It connects again on `online`, when the page is
 * visible, or when it resumes or is shown again (`resume`, `pageshow`).
 *
 * @example Usage
 * ```ts
 * import { type WebSocketEvent, WebSocketPaused } from "@understudy/core/websocket";
 *
 * const onEvent = (event: WebSocketEvent) => {
 *   if (event instanceof WebSocketPaused) console.log(`paused: ${event.reason}`);
 * };
 * ```
 */
export class WebSocketPaused extends WebSocketEvent {
  /** `"offline"`, `"hidden"` or `"frozen"`. */
  declare readonly reason: "offline" | "hidden" | "frozen";

  /**
   * Creates the event.
   *
   * @param connection The connection actor.
   * @param reason `"offline"`, `"hidden"` or `"frozen"`.
   */
  constructor(
    connection: ActorRef<WebSocketCommand>,
    reason: "offline" | "hidden" | "frozen",
  ) {
    super(connection);
    this.reason = reason;
  }
}

/**
 * A message will not be sent: the queue was full (`maxQueued`), it is over
 * `maxMessageBytes`, it waited `ttlMs` ("expired"), the connection gave up
 * ("gave up"), it was still in the socket's buffer when its connection
 * ended (default mode: "not sent again"), the socket refused the data, or (acknowledged mode)
 * the unacknowledged buffer was full (`maxUnacked`) or it was sent
 * `maxAttempts` times without an acknowledgement. A `DeadLetter` is
 * published for it too.
 *
 * @example Usage
 * ```ts
 * import { type WebSocketEvent, WebSocketMessageDropped } from "@understudy/core/websocket";
 *
 * const onEvent = (event: WebSocketEvent) => {
 *   if (event instanceof WebSocketMessageDropped) console.warn(`dropped #${event.droppedTotal}: ${event.reason}`);
 * };
 * ```
 */
export class WebSocketMessageDropped extends WebSocketEvent {
  /** The message (usually a `Send`). */
  declare readonly message: unknown;
  /** Why. */
  declare readonly reason: string;
  /** Messages this connection dropped so far, this one included. */
  declare readonly droppedTotal: number;

  /**
   * Creates the event.
   *
   * @param connection The connection actor.
   * @param message The message (usually a `Send`).
   * @param reason Why.
   * @param droppedTotal Messages this connection dropped so far, this one included.
   */
  constructor(
    connection: ActorRef<WebSocketCommand>,
    message: unknown,
    reason: string,
    droppedTotal: number,
  ) {
    super(connection);
    this.message = message;
    this.reason = reason;
    this.droppedTotal = droppedTotal;
  }
}

/**
 * Tells `subscriber` and the event stream of `reporter`'s system about
 * `event`, in `reporter`'s turn. A subscriber function that throws is
 * logged: it must not break the actor that reports. Internal to this module.
 */
export function publishEvent(
  reporter: Actor<unknown>,
  subscriber: WebSocketOptions["subscriber"],
  event: WebSocketEvent,
): void {
  try {
    if (typeof subscriber === "function") subscriber(event);
    else subscriber?.tell(event);
  } catch (error) {
    reporter.log.error("WebSocket subscriber threw", error);
  }
  reporter.context.system.eventStream.publish(event);
}
