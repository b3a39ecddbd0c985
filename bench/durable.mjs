// Copyright 2026 the understudy authors. MIT license.

/**
 * Messages per second between two Durable Objects in workerd: through
 * understudy refs against direct RPC calls, side by side in one run.
 *
 *     node bench/durable.mjs [--quick] [--only=kind,kind…] [--rounds=r] [--n=messages]
 *
 * bench/durable/worker.ts is bundled with esbuild and served by Cloudflare's
 * workerd (the npm package, started on a generated Cap'n Proto config, no
 * miniflare); each measurement is one HTTP request asking the sender object
 * to get N messages to the receiver object one way, timed in Node around
 * the request (one local HTTP round trip included, small next to N
 * messages). The variants alternate within each round, so that they share
 * the machine's state; the table shows medians of the rounds (5, after one
 * warm-up round) and the ratios to the awaited direct RPC, to hand batches
 * (`rpc-batched`: the issue's baseline, which delivers into no actor and
 * stores nothing) and to hand batches told to the actor with a storage
 * write a batch (`rpc-batched-to-actor-marked`: exactly-once by hand).
 *
 * Prints a Markdown table and writes bench/results/durable.json (with
 * --quick: .build/bench/quick/durable.json). `runDurableBench({ quick })`
 * does the same for `npm run bench` and returns `{ markdown, results }`.
 */

import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import os, { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { capnpConfig, startWorkerd } from "../scripts/lib/workerd.mjs";

const benchDir = dirname(fileURLToPath(import.meta.url));
const root = join(benchDir, "..");

const VARIANTS = [
  {
    kind: "understudy",
    label: "understudy refs, numbered (tell × N, then ask)",
  },
  {
    kind: "understudy-unnumbered",
    label: "understudy refs, unnumbered (sender without binding)",
  },
  {
    kind: "rpc-packets-to-actor",
    label:
      "direct RPC, batches of 256 in understudy's wire format, to the actor",
  },
  {
    kind: "rpc-runs-to-actor",
    label:
      "direct RPC, batches of 256 as runs (understudy's refs' format), to the actor",
  },
  {
    kind: "rpc-deliver",
    label:
      "direct RPC, batches of 256 to understudyDeliver by hand (unnumbered)",
  },
  {
    kind: "rpc-queued-to-actor",
    label:
      "direct RPC, N messages made first, then batches of 256 as runs, to the actor",
  },
  {
    kind: "rpc-deliver-runs",
    label:
      "direct RPC, batches of 256 as runs to understudyDeliver by hand (unnumbered)",
  },
  {
    kind: "latency",
    label: "understudy, tell + ask awaited (N / 100 rounds), numbered",
  },
  {
    kind: "latency-unnumbered",
    label: "understudy, tell + ask awaited (N / 100 rounds), unnumbered",
  },
  {
    kind: "rpc-pipelined",
    label: "direct RPC, pipelined (N calls, then await all)",
  },
  { kind: "rpc-awaited", label: "direct RPC, each call awaited" },
  {
    kind: "rpc-batched",
    label: "direct RPC, batches of 256 by hand (each call awaited)",
  },
  {
    kind: "rpc-batched-to-actor",
    label: "direct RPC, batches of 256 by hand, told to the actor there",
  },
  {
    kind: "rpc-batched-to-actor-marked",
    label:
      "direct RPC, batches of 256 by hand, told to the actor there, a storage write a batch",
  },
];

/** Bundles the worker at `entryPoint` for workerd (`cloudflare:workers` left to it). */
export async function bundleWorker(
  entryPoint = join(benchDir, "durable", "worker.ts"),
) {
  const result = await esbuild.build({
    entryPoints: [entryPoint],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "silent",
    minify: true,
    plugins: [{
      name: "cloudflare-workers",
      setup(build) {
        build.onResolve(
          { filter: /(^|\/)cloudflare_workers\.ts$/ },
          () => ({ path: "cloudflare:workers", external: true }),
        );
      },
    }],
  });
  return result.outputFiles[0].text;
}

/**
 * CPU time the process `pid` has used, in ms, summed over its threads
 * (/proc/PID/task/TID/schedstat, nanoseconds on CPU); `NaN` where there is
 * no /proc. Under a loaded machine a run's wall time measures the other
 * processes too; the CPU workerd spends on it does much less.
 */
export function cpuMs(pid) {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      ns += Number(
        readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(
          " ",
        )[0],
      );
    }
    return ns / 1e6;
  } catch {
    return NaN;
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * Runs the benchmark; resolves to `{ markdown, results }`.
 *
 * @param {{ quick?: boolean, log?: (line: string) => void }} [options]
 */
export async function runDurableBench(
  {
    quick = false,
    only = undefined,
    rounds = 5,
    messages = undefined,
    log = () => {},
  } = {},
) {
  const variants = only === undefined
    ? VARIANTS
    : VARIANTS.filter((v) => only.includes(v.kind));
  const n = messages ?? (quick ? 2_000 : 20_000);
  const dir = mkdtempSync(join(tmpdir(), "understudy-durable-bench-"));
  let worker;
  try {
    writeFileSync(join(dir, "worker.js"), await bundleWorker());
    worker = await startWorkerd(
      join(dir, "config.capnp"),
      capnpConfig({
        modules: [{ name: "worker.js", path: "worker.js" }],
        durableObjects: {
          SENDER: "Sender",
          ANON_SENDER: "AnonSender",
          RAW_SENDER: "RawSender",
          RECEIVER: "Receiver",
        },
      }),
    );
    const once = async (kind) => {
      const cpuBefore = cpuMs(worker.pid);
      const started = performance.now();
      const res = await fetch(`${worker.url}/?kind=${kind}&n=${n}`, {
        signal: AbortSignal.timeout(120_000),
      });
      const ms = performance.now() - started;
      const body = await res.json();
      cpu[kind].push(cpuMs(worker.pid) - cpuBefore);
      const expected = kind.startsWith("latency") ? n - (n % 100) : n;
      if (res.status !== 200 || body.count !== expected) {
        throw new Error(
          `${kind}: expected ${n} messages delivered, got ${
            JSON.stringify(body)
          }\n${worker.output()}`,
        );
      }
      writes[kind].push(body.writes);
      return ms;
    };
    const times = Object.fromEntries(variants.map((v) => [v.kind, []]));
    const writes = Object.fromEntries(variants.map((v) => [v.kind, []]));
    const cpu = Object.fromEntries(variants.map((v) => [v.kind, []]));
    for (let round = -1; round < rounds; round++) {
      for (const { kind } of variants) {
        const ms = await once(kind);
        if (round >= 0) times[kind].push(ms);
        log(
          `${round < 0 ? "warm-up" : `round ${round + 1}`}: ${kind} ${
            ms.toFixed(1)
          } ms`,
        );
      }
    }
    const base = n / (median(times["rpc-awaited"] ?? [NaN]) / 1000);
    const batched = n / (median(times["rpc-batched"] ?? [NaN]) / 1000);
    // Hand batches told to the actor, a storage write a batch: what
    // exactly-once delivery into an actor costs without understudy.
    const marked = n /
      (median(times["rpc-batched-to-actor-marked"] ?? [NaN]) / 1000);
    // The warm-up round's CPU is left out, as its time is.
    const cpuOf = (kind) => cpu[kind].slice(1);
    const batchedCpu = median(cpuOf("rpc-batched") ?? [NaN]);
    const rows = variants.map(({ kind, label }) => {
      const ms = median(times[kind]);
      const latency = kind.startsWith("latency");
      const delivered = latency ? n / 100 : n;
      const perSecond = delivered / (ms / 1000);
      const runs = times[kind];
      return {
        kind,
        label,
        messages: delivered,
        runs: runs.map((t) => Math.round(t * 10) / 10),
        medianMs: Math.round(ms * 10) / 10,
        spreadMs: [
          Math.round(Math.min(...runs) * 10) / 10,
          Math.round(Math.max(...runs) * 10) / 10,
        ],
        messagesPerSecond: Math.round(perSecond),
        cpuMedianMs: Math.round(median(cpuOf(kind)) * 10) / 10,
        cpuSpreadMs: [
          Math.round(Math.min(...cpuOf(kind)) * 10) / 10,
          Math.round(Math.max(...cpuOf(kind)) * 10) / 10,
        ],
        // workerd's CPU for the same messages: < 1 is more CPU than batched RPC.
        cpuRatioToBatchedRpc: latency || !Number.isFinite(batchedCpu)
          ? undefined
          : Math.round((batchedCpu / median(cpuOf(kind))) * 100) / 100,
        msPerRoundTrip: latency
          ? Math.round((ms / delivered) * 1000) / 1000
          : undefined,
        storageWritesPerMessage: Math.round(
          (median(writes[kind]) / delivered) * 10_000,
        ) / 10_000,
        // Absent when the run left out the variant it is relative to.
        ratioToAwaitedRpc: latency || !Number.isFinite(base)
          ? undefined
          : Math.round((perSecond / base) * 100) / 100,
        ratioToBatchedRpc: latency || !Number.isFinite(batched)
          ? undefined
          : Math.round((perSecond / batched) * 100) / 100,
        ratioToMarkedRpc: latency || !Number.isFinite(marked)
          ? undefined
          : Math.round((perSecond / marked) * 100) / 100,
      };
    });
    const results = {
      meta: {
        date: new Date().toISOString(),
        mode: quick ? "quick" : "full",
        command: `node bench/durable.mjs${quick ? " --quick" : ""}`,
        messages: n,
        rounds,
        warmup: 1,
        node: process.version,
        workerd:
          (await import("workerd/package.json", { with: { type: "json" } })
            .catch(() => ({ default: {} }))).default.version ?? "unknown",
        cores: os.cpus().length,
      },
      rows,
    };
    const fmt = (x) => x.toLocaleString("en-US");
    const markdown = [
      `Messages per second from one Durable Object to another in workerd (${
        fmt(n)
      } messages a run, median of ${rounds} rounds, variants alternating):`,
      "",
      "| way | median ms (min–max) | messages/s | × awaited RPC | × batched RPC | × batched RPC to the actor, a write a batch | workerd CPU ms (min–max) | × batched RPC, by CPU | ms per round trip | storage writes / message |",
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
      ...rows.map((r) =>
        `| ${r.label} | ${r.medianMs} (${r.spreadMs[0]}–${r.spreadMs[1]}) | ${
          fmt(r.messagesPerSecond)
        } | ${r.ratioToAwaitedRpc?.toFixed(2) ?? "—"} | ${
          r.ratioToBatchedRpc?.toFixed(2) ?? "—"
        } | ${r.ratioToMarkedRpc?.toFixed(2) ?? "—"} | ${r.cpuMedianMs} (${
          r.cpuSpreadMs[0]
        }–${r.cpuSpreadMs[1]}) | ${
          r.cpuRatioToBatchedRpc?.toFixed(2) ?? "—"
        } | ${r.msPerRoundTrip ?? "—"} | ${r.storageWritesPerMessage} |`
      ),
      "",
      "Workerd CPU is the CPU time the workerd process spent on the run (all its threads, from /proc), which a busy machine disturbs much less than wall time. Storage writes are the receiving host's high-water-mark writes (one per batch of numbered tells); the latency rows are one awaited tell + ask each. `rpc-packets-to-actor`, `rpc-runs-to-actor` and `rpc-deliver` take understudy apart: its old wire format, its runs format and its receiving host, each by hand.",
    ].join("\n");
    return { markdown, results };
  } finally {
    await worker?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const quick = process.argv.includes("--quick");
  const only = process.argv.find((a) => a.startsWith("--only="))?.slice(7)
    .split(",");
  const roundsArg = process.argv.find((a) => a.startsWith("--rounds="));
  const nArg = process.argv.find((a) => a.startsWith("--n="));
  const { markdown, results } = await runDurableBench({
    quick,
    only,
    rounds: roundsArg === undefined ? 5 : Number(roundsArg.slice(9)),
    messages: nArg === undefined ? undefined : Number(nArg.slice(4)),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  // The command as run, flags included, so that a figure copied from the
  // file says how to measure it again.
  results.meta.command = ["node bench/durable.mjs", ...process.argv.slice(2)]
    .join(" ");
  const out = quick || only || roundsArg || nArg
    ? join(root, ".build", "bench", "quick")
    : join(root, "bench", "results");
  mkdirSync(out, { recursive: true });
  writeFileSync(
    join(out, "durable.json"),
    JSON.stringify(results, null, 2) + "\n",
  );
  console.log(markdown);
  console.log(`\nwrote ${join(out, "durable.json")}`);
}
