// @runtimes deno bun node browser
// Real workers: a module Worker in Deno, Bun and Chromium, worker_threads
// with a MessageChannel's ports in Node. workerd has no Worker.
// Copyright 2026 the understudy authors. MIT license.
import { workerBackoff } from "../../src/worker/worker_backoff.ts";
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { Actor } from "../../src/runtime/actor.ts";
import { ActorSystem } from "../../src/runtime/actor_system.ts";
import { DeadLetter } from "../../src/runtime/event_stream.ts";
import { PoisonPill } from "../../src/runtime/poison_pill.ts";
import { Props } from "../../src/runtime/props.ts";
import type {
  Endpoint,
  EndpointEvent,
  WorkerHandle,
} from "../../src/worker/endpoint.ts";
import {
  spawnInWorker,
  type WorkerOptions,
  workerProps,
} from "../../src/worker/worker_props.ts";
import { collecting, Player } from "./_actors.ts";
import { until } from "./_fake_endpoint.ts";
import { assertEachOnce, jobNumbers, streamJobs } from "./_jobs.ts";

type Start = (died: (reason: unknown) => void) => WorkerHandle;

/** An endpoint that counts its listeners, around a real one. */
class Counted implements Endpoint {
  listeners = 0;
  constructor(readonly inner: Endpoint) {}
  postMessage(message: unknown, transfer?: object[]): void {
    if (transfer === undefined) this.inner.postMessage(message);
    else this.inner.postMessage(message, transfer);
  }
  addEventListener(
    type: string,
    listener: (event: EndpointEvent) => void,
  ): void {
    this.listeners++;
    this.inner.addEventListener(type, listener);
  }
  removeEventListener(
    type: string,
    listener: (event: EndpointEvent) => void,
  ): void {
    this.listeners--;
    this.inner.removeEventListener(type, listener);
  }
  start(): void {
    this.inner.start?.();
  }
}

// Specifiers in variables, so the browser bundle leaves them alone.
const NODE_MODULES = {
  fs: "node:fs",
  os: "node:os",
  path: "node:path",
  url: "node:url",
  workerThreads: "node:worker_threads",
  esbuild: "esbuild",
};

let cleanup: () => Promise<void> = async () => {};

/** How this runtime starts the test worker, and what it started. */
async function workerStarter(): Promise<Start> {
  const isNode = typeof self === "undefined" && !("Deno" in globalThis) &&
    !("Bun" in globalThis);
  if (!isNode) {
    const script = !("document" in globalThis)
      ? "./_echo.worker.ts" // Deno and Bun run TypeScript
      : "./_echo.worker.js"; // bundled beside the page by the harness
    const url = new URL(script, import.meta.url);
    return () => {
      const worker = new Worker(url, { type: "module" });
      return {
        endpoint: new Counted(worker as unknown as Endpoint),
        terminate: () => worker.terminate(),
      };
    };
  }
  // Node runs this file bundled; bundle the worker script the same way.
  const fs = await import(NODE_MODULES.fs);
  const os = await import(NODE_MODULES.os);
  const path = await import(NODE_MODULES.path);
  const url = await import(NODE_MODULES.url);
  const threads = await import(NODE_MODULES.workerThreads);
  const esbuild = await import(NODE_MODULES.esbuild);
  let root = path.dirname(url.fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(root, "jsr.json"))) {
    root = path.dirname(root);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "understudy-worker-"));
  const outfile = path.join(dir, "echo.worker.mjs");
  await esbuild.build({
    entryPoints: [path.join(root, "tests", "worker", "_echo.worker.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    logLevel: "silent",
  });
  cleanup = () => {
    fs.rmSync(dir, { recursive: true, force: true });
    return Promise.resolve();
  };
  return (died) => {
    const { port1, port2 } = new threads.MessageChannel();
    const worker = new threads.Worker(outfile, {
      workerData: port2,
      transferList: [port2],
    });
    worker.on("error", died);
    worker.on("exit", (code: number) => died(`exit code ${code}`));
    return {
      endpoint: new Counted(port1),
      terminate: () => {
        port1.close();
        return worker.terminate();
      },
    };
  };
}

let start: Start;
before(async () => {
  start = await workerStarter();
});
after(async () => {
  await cleanup();
});

function setup(options: Partial<WorkerOptions> = {}) {
  const started: { handle: WorkerHandle; terminated: boolean }[] = [];
  const ended: Promise<unknown>[] = [];
  const system = ActorSystem.create("main", { logLevel: "off" });
  const dead: DeadLetter[] = [];
  system.eventStream.subscribe(DeadLetter, (letter) => dead.push(letter));
  const worker = system.actorOf(
    workerProps({
      create: (died) => {
        const handle = start(died);
        const entry = { handle, terminated: false };
        started.push(entry);
        return {
          endpoint: handle.endpoint,
          terminate: () => {
            entry.terminated = true;
            const done = Promise.resolve(handle.terminate());
            ended.push(done);
            return done;
          },
        };
      },
      ...options,
    }),
    "compute",
  );
  const stop = async () => {
    await system.terminate();
    await Promise.all(ended);
  };
  return { system, worker, dead, started, stop };
}

describe("actors in a real worker", () => {
  it("are told and asked, and their senders answer back", async () => {
    const { system, worker, started, stop } = setup();
    try {
      const counter = await spawnInWorker<"inc" | "get">(
        worker,
        "counter",
        "Counter",
      );
      counter.tell("inc");
      counter.tell("inc");
      assert.equal(await counter.ask("get", 10_000), 2);
      const incrementer = await spawnInWorker<number>(
        worker,
        "incrementer",
        "Incrementer",
      );
      const player = system.actorOf(Props.create(() => new Player(10)));
      assert.equal(await player.ask({ start: incrementer }, 10_000), 11);
    } finally {
      await stop();
    }
    // Nothing left behind: every listener removed, the worker terminated.
    assert.equal(started.length, 1);
    assert.equal(started[0].terminated, true);
    assert.equal((started[0].handle.endpoint as Counted).listeners, 0);
  });

  it("terminated at the first reply of a turn that filled a batch: the message answered is not a dead letter", async () => {
    const { system, worker, dead, started, stop } = setup();
    try {
      const chatty = await spawnInWorker<string>(worker, "chatty", "Chatty");
      let replies = 0;
      // At its first reply, the worker is terminated (what it posted after
      // that post is lost with it) and the gate stopped.
      class Killer extends Actor<number> {
        onReceive(): void {
          if (replies++ > 0) return;
          started[0].handle.terminate();
          chatty.tell("after the terminate"); // never handled
          worker.tell(PoisonPill);
        }
      }
      const killer = system.actorOf(Props.create(() => new Killer()));
      chatty.tell("go", killer);
      await until(() =>
        dead.some((letter) => letter.message === "after the terminate")
      );
      assert.deepEqual(
        dead.filter((letter) => letter.message === "go").map((l) => l.reason),
        [],
        `answered ${replies} times, so not a dead letter`,
      );
    } finally {
      await stop();
    }
  });

  it("killed mid-stream under a BackoffSupervisor: every message is handled once or dead-lettered once", async () => {
    const { system, worker, dead, started, stop } = setup({
      backoff: workerBackoff({ minBackoff: 20, maxBackoff: 200 }),
    });
    try {
      const { seen, collector } = collecting(system);
      const recorder = await spawnInWorker<{ n: number }>(
        worker,
        "recorder",
        "Recorder",
        [250],
      );
      const total = 1_000;
      await streamJobs(recorder, collector, { total, pauseMs: 5 });
      // The second worker dies at 250 too, if it handles it: wait for the
      // count to settle at the total.
      await until(
        () => seen.length + jobNumbers(dead).length >= total,
        20_000,
      );
      const lost = jobNumbers(dead);
      assertEachOnce(seen, lost, total);
      const handled = new Set(seen);
      assert.ok(handled.has(0));
      // It died in the turn that handled 250, which sent nothing more.
      assert.ok(lost.includes(250), "the worker died with jobs in flight");
      // A new worker runs the actor again.
      assert.equal(await recorder.ask({ n: total }, 10_000), total);
      assert.ok(started.length >= 2, "the worker was started again");
    } finally {
      await stop();
    }
    for (const { handle, terminated } of started) {
      assert.equal(terminated, true);
      assert.equal((handle.endpoint as Counted).listeners, 0);
    }
  });
});
