// Copyright 2026 the understudy authors. MIT license.
// A type-only stand-in for Cloudflare's `cloudflare:workers` module, so that
// `deno check` can read the test worker without the platform's types. The
// bundle (`_bundle.ts`) replaces this file with the real module, which only
// workerd has. Not a test file itself.

/** The part of `DurableObjectState` the test worker uses. */
export interface DurableObjectState {
  readonly id: { readonly name?: string };
  readonly storage: {
    get(key: string): Promise<unknown>;
    put(key: string, value: unknown): Promise<void>;
    delete(key: string): Promise<boolean>;
    list(options: { prefix: string }): Promise<Map<string, unknown>>;
  };
  blockConcurrencyWhile(callback: () => Promise<unknown>): Promise<unknown>;
  abort(reason?: string): void;
}

/** Cloudflare's Durable Object base class: RPC methods are the public methods of its subclasses. */
export declare abstract class DurableObject<Env = unknown> {
  protected ctx: DurableObjectState;
  protected env: Env;
  constructor(ctx: DurableObjectState, env: Env);
}
