// Copyright 2026 the understudy authors. MIT license.

/**
 * A type-only stand-in for Cloudflare's `cloudflare:workers`, so that
 * `deno check` can read the example without the platform's types. The
 * bundle replaces this module with the real one (see `README.md`); when
 * deploying with wrangler, import `DurableObject` from `"cloudflare:workers"`
 * in `worker.ts` instead.
 *
 * @module
 */

/** The part of `DurableObjectState` the example (and docs/edge-socket.md) uses. */
export interface DurableObjectState {
  readonly id: { readonly name?: string };
  /** The WebSocket Hibernation API. */
  acceptWebSocket(socket: unknown, tags?: string[]): void;
  getWebSockets(tag?: string): never[];
  setWebSocketAutoResponse?(pair?: unknown): void;
}

/** Cloudflare's Durable Object base class: the public methods of its subclasses are RPC methods. */
export declare abstract class DurableObject<Env = unknown> {
  protected ctx: DurableObjectState;
  protected env: Env;
  constructor(ctx: DurableObjectState, env: Env);
}
