// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * One actor system per Worker isolate, kept across requests: made by
 * {@linkcode edgeSystem} (at the first request, never in the global
 * scope), and kept alive by each request that uses it through
 * {@linkcode handle} or {@linkcode keepAlive}, which pass the system's
 * "idle" promise ({@linkcode IdleScheduler.whenIdle}) to `ctx.waitUntil`.
 * So a timer a request started (a BackoffSupervisor's respawn) fires after
 * the response went out, instead of being cancelled with the request.
 *
 * @module
 */

import {
  ActorSystem,
  type ActorSystemOptions,
} from "../runtime/actor_system.ts";
import { fail } from "../validation.ts";
import { IdleScheduler } from "./idle_scheduler.ts";

/**
 * How long Cloudflare keeps a request's `ctx.waitUntil` work running after
 * its response: 30 s. The default of {@linkcode EdgeSystemOptions.maxDelayMs}.
 */
export const WAIT_UNTIL_LIMIT_MS = 30_000;

/**
 * What a Workers fetch handler gets as its third argument (`ctx`): here,
 * only `waitUntil`.
 *
 * @example A stand-in for a test
 * ```ts
 * import type { ExecutionContextLike } from "@understudy/core/edge";
 *
 * const kept: Promise<unknown>[] = [];
 * const ctx: ExecutionContextLike = { waitUntil: (p) => kept.push(p) };
 * ctx.waitUntil(Promise.resolve());
 * console.log(kept.length); // 1
 * ```
 */
export interface ExecutionContextLike {
  /** Keeps the request's isolate working until `promise` settles. */
  waitUntil(promise: Promise<unknown>): void;
}

/**
 * Options of {@linkcode edgeSystem}: those of `ActorSystem.create`, plus
 * the longest timer a stateless Worker can keep.
 *
 * @example Usage
 * ```ts
 * import type { EdgeSystemOptions } from "@understudy/core/edge";
 *
 * const options: EdgeSystemOptions = { logLevel: "warn", maxDelayMs: 10_000 };
 * console.log(options.maxDelayMs); // 10000
 * ```
 */
export interface EdgeSystemOptions extends ActorSystemOptions {
  /**
   * The longest timer the system may start, in milliseconds; a longer one
   * (a backoff's `maxBackoff`, an ask's timeout) is refused with a
   * `RangeError` that names the fix, since nothing keeps it alive after the
   * last response. Default {@linkcode WAIT_UNTIL_LIMIT_MS}.
   */
  maxDelayMs?: number;
}

/**
 * Creates an actor system for a stateless Worker: its timers run through an
 * {@linkcode IdleScheduler} (over `options.scheduler`, default the host's),
 * so that {@linkcode handle} and {@linkcode keepAlive} can keep them alive.
 * In the global scope, where workerd allows no timer, it throws a
 * `TypeError` saying where to create it instead, rather than leaving the
 * actors to fail there one after another.
 *
 * @example Once per isolate, on the first request
 * ```ts
 * import { Actor, type ActorRef, type ActorSystem, Props } from "@understudy/core";
 * import { edgeSystem, handle, type ExecutionContextLike } from "@understudy/core/edge";
 *
 * class Greeter extends Actor<string> {
 *   onReceive(name: string): void {
 *     this.sender?.tell(`hello, ${name}`);
 *   }
 * }
 *
 * let system: ActorSystem | undefined;
 * let greeter: ActorRef<string>;
 * const worker = {
 *   fetch(request: Request, _env: unknown, ctx: ExecutionContextLike): Promise<Response> {
 *     if (system === undefined) {
 *       system = edgeSystem("edge");
 *       greeter = system.actorOf(Props.create(() => new Greeter()), "greeter");
 *     }
 *     return handle(ctx, system, async () => {
 *       const name = new URL(request.url).searchParams.get("name") ?? "you";
 *       return new Response(await greeter.ask<string>(name, 1_000));
 *     });
 *   },
 * };
 *
 * const kept: Promise<unknown>[] = [];
 * const response = await worker.fetch(
 *   new Request("http://localhost/?name=edge"),
 *   {},
 *   { waitUntil: (promise) => kept.push(promise) },
 * );
 * console.log(await response.text()); // hello, edge
 * await Promise.all(kept);
 * await system?.terminate();
 * ```
 */
export function edgeSystem(
  name: string,
  options: EdgeSystemOptions = {},
): ActorSystem {
  if (typeof options !== "object" || options === null) {
    fail("create edge actor system", "options", "an object", options);
  }
  const { maxDelayMs = WAIT_UNTIL_LIMIT_MS, ...systemOptions } = options;
  const scheduler = new IdleScheduler({
    base: options.scheduler,
    maxDelayMs,
  });
  // The first timer of a system in the global scope would be an actor's
  // failure, again at each restart; refuse the system here instead (the
  // tracker turns the platform's refusal into an error naming the fix).
  scheduler.clearTimeout(scheduler.setTimeout(() => {}, 0));
  return ActorSystem.create(name, { ...systemOptions, scheduler });
}

/** The tracker of `system`, or a `TypeError` naming how to get one. */
function idleSchedulerOf(action: string, system: ActorSystem): IdleScheduler {
  if (!(system instanceof ActorSystem)) {
    fail(action, "system", "an ActorSystem", system);
  }
  const scheduler = system.scheduler;
  if (!(scheduler instanceof IdleScheduler)) {
    fail(
      action,
      "system",
      "a system made by edgeSystem() (or given an IdleScheduler as its " +
        "scheduler), whose timers can be kept alive",
      system,
    );
  }
  return scheduler;
}

/**
 * Keeps the request `ctx` working until `system` has nothing due (no timer
 * pending): `ctx.waitUntil(scheduler.whenIdle())`. Call it in every
 * request that sends the system work, before the response goes out;
 * {@linkcode handle} does.
 *
 * @example A fire-and-forget request
 * ```ts
 * import { Actor, Props } from "@understudy/core";
 * import { edgeSystem, keepAlive } from "@understudy/core/edge";
 *
 * class Audit extends Actor<string> {
 *   onReceive(entry: string): void {
 *     console.log("audit:", entry);
 *   }
 * }
 * const system = edgeSystem("edge");
 * const audit = system.actorOf(Props.create(() => new Audit()), "audit");
 *
 * const kept: Promise<unknown>[] = [];
 * audit.tell("GET /"); // answered at once; the actor runs after
 * keepAlive({ waitUntil: (promise) => kept.push(promise) }, system);
 * await Promise.all(kept);
 * await system.terminate();
 * ```
 */
export function keepAlive(
  ctx: ExecutionContextLike,
  system: ActorSystem,
): void {
  const action = "keep actor system alive";
  checkContext(action, ctx);
  ctx.waitUntil(idleSchedulerOf(action, system).whenIdle());
}

/** `ctx` must have `waitUntil`, as a Workers handler's context has. */
function checkContext(action: string, ctx: ExecutionContextLike): void {
  if (typeof ctx?.waitUntil !== "function") {
    fail(
      action,
      "ctx",
      "the handler's context, with a waitUntil function",
      ctx,
    );
  }
}

/**
 * Runs a request's work with `system`, then keeps the request alive until
 * the system is idle ({@linkcode keepAlive}), whether the work returned or
 * threw. Resolves to what `work` returned.
 *
 * @example Usage
 * ```ts
 * import { edgeSystem, handle } from "@understudy/core/edge";
 *
 * const system = edgeSystem("edge");
 * const kept: Promise<unknown>[] = [];
 * const ctx = { waitUntil: (promise: Promise<unknown>) => kept.push(promise) };
 * const response = await handle(ctx, system, () => new Response("ok"));
 * console.log(response.status, kept.length); // 200 1
 * await system.terminate();
 * ```
 */
export async function handle<R>(
  ctx: ExecutionContextLike,
  system: ActorSystem,
  work: () => R | Promise<R>,
): Promise<R> {
  const action = "handle a request";
  checkContext(action, ctx);
  idleSchedulerOf(action, system);
  if (typeof work !== "function") {
    fail(action, "work", "a function", work);
  }
  try {
    return await work();
  } finally {
    keepAlive(ctx, system);
  }
}
