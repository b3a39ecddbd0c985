// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The few shapes this module needs from Cloudflare's Durable Objects,
 * declared here so that `src/` imports nothing (no `cloudflare:workers`, no
 * `@cloudflare/workers-types`): a namespace binding, the object's state
 * (`ctx`), and the base class a Durable Object extends. The platform's own
 * types fit them.
 *
 * @module
 */

/**
 * A Durable Object namespace binding (`env.ROOM`), as far as this module
 * uses it: a name gives an id, an id gives a stub. Cloudflare's
 * `DurableObjectNamespace` fits.
 *
 * @example Usage
 * ```ts
 * import type { DurableObjectNamespaceLike } from "@understudy/core/durable";
 *
 * function stubFor(namespace: DurableObjectNamespaceLike, name: string): unknown {
 *   return namespace.get(namespace.idFromName(name));
 * }
 * ```
 */
export interface DurableObjectNamespaceLike {
  /**
   * The id of the object called `name`.
   *
   * @param name The object's name.
   */
  idFromName(name: string): unknown;
  /**
   * A stub (client) for the object with this id; RPC methods are called on it.
   *
   * @param id From {@linkcode DurableObjectNamespaceLike.idFromName}.
   */
  get(id: unknown): unknown;
}

/**
 * A Durable Object's storage (`this.ctx.storage`), as far as this module
 * uses it: the high-water marks of the tells it received. Cloudflare's
 * `DurableObjectStorage` fits.
 *
 * @example Usage
 * ```ts
 * import type { DurableObjectStorageLike } from "@understudy/core/durable";
 *
 * const map = new Map<string, unknown>();
 * const storage: DurableObjectStorageLike = {
 *   get: (key) => Promise.resolve(map.get(key)),
 *   put: (key, value) => Promise.resolve(void map.set(key, value)),
 * };
 * ```
 */
export interface DurableObjectStorageLike {
  /**
   * The value stored at `key`, or `undefined`.
   *
   * @param key The key.
   */
  get(key: string): Promise<unknown>;
  /**
   * Stores `value` at `key`. The platform's output gate holds back the
   * object's replies until the write is durable, so it need not be awaited.
   *
   * @param key The key.
   * @param value A structured-cloneable value.
   */
  put(key: string, value: unknown): Promise<void>;
  /**
   * Removes `key` (for the outbox).
   *
   * @param key The key.
   */
  delete?(key: string): Promise<unknown>;
  /**
   * The entries whose keys start with `prefix`, in key order (for the
   * outbox).
   *
   * @param options The prefix.
   */
  list?(options: { prefix: string }): Promise<Map<string, unknown>>;
}

/**
 * A Durable Object's state (`this.ctx`), as far as this module uses it: its
 * id, whose `name` is the name it was reached by (when it was made by
 * `idFromName`), and its storage, if any. Cloudflare's `DurableObjectState`
 * fits.
 *
 * @example Usage
 * ```ts
 * import type { DurableObjectStateLike } from "@understudy/core/durable";
 *
 * const ctx: DurableObjectStateLike = { id: { name: "lobby" } };
 * console.log(ctx.id.name); // "lobby"
 * ```
 */
export interface DurableObjectStateLike {
  /** The object's id. */
  readonly id: { readonly name?: string | undefined };
  /** The object's storage: where received tells' high-water marks are kept (and the outbox). */
  readonly storage?: DurableObjectStorageLike;
  /**
   * Runs `callback` while no event reaches the object (what `withActors`
   * uses to read the outbox back before any call).
   *
   * @param callback What to run.
   */
  blockConcurrencyWhile?(callback: () => Promise<unknown>): Promise<unknown>;
}

/**
 * A class a Durable Object class can extend: Cloudflare's `DurableObject`
 * from `cloudflare:workers` (whose constructor takes `ctx` and `env`), or
 * any class whose constructor does.
 *
 * @example Usage
 * ```ts
 * import type { DurableObjectBase } from "@understudy/core/durable";
 *
 * class PlainBase {
 *   constructor(readonly ctx: unknown, readonly env: unknown) {}
 * }
 * const base: DurableObjectBase = PlainBase;
 * ```
 */
// deno-lint-ignore no-explicit-any
export type DurableObjectBase = abstract new (...args: any[]) => object;

/**
 * A WebSocket a Durable Object accepted through the Hibernation API
 * (`ctx.acceptWebSocket`), as far as `SocketServer` uses it: it sends and
 * closes, and keeps an attachment that survives hibernation. Cloudflare's
 * `WebSocket` fits.
 *
 * @example Usage
 * ```ts
 * import type { HibernatableWebSocketLike } from "@understudy/core/durable";
 *
 * let attachment: unknown;
 * const socket: HibernatableWebSocketLike = {
 *   send: (data) => console.log("to the client:", data),
 *   close: () => {},
 *   serializeAttachment: (value) => void (attachment = structuredClone(value)),
 *   deserializeAttachment: () => attachment,
 * };
 * socket.serializeAttachment({ client: "tab-1" });
 * ```
 */
export interface HibernatableWebSocketLike {
  /**
   * Sends a frame to the client.
   *
   * @param data Text or binary data.
   */
  send(data: string | ArrayBuffer | ArrayBufferView): void;
  /**
   * Closes the socket.
   *
   * @param code The close code.
   * @param reason The reason.
   */
  close(code?: number, reason?: string): void;
  /**
   * Keeps a structured-cloneable copy of `value` with the socket, through
   * hibernation (the platform caps it at 2,048 bytes).
   *
   * @param value What to keep.
   */
  serializeAttachment(value: unknown): void;
  /** What `serializeAttachment` kept, or `null`. */
  deserializeAttachment(): unknown;
}

/**
 * What `SocketServer` uses of a Durable Object's state (`this.ctx`) for the
 * WebSocket Hibernation API: accepting a socket, the sockets it accepted
 * (after a wake from hibernation too), and the auto-response that answers
 * heartbeats without waking the object. Cloudflare's `DurableObjectState`
 * fits.
 *
 * @example Usage
 * ```ts
 * import type {
 *   HibernatableWebSocketLike,
 *   HibernationStateLike,
 * } from "@understudy/core/durable";
 *
 * const accepted: HibernatableWebSocketLike[] = [];
 * const ctx: HibernationStateLike = {
 *   acceptWebSocket: (socket) => void accepted.push(socket),
 *   getWebSockets: () => accepted,
 * };
 * ```
 */
export interface HibernationStateLike {
  /**
   * Accepts the server's end of a WebSocket pair: its events then reach
   * the object's `webSocketMessage`, `webSocketClose` and `webSocketError`
   * handlers, and the object may hibernate while it stays open.
   *
   * @param socket The server's end.
   * @param tags Tags to find it by.
   */
  acceptWebSocket(socket: HibernatableWebSocketLike, tags?: string[]): void;
  /**
   * The sockets accepted and still open (with `tag`, those tagged so).
   *
   * @param tag A tag.
   */
  getWebSockets(tag?: string): HibernatableWebSocketLike[];
  /**
   * Answers a text frame equal to the pair's request with its response,
   * without waking the object (no argument: none).
   *
   * @param pair A `WebSocketRequestResponsePair`.
   */
  setWebSocketAutoResponse?(pair?: unknown): void;
}
