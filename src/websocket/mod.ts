// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * A WebSocket that comes back by itself, as an actor: a connection actor
 * that retries after a growing delay, jittered on every attempt (the cap
 * included, so a fleet of clients spreads out instead of retrying in step),
 * over a BackoffSupervisor that gives each attempt a fresh socket actor and
 * keeps the waiting messages, in order, from one to the next.
 *
 * - {@linkcode connect} is the front door: one call gives a supervised
 *   socket with `send`, a confirming send, a status, listeners and a store
 *   for UI frameworks; `websocketProps` gives the actor's Props.
 * - `Send`s made while disconnected wait (bounded by `maxQueued` and
 *   `ttlMs`; past them they go to dead letters, counted) and go out in order
 *   on reconnect. By default a message is written at most once; acknowledged
 *   mode (`ack`) resends with ids until the server acknowledges.
 * - `Close` leaves nothing behind: no socket, no timer, no listener.
 * - `maxRetries` ends in a `WebSocketGaveUp` event, and what waits goes to
 *   dead letters; `Reconnect` always starts again. `shouldReconnect(close)`
 *   can stop retries for good.
 * - A heartbeat detects half-open sockets (and makes "open" mean a round
 *   trip); `online`/`offline`, hidden, frozen and cached pages pause and
 *   resume it in browsers (nothing is required elsewhere).
 *
 * Runs in browsers, Deno, Bun, Node (with the `ws` package's `WebSocket` on
 * Node 20) and edge workers.
 *
 * @example A chat connection
 * ```ts
 * import { ActorSystem } from "@understudy/core";
 * import {
 *   Close,
 *   Send,
 *   WebSocketGaveUp,
 *   WebSocketMessage,
 *   WebSocketReconnectScheduled,
 *   websocketProps,
 * } from "@understudy/core/websocket";
 *
 * const system = ActorSystem.create("chat", { logLevel: "warn" });
 * const chat = system.actorOf(
 *   websocketProps({
 *     url: "wss://chat.example/ws",
 *     maxRetries: 20,
 *     shouldReconnect: (close) => close.code !== 4001, // 4001: logged out
 *     heartbeat: { intervalMs: 25_000, timeoutMs: 5_000 },
 *     subscriber: (event) => {
 *       if (event instanceof WebSocketMessage) console.log(event.data);
 *       if (event instanceof WebSocketReconnectScheduled) console.log(`retry in ${event.delayMs} ms`);
 *       if (event instanceof WebSocketGaveUp) console.log(event.reason);
 *     },
 *   }),
 *   "chat",
 * );
 * chat.tell(new Send("hello"));
 * chat.tell(new Close(1000, "bye"));
 * await system.terminate();
 * ```
 *
 * @module
 */

export {
  connect,
  type ConnectOptions,
  SendFailedError,
  type SendFailure,
  type SocketEventMap,
  type SocketSnapshot,
  type SocketStatus,
  SupervisedSocket,
} from "./supervised_socket.ts";
export {
  connectShared,
  type SharedSnapshot,
  SharedSocket,
} from "./shared_socket.ts";
export { websocketProps } from "./websocket_props.ts";
export { durableSocketAck } from "./durable_socket_ack.ts";
export {
  type AckOptions,
  defaultReconnectPolicy,
  type HeartbeatOptions,
  type WebSocketOptions,
} from "./options.ts";
export {
  Close,
  Reconnect,
  Send,
  Sent,
  type WebSocketCommand,
} from "./messages.ts";
export {
  WebSocketClosed,
  WebSocketConnecting,
  WebSocketEvent,
  WebSocketGaveUp,
  WebSocketMessage,
  WebSocketMessageDropped,
  WebSocketOpened,
  WebSocketPaused,
  WebSocketReconnectScheduled,
} from "./events.ts";
export type {
  CloseInfo,
  WebSocketConstructor,
  WebSocketData,
  WebSocketLike,
} from "./websocket_like.ts";
export type { EventTargetLike, PageLike } from "./page_like.ts";
