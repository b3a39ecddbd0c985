// Copyright 2026 the understudy authors. MIT license.

/**
 * A type-only stand-in for Cloudflare's `cloudflare:workers`, so that
 * `deno check` can read the bench worker without the platform's types. The
 * bundle replaces this module with the real one; when
 * deploying with wrangler, import `DurableObject` from `"cloudflare:workers"`
 * in `worker.ts` instead.
 *
 * @module
 */

/** The part of `DurableObjectState` the bench uses. */
export interface DurableObjectState {
  readonly id: { readonly name?: string };
  readonly storage: { put(key: string, value: unknown): Promise<void> };
}

/** Cloudflare's Durable Object base class: the public methods of its subclasses are RPC methods. */
export declare abstract class DurableObject<Env = unknown> {
  protected ctx: DurableObjectState;
  protected env: Env;
  constructor(ctx: DurableObjectState, env: Env);
}
