// Copyright 2026 the understudy authors. MIT license.
// The worker script of the real-worker tests: serves the test actors over
// `self` (browsers, Deno, Bun) or over the port in `workerData` (Node's
// worker_threads). Bundled for the browser by the harness (`*.worker.ts`
// beside a test) and for Node by the test itself.

import type { Endpoint } from "../../src/worker/endpoint.ts";
import { serveWorker } from "../../src/worker/serve_worker.ts";
import { Chatty, Counter, Echo, Incrementer, Recorder } from "./_actors.ts";

// A specifier in a variable, so bundlers for the browser leave it alone.
const WORKER_THREADS = "node:worker_threads";

const endpoint: Endpoint = typeof self !== "undefined"
  ? self as unknown as Endpoint
  : (await import(WORKER_THREADS)).workerData as Endpoint;

serveWorker(endpoint, {
  actors: {
    Echo: () => new Echo(),
    Chatty: () => new Chatty(),
    Counter: () => new Counter(),
    Incrementer: () => new Incrementer(),
    // Throws at the worker's top level (outside any actor) after handling
    // job `dieAt`: the worker dies as a script with a bug does, in that
    // turn, so nothing the turn sent (its replies and acknowledgements)
    // leaves it.
    Recorder: (dieAt: number) =>
      new Recorder(dieAt, () => {
        endpoint.postMessage = () => {};
        queueMicrotask(() => {
          throw new Error(`killed at job ${dieAt}`);
        });
      }),
  },
});
