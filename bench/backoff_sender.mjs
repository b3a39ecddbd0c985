// Copyright 2026 the understudy authors. MIT license.

/**
 * BackoffSender throughput beside a plain `tell`, in Node, Deno and Bun.
 *
 * `node bench/backoff_sender.mjs [--quick]` bundles one workload with
 * esbuild (from src/, into .build/bench/backoff_sender/) and runs that same
 * bundle in a fresh process per runtime. Each process alternates, run by
 * run, two measurements of n messages told from outside in one burst:
 *
 * - plain: `tell` straight to a worker that counts them; done when it has
 *   processed the n-th;
 * - BackoffSender: `tell` to a BackoffSender (`maxUnacked: n`, so the burst
 *   fits the bound) whose child counts and acknowledges each one
 *   (`this.context.parent.tell(new BackoffSender.Ack(tracked.id))`); done
 *   when the BackoffSender has processed the n-th Ack (an `ask` queued
 *   behind the Acks answers then).
 *
 * No failures are injected: this is the pattern's cost on the happy path
 * (an envelope, a ledger entry and an Ack per message). After the timed
 * runs one more BackoffSender run counts the `BackoffSenderAcknowledged`
 * events and dead letters, to check that all n were acknowledged and none
 * was lost; the table says so.
 *
 * Reports the median of the runs (≥ 5) as messages per second, and the
 * ratio of the two medians taken in the same process. Prints a Markdown
 * table and writes bench/results/backoff_sender.json (with --quick:
 * .build/bench/quick/backoff_sender.json, so a quick check never
 * overwrites committed results).
 *
 * `runBackoffSenderBench({ quick })` does the same and returns
 * `{ markdown, results }`, for `npm run bench` to call.
 *
 * @module
 */

import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const benchDir = dirname(fileURLToPath(import.meta.url));
const root = join(benchDir, "..");
const bin = (name) => join(root, "node_modules", ".bin", name);
const buildDir = join(root, ".build", "bench", "backoff_sender");

/** The workload, bundled from src/ and run as-is by every runtime. */
const WORKLOAD = String.raw`
import { Actor, ActorSystem, DeadLetter, Props } from "./mod.ts";
import { BackoffSender } from "./src/patterns/backoff_sender.ts";
import {
  BackoffSenderAcknowledged,
  BackoffSenderGaveUp,
} from "./src/patterns/backoff_sender_protocol.ts";

const host = globalThis as any;
const args: string[] = host.Deno?.args ?? host.process.argv.slice(2);
const [n, warmup, runs] = args.map(Number);
const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
function gc(): void {
  if (host.Bun !== undefined) host.Bun.gc(true);
  else if (typeof host.gc === "function") host.gc();
}

async function plain(count: number): Promise<number> {
  const system = ActorSystem.create("plain", { logLevel: "off" });
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  class Worker extends Actor<number> {
    seen = 0;
    onReceive(): void {
      if (++this.seen === count) done();
    }
  }
  const worker = system.actorOf(Props.create(() => new Worker()));
  await tick();
  const start = performance.now();
  for (let i = 0; i < count; i++) worker.tell(i);
  await finished;
  const ms = performance.now() - start;
  await system.terminate();
  return ms;
}

async function sender(
  count: number,
  check: { acked: number; dead: number } | undefined,
): Promise<number> {
  const system = ActorSystem.create("sender", { logLevel: "off" });
  if (check !== undefined) {
    system.eventStream.subscribe(BackoffSenderAcknowledged, () => check.acked++);
    system.eventStream.subscribe(BackoffSenderGaveUp, () => check.dead++);
    system.eventStream.subscribe(DeadLetter, () => check.dead++);
  }
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  class Worker extends Actor<BackoffSender.Tracked<number>> {
    seen = 0;
    onReceive(tracked: BackoffSender.Tracked<number>): void {
      this.context.parent.tell(new BackoffSender.Ack(tracked.id));
      if (++this.seen === count) done();
    }
  }
  const ref = system.actorOf(
    BackoffSender.props<number>({
      childProps: Props.create(() => new Worker()),
      maxUnacked: count,
    }),
  );
  await tick();
  const start = performance.now();
  for (let i = 0; i < count; i++) ref.tell(i);
  await finished;
  // Queued behind every Ack the worker sent: answered once all are processed.
  await ref.ask(BackoffSender.GetRestartCount, 60_000);
  const ms = performance.now() - start;
  await system.terminate();
  return ms;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

for (let i = 0; i < warmup; i++) {
  await plain(n);
  await sender(n, undefined);
}
const plainMs: number[] = [];
const senderMs: number[] = [];
for (let i = 0; i < runs; i++) {
  gc();
  plainMs.push(await plain(n));
  gc();
  senderMs.push(await sender(n, undefined));
}
const check = { acked: 0, dead: 0 };
await sender(n, check);
const plainPerSec = n / (median(plainMs) / 1000);
const senderPerSec = n / (median(senderMs) / 1000);
console.log("@@BENCH " + JSON.stringify({
  n,
  runs,
  plainMs,
  senderMs,
  plainPerSec,
  senderPerSec,
  ratio: senderPerSec / plainPerSec,
  acked: check.acked,
  dead: check.dead,
}));
`;

async function bundle() {
  mkdirSync(buildDir, { recursive: true });
  const outfile = join(buildDir, "workload.mjs");
  await build({
    stdin: {
      contents: WORKLOAD,
      loader: "ts",
      resolveDir: root,
      sourcefile: "backoff_sender_workload.ts",
    },
    outfile,
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    minify: false,
    logLevel: "silent",
  });
  return outfile;
}

function runProcess(command, args, timeoutMs) {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: root,
      env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ stdout, stderr: stderr + String(error), code: -1 });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code });
    });
  });
}

function commandFor(runtime, file, args) {
  switch (runtime) {
    case "node":
      return [process.execPath, ["--expose-gc", file, ...args]];
    case "deno":
      return [bin("deno"), [
        "run",
        "-A",
        "--v8-flags=--expose-gc",
        file,
        ...args,
      ]];
    case "bun":
      return [bin("bun"), ["run", file, ...args]];
  }
  throw new Error(`unknown runtime ${runtime}`);
}

const perSec = (value) =>
  value >= 1e6
    ? `${(value / 1e6).toFixed(2)} M/s`
    : `${Math.round(value / 1e3).toLocaleString("en")} k/s`;

function formatMarkdown(results) {
  const lines = [
    `BackoffSender throughput: ${
      results.n.toLocaleString("en")
    } messages told in one burst, median of ${results.runs} runs per runtime, both measured alternately in one process.`,
    "",
    "| runtime | plain `tell` | through `BackoffSender` (acknowledged) | ratio | check |",
    "| ------- | -----------: | -------------------------------------: | ----: | ----- |",
  ];
  for (const r of results.runtimes) {
    if (r.error !== undefined) {
      lines.push(`| ${r.runtime} | – | – | – | failed: ${r.error} |`);
      continue;
    }
    const ok = r.acked === results.n && r.dead === 0;
    lines.push(
      `| ${r.runtime} | ${perSec(r.plainPerSec)} | ${
        perSec(r.senderPerSec)
      } | ${r.ratio.toFixed(2)}× | ${
        ok
          ? `all ${r.acked.toLocaleString("en")} acknowledged, 0 lost`
          : `${r.acked} acknowledged, ${r.dead} dead letters`
      } |`,
    );
  }
  return lines.join("\n");
}

/**
 * Runs the bench in Node, Deno and Bun.
 *
 * @param {{ quick?: boolean, runtimes?: string[] }} options `quick`: 20,000
 *   messages, 1 warm-up, 5 runs (else 200,000, 2 warm-ups, 7 runs).
 * @returns {Promise<{ markdown: string, results: object }>}
 */
export async function runBackoffSenderBench(
  { quick = false, runtimes = ["node", "deno", "bun"] } = {},
) {
  const n = quick ? 20_000 : 200_000;
  const warmup = quick ? 1 : 2;
  const runs = quick ? 5 : 7;
  const file = await bundle();
  const results = {
    bench: "backoff_sender",
    date: new Date().toISOString(),
    n,
    warmup,
    runs,
    maxUnacked: n,
    runtimes: [],
  };
  for (const runtime of runtimes) {
    const [command, args] = commandFor(runtime, file, [
      String(n),
      String(warmup),
      String(runs),
    ]);
    const out = await runProcess(command, args, 600_000);
    const line = out.stdout.split("\n").find((l) => l.startsWith("@@BENCH "));
    if (out.code !== 0 || line === undefined) {
      results.runtimes.push({
        runtime,
        error: (out.stderr.trim().split("\n").at(-1) ?? "") ||
          `exit code ${out.code}`,
      });
      continue;
    }
    results.runtimes.push({
      runtime,
      ...JSON.parse(line.slice("@@BENCH ".length)),
    });
  }
  return { markdown: formatMarkdown(results), results };
}

if (
  process.argv[1] !== undefined &&
  import.meta.url === pathToFileURL(process.argv[1]).href
) {
  const quick = process.argv.includes("--quick");
  const { markdown, results } = await runBackoffSenderBench({ quick });
  console.log(markdown);
  const outDir = quick
    ? join(root, ".build", "bench", "quick")
    : join(benchDir, "results");
  mkdirSync(outDir, { recursive: true });
  const outFile = join(outDir, "backoff_sender.json");
  writeFileSync(outFile, JSON.stringify(results, null, 2) + "\n");
  console.log(`\nwrote ${outFile}`);
  const failed = results.runtimes.some((r) =>
    r.error !== undefined || r.acked !== results.n || r.dead !== 0
  );
  process.exitCode = failed ? 1 : 0;
}
