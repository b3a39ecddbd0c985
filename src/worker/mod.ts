// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Actors in Web Workers, supervised across the boundary.
 *
 * Inside the worker, {@linkcode serveWorker} serves an actor system over an
 * endpoint (the worker's `self`, or a `MessagePort`). On the main side, an
 * actor made by {@linkcode workerProps} owns the worker, spawns actors in
 * it from registered factories ({@linkcode spawnInWorker}), and hands out
 * refs to them that behave like local ones: `tell`, `ask`, senders that
 * answer across the boundary, `watch`. Messages cross by structured clone,
 * batched (all those sent in one turn go in one `postMessage`); one that
 * cannot be cloned goes to dead letters with the clone error as the reason.
 * Under a BackoffSupervisor (`backoff`), a worker that throws, exits or
 * misses the heartbeat is terminated and started again after a delay, its
 * actors spawned again, and the messages sent meanwhile wait.
 *
 * Web-standard only: runs with browsers' and Deno's and Bun's `Worker`, and
 * with Node's `worker_threads` through a `MessageChannel`'s ports.
 *
 * @example The main side
 * ```ts no-run: needs a worker script
 * import { ActorSystem } from "@understudy/core";
 * import { spawnInWorker, workerBackoff, workerProps } from "@understudy/core/worker";
 *
 * const system = ActorSystem.create("app");
 * const worker = system.actorOf(
 *   workerProps({
 *     create: () => new Worker(new URL("./worker.ts", import.meta.url), { type: "module" }),
 *     backoff: workerBackoff({ minBackoff: 100, maxBackoff: 5_000 }),
 *   }),
 *   "compute",
 * );
 * const primes = await spawnInWorker<number>(worker, "primes", "Primes");
 * console.log(await primes.ask<number>(100_000)); // 9592
 * await system.terminate();
 * ```
 *
 * @module
 */

export type { Endpoint, EndpointEvent, WorkerHandle } from "./endpoint.ts";
export { ReplyLostError, SpawnInWorker, WorkerDiedError } from "./messages.ts";
export {
  type ActorFactory,
  type ServeOptions,
  serveWorker,
  type WorkerServer,
} from "./serve_worker.ts";
export { Transfer } from "./transfer.ts";
export {
  type RemoteRef,
  spawnInWorker,
  type WorkerBackoff,
  type WorkerCommand,
  type WorkerOptions,
  workerProps,
} from "./worker_props.ts";
export { workerBackoff } from "./worker_backoff.ts";
