// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The server of the supervised socket in a Durable Object: browser
 * WebSockets accepted through the Hibernation API, each client a ref that
 * the object's actors tell to send to it, each client message processed
 * once by a chosen actor, effectively once with the client's
 * `durableSocketAck()`. See docs/edge-socket.md.
 *
 * @module
 */

import { Actor } from "../runtime/actor.ts";
import { ActorRef } from "../runtime/actor_ref.ts";
import type { ActorSystem } from "../runtime/actor_system.ts";
import { Props } from "../runtime/props.ts";
import { TrackedMessage } from "../runtime/ports/tracked_message.ts";
import { passOn } from "../runtime/ports/undelivered.ts";
import { type DurableStore, storeWriter } from "../patterns/durable_port.ts";
import { describeError, describeValue, fail } from "../validation.ts";
import type {
  HibernatableWebSocketLike,
  HibernationStateLike,
} from "./platform.ts";
import {
  ackFrame,
  CONTROL,
  DEFAULT_PING,
  DEFAULT_PONG,
  MAX_REASON,
  parseFrame,
  refusalFrame,
  resumeFrame,
} from "./socket_frames.ts";

/** Where each client's last handled id is stored: this prefix, then the client id. */
const KEY = "understudy/socket/";
/** The longest client id, in UTF-16 code units. */
const MAX_CLIENT_ID = 256;
/**
 * Where each client's refusals are stored (`[id, reason]` pairs, oldest
 * first): this prefix, then the client id. Apart from KEY's: no client id
 * makes one key the other's.
 */
const REFUSED_KEY = "understudy/socket-refused/";
/** How many refusals a client's record keeps (in memory and stored), the newest: a copy of one is refused again. */
const MAX_REFUSED = 1_000;

/**
 * What a connection's ref sends to its client: text (not starting with
 * U+0006, which the library's frames start with) or binary data.
 *
 * @example Usage
 * ```ts
 * import type { SocketFrame } from "@understudy/core/durable";
 *
 * const frame: SocketFrame = JSON.stringify({ joined: "ada" });
 * ```
 */
export type SocketFrame = string | ArrayBuffer | ArrayBufferView;

/**
 * A client's message, as the server's target actor receives it: who sent
 * it (`clientId`), its id (1, 2, 3, … per client, kept across reconnects),
 * its data, and the client's connection, a ref to tell a
 * {@linkcode SocketFrame} to send it to that client (also the message's
 * `sender`). The client's `Sent` (acknowledged) follows the end of the
 * turn that handled it.
 *
 * @example An actor that answers each client
 * ```ts
 * import { Actor } from "@understudy/core";
 * import type { SocketMessage } from "@understudy/core/durable";
 *
 * class Echo extends Actor<SocketMessage> {
 *   onReceive(message: SocketMessage): void {
 *     message.connection.tell(`#${message.id}: ${String(message.data)}`);
 *   }
 * }
 * ```
 */
export class SocketMessage {
  /** The client's id, as its connection request gave it. */
  readonly clientId: string;
  /** The message's id within the client. */
  readonly id: number;
  /** Text, or the bytes of a binary message. */
  readonly data: string | ArrayBuffer;
  /** The client's connection: tell it a frame to send to the client. */
  readonly connection: ActorRef<SocketFrame>;

  /**
   * Made by the server.
   *
   * @param clientId The client's id.
   * @param id The message's id.
   * @param data Its data.
   * @param connection The client's connection.
   */
  constructor(
    clientId: string,
    id: number,
    data: string | ArrayBuffer,
    connection: ActorRef<SocketFrame>,
  ) {
    this.clientId = clientId;
    this.id = id;
    this.data = data;
    this.connection = connection;
  }
}

/**
 * The heartbeat the platform answers without waking the object
 * (`ctx.setWebSocketAutoResponse`): a text frame equal to `ping` is
 * answered `pong`. `ping` must be the client's `heartbeat.message`
 * (`"ping"` by default, as the client's); `pong` must be a frame the
 * client's `decodeAck` swallows (`durableSocketAck()` swallows every frame
 * starting with U+0006; the default is U+0006 alone).
 *
 * @example Usage
 * ```ts
 * import type { SocketHeartbeat } from "@understudy/core/durable";
 *
 * // The client: heartbeat: { intervalMs: 20_000, timeoutMs: 5_000, message: "hb" }
 * const heartbeat: SocketHeartbeat = { ping: "hb", pong: "\u0006" };
 * ```
 */
export interface SocketHeartbeat {
  /** The client's heartbeat frame. */
  ping: string;
  /** The answer. */
  pong: string;
}

/**
 * Options of {@linkcode SocketServer}.
 *
 * @example Usage
 * ```ts
 * import { Actor, ActorSystem, Props } from "@understudy/core";
 * import type { SocketMessage, SocketServerOptions } from "@understudy/core/durable";
 *
 * class Room extends Actor<SocketMessage> {
 *   onReceive(message: SocketMessage): void {
 *     message.connection.tell("got it");
 *   }
 * }
 * const system = ActorSystem.create("room", { logLevel: "off" });
 * const options: SocketServerOptions = {
 *   system,
 *   store: new Map(), // this.actors.store in a durable object
 *   target: system.actorOf(Props.create(() => new Room())),
 *   clientId: (request) => new URL(request.url).searchParams.get("tab"),
 *   heartbeat: { ping: "ping", pong: "\u0006" },
 * };
 * await system.terminate();
 * ```
 */
export interface SocketServerOptions {
  /** The object's actor system: the connections' refs are actors in it. */
  system: ActorSystem;
  /**
   * Where each client's last handled id is kept, written in the turn that
   * handled it: a durable host's `this.actors.store` (`ctx.storage.kv`).
   */
  store: DurableStore;
  /**
   * The actor that processes the clients' messages
   * ({@linkcode SocketMessage}): a local actor of `system` (a
   * BackoffSupervisor over one is fine).
   */
  target: ActorRef<SocketMessage>;
  /**
   * The client id a connection request gives: the same for every
   * reconnect of one client, unique among clients (at most 256
   * characters). Default: the `client` parameter of the request's URL.
   */
  clientId?: (request: Request) => string | null | undefined;
  /**
   * The heartbeat answered by the platform without waking the object, or
   * `false` for none. Default `{ ping: "ping", pong: "\u0006" }`.
   */
  heartbeat?: SocketHeartbeat | false;
}

/** One client, by its id: its current socket and the ids of its messages. */
interface Client {
  readonly id: string;
  socket: HibernatableWebSocketLike | undefined;
  /**
   * The mark: every id up to it the actor finished with (stored, and in
   * the socket's attachment). It advances in order only: one finished
   * above an earlier one still in the mailbox waits in `finished`.
   */
  handled: number;
  /** The last id given to the actor (in memory): above `handled`, in its mailbox. */
  delivered: number;
  /** The ids above `handled` given to the actor, in order: finished or not. */
  readonly pending: number[];
  /** Those of `pending` finished: the mark passes them once those below are. */
  readonly finished: Set<number>;
  /**
   * The ids that became dead letters, with their reasons (at most
   * MAX_REFUSED, the newest; stored, so read again in a later life): a copy
   * is refused again, not acknowledged.
   */
  readonly refused: Map<number, string>;
  /**
   * Its socket waits for the resume frame: sent when `handled` reaches
   * `delivered` (an earlier socket's messages were still in the mailbox).
   */
  resuming: boolean;
  ref: ActorRef<SocketFrame> | undefined;
}

/** What a socket's attachment keeps. */
interface Attachment {
  client: string;
  handled: number;
  /** The last id given to the target while this socket was the client's. */
  delivered: number;
}

/**
 * The object is done with a client's message: its turn ended, or (with a
 * reason) it became a dead letter.
 */
type Done = (message: SocketMessage, refused?: string) => void;

/** A client's message on its way to the target: the runtime says when its turn ended. */
class Delivery extends TrackedMessage {
  readonly message: SocketMessage;
  readonly #done: Done;

  constructor(message: SocketMessage, done: Done) {
    super();
    this.message = message;
    this.#done = done;
  }

  taken(): void {
    this.#done(this.message);
  }

  // Its dead letter (the message inside) is the object's record of it: the
  // object is done with it (the mark passes it once those below are, so a
  // copy is not given to a stopped actor), and the client is told it was
  // refused, not acknowledged.
  undelivered(reason: string): void {
    this.#done(this.message, reason);
  }
}

/** A client's connection: what it is told goes to the client's socket. */
class Connection extends Actor<unknown> {
  readonly #send: (frame: unknown) => string | undefined;

  constructor(send: (frame: unknown) => string | undefined) {
    super();
    this.#send = send;
  }

  onReceive(frame: unknown): void {
    const refused = this.#send(frame);
    if (refused !== undefined) {
      this.context.system.publishDeadLetter(
        frame,
        this.sender as never,
        this.self as never,
        refused,
      );
    }
  }
}

/**
 * Serves the supervised socket from a Durable Object, through the
 * WebSocket Hibernation API. `accept(request)` (in the object's `fetch`)
 * accepts a client's WebSocket (`ctx.acceptWebSocket`) and tells it the
 * last id the object handled from that client; the object's
 * `webSocketMessage`, `webSocketClose` and `webSocketError` handlers hand
 * their events to the methods of the same names. Each client message
 * (framed by the client's `durableSocketAck()`) goes to `target` as a
 * {@linkcode SocketMessage}, once: a copy (an id at or below the last one
 * given to it) is dropped. When the turn that handled it ends, the
 * client's last handled id is written to `store` and to the socket's
 * attachment, and the acknowledgement is sent: the output gate holds it
 * until the turn's writes, the actor's and the mark, are durable, so the
 * client's `Sent` (acknowledged) means the message was processed, and a
 * message never counts as processed without having been. One that becomes
 * a dead letter in the object (the target's mailbox or stash full, the
 * target stopped) is refused instead, with the reason: the client's
 * `durableSocketAck()` makes it a dead letter there and does not send it
 * again; on each connect, the client's refusals (stored with the mark,
 * the newest 1,000) go before the word (docs/edge-socket.md says when one
 * is forgotten). The client id, the mark and the refusals survive
 * hibernation (the attachment, and storage) and eviction and restarts
 * (storage). `connection(clientId)` is a ref the
 * object's actors tell to send to that client. Heartbeats are answered by
 * the platform (`ctx.setWebSocketAutoResponse`) without waking the object.
 *
 * Create it in `createActors` of a durable host (`withActors(DurableObject,
 * { durable: true })`), so that it exists before any event.
 *
 * @example A room that echoes to each client
 * ```ts no-run: imports cloudflare:workers, which only workerd has
 * import { DurableObject } from "cloudflare:workers";
 * import { Actor, type ActorSystem, Props } from "@understudy/core";
 * import {
 *   DurableState,
 *   type DurableStore,
 *   type HibernatableWebSocketLike,
 *   type SocketMessage,
 *   SocketServer,
 *   withActors,
 * } from "@understudy/core/durable";
 *
 * class Room extends Actor<SocketMessage> {
 *   readonly #count: DurableState<number>;
 *   constructor(store: DurableStore) {
 *     super();
 *     this.#count = new DurableState(store, "count", 0);
 *   }
 *   onReceive(message: SocketMessage): void {
 *     this.#count.set(this.#count.value + 1); // in the turn: with the mark
 *     message.connection.tell(`${this.#count.value}: ${String(message.data)}`);
 *   }
 * }
 *
 * export class RoomObject
 *   extends withActors(DurableObject, { binding: "ROOM", durable: true }) {
 *   sockets!: SocketServer;
 *
 *   override createActors(system: ActorSystem): void {
 *     const store = this.actors.store;
 *     const room = system.actorOf(Props.create(() => new Room(store)), "room");
 *     this.sockets = new SocketServer(this.ctx, { system, store, target: room });
 *   }
 *   fetch(request: Request): Response {
 *     return this.sockets.accept(request);
 *   }
 *   webSocketMessage(ws: HibernatableWebSocketLike, message: string | ArrayBuffer): void {
 *     this.sockets.webSocketMessage(ws, message);
 *   }
 *   webSocketClose(ws: HibernatableWebSocketLike, code: number, reason: string, wasClean: boolean): void {
 *     this.sockets.webSocketClose(ws, code, reason, wasClean);
 *   }
 *   webSocketError(ws: HibernatableWebSocketLike, error: unknown): void {
 *     this.sockets.webSocketError(ws, error);
 *   }
 * }
 * ```
 */
export class SocketServer {
  readonly #ctx: HibernationStateLike;
  readonly #system: ActorSystem;
  readonly #store: DurableStore;
  readonly #put: (key: string, value: unknown) => void;
  readonly #target: ActorRef<SocketMessage>;
  readonly #clientIdOf: (request: Request) => string | null | undefined;
  readonly #ping: string | undefined;
  readonly #pong: string;
  readonly #clients = new Map<string, Client>();
  readonly #bySocket = new WeakMap<HibernatableWebSocketLike, Client>();
  /** Sockets of an earlier life closed for what it lost: their frames are ignored. */
  readonly #refused = new WeakSet<HibernatableWebSocketLike>();

  /**
   * Makes the server; sets the platform's heartbeat answer, and takes back
   * the sockets the object had accepted before it hibernated (their
   * attachments say whose they are).
   *
   * @param ctx The Durable Object's state (`this.ctx`).
   * @param options The system, the store, the target and the heartbeat.
   * @throws {TypeError} If `ctx` has no `acceptWebSocket` and `getWebSockets`, or an option is wrong.
   */
  constructor(ctx: HibernationStateLike, options: SocketServerOptions) {
    const action = "create socket server";
    if (
      typeof ctx?.acceptWebSocket !== "function" ||
      typeof ctx.getWebSockets !== "function"
    ) {
      fail(
        action,
        "ctx",
        "a Durable Object's state, with acceptWebSocket and getWebSockets",
        ctx,
      );
    }
    if (typeof options !== "object" || options === null) {
      fail(action, "options", "{ system, store, target }", options);
    }
    const { system, store, target, clientId, heartbeat } = options;
    if (typeof system?.actorOf !== "function") {
      fail(action, "system", "an ActorSystem", system);
    }
    this.#put = storeWriter(action, store);
    if (
      !(target instanceof ActorRef) ||
      typeof (target as { enqueueSent?: unknown }).enqueueSent !==
        "function"
    ) {
      fail(
        action,
        "target",
        "the ref of a local actor (system.actorOf)",
        target,
      );
    }
    if (clientId !== undefined && typeof clientId !== "function") {
      fail(action, "clientId", "a function of the request", clientId);
    }
    this.#ctx = ctx;
    this.#system = system;
    this.#store = store;
    this.#target = target;
    this.#clientIdOf = clientId ??
      ((request) => new URL(request.url).searchParams.get("client"));
    let { ping, pong } = { ping: DEFAULT_PING, pong: DEFAULT_PONG };
    if (heartbeat !== undefined && heartbeat !== false) {
      if (
        typeof heartbeat !== "object" || heartbeat === null ||
        typeof heartbeat.ping !== "string" || heartbeat.ping === "" ||
        typeof heartbeat.pong !== "string"
      ) {
        fail(action, "heartbeat", "false or { ping, pong } (text)", heartbeat);
      }
      ({ ping, pong } = heartbeat);
      if (parseFrame(ping) !== undefined) {
        fail(
          action,
          "heartbeat.ping",
          "text that is no message frame (not id:text)",
          ping,
        );
      }
    }
    this.#ping = heartbeat === false ? undefined : ping;
    this.#pong = pong;
    const Pair = (globalThis as {
      WebSocketRequestResponsePair?: new (
        request: string,
        response: string,
      ) => unknown;
    }).WebSocketRequestResponsePair;
    if (
      typeof ctx.setWebSocketAutoResponse === "function" &&
      typeof Pair === "function"
    ) {
      ctx.setWebSocketAutoResponse(
        heartbeat === false ? undefined : new Pair(ping, pong),
      );
    }
    for (const socket of ctx.getWebSockets()) this.#clientOf(socket);
  }

  /**
   * For the object's `fetch`: accepts a WebSocket upgrade from the client
   * the request names (`clientId`), through the Hibernation API, and
   * answers 101. A request that is no upgrade is answered 426, one with no
   * valid client id 400. Needs workerd (`WebSocketPair`).
   *
   * @example Usage
   * ```ts no-run: needs workerd's WebSocketPair
   * import type { SocketServer } from "@understudy/core/durable";
   *
   * declare const sockets: SocketServer;
   * declare const request: Request;
   * const response = sockets.accept(request); // 101, with the client's end
   * ```
   *
   * @param request The upgrade request.
   * @returns The response.
   * @throws {TypeError} Outside workerd (no `WebSocketPair`).
   */
  accept(request: Request): Response {
    if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
      return new Response("expected a WebSocket upgrade", { status: 426 });
    }
    let clientId: unknown;
    try {
      clientId = this.#clientIdOf(request);
    } catch (error) {
      return new Response(`no client id: ${describeError(error)}`, {
        status: 400,
      });
    }
    if (!isClientId(clientId)) {
      return new Response(
        `no client id: expected 1 to ${MAX_CLIENT_ID} characters (the client parameter of the URL, by default), got ${
          describeValue(clientId)
        }`,
        { status: 400 },
      );
    }
    const Pair = (globalThis as {
      WebSocketPair?: new () => Record<0 | 1, HibernatableWebSocketLike>;
    }).WebSocketPair;
    if (typeof Pair !== "function") {
      fail(
        "accept socket",
        "WebSocketPair",
        "the platform's (workerd)",
        Pair,
      );
    }
    const pair = new Pair();
    this.adopt(pair[1], clientId);
    return new Response(
      null,
      { status: 101, webSocket: pair[0] } as ResponseInit,
    );
  }

  /**
   * Accepts the server's end of a WebSocket for `clientId`
   * (`ctx.acceptWebSocket`), as `accept` does after the upgrade: its
   * attachment names the client, and it is told the last id the object
   * handled from it (once the messages an earlier socket gave the target
   * are finished, if any are still in its mailbox). A socket this client
   * had before is closed (4000, "replaced"), and its frames count for
   * nothing: one socket per client.
   *
   * @example Usage
   * ```ts no-run: needs a Durable Object's socket
   * import type { HibernatableWebSocketLike, SocketServer } from "@understudy/core/durable";
   *
   * declare const sockets: SocketServer;
   * declare const server: HibernatableWebSocketLike;
   * sockets.adopt(server, "tab-1");
   * ```
   *
   * @param socket The server's end.
   * @param clientId The client's id.
   * @throws {TypeError} If `clientId` is not 1 to 256 characters.
   */
  adopt(socket: HibernatableWebSocketLike, clientId: string): void {
    if (!isClientId(clientId)) {
      fail(
        "adopt socket",
        "clientId",
        `1 to ${MAX_CLIENT_ID} characters`,
        clientId,
      );
    }
    this.#ctx.acceptWebSocket(socket);
    const client = this.#client(clientId);
    const old = client.socket;
    if (old !== undefined && old !== socket) {
      this.#bySocket.delete(old);
      // Its late frames count for nothing, and do not make it the client's again.
      this.#refuse(old, "replaced by a newer connection of this client");
    }
    client.socket = socket;
    this.#bySocket.set(socket, client);
    this.#attach(client);
    // With an earlier socket's messages still in the mailbox, the word waits
    // until they are finished (see #handled): a reloaded page numbers its
    // messages from it, and must not take their ids for its own.
    client.resuming = client.delivered > client.handled;
    if (!client.resuming) this.#word(client, socket);
  }

  /**
   * For the object's `webSocketMessage` handler: a client's message goes
   * to the target (once; a copy of one already handled is acknowledged
   * again, or refused again if it was refused, in this life or an earlier one); a heartbeat the platform did not answer is answered. A frame
   * that is not the client's framing is a dead letter.
   *
   * @example Usage
   * ```ts no-run: needs a Durable Object's socket
   * import type { HibernatableWebSocketLike, SocketServer } from "@understudy/core/durable";
   *
   * declare const sockets: SocketServer;
   * declare const ws: HibernatableWebSocketLike;
   * sockets.webSocketMessage(ws, "1:hello");
   * ```
   *
   * @param socket The socket it came on.
   * @param message Its text or bytes.
   */
  webSocketMessage(
    socket: HibernatableWebSocketLike,
    message: string | ArrayBuffer,
  ): void {
    if (message === this.#ping) return socket.send(this.#pong);
    const client = this.#clientOf(socket);
    if (client === undefined) {
      if (this.#refused.has(socket)) return;
      return socket.close(1008, "no client id in its attachment");
    }
    const connection = this.connection(client.id);
    const frame = parseFrame(message);
    if (frame === undefined) {
      return this.#system.publishDeadLetter(
        message,
        undefined,
        connection as ActorRef<never>,
        "not a message framed by durableSocketAck()",
      );
    }
    const { id, data } = frame;
    const refused = client.refused.get(id);
    if (refused !== undefined) return socket.send(refusalFrame(id, refused));
    if (id <= client.handled || client.finished.has(id)) {
      return socket.send(ackFrame(id));
    }
    // A copy of one the target has yet to finish: acknowledged when it has.
    if (id <= client.delivered) return;
    client.delivered = id;
    client.pending.push(id);
    this.#attach(client);
    passOn(
      this.#target as ActorRef<never>,
      new Delivery(
        new SocketMessage(client.id, id, data, connection),
        this.#handled,
      ),
      connection as ActorRef<never>,
    );
  }

  /**
   * For the object's `webSocketClose` handler: the client has no socket
   * until it connects again (what its ref is told meanwhile is a dead
   * letter); the close is answered.
   *
   * @example Usage
   * ```ts no-run: needs a Durable Object's socket
   * import type { HibernatableWebSocketLike, SocketServer } from "@understudy/core/durable";
   *
   * declare const sockets: SocketServer;
   * declare const ws: HibernatableWebSocketLike;
   * sockets.webSocketClose(ws, 1000, "bye", true);
   * ```
   *
   * @param socket The socket.
   * @param code Its close code.
   * @param reason Its reason.
   * @param _wasClean Whether it closed cleanly.
   */
  webSocketClose(
    socket: HibernatableWebSocketLike,
    code: number,
    reason: string,
    _wasClean?: boolean,
  ): void {
    this.#forget(socket);
    try {
      socket.close(
        code === 1000 || (code >= 3000 && code <= 4999) ? code : 1000,
        reason,
      );
    } catch {
      // closed already
    }
  }

  /**
   * For the object's `webSocketError` handler: as a close.
   *
   * @example Usage
   * ```ts no-run: needs a Durable Object's socket
   * import type { HibernatableWebSocketLike, SocketServer } from "@understudy/core/durable";
   *
   * declare const sockets: SocketServer;
   * declare const ws: HibernatableWebSocketLike;
   * sockets.webSocketError(ws, new Error("reset"));
   * ```
   *
   * @param socket The socket.
   * @param error What the platform reported.
   */
  webSocketError(socket: HibernatableWebSocketLike, error: unknown): void {
    this.#forget(socket);
    this.#system.log.warn(`socket error: ${describeError(error)}`);
  }

  /**
   * The ref of client `clientId`'s connection: a {@linkcode SocketFrame}
   * told to it is sent to the client's socket, in order; while the client
   * has none (between a close and its reconnect), or for text starting
   * with U+0006 (the library's frames), it is a dead letter. Messages from
   * the server are sent at most once: the client does not acknowledge them.
   *
   * @example Usage
   * ```ts no-run: needs a Durable Object's socket
   * import type { SocketServer } from "@understudy/core/durable";
   *
   * declare const sockets: SocketServer;
   * sockets.connection("tab-1").tell(JSON.stringify({ text: "hi" }));
   * ```
   *
   * @param clientId The client's id.
   * @returns Its connection's ref.
   */
  connection(clientId: string): ActorRef<SocketFrame> {
    const client = this.#client(clientId);
    return client.ref ??= this.#system.actorOf(
      Props.create(() => new Connection((frame) => this.#send(client, frame))),
    ) as ActorRef<SocketFrame>;
  }

  /**
   * The last id the target finished with from client `clientId` (0 for
   * none): what it is told when it connects.
   *
   * @example Usage
   * ```ts no-run: needs a Durable Object's socket
   * import type { SocketServer } from "@understudy/core/durable";
   *
   * declare const sockets: SocketServer;
   * console.log(sockets.handled("tab-1"));
   * ```
   *
   * @param clientId The client's id.
   * @returns The id.
   */
  handled(clientId: string): number {
    return this.#client(clientId).handled;
  }

  /**
   * The ids of the clients connected now.
   *
   * @example Usage
   * ```ts no-run: needs a Durable Object's socket
   * import type { SocketServer } from "@understudy/core/durable";
   *
   * declare const sockets: SocketServer;
   * for (const id of sockets.clients) sockets.connection(id).tell("closing soon");
   * ```
   */
  get clients(): string[] {
    return [...this.#clients.values()].filter((c) => c.socket).map((c) => c.id);
  }

  /** The client `id`, known or read from storage. */
  #client(id: string): Client {
    let client = this.#clients.get(id);
    if (client === undefined) {
      const stored = this.#store.get(KEY + id);
      const mark = typeof stored === "number" ? stored : 0;
      const refused = new Map<number, string>();
      const storedRefusals = this.#store.get(REFUSED_KEY + id);
      if (Array.isArray(storedRefusals)) {
        for (const entry of storedRefusals) {
          if (
            Array.isArray(entry) && typeof entry[0] === "number" &&
            typeof entry[1] === "string"
          ) {
            refused.set(entry[0], entry[1]);
          }
        }
      }
      client = {
        id,
        socket: undefined,
        handled: mark,
        delivered: mark,
        pending: [],
        finished: new Set(),
        refused,
        resuming: false,
        ref: undefined,
      };
      this.#clients.set(id, client);
    }
    return client;
  }

  /** The client of `socket`: known, or (after a wake from hibernation) named by its attachment. */
  #clientOf(socket: HibernatableWebSocketLike): Client | undefined {
    let client = this.#bySocket.get(socket);
    if (client !== undefined) return client;
    if (this.#refused.has(socket)) return undefined;
    let attached: Partial<Attachment> | null | undefined;
    try {
      attached = socket.deserializeAttachment() as typeof attached;
    } catch {
      return undefined;
    }
    if (!isClientId(attached?.client)) return undefined;
    // The mark is storage's: the attachment's may be ahead of a write that
    // an eviction undid (with the turn's other writes).
    client = this.#client(attached.client);
    const { delivered } = attached;
    if (client.socket !== undefined && client.socket !== socket) {
      // Two sockets for one client (one was replaced): this one goes, and
      // if it was the newer, its client connects again and replaces the other.
      return this.#refuse(
        socket,
        "replaced by a newer connection of this client",
      );
    }
    if (typeof delivered === "number" && delivered > client.handled) {
      // It outlived an object that was given messages and lost them
      // unprocessed (evicted with its mailbox, its sockets kept): the
      // client sends them again after a reconnect.
      return this.#refuse(
        socket,
        "the object lost messages it had not processed: connect again",
      );
    }
    client.socket = socket;
    this.#bySocket.set(socket, client);
    return client;
  }

  /**
   * The turn that handled a client's message ended (or, `refused`, it
   * became a dead letter): the mark advances past every id finished with
   * no earlier one still waiting, written in that turn (the output gate
   * holds the acknowledgement until it is durable); the id is acknowledged
   * (or refused, with the reason) on the client's socket now, if any (the
   * client matches them by id). A socket waiting for its word is sent that
   * instead, once nothing is left in the mailbox.
   */
  readonly #handled: Done = (message, refused) => {
    const client = this.#client(message.clientId);
    const { id } = message;
    const { pending, finished } = client;
    // Not one given in this life (it outlived its mark): nothing to do.
    if (!pending.includes(id)) return;
    finished.add(id);
    if (refused !== undefined) {
      // As the frame carries it: the stored list stays small.
      client.refused.set(id, refused.slice(0, MAX_REASON));
      if (client.refused.size > MAX_REFUSED) {
        client.refused.delete(client.refused.keys().next().value!);
      }
      // In the turn, with the mark: a later life refuses a copy again, and
      // sends the refusal before its word.
      this.#put(REFUSED_KEY + client.id, [...client.refused]);
    }
    const before = client.handled;
    while (pending.length > 0 && finished.delete(pending[0])) {
      client.handled = pending.shift()!;
    }
    if (client.handled !== before) this.#put(KEY + client.id, client.handled);
    const socket = client.socket;
    if (socket === undefined) return; // told on its next connect
    try {
      this.#attach(client);
      if (!client.resuming) {
        return socket.send(
          refused === undefined ? ackFrame(id) : refusalFrame(id, refused),
        );
      }
      // Ids the word will cover: the socket hears of them from it.
      if (client.handled < client.delivered) return;
      client.resuming = false;
      this.#word(client, socket);
    } catch {
      // Closed: its close event comes, and the client hears on reconnect.
    }
  };

  /**
   * The word on connect, after the refusals the client's record keeps: the word
   * marks every id up to it acknowledged, and the client may still hold a
   * refused one (refused with no socket, or to one that was closing, or
   * while the word was held). A refusal of an id it no longer holds is
   * ignored there.
   */
  #word(client: Client, socket: HibernatableWebSocketLike): void {
    for (const [id, reason] of client.refused) {
      socket.send(refusalFrame(id, reason));
    }
    socket.send(resumeFrame(client.handled));
  }

  /** Closes a socket whose frames count for nothing (4000): its client connects again. */
  #refuse(socket: HibernatableWebSocketLike, reason: string): undefined {
    this.#refused.add(socket);
    try {
      socket.close(4000, reason);
    } catch {
      // closed already
    }
    return undefined;
  }

  /** Keeps the client's marks in its socket's attachment. */
  #attach(client: Client): void {
    client.socket?.serializeAttachment(
      {
        client: client.id,
        handled: client.handled,
        delivered: client.delivered,
      } satisfies Attachment,
    );
  }

  /** Sends what a connection was told; the reason it cannot, if it cannot. */
  #send(client: Client, frame: unknown): string | undefined {
    if (typeof frame === "string") {
      if (frame[0] === CONTROL) {
        return "text starting with U+0006 is the library's (the client would take it for an acknowledgement)";
      }
    } else if (!(frame instanceof ArrayBuffer || ArrayBuffer.isView(frame))) {
      return `not text or binary data: ${describeValue(frame)}`;
    }
    const socket = client.socket;
    if (socket === undefined) return `client ${client.id} is not connected`;
    if (client.resuming) {
      // The client reads nothing before the word.
      return `client ${client.id} is connecting (its word waits for the messages in the actor)`;
    }
    try {
      socket.send(frame);
    } catch (error) {
      return `cannot send: ${describeError(error)}`;
    }
    return undefined;
  }

  #forget(socket: HibernatableWebSocketLike): void {
    const client = this.#clientOf(socket);
    this.#bySocket.delete(socket);
    if (client?.socket === socket) client.socket = undefined;
  }
}

/** A client id: a string of 1 to 256 characters. */
function isClientId(value: unknown): value is string {
  return typeof value === "string" && value.length > 0 &&
    value.length <= MAX_CLIENT_ID;
}
