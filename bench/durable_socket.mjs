// Copyright 2026 the understudy authors. MIT license.

/**
 * The latency the Durable Object's socket server adds per message, against
 * a bare WebSocket echo through the Hibernation API, in workerd.
 *
 *     node bench/durable_socket.mjs [--quick]
 *
 * tests/durable/_socket_worker.ts is bundled with esbuild and served by
 * workerd (SQLite-backed objects, storage on a local disk, as in the
 * tests). Each round sends N messages one at a time from Node (each sent
 * when the previous one was answered) over one open socket, per variant:
 *
 * - `echo`: the `ws` client and the bare echo object (send, await the echo);
 * - `echo-write`: the same, the object writing each frame to storage before
 *   it echoes it (what any durable answer costs: the output gate);
 * - `server`: the `ws` client framing by hand (`id:text`) and the Room's
 *   SocketServer (await the acknowledgement: the actor's turn, the mark
 *   written, the output gate);
 * - `client+server`: the library's client (`connect` with
 *   `durableSocketAck()`, `sendConfirmed` awaited) and the same server.
 *
 * Variants alternate within each round (one warm-up round, then 7; with
 * --quick 3 rounds of fewer messages); the table shows each variant's
 * median per-message round trip with the spread (min–max) of the rounds,
 * and the difference and ratio of medians to the echo. Prints Markdown and
 * a `@@BENCH` JSON line.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as esbuild from "esbuild";
import { WebSocket } from "ws";
import { capnpConfig, startWorkerd } from "../scripts/lib/workerd.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const quick = process.argv.includes("--quick");
const N = quick ? 100 : 400;
const ROUNDS = quick ? 3 : 7;

async function bundle(entry, options = {}) {
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    target: "es2022",
    write: false,
    logLevel: "silent",
    ...options,
  });
  return result.outputFiles[0].text;
}

/** A `ws` socket and a way to wait for the next frame matching `match`. */
async function rawSocket(url) {
  const socket = new WebSocket(url);
  let waiting;
  socket.on("message", (data, isBinary) => {
    const text = isBinary ? data : data.toString();
    if (waiting && waiting.match(text)) {
      const { resolve } = waiting;
      waiting = undefined;
      resolve();
    }
  });
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", reject);
  });
  return {
    roundTrip(frame, match) {
      return new Promise((resolve) => {
        waiting = { match, resolve };
        socket.send(frame);
      });
    },
    close: () => socket.close(),
  };
}

const dir = mkdtempSync(join(tmpdir(), "understudy-socket-bench-"));
let worker;
try {
  const disk = join(dir, "storage");
  mkdirSync(disk);
  writeFileSync(
    join(dir, "worker.js"),
    await bundle(join(root, "tests/durable/_socket_worker.ts"), {
      platform: "browser",
      plugins: [{
        name: "cloudflare-workers",
        setup(build) {
          build.onResolve(
            { filter: /(^|\/)_?cloudflare_workers\.ts$/ },
            () => ({ path: "cloudflare:workers", external: true }),
          );
        },
      }],
    }),
  );
  // The library's client, for Node.
  const clientPath = join(dir, "client.mjs");
  writeFileSync(
    clientPath,
    await bundle(join(root, "src/websocket/mod.ts"), { platform: "node" }),
  );
  const { connect, durableSocketAck } = await import(
    pathToFileURL(clientPath).href
  );
  const config = capnpConfig({
    modules: [{ name: "worker.js", path: "worker.js" }],
    durableObjects: { ROOM: "Room", ECHO: "Echo" },
  })
    .replace(/uniqueKey = ("[^"]*")\)/g, "uniqueKey = $1, enableSql = true)")
    .replace(
      "durableObjectStorage = (inMemory = void)",
      'durableObjectStorage = (localDisk = "do-disk")',
    )
    .replace(
      '(name = "main", worker = .worker)',
      `(name = "main", worker = .worker), (name = "do-disk", disk = (path = ${
        JSON.stringify(disk)
      }, writable = true))`,
    );
  worker = await startWorkerd(join(dir, "config.capnp"), config);
  const ws = worker.url.replace("http", "ws");

  const echo = await rawSocket(`${ws}/echo`);
  const server = await rawSocket(`${ws}/room/bench-raw?client=raw`);
  let rawId = 0;
  const library = connect(`${ws}/room/bench-lib?client=lib`, {
    WebSocket,
    page: false,
    ack: durableSocketAck(),
  });

  const variants = [
    {
      kind: "echo",
      label: "bare echo through the Hibernation API (`ws` client)",
      one: (i) => echo.roundTrip(`m${i}`, (t) => t === `m${i}`),
    },
    {
      kind: "echo-write",
      label: "the same echo, after a storage write (output gate)",
      one: (i) => echo.roundTrip(`w:m${i}`, (t) => t === `w:m${i}`),
    },
    {
      kind: "server",
      label: "SocketServer, acknowledged after the actor's turn (`ws` client)",
      one: (i) => {
        const id = ++rawId;
        return server.roundTrip(`${id}:m${i}`, (t) => t === `\u0006${id}`);
      },
    },
    {
      kind: "client+server",
      label: "`connect` + `durableSocketAck()`, `sendConfirmed` awaited",
      one: (i) => library.sendConfirmed(`m${i}`),
    },
  ];

  const perMessage = Object.fromEntries(variants.map((v) => [v.kind, []]));
  for (let round = 0; round <= ROUNDS; round++) {
    // Alternate the order too, so that no variant always goes first.
    const order = round % 2 === 0 ? variants : [...variants].reverse();
    for (const variant of order) {
      const started = performance.now();
      for (let i = 0; i < N; i++) await variant.one(i);
      const us = (performance.now() - started) * 1000 / N;
      if (round > 0) perMessage[variant.kind].push(us); // round 0 warms up
    }
  }
  echo.close();
  server.close();
  await library.close();

  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
  };
  const base = median(perMessage.echo);
  const rows = variants.map(({ kind, label }) => {
    const xs = perMessage[kind];
    const m = median(xs);
    return {
      kind,
      label,
      medianUs: Math.round(m),
      minUs: Math.round(Math.min(...xs)),
      maxUs: Math.round(Math.max(...xs)),
      addedUs: Math.round(m - base),
      ratio: Number((m / base).toFixed(2)),
    };
  });
  const lines = [
    `Per-message round trip in workerd, one message at a time over one open socket (${N} messages a round, median of ${ROUNDS} rounds after a warm-up, variants alternating; spread = min–max of the rounds):`,
    "",
    "| way | median µs / message | spread µs | added to the echo µs | × echo |",
    "| --- | ---: | ---: | ---: | ---: |",
    ...rows.map((r) =>
      `| ${r.label} | ${r.medianUs} | ${r.minUs}–${r.maxUs} | ${r.addedUs} | ${
        r.ratio.toFixed(2)
      } |`
    ),
  ];
  console.log(lines.join("\n"));
  console.log(`@@BENCH ${JSON.stringify({ n: N, rounds: ROUNDS, rows })}`);
} finally {
  await worker?.stop();
  rmSync(dir, { recursive: true, force: true });
}
