// Copyright 2026 the understudy authors. MIT license.
// The worker of bench/worker.mjs: its first message picks the mode. "raw"
// counts the messages of a stream and echoes single ones; "actors" serves
// understudy actors; "comlink" exposes an object through Comlink.
// A stream's batch (an array) counts as its length.

import * as Comlink from "comlink";
import { Actor } from "../../src/runtime/actor.ts";
import type { Endpoint } from "../../src/worker/endpoint.ts";
import { serveWorker } from "../../src/worker/serve_worker.ts";

const WORKER_THREADS = "node:worker_threads";
const endpoint: Endpoint = typeof self !== "undefined"
  ? self as unknown as Endpoint
  : (await import(WORKER_THREADS)).workerData as Endpoint;

class Sink extends Actor<{ n: number } | "count"> {
  #count = 0;
  onReceive(message: { n: number } | "count"): void {
    if (message === "count") this.sender?.tell(this.#count);
    else this.#count++;
  }
}

class Pong extends Actor<number> {
  onReceive(n: number): void {
    this.sender?.tell(n);
  }
}

const init = (event: { data: unknown }) => {
  endpoint.removeEventListener("message", init);
  const mode = event.data;
  if (mode === "raw") {
    let count = 0;
    endpoint.addEventListener("message", (e) => {
      const data = e.data as { n: number } | { n: number }[] | "count" | number;
      if (data === "count") endpoint.postMessage(count);
      else if (typeof data === "number") endpoint.postMessage(data);
      else if (Array.isArray(data)) count += data.length;
      else count++;
    });
  } else if (mode === "actors") {
    serveWorker(endpoint, {
      actors: { Sink: () => new Sink(), Pong: () => new Pong() },
    });
  } else if (mode === "comlink") {
    Comlink.expose({ ping: (n: number) => n }, endpoint as never);
  }
  endpoint.postMessage("ready");
};
endpoint.addEventListener("message", init);
endpoint.start?.();
