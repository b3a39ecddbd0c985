// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * `websocketProps`: the Props of a WebSocket connection that comes back by
 * itself.
 *
 * @module
 */

import { Props } from "../runtime/props.ts";
import { ConnectionActor } from "./connection_actor.ts";
import type { WebSocketCommand } from "./messages.ts";
import { settingsFrom, type WebSocketOptions } from "./options.ts";

/**
 * Props for a WebSocket connection actor that reconnects by itself, after
 * a jittered, growing delay. Underneath, a BackoffSupervisor gives each
 * attempt a fresh socket actor (which owns its WebSocket); `Send`s made
 * while disconnected wait, bounded by `maxQueued`, and go out in order on
 * reconnect. Options are checked here, so a bad one throws at this call.
 *
 * @example Usage
 * ```ts
 * import { ActorSystem } from "@understudy/core";
 * import { Close, Send, WebSocketMessage, websocketProps } from "@understudy/core/websocket";
 *
 * const system = ActorSystem.create("app", { logLevel: "warn" });
 * const socket = system.actorOf(
 *   websocketProps({
 *     url: "wss://echo.example/ws",
 *     heartbeat: { intervalMs: 20_000, timeoutMs: 5_000 },
 *     subscriber: (event) => {
 *       if (event instanceof WebSocketMessage) console.log("got", event.data);
 *     },
 *   }),
 *   "echo",
 * );
 * socket.tell(new Send("hello")); // sent once connected, even after a reconnect
 * socket.tell(new Close());
 * await system.terminate();
 * ```
 *
 * @param options The URL and how to reconnect; see {@linkcode WebSocketOptions}.
 * @returns Props for the connection actor.
 * @throws {TypeError} If an option has the wrong type (naming it and the value).
 * @throws {RangeError} If a number is out of range (naming it and the value).
 */
export function websocketProps(
  options: WebSocketOptions,
): Props<WebSocketCommand> {
  const settings = settingsFrom(options);
  return Props.create(() => new ConnectionActor(settings)) as Props<
    unknown
  > as Props<WebSocketCommand>;
}
