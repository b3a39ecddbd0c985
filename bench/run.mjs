// Copyright 2026 the understudy authors. MIT license.

/**
 * `npm run bench`: builds the Node (and browser) bundles, runs every job of
 * bench/plan.mjs in its own fresh process, or fresh Chromium page through
 * bench/browser.mjs (one after another, never two at once), prints a
 * Markdown table of medians, writes bench/results/latest.json, and
 * regenerates BENCHMARKS.md, bench/results/chart.svg and the fairness table of docs/benchmarks.md.
 *
 * Flags:
 *   --quick         small sizes, 1 warm-up + 3 runs; writes to .build/bench/quick/
 *                   (so a CI check never overwrites the committed results)
 *   --runs=N        measured runs per job (default 5; 3 with --quick)
 *   --warmup=N      warm-up runs per job (default 1)
 *   --only=TEXT     run only jobs whose id contains TEXT (comma-separated: any of them)
 *   --runtimes=LIST node,deno,bun,browser by default (browser: Chromium, only
 *                   for the fairness workload)
 *   --out=DIR       where results go (default bench/results, or .build/bench/quick with --quick)
 *   --merge         keep the other jobs of the results file already in --out and
 *                   replace only those run now (with --only: re-measure one
 *                   workload without a full run; each job records when it ran)
 *
 * The code measured is a snapshot of mod.ts, src/ and bench/ taken at the
 * start (.build/bench/snapshot/), so every runtime sees the same source.
 * Exits 1 if a job crashed or timed out; never because of a speed, and never
 * because a module is not available yet.
 */

import { spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { buildBrowserBundles, buildNodeBundles } from "./build.mjs";
import { plan } from "./plan.mjs";
import { renderChart } from "./chart.mjs";
import {
  formatMarkdown,
  renderBenchmarksMd,
  renderSummary,
  updateFairnessPage,
} from "./report.mjs";

const benchDir = dirname(fileURLToPath(import.meta.url));
const root = join(benchDir, "..");
const bin = (name) => join(root, "node_modules", ".bin", name);
/** Bundles and --quick output: under the repository's .build/, which git and deno fmt/lint ignore. */
const buildDir = join(root, ".build", "bench");

/** Benches that run in-process from their own module: [id, file, export]. */
const EXTRA_BENCHES = [
  ["backoff-sender", "backoff_sender.mjs", "runBackoffSenderBench"],
  ["worker", "worker.mjs", "runWorkerBench"],
  ["durable", "durable.mjs", "runDurableBench"],
];

function parseArgs(argv) {
  const options = {
    quick: false,
    runs: undefined,
    warmup: 1,
    only: [],
    runtimes: ["node", "deno", "bun", "browser"],
    out: undefined,
    merge: false,
  };
  for (const arg of argv) {
    const [key, value] = arg.split(/=(.*)/s);
    if (key === "--quick") options.quick = true;
    else if (key === "--runs") options.runs = Number(value);
    else if (key === "--warmup") options.warmup = Number(value);
    else if (key === "--only") options.only = value.split(",").filter(Boolean);
    else if (key === "--runtimes") {
      options.runtimes = value.split(",").filter(Boolean);
    } else if (key === "--out") options.out = value;
    else if (key === "--merge") options.merge = true;
    else {
      console.error(`unknown option ${arg}`);
      process.exit(2);
    }
  }
  options.runs ??= options.quick ? 3 : 5;
  if (!(options.runs >= 1) || !(options.warmup >= 0)) {
    console.error("--runs must be >= 1 and --warmup >= 0");
    process.exit(2);
  }
  options.out ??= options.quick
    ? join(buildDir, "quick")
    : join(benchDir, "results");
  return options;
}

/** Runs a command; resolves with its output, exit code and whether it timed out. */
function run(command, args, { timeoutMs, env = {}, cwd = root }) {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd,
      env: {
        ...process.env,
        NO_COLOR: "1",
        DENO_NO_UPDATE_CHECK: "1",
        FORCE_COLOR: "0",
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ stdout, stderr: stderr + String(error), code: -1, timedOut });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code, timedOut });
    });
  });
}

function firstLine(text) {
  return text.split("\n").find((line) => line.trim() !== "")?.trim() ?? "";
}

async function versions() {
  const pkg = (name) => {
    try {
      return JSON.parse(
        readFileSync(join(root, "node_modules", name, "package.json"), "utf8"),
      ).version;
    } catch {
      return "not installed";
    }
  };
  const deno = await run(bin("deno"), ["--version"], { timeoutMs: 30_000 });
  const bun = await run(bin("bun"), ["--version"], { timeoutMs: 30_000 });
  const chromium = existsSync(CHROMIUM)
    ? await run(CHROMIUM, ["--version"], { timeoutMs: 30_000 })
    : { stdout: "" };
  return {
    node: process.version,
    deno:
      firstLine(deno.stdout).replace(/^deno\s+/, "").replace(/\s*\(.*$/, "") ||
      "unavailable",
    denoV8: (deno.stdout.match(/v8\s+(\S+)/) ?? [])[1] ?? "",
    bun: firstLine(bun.stdout) || "unavailable",
    chromium: (firstLine(chromium.stdout).match(/[\d.]+/) ?? [])[0] ??
      "unavailable",
    playwright: pkg("playwright-core"),
    v8: process.versions.v8,
    esbuild: pkg("esbuild"),
    xstate: pkg("xstate"),
    nact: pkg("nact"),
    effect: pkg("effect"),
    "reconnecting-websocket": pkg("reconnecting-websocket"),
  };
}

/**
 * Copies the code under test and the workloads to .build/bench/snapshot/, so
 * every runtime measures the same source for the whole run even while the
 * work tree changes (Deno and Bun run TypeScript straight from it).
 */
function snapshot() {
  const dir = join(buildDir, "snapshot");
  rmSync(dir, { recursive: true, force: true });
  const paths = [
    "mod.ts",
    "deno.json",
    "package.json",
    "src",
    "bench/impl",
    "bench/lib",
  ];
  for (const path of paths) {
    if (existsSync(join(root, path))) {
      cpSync(join(root, path), join(dir, path), { recursive: true });
    }
  }
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir");
  return dir;
}

/** The commit measured, and whether the work tree had changes. */
async function revision() {
  const head = await run("git", ["rev-parse", "--short", "HEAD"], {
    timeoutMs: 10_000,
  });
  const status = await run("git", [
    "status",
    "--porcelain",
    "--",
    "src",
    "mod.ts",
  ], { timeoutMs: 10_000 });
  const commit = head.stdout.trim() || "unknown";
  return status.stdout.trim() === ""
    ? commit
    : `${commit} + uncommitted changes in src/`;
}

function machine() {
  const cpus = os.cpus();
  return {
    cores: cpus.length,
    model: cpus[0]?.model?.trim() ?? "unknown",
    memoryBytes: os.totalmem(),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    loadAverage: os.loadavg(),
  };
}

/** Where bench/browser.mjs looks for Chromium (as the test harness does). */
const CHROMIUM = "/usr/bin/chromium";

function commandFor(job, bundles, options) {
  const args = [
    job.fn,
    String(job.n),
    String(options.warmup),
    String(options.runs),
  ];
  if (job.warmupN !== undefined) args.push(String(job.warmupN));
  const source = join("bench", "impl", `${job.impl}.ts`);
  switch (job.runtime) {
    case "node":
      return [process.execPath, [
        "--expose-gc",
        bundles[job.impl],
        ...args,
      ]];
    case "deno":
      return [bin("deno"), [
        "run",
        "-A",
        "--v8-flags=--expose-gc",
        source,
        ...args,
      ]];
    case "bun":
      return [bin("bun"), ["run", source, ...args]];
    case "browser":
      return [process.execPath, [
        join(benchDir, "browser.mjs"),
        bundles.browser[job.impl],
        ...args,
      ]];
    default:
      throw new Error(`unknown runtime ${job.runtime}`);
  }
}

function quantiles(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1
    ? sorted[mid]
    : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, min: sorted[0], max: sorted[sorted.length - 1] };
}

/** Median, min and max of each number the samples report, plus `rate` (ops per second) where they count ops. */
export function summarize(samples) {
  const stats = {};
  const keys = new Set(samples.flatMap((s) => Object.keys(s)));
  for (const key of keys) stats[key] = quantiles(samples.map((s) => s[key]));
  if (keys.has("ops")) {
    stats.rate = quantiles(samples.map((s) => s.ops / (s.ms / 1000)));
  }
  return stats;
}

function parseResult(stdout) {
  const line = stdout.split("\n").reverse().find((l) =>
    l.startsWith("@@BENCH ")
  );
  return line === undefined
    ? undefined
    : JSON.parse(line.slice("@@BENCH ".length));
}

function describeOutcome(job) {
  if (job.status !== "ok") return `${job.status}: ${job.reason}`;
  const s = job.stats;
  const parts = [];
  if (s.rate) parts.push(`${formatCount(s.rate.median)} ops/s`);
  parts.push(`${s.ms.median.toFixed(1)} ms`);
  if (s.bytesPerActor) {
    parts.push(`${s.bytesPerActor.median.toFixed(0)} B/actor`);
  }
  if (s.bytesPerTimer) {
    parts.push(`${s.bytesPerTimer.median.toFixed(0)} B/timer`);
  }
  if (s.timeoutMedian) {
    parts.push(
      `setTimeout(0) late ${s.timeoutMedian.median.toFixed(1)} ms (p95 ${
        s.timeoutP95.median.toFixed(1)
      })`,
      `setInterval(10) gap ${s.intervalMedian.median.toFixed(1)} ms (p95 ${
        s.intervalP95.median.toFixed(1)
      })`,
    );
  }
  return parts.join(", ");
}

function formatCount(x) {
  if (x >= 1e6) return `${(x / 1e6).toFixed(2)} M`;
  if (x >= 1e3) return `${(x / 1e3).toFixed(1)} k`;
  return x.toFixed(0);
}

/**
 * Puts the jobs (and sizes) of `results` into the results already at
 * `path`, replacing those with the same id; the older run's meta stays, and
 * `meta.merged` lists this run.
 */
function mergeInto(results, path) {
  if (!existsSync(path)) return;
  const previous = JSON.parse(readFileSync(path, "utf8"));
  const ran = new Set(results.jobs.map((job) => job.id));
  const jobs = previous.jobs.filter((job) => !ran.has(job.id));
  const { meta } = results;
  results.jobs = [...jobs, ...results.jobs];
  if (results.sizes.length === 0) results.sizes = previous.sizes ?? [];
  const measuredExtras = new Set(results.extras.map((extra) => extra.id));
  results.extras = [
    ...(previous.extras ?? []).filter((extra) => !measuredExtras.has(extra.id)),
    ...results.extras,
  ];
  results.meta = {
    ...previous.meta,
    merged: [...(previous.meta.merged ?? []), {
      date: meta.date,
      command: meta.command,
      revision: meta.revision,
      warmup: meta.warmup,
      runs: meta.runs,
      jobs: [...ran],
      versions: meta.versions,
    }],
  };
  results.meta.versions = { ...meta.versions, ...previous.meta.versions };
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const mode = options.quick ? "quick" : "full";
  const started = Date.now();
  const measured = await revision();
  const source = snapshot();
  const { bundles, errors } = await buildNodeBundles(
    join(source, "bench"),
    join(buildDir, "node"),
  );
  const jobs = plan(mode).filter((job) =>
    options.runtimes.includes(job.runtime) &&
    (options.only.length === 0 ||
      options.only.some((text) => job.id.includes(text)))
  );
  const browserImpls = [
    ...new Set(jobs.filter((j) => j.runtime === "browser").map((j) => j.impl)),
  ];
  const browser = await buildBrowserBundles(
    join(source, "bench"),
    join(buildDir, "browser"),
    browserImpls,
  );
  bundles.browser = browser.bundles;
  const jobTimeoutMs = options.quick ? 60_000 : 900_000;
  console.error(
    `bench: ${mode} run, ${jobs.length} jobs, ${options.warmup} warm-up + ${options.runs} runs each`,
  );
  for (const [i, job] of jobs.entries()) {
    const tag = `[${
      String(i + 1).padStart(3)
    }/${jobs.length}] ${job.workload} ${job.label} @${job.runtime} n=${job.n}`;
    if (job.runtime === "node" && bundles[job.impl] === undefined) {
      Object.assign(job, {
        status: "unavailable",
        reason: `not available yet (bundle failed: ${errors[job.impl]})`,
      });
      console.error(`${tag}: ${describeOutcome(job)}`);
      continue;
    }
    if (job.runtime === "browser" && bundles.browser[job.impl] === undefined) {
      Object.assign(job, {
        status: "unavailable",
        reason: `not available yet (browser bundle failed: ${
          browser.errors[job.impl]
        })`,
      });
      console.error(`${tag}: ${describeOutcome(job)}`);
      continue;
    }
    const [command, args] = commandFor(job, bundles, options);
    const t0 = Date.now();
    const out = await run(command, args, {
      timeoutMs: jobTimeoutMs,
      cwd: source,
      // bench/browser.mjs gives up first, so it can close Chromium.
      env: { BENCH_TIMEOUT_MS: String(jobTimeoutMs - 10_000) },
    });
    const result = parseResult(out.stdout);
    job.wallMs = Date.now() - t0;
    job.date = new Date(t0).toISOString();
    job.revision = measured;
    job.command = [
      command === process.execPath
        ? "node"
        : relative(root, command) || command,
      ...args,
    ].join(" ").split(`${root}/`).join("");
    if (out.timedOut) {
      Object.assign(job, {
        status: "error",
        reason: `timed out after ${jobTimeoutMs / 1000} s`,
      });
    } else if (result === undefined) {
      const tail = (out.stderr || out.stdout).trim().split("\n").slice(-3).join(
        " | ",
      );
      Object.assign(job, {
        status: "error",
        reason: `exit ${out.code}, no result (${tail.slice(0, 400)})`,
      });
    } else if (result.status === "ok") {
      Object.assign(job, {
        status: "ok",
        notes: result.notes,
        samples: result.samples,
        stats: summarize(result.samples),
      });
    } else {
      const reason = result.status === "unavailable"
        ? `not available yet (${result.reason})`
        : result.reason;
      Object.assign(job, {
        status: result.status,
        reason,
        notes: result.notes,
      });
    }
    console.error(
      `${tag}: ${describeOutcome(job)} (${(job.wallMs / 1000).toFixed(1)} s)`,
    );
  }
  // 8. Size, in its own process too.
  let sizes = [];
  if (
    options.only.length === 0 ||
    options.only.some((text) => "size".includes(text))
  ) {
    const out = await run(process.execPath, [
      join(benchDir, "size.mjs"),
      source,
    ], {
      timeoutMs: 120_000,
    });
    const result = parseResult(out.stdout);
    sizes = result?.sizes ??
      [{
        id: "size",
        label: "size",
        status: "error",
        reason: out.stderr.slice(-400),
      }];
    console.error(
      `[size] ${
        sizes.map((s) =>
          `${s.id}: ${s.status === "ok" ? `${s.gzip} B gzip` : s.status}`
        ).join(", ")
      }`,
    );
  }
  // 9. The patterns' and transports' own benches (each module measures side
  // by side in its own processes and returns a Markdown table).
  const extras = [];
  for (const [id, file, fn] of EXTRA_BENCHES) {
    if (
      options.only.length > 0 && !options.only.some((text) => id.includes(text))
    ) continue;
    if (!existsSync(join(benchDir, file))) continue;
    const startedAt = Date.now();
    try {
      const module = await import(`./${file}`);
      const { markdown, results } = await module[fn]({ quick: options.quick });
      extras.push({ id, status: "ok", markdown, results });
      console.error(
        `[${id}] ok (${((Date.now() - startedAt) / 1000).toFixed(1)} s)`,
      );
    } catch (error) {
      extras.push({
        id,
        status: "error",
        reason: String(error?.stack ?? error).slice(0, 400),
      });
      console.error(`[${id}] error: ${error?.message ?? error}`);
    }
  }
  const results = {
    meta: {
      date: new Date().toISOString(),
      mode,
      warmup: options.warmup,
      runs: options.runs,
      command: `npm run bench${
        process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""
      }`,
      durationSeconds: Math.round((Date.now() - started) / 1000),
      revision: measured,
      machine: machine(),
      versions: await versions(),
    },
    jobs,
    sizes,
    extras,
  };
  mkdirSync(options.out, { recursive: true });
  const jsonPath = join(
    options.out,
    options.quick ? "quick.json" : "latest.json",
  );
  if (options.merge) mergeInto(results, jsonPath);
  writeFileSync(jsonPath, `${JSON.stringify(results, null, 2)}\n`);
  const chartPath = join(options.out, "chart.svg");
  writeFileSync(chartPath, renderChart(results));
  const mdPath = options.quick || options.out !== join(benchDir, "results")
    ? join(options.out, "BENCHMARKS.md")
    : join(root, "BENCHMARKS.md");
  writeFileSync(
    mdPath,
    renderBenchmarksMd(results, {
      chartPath: relative(dirname(mdPath), chartPath),
    }),
  );
  if (mdPath === join(root, "BENCHMARKS.md")) {
    formatMarkdown(mdPath, root);
    updateFairnessPage(root, results);
  }
  console.log(renderSummary(results));
  console.error(
    `bench: wrote ${relative(root, jsonPath)}, ${relative(root, chartPath)}, ${
      relative(root, mdPath) || mdPath
    } in ${results.meta.durationSeconds} s`,
  );
  // A job that crashed or timed out means the harness (or a workload) is
  // broken: fail, so CI notices. Speed never fails a run, and neither does a
  // module that is not available yet.
  const broken = [...jobs, ...sizes, ...extras].filter((j) =>
    j.status === "error"
  );
  if (broken.length > 0) {
    console.error(
      `bench: ${broken.length} job(s) failed:\n${
        broken.map((j) => `  ${j.id}: ${j.reason}`).join("\n")
      }`,
    );
    process.exitCode = 1;
  }
}

if (existsSync(join(root, "node_modules", ".bin", "esbuild"))) {
  await main();
} else {
  console.error("bench: dependencies missing; run `npm ci` first");
  process.exit(1);
}
