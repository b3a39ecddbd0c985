// Copyright 2026 the understudy authors. MIT license.

/**
 * Workload 8, size: esbuild bundles each entry (minified ESM for browsers,
 * tree-shaken, nothing external) and measures the bytes, gzip bytes (level 9)
 * and brotli bytes (quality 11) with node:zlib. Prints `@@BENCH {json}`.
 *
 * Run alone: `node bench/size.mjs [package root]`.
 */

import { build } from "esbuild";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

/** The package measured: the repository, or the directory given as the first argument (the run's snapshot). */
const root = resolve(
  process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), ".."),
);

/** The package's export map, from deno.json, so the entries follow the published subpaths. */
function exportsMap() {
  const text = readFileSync(join(root, "deno.json"), "utf8");
  return JSON.parse(text).exports ?? { ".": "./mod.ts" };
}

/** What is measured: `contents` is the entry module esbuild bundles. */
export function sizeEntries() {
  const exports = exportsMap();
  const at = (subpath) =>
    `./${relative(root, join(root, exports[subpath] ?? "missing.ts"))}`;
  return [
    {
      // Issue 11's per-use rows: what a program pays for what it uses.
      id: "core-nothing",
      label: "understudy: import `mod.ts`, use nothing",
      impl: "understudy",
      contents: `import "${at(".")}";`,
    },
    {
      id: "core-tell",
      label:
        "understudy: `ActorSystem` + `Props` + `Actor` + `tell` (a program that uses them)",
      impl: "understudy",
      contents: `import { Actor, ActorSystem, Props } from "${at(".")}";
class Greeter extends Actor { onReceive(message) { console.log(message); } }
const system = ActorSystem.create("app");
system.actorOf(Props.create(() => new Greeter()), "greeter").tell("hello");
await system.terminate();`,
    },
    {
      id: "core-one-policy",
      label:
        "understudy: one policy (`exponentialBackoff`) through `./backoff`",
      impl: "understudy",
      contents: `import { exponentialBackoff } from "${at("./backoff")}";
console.log(exponentialBackoff({ minMs: 100, maxMs: 10_000 }).delayFor(3));`,
    },
    {
      id: "core-retry",
      label: "understudy: `retry` through `./backoff`, used",
      impl: "understudy",
      contents: `import { retry } from "${at("./backoff")}";
console.log(await retry(() => fetch("/x")));`,
    },
    {
      id: "core-circuit-breaker",
      label: "understudy: `CircuitBreaker` alone, used from plain code",
      impl: "understudy",
      contents: `import { CircuitBreaker } from "${at(".")}";
const breaker = new CircuitBreaker({ maxFailures: 3, resetTimeoutMs: 1_000 });
console.log(await breaker.call(() => fetch("/x")));`,
    },
    {
      id: "core-testing",
      label:
        "understudy: `./testing` (ManualScheduler + TestProbe) with the runtime",
      impl: "understudy",
      contents: `export * from "${
        at("./testing")
      }"; export { ActorSystem } from "${at(".")}";`,
    },
    {
      id: "core-all",
      label: "understudy: everything `mod.ts` exports",
      impl: "understudy",
      contents: `export * from "${at(".")}";`,
    },
    {
      id: "core-runtime",
      label: "understudy: the runtime alone (`ActorSystem`, `Props`, `Actor`)",
      impl: "understudy",
      contents: `export { Actor, ActorSystem, Props } from "${at(".")}";`,
    },
    {
      id: "core-backoff-supervisor",
      label:
        "understudy: `BackoffSupervisor` with the runtime (`ActorSystem`, `Props`, `Actor`)",
      impl: "understudy",
      contents:
        `export { Actor, ActorSystem, BackoffSupervisor, Props } from "${
          at(".")
        }";`,
    },
    {
      // Minus core-backoff-supervisor: what the WebSocket module adds to an
      // app that already has the supervisor (issue 4: under 2 KB gzipped).
      id: "core-backoff-supervisor-websocket",
      label:
        "understudy: `BackoffSupervisor` with the runtime, plus `@understudy/core/websocket`",
      impl: "understudy",
      contents:
        `export { Actor, ActorSystem, BackoffSupervisor, Props } from "${
          at(".")
        }"; export * from "${at("./websocket")}";`,
    },
    {
      id: "core-backoff",
      label: "understudy: `@understudy/core/backoff` alone (every policy)",
      impl: "understudy",
      contents: `export * from "${at("./backoff")}";`,
    },
    {
      id: "core-websocket",
      label: "understudy: `@understudy/core/websocket`",
      impl: "understudy",
      contents: `export * from "${at("./websocket")}";`,
    },
    {
      // Issue 28's front door: a program that uses only `connect` (its own
      // actor system made for it). Budget goal 10,000 B gzipped.
      id: "websocket-connect",
      label:
        "understudy: `connect` from `./websocket` (send, listen, close), used alone",
      impl: "understudy",
      contents: `import { connect } from "${at("./websocket")}";
const socket = connect("wss://chat.example/ws");
socket.addEventListener("message", (event) => console.log(event.data));
socket.subscribe((snapshot) => console.log(snapshot.status));
socket.send("hello");
await socket.sendConfirmed("hello again");
await socket.close();`,
    },
    {
      // Issue 29, item 3: the worker's main side, a `tell` program that
      // spawns its actor in a worker. What it adds to `core-tell` is what the
      // transport costs (target at most 4 KB gzipped).
      id: "worker-main",
      label:
        "understudy: `workerProps` + `spawnInWorker` + `tell` (the main side)",
      impl: "understudy",
      contents: `import { ActorSystem } from "${at(".")}";
import { spawnInWorker, workerProps } from "${at("./worker")}";
const system = ActorSystem.create("app");
const gate = system.actorOf(workerProps({ create: () => new Worker(new URL("./worker.js", import.meta.url), { type: "module" }) }), "compute");
(await spawnInWorker(gate, "greeter", "Greeter")).tell("hello");
await system.terminate();`,
    },
    {
      // The worker's side: `serveWorker` and one actor, in the worker's script.
      id: "worker-serve",
      label: "understudy: `serveWorker` + `Actor` (the worker's script)",
      impl: "understudy",
      contents: `import { Actor } from "${at(".")}";
import { serveWorker } from "${at("./worker")}";
class Greeter extends Actor { onReceive(message) { this.sender?.tell(message); } }
serveWorker(self, { actors: { Greeter: () => new Greeter() } });`,
    },
    {
      id: "xstate",
      label: "xstate: `createMachine` + `createActor`",
      impl: "xstate",
      contents: `export { createActor, createMachine } from "xstate";`,
    },
    {
      id: "reconnecting-websocket",
      label: "reconnecting-websocket (default export)",
      impl: "reconnecting-websocket",
      contents: `export { default } from "reconnecting-websocket";`,
    },
  ];
}

/** Bundles one entry; returns its sizes, or the reason it could not be built. */
export async function measure(entry) {
  try {
    const result = await build({
      stdin: {
        contents: entry.contents,
        resolveDir: root,
        sourcefile: `${entry.id}.ts`,
        loader: "ts",
      },
      absWorkingDir: root,
      bundle: true,
      minify: true,
      format: "esm",
      platform: "browser",
      target: "es2022",
      treeShaking: true,
      write: false,
      logLevel: "silent",
      define: { "process.env.NODE_ENV": '"production"' },
      metafile: true,
    });
    const code = result.outputFiles[0].contents;
    // Minified bytes each source file contributes, largest first.
    const inputs = Object.values(result.metafile.outputs)[0].inputs;
    const contributors = Object.entries(inputs)
      .map(([file, { bytesInOutput }]) => ({
        file: file.replace(/^.*node_modules\//, ""),
        bytes: bytesInOutput,
      }))
      .filter((c) => c.bytes > 0)
      .sort((a, b) => b.bytes - a.bytes);
    return {
      id: entry.id,
      label: entry.label,
      impl: entry.impl,
      status: "ok",
      bytes: code.byteLength,
      gzip: gzipSync(code, { level: 9 }).byteLength,
      brotli: brotliCompressSync(code, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 11,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: code.byteLength,
        },
      }).byteLength,
      contributors,
    };
  } catch (error) {
    const text = error.errors?.map((e) => e.text).join("; ") ?? String(error);
    return {
      id: entry.id,
      label: entry.label,
      impl: entry.impl,
      // A missing module (one being written) is "not available yet"; anything else is an error.
      status: /Could not resolve|No matching export/.test(text)
        ? "unavailable"
        : "error",
      reason: /Could not resolve|No matching export/.test(text)
        ? `not available yet (${text})`
        : text,
    };
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const sizes = [];
  for (const entry of sizeEntries()) sizes.push(await measure(entry));
  console.log(`@@BENCH ${JSON.stringify({ status: "ok", sizes })}`);
}
