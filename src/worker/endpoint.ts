// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * What the worker transport talks through: an endpoint (anything with
 * `postMessage` and `addEventListener("message")`), and the handle of a
 * worker the main side owns (its endpoint and how to terminate it).
 *
 * Structural types only, declared here, so the module needs no DOM or Node
 * typings: a `Worker`, a worker's `self`, a `MessagePort` (browsers, Deno,
 * Bun, and Node's `worker_threads`) and a `BroadcastChannel` all fit.
 *
 * @module
 */

import { fail } from "../validation.ts";

/**
 * The event a `message` listener gets: only its `data` is read.
 *
 * @example Usage
 * ```ts
 * import type { EndpointEvent } from "@understudy/core/worker";
 *
 * const listener = (event: EndpointEvent) => console.log(event.data);
 * listener({ data: "hello" });
 * ```
 */
export interface EndpointEvent {
  /** The structured clone of what the other side posted. */
  readonly data: unknown;
}

/**
 * One side of a message channel: a `Worker`, a worker's `self`, a
 * `MessagePort` or a `BroadcastChannel`. Messages posted on it arrive, as
 * structured clones, at the listeners of the other side.
 *
 * @example A MessageChannel's ports are a pair of endpoints
 * ```ts
 * import type { Endpoint } from "@understudy/core/worker";
 *
 * const { port1, port2 } = new MessageChannel();
 * const main: Endpoint = port1;
 * const worker: Endpoint = port2;
 * worker.addEventListener("message", (event) => console.log(event.data));
 * worker.start?.();
 * main.postMessage("hello");
 * await new Promise((resolve) => setTimeout(resolve, 10));
 * port1.close();
 * port2.close();
 * ```
 */
export interface Endpoint {
  /**
   * Posts `message` (structured-cloned; throws a `DataCloneError` if it
   * cannot be), moving the objects in `transfer`.
   */
  postMessage(message: unknown, transfer?: object[]): void;
  /** Listens for `message` (and, on a `Worker`, `error`) events. */
  addEventListener(
    type: string,
    listener: (event: EndpointEvent) => void,
  ): void;
  /** Removes a listener added with `addEventListener`. */
  removeEventListener(
    type: string,
    listener: (event: EndpointEvent) => void,
  ): void;
  /** A `MessagePort` delivers nothing until started; called if present. */
  start?(): void;
}

/**
 * A worker the main side owns: the endpoint to talk to it and a way to end
 * it. A `Worker` is one by itself (it has `postMessage` and `terminate`).
 *
 * @example Node's worker_threads, through a MessageChannel
 * ```ts no-run: needs a worker script file
 * import { MessageChannel, Worker } from "node:worker_threads";
 * import type { WorkerHandle } from "@understudy/core/worker";
 *
 * function start(died: (reason: unknown) => void): WorkerHandle {
 *   const { port1, port2 } = new MessageChannel();
 *   const worker = new Worker("./worker.mjs", { workerData: port2, transferList: [port2] });
 *   worker.on("error", died);
 *   worker.on("exit", (code) => died(`exited with code ${code}`));
 *   return {
 *     endpoint: port1 as unknown as WorkerHandle["endpoint"],
 *     terminate: () => {
 *       port1.close();
 *       return worker.terminate();
 *     },
 *   };
 * }
 * ```
 */
export interface WorkerHandle {
  /** Where messages for the worker are posted, and its messages heard. */
  readonly endpoint: Endpoint;
  /** Ends the worker (and closes the endpoint, if it is a port). */
  terminate(): unknown;
}

/** `true` if `value` has the methods of an {@linkcode Endpoint}. */
export function isEndpoint(value: unknown): value is Endpoint {
  if (typeof value !== "object" && typeof value !== "function") return false;
  if (value === null) return false;
  const candidate = value as Partial<Endpoint>;
  return typeof candidate.postMessage === "function" &&
    typeof candidate.addEventListener === "function" &&
    typeof candidate.removeEventListener === "function";
}

/** Checks an endpoint given to `action`. */
export function checkEndpoint(
  action: string,
  option: string,
  value: unknown,
): Endpoint {
  if (!isEndpoint(value)) {
    fail(
      action,
      option,
      "an endpoint (an object with postMessage, addEventListener and removeEventListener)",
      value,
    );
  }
  return value;
}

/**
 * Normalizes what a `create` function returned: a {@linkcode WorkerHandle},
 * or a `Worker`-like endpoint with `terminate()`.
 */
export function toHandle(value: unknown): WorkerHandle {
  if (typeof value === "object" && value !== null) {
    const handle = value as Partial<WorkerHandle> & { terminate?: unknown };
    if (
      "endpoint" in handle && isEndpoint(handle.endpoint) &&
      typeof handle.terminate === "function"
    ) {
      return handle as WorkerHandle;
    }
    if (isEndpoint(value) && typeof handle.terminate === "function") {
      const worker = value as Endpoint & { terminate(): unknown };
      return { endpoint: worker, terminate: () => worker.terminate() };
    }
  }
  return fail(
    "start worker",
    "create()",
    "a Worker or { endpoint, terminate }",
    value,
  );
}
