// Copyright 2026 the understudy authors. MIT license.
// One runtime's part of bench/worker.mjs (bundled by it, then run by
// node, deno or bun, or loaded in a Chromium page): streaming and
// ping-pong across a worker boundary, understudy against a raw
// postMessage loop and Comlink. Prints one line `@@WORKER {json}`.

import * as Comlink from "comlink";
import { ActorSystem } from "../../src/runtime/actor_system.ts";
import type { Endpoint, WorkerHandle } from "../../src/worker/endpoint.ts";
import { BATCH_SLOTS } from "../../src/worker/wire.ts";
import { spawnInWorker, workerProps } from "../../src/worker/worker_props.ts";

declare const __workerBenchArgs: {
  quick: boolean;
  workerUrl: string;
  runs?: number;
  cases?: string[];
};

const NODE = "node:worker_threads";
const args = (globalThis as { __workerBenchArgs?: typeof __workerBenchArgs })
  .__workerBenchArgs!;
const quick = args.quick;
const STREAM = quick ? 20_000 : 200_000;
const PINGS = quick ? 2_000 : 10_000;
const RUNS = args.runs ?? 5;

type Start = () => Promise<WorkerHandle>;

async function starter(): Promise<() => WorkerHandle> {
  if (typeof self !== "undefined") {
    return () => {
      const worker = new Worker(args.workerUrl, { type: "module" });
      return {
        endpoint: worker as unknown as Endpoint,
        terminate: () => worker.terminate(),
      };
    };
  }
  const threads = await import(NODE);
  return () => {
    const { port1, port2 } = new threads.MessageChannel();
    const worker = new threads.Worker(new URL(args.workerUrl), {
      workerData: port2,
      transferList: [port2],
    });
    return {
      endpoint: port1 as Endpoint,
      terminate: () => {
        port1.close();
        return worker.terminate();
      },
    };
  };
}

const make = await starter();

/** A worker in `mode`, once it said it is ready. */
function startIn(mode: string): Start {
  return () =>
    new Promise((resolve) => {
      const handle = make();
      const ready = (event: { data: unknown }) => {
        if (event.data !== "ready") return;
        handle.endpoint.removeEventListener("message", ready);
        resolve(handle);
      };
      handle.endpoint.addEventListener("message", ready);
      handle.endpoint.start?.();
      handle.endpoint.postMessage(mode);
    });
}

function next(endpoint: Endpoint): Promise<unknown> {
  return new Promise((resolve) => {
    const once = (event: { data: unknown }) => {
      endpoint.removeEventListener("message", once);
      resolve(event.data);
    };
    endpoint.addEventListener("message", once);
  });
}

async function rawStream(): Promise<number> {
  const handle = await startIn("raw")();
  const t0 = performance.now();
  for (let n = 0; n < STREAM; n++) handle.endpoint.postMessage({ n });
  handle.endpoint.postMessage("count");
  const count = await next(handle.endpoint);
  const ms = performance.now() - t0;
  if (count !== STREAM) throw new Error(`raw stream counted ${count}`);
  await handle.terminate();
  return STREAM / ms * 1000;
}

/**
 * Messages a hand-made batch holds: as many as one of understudy's
 * batches (its slots, less a run's header).
 */
const RAW_BATCH = BATCH_SLOTS - 5;

/**
 * The stream as plain objects in hand-made batches of {@linkcode
 * RAW_BATCH}, one `postMessage` each, counted by the worker: what
 * batching alone gives, with no actor, no bookkeeping and no mailbox on
 * either side (the ceiling of any transport that batches).
 */
async function rawBatchedStream(): Promise<number> {
  const handle = await startIn("raw")();
  const t0 = performance.now();
  let batch: { n: number }[] = [];
  for (let n = 0; n < STREAM; n++) {
    batch.push({ n });
    if (batch.length === RAW_BATCH) {
      handle.endpoint.postMessage(batch);
      batch = [];
    }
  }
  if (batch.length > 0) handle.endpoint.postMessage(batch);
  handle.endpoint.postMessage("count");
  const count = await next(handle.endpoint);
  const ms = performance.now() - t0;
  if (count !== STREAM) throw new Error(`raw batched stream counted ${count}`);
  await handle.terminate();
  return STREAM / ms * 1000;
}

/**
 * As {@linkcode rawBatchedStream}, in batches of 256 messages: the
 * reference of issue 29's "at least 0.7× hand-made batches of 256" (a
 * batch size one would pick by hand).
 */
async function rawBatched256Stream(): Promise<number> {
  const handle = await startIn("raw")();
  const t0 = performance.now();
  let batch: { n: number }[] = [];
  for (let n = 0; n < STREAM; n++) {
    batch.push({ n });
    if (batch.length === 256) {
      handle.endpoint.postMessage(batch);
      batch = [];
    }
  }
  if (batch.length > 0) handle.endpoint.postMessage(batch);
  handle.endpoint.postMessage("count");
  const count = await next(handle.endpoint);
  const ms = performance.now() - t0;
  if (count !== STREAM) throw new Error(`raw batched stream counted ${count}`);
  await handle.terminate();
  return STREAM / ms * 1000;
}

/**
 * As {@linkcode rawBatchedStream}, but keeping every message until the
 * worker has counted them all, as a transport that accounts for each
 * message must (understudy's books hold each until it is acknowledged): the
 * ceiling with the cost of that retention, a collector's work in some
 * runtimes. Written out, not a flag of rawBatchedStream's, so that the
 * ceiling's loop stays the one measured before.
 */
async function rawBatchedKeptStream(): Promise<number> {
  const handle = await startIn("raw")();
  const t0 = performance.now();
  let kept: { n: number }[] = [];
  let batch: { n: number }[] = [];
  for (let n = 0; n < STREAM; n++) {
    const message = { n };
    kept.push(message);
    batch.push(message);
    if (batch.length === RAW_BATCH) {
      handle.endpoint.postMessage(batch);
      batch = [];
    }
  }
  if (batch.length > 0) handle.endpoint.postMessage(batch);
  handle.endpoint.postMessage("count");
  const count = await next(handle.endpoint);
  const ms = performance.now() - t0;
  if (count !== STREAM || kept.length !== STREAM) {
    throw new Error(`raw kept stream counted ${count}`);
  }
  kept = []; // the worker has counted them all: let go
  await handle.terminate();
  return STREAM / ms * 1000;
}

async function rawPingPong(): Promise<number> {
  const handle = await startIn("raw")();
  const t0 = performance.now();
  for (let i = 0; i < PINGS; i++) {
    handle.endpoint.postMessage(i);
    await next(handle.endpoint);
  }
  const ms = performance.now() - t0;
  await handle.terminate();
  return PINGS / ms * 1000;
}

async function comlinkPingPong(): Promise<number> {
  const handle = await startIn("comlink")();
  const remote = Comlink.wrap<{ ping(n: number): number }>(
    handle.endpoint as never,
  );
  const t0 = performance.now();
  for (let i = 0; i < PINGS; i++) await remote.ping(i);
  const ms = performance.now() - t0;
  remote[Comlink.releaseProxy]();
  await handle.terminate();
  return PINGS / ms * 1000;
}

async function withActors<R>(
  body: (
    system: ActorSystem,
    worker: ReturnType<ActorSystem["actorOf"]>,
  ) => Promise<R>,
): Promise<R> {
  const system = ActorSystem.create("bench", { logLevel: "warn" });
  const worker = system.actorOf(
    workerProps({
      create: () => {
        const handle = make();
        handle.endpoint.start?.();
        handle.endpoint.postMessage("actors"); // first, before any frame
        return handle;
      },
    }),
  );
  try {
    return await body(system, worker);
  } finally {
    await system.terminate();
  }
}

async function actorStream(): Promise<number> {
  return await withActors(async (_system, worker) => {
    const sink = await spawnInWorker<{ n: number } | "count">(
      worker as never,
      "sink",
      "Sink",
    );
    await sink.ask("count", 30_000);
    const t0 = performance.now();
    for (let n = 0; n < STREAM; n++) sink.tell({ n });
    const count = await sink.ask<number>("count", 60_000);
    const ms = performance.now() - t0;
    if (count !== STREAM) throw new Error(`actor stream counted ${count}`);
    return STREAM / ms * 1000;
  });
}

async function actorPingPong(): Promise<number> {
  return await withActors(async (_system, worker) => {
    const pong = await spawnInWorker<number>(worker as never, "pong", "Pong");
    await pong.ask(0, 30_000);
    const t0 = performance.now();
    for (let i = 0; i < PINGS; i++) await pong.ask(i, 30_000);
    const ms = performance.now() - t0;
    return PINGS / ms * 1000;
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const allCases: Record<string, () => Promise<number>> = {
  rawStream,
  rawBatchedStream,
  rawBatched256Stream,
  rawBatchedKeptStream,
  actorStream,
  rawPingPong,
  comlinkPingPong,
  actorPingPong,
};
// `--cases=a,b` (bench/worker.mjs) measures only those.
const cases = args.cases === undefined
  ? allCases
  : Object.fromEntries(args.cases.map((name) => [name, allCases[name]]));
const results: Record<string, number> = {};
const samples: Record<string, number[]> = {};
for (const name of Object.keys(cases)) samples[name] = [];
// Interleaved, so drift on a shared machine hits every case alike, and
// each run starts at the next case, so that no case always follows the
// same one (the heap and the JIT a case leaves behind weigh on the next).
const entries = Object.entries(cases);
for (let run = 0; run < RUNS; run++) {
  for (let i = 0; i < entries.length; i++) {
    const [name, body] = entries[(run + i) % entries.length];
    samples[name].push(await body());
  }
}
for (const name of Object.keys(cases)) results[name] = median(samples[name]);
const line = `@@WORKER ${
  JSON.stringify({ stream: STREAM, pings: PINGS, runs: RUNS, results, samples })
}`;
console.log(line);
(globalThis as { __workerBenchDone?: (line: string) => void })
  .__workerBenchDone?.(line);
