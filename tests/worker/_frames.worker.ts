// Copyright 2026 the understudy authors. MIT license.
// The worker of the frame tests: runs each case it is sent (_frames.ts) and
// answers with its outcome, so that the test, in another thread, can end a
// case that hangs. Over `self` (browsers, Deno, Bun) or the port in
// `workerData` (Node's worker_threads). Bundled for the browser by the
// harness (`*.worker.ts` beside a test) and for Node by the test itself.

import type { Endpoint } from "../../src/worker/endpoint.ts";
import { type FrameCase, runCase } from "./_frames.ts";

// A specifier in a variable, so bundlers for the browser leave it alone.
const WORKER_THREADS = "node:worker_threads";

const port: Endpoint = typeof self !== "undefined"
  ? self as unknown as Endpoint
  : (await import(WORKER_THREADS)).workerData as Endpoint;

port.addEventListener("message", async (event) => {
  const { id, frameCase } = event.data as { id: number; frameCase: FrameCase };
  port.postMessage({ id, outcome: await runCase(frameCase) });
});
port.start?.();
port.postMessage({ ready: true });
