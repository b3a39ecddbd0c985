// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * What a WebSocket connection reports, to its `subscriber` and on the
 * system's event stream: one class per kind of event, all extending
 * {@linkcode WebSocketEvent}, so listeners can filter with `instanceof`.
 *
 * @module
 */

import type { ActorRef } from "../runtime/actor_ref.ts";
import type { WebSocketCommand } from "./messages.ts";
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
  /**
   * Creates the event.
   *
   * @param connection The connection actor that reports it.
   */
  constructor(readonly connection: ActorRef<WebSocketCommand>) {}
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
  /**
   * Creates the event.
   *
   * @param connection The connection actor.
   * @param attempt Attempts since the last stable connection, this one included.
   * @param delayMs The wait before this attempt.
   */
  constructor(
    connection: ActorRef<WebSocketCommand>,
    readonly attempt: number,
    readonly delayMs: number,
  ) {
    super(connection);
  }
}

/**
 * The socket opened; waiting messages are being sent.
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
  /**
   * Creates the event.
   *
   * @param connection The connection actor.
   * @param protocol The subprotocol the server chose ("" if none).
   */
  constructor(
    connection: ActorRef<WebSocketCommand>,
    readonly protocol: string,
  ) {
    super(connection);
  }
}

/**
 * A frame arrived: text as a string, binary as an `ArrayBuffer` (in every
 * runtime).
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
  /**
   * Creates the event.
   *
   * @param connection The connection actor.
   * @param data The frame's data.
   */
  constructor(connection: ActorRef<WebSocketCommand>, readonly data: unknown) {
    super(connection);
  }
}

/**
 * A socket closed, or an attempt failed before it opened.
 *
 * @example Usage
 * ```ts
 * import { type WebSocketEvent, WebSocketClosed } from "@understudy/core/websocket";
 *
 * const onEvent = (event: WebSocketEvent) => {
 *   if (event instanceof WebSocketClosed) console.log(`closed ${event.code} ${event.reason}`);
 * };
 * ```
 */
export class WebSocketClosed extends WebSocketEvent implements CloseInfo {
  /**
   * Creates the event.
   *
   * @param connection The connection actor.
   * @param code The close code (1006 when the client ended a failed attempt).
   * @param reason The reason given, or what the client detected.
   * @param wasClean Whether the closing handshake completed.
   */
  constructor(
    connection: ActorRef<WebSocketCommand>,
    readonly code: number,
    readonly reason: string,
    readonly wasClean: boolean,
  ) {
    super(connection);
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
  /**
   * Creates the event.
   *
   * @param connection The connection actor.
   * @param attempt The number the next attempt will have.
   * @param delayMs The wait before it.
   */
  constructor(
    connection: ActorRef<WebSocketCommand>,
    readonly attempt: number,
    readonly delayMs: number,
  ) {
    super(connection);
  }
}

/**
 * The connection stopped trying: `maxRetries` was reached, or
 * `shouldReconnect` returned `false`. Waiting messages are kept; a
 * `Reconnect` tries again.
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
  /**
   * Creates the event.
   *
   * @param connection The connection actor.
   * @param reason Why, in words.
   * @param close The close that ended the last attempt.
   */
  constructor(
    connection: ActorRef<WebSocketCommand>,
    readonly reason: string,
    readonly close: CloseInfo,
  ) {
    super(connection);
  }
}

/**
 * The connection stopped trying for a while: the network is `"offline"`,
 * or the page was `"hidden"` for `hiddenCloseMs`. It connects again on
 * `online` or when the page is visible.
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
  /**
   * Creates the event.
   *
   * @param connection The connection actor.
   * @param reason `"offline"` or `"hidden"`.
   */
  constructor(
    connection: ActorRef<WebSocketCommand>,
    readonly reason: "offline" | "hidden",
  ) {
    super(connection);
  }
}

/**
 * A message will not be sent: the queue was full (`maxQueued`), the
 * connection closed, or the socket refused the data. A `DeadLetter` is
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
    readonly message: unknown,
    readonly reason: string,
    readonly droppedTotal: number,
  ) {
    super(connection);
  }
}
