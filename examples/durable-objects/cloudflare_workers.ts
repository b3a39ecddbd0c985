// Copyright 2026 the understudy authors. MIT license.

/**
 * A type-only stand-in for Cloudflare's `cloudflare:workers`, so that
 * `deno check` can read the example without the platform's types. The
 * bundle (`build.mjs`) replaces this module with the real one; when
 * deploying with wrangler, import `DurableObject` from `"cloudflare:workers"`
 * instead.
 *
 * @module
 */

/** A WebSocket accepted through the Hibernation API, as far as the example uses it. */
export interface HibernatableWebSocket {
  send(data: string | ArrayBuffer | ArrayBufferView): void;
  close(code?: number, reason?: string): void;
  serializeAttachment(value: unknown): void;
  deserializeAttachment(): unknown;
}

/** The part of `DurableObjectState` the example (and docs/edge-socket.md) uses. */
export interface DurableObjectState {
  readonly id: { readonly name?: string };
  /** Accepts a server socket through the Hibernation API, with tags. */
  acceptWebSocket(socket: HibernatableWebSocket, tags?: string[]): void;
  /** The sockets accepted so far and still open, those with `tag` only if given. */
  getWebSockets(tag?: string): HibernatableWebSocket[];
  /** The frame the platform answers for the object, without waking it. */
  setWebSocketAutoResponse(pair?: unknown): void;
  /** Resets the object: what an eviction does, on demand. */
  abort(reason?: string): void;
}

/** Cloudflare's Durable Object base class: the public methods of its subclasses are RPC methods. */
export declare abstract class DurableObject<Env = unknown> {
  protected ctx: DurableObjectState;
  protected env: Env;
  constructor(ctx: DurableObjectState, env: Env);
}
