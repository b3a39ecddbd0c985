// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Actor systems on a stateless Cloudflare Worker (workerd), where a
 * request's timers and I/O end with the request and the global scope allows
 * neither. See docs/edge-lifetimes.md for which lifetime to choose.
 *
 * - Once per isolate, kept across requests: {@linkcode edgeSystem} at the
 *   first request, and {@linkcode handle} (or {@linkcode keepAlive}) in
 *   every request, which passes the system's idle promise to
 *   `ctx.waitUntil`, so a timer a request started still fires.
 * - Once per request: {@linkcode perRequestBackoff}, a BackoffSupervisor
 *   without the grace window that only delays the one waiting request.
 * - {@linkcode IdleScheduler}: the timer tracker under both, for any
 *   system (`ActorSystem.create(name, { scheduler })`).
 *
 * What must outlive every request (a WebSocket, timers over 30 s) belongs
 * in a Durable Object: `withActors` from `@understudy/core/durable`.
 *
 * @example A supervised actor kept across requests
 * ```ts
 * import { Actor, type ActorRef, type ActorSystem, BackoffSupervisor, Props } from "@understudy/core";
 * import { edgeSystem, type ExecutionContextLike, handle } from "@understudy/core/edge";
 *
 * class Counter extends Actor<"hit"> {
 *   #hits = 0;
 *   onReceive(): void {
 *     this.sender?.tell(++this.#hits);
 *   }
 * }
 *
 * let system: ActorSystem | undefined;
 * let counter: ActorRef<"hit">;
 * const worker = {
 *   fetch(_request: Request, _env: unknown, ctx: ExecutionContextLike): Promise<Response> {
 *     if (system === undefined) {
 *       system = edgeSystem("edge");
 *       counter = system.actorOf(BackoffSupervisor.props({
 *         childProps: Props.create(() => new Counter()),
 *         childName: "counter",
 *         minBackoff: 100,
 *         maxBackoff: 5_000,
 *       }), "counter") as ActorRef<"hit">;
 *     }
 *     return handle(ctx, system, async () =>
 *       Response.json({ hits: await counter.ask<number>("hit", 2_000) }));
 *   },
 * };
 *
 * // What workerd does, twice: call the handler, then wait for waitUntil.
 * for (let i = 0; i < 2; i++) {
 *   const kept: Promise<unknown>[] = [];
 *   const response = await worker.fetch(new Request("http://localhost/"), {}, {
 *     waitUntil: (promise) => kept.push(promise),
 *   });
 *   console.log(await response.json()); // { hits: 1 }, then { hits: 2 }
 *   await Promise.all(kept);
 * }
 * await system?.terminate();
 * ```
 *
 * @module
 */

export { IdleScheduler, type IdleSchedulerOptions } from "./idle_scheduler.ts";
export {
  edgeSystem,
  type EdgeSystemOptions,
  type ExecutionContextLike,
  handle,
  keepAlive,
  WAIT_UNTIL_LIMIT_MS,
} from "./keep_alive.ts";
export { perRequestBackoff } from "./per_request_backoff.ts";
