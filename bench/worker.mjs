// Copyright 2026 the understudy authors. MIT license.

/**
 * The worker transport's bench: `node bench/worker.mjs [--quick]`.
 *
 * Bundles bench/worker/bench_main.ts and bench_worker.ts with esbuild into
 * .build/bench-worker/, then runs them in Node (worker_threads with a
 * MessageChannel's ports), Deno and Bun (module Workers) and, if a Chromium
 * is found (scripts/lib/chromium.mjs), a Chromium page with a module
 * worker. Each runtime measures, in one process and interleaved (each run
 * starting at the next case), medians of 5 runs of: one-way streaming (understudy `tell` to an actor in the
 * worker vs a raw loop of one `postMessage` per message, and vs plain
 * objects posted in hand-made batches the size of understudy's, the
 * ceiling of batching with no actor or bookkeeping on either side, and vs
 * the same batches with every message kept until the worker has counted
 * them, the retention any transport that accounts for each message pays)
 * and ping-pong (understudy `ask` vs a raw `postMessage` round trip vs a
 * Comlink call).
 * Prints a Markdown table of the medians, and of the ratios against the
 * targets (streaming ≥ 3× raw, ping-pong ≥ 1× Comlink) as the median of
 * the runs' own ratios, and writes bench/results/worker.json.
 * `runWorkerBench({ quick })` does the same for `npm run bench`.
 *
 * Options (for a closer look at one runtime; the defaults are what `npm
 * run bench` measures): `--runtimes=bun,chromium` runs only those,
 * `--runs=9` takes the median of 9 interleaved runs instead of 5,
 * `--cases=actorStream,rawBatched256Stream` measures only those cases
 * (bench_main.ts names them), and `--out=path.json` writes the results
 * there instead.
 */

import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, extname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import * as esbuild from "esbuild";
import { BIN, ROOT } from "../scripts/lib/util.mjs";
import { LAUNCH_ARGS, locateChromium } from "../scripts/lib/chromium.mjs";

const OUT = join(ROOT, ".build", "bench-worker");
const RUNTIME_TIMEOUT_MS = 10 * 60_000;

async function build() {
  mkdirSync(OUT, { recursive: true });
  for (const name of ["bench_main", "bench_worker"]) {
    await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: [join(ROOT, "bench", "worker", `${name}.ts`)],
      outfile: join(OUT, `${name}.mjs`),
      bundle: true,
      format: "esm",
      platform: "neutral",
      mainFields: ["module", "main"],
      external: ["node:*"],
      target: "es2022",
      logLevel: "silent",
    });
  }
}

function parse(output) {
  const line = output.split("\n").find((l) => l.startsWith("@@WORKER "));
  if (!line) throw new Error(`no result in:\n${output.slice(-2000)}`);
  return JSON.parse(line.slice("@@WORKER ".length));
}

function runProcess(runtime, quick, runs, cases) {
  const entry = join(OUT, `run_${runtime}.mjs`);
  const args = {
    quick,
    runs,
    cases,
    workerUrl: pathToFileURL(join(OUT, "bench_worker.mjs")).href,
  };
  writeFileSync(
    entry,
    `globalThis.__workerBenchArgs = ${JSON.stringify(args)};\n` +
      `await import("./bench_main.mjs");\n`,
  );
  const command = runtime === "node"
    ? [BIN.node, [entry]]
    : runtime === "deno"
    ? [BIN.deno, ["run", "-A", "--no-check", entry]]
    : [BIN.bun, [entry]];
  return new Promise((resolve, reject) => {
    const child = spawn(command[0], command[1], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const timer = setTimeout(() => child.kill(), RUNTIME_TIMEOUT_MS);
    child.on("close", (code) => {
      clearTimeout(timer);
      try {
        resolve(parse(output));
      } catch (error) {
        reject(new Error(`${runtime} exited ${code}: ${error.message}`));
      }
    });
  });
}

async function runChromium(quick, runs, cases) {
  const executablePath = locateChromium().path;
  if (!executablePath) return undefined;
  const server = createServer((req, res) => {
    const path = join(OUT, new URL(req.url, "http://x").pathname);
    try {
      const body = req.url === "/"
        ? "<!doctype html><title>worker bench</title>"
        : readFileSync(path);
      res.writeHead(200, {
        "content-type": extname(path) === ".mjs"
          ? "text/javascript"
          : "text/html",
      });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({ executablePath, args: LAUNCH_ARGS });
  try {
    const page = await browser.newPage();
    // A throw in the page (or its worker) ends the run at once, rather
    // than at the timeout.
    let failed;
    const failure = new Promise((_, reject) => (failed = reject));
    failure.catch(() => {}); // raced below
    page.on("pageerror", (error) => failed(error));
    page.on("console", (message) => {
      const text = message.text();
      // Not the favicon's 404.
      if (message.type() === "error" && !text.startsWith("Failed to load")) {
        failed(new Error(text));
      }
    });
    const done = new Promise((resolve) =>
      page.exposeFunction("__workerBenchDone", resolve)
    );
    await page.goto(`${base}/`);
    await page.addScriptTag({
      type: "module",
      content: `globalThis.__workerBenchArgs = ${
        JSON.stringify({
          quick,
          runs,
          cases,
          workerUrl: `${base}/bench_worker.mjs`,
        })
      };\nawait import("${base}/bench_main.mjs");`,
    });
    let timer;
    const line = await Promise.race([
      done,
      failure,
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error("Chromium timed out")),
          RUNTIME_TIMEOUT_MS,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    return parse(line);
  } finally {
    await browser.close();
    server.close();
  }
}

const fmt = (n) =>
  n === undefined ? "–" : Math.round(n).toLocaleString("en-US");

/**
 * The median of the runs' ratios of case `a` to case `b`: each run measures
 * both, one soon after the other, so a ratio is taken side by side and the
 * drift of a shared machine between runs cancels out (a ratio of the two
 * medians would compare figures from different runs).
 */
function ratio(r, a, b) {
  const sa = r.samples?.[a];
  const sb = r.samples?.[b];
  if (r.results[a] === undefined || r.results[b] === undefined) return "–";
  const ratios = sa && sb && sa.length === sb.length
    ? sa.map((x, i) => x / sb[i]).sort((x, y) => x - y)
    : [r.results[a] / r.results[b]];
  return `${ratios[Math.floor(ratios.length / 2)].toFixed(2)}×`;
}

/**
 * The Markdown table of `results` (as in bench/results/worker.json): the
 * medians, and the targets' ratios as medians of the runs' own ratios.
 */
export function workerTable(results) {
  const rows = [
    "| runtime | stream: understudy tell/s | stream: raw postMessage/s | ratio (target ≥ 3×) | hand-batched, 256 a post/s | understudy / 256 (target ≥ 0.7×) | hand-batched, 2,043 a post/s | understudy / 2,043 | hand-batched, each kept until counted/s | understudy / kept | ping-pong: understudy ask/s | Comlink call/s | raw round trip/s | ratio vs Comlink (target ≥ 1×) |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const [runtime, r] of Object.entries(results)) {
    if (r.error) {
      rows.push(`| ${runtime} | ${r.error} | | | | | | | | | | | | |`);
      continue;
    }
    const x = r.results;
    rows.push(
      `| ${runtime} | ${fmt(x.actorStream)} | ${fmt(x.rawStream)} | ${
        ratio(r, "actorStream", "rawStream")
      } | ${fmt(x.rawBatched256Stream)} | ${
        ratio(r, "actorStream", "rawBatched256Stream")
      } | ${fmt(x.rawBatchedStream)} | ${
        ratio(r, "actorStream", "rawBatchedStream")
      } | ${fmt(x.rawBatchedKeptStream)} | ${
        ratio(r, "actorStream", "rawBatchedKeptStream")
      } | ${fmt(x.actorPingPong)} | ${fmt(x.comlinkPingPong)} | ${
        fmt(x.rawPingPong)
      } | ${ratio(r, "actorPingPong", "comlinkPingPong")} |`,
    );
  }
  return rows.join("\n");
}

const RUNTIMES = ["node", "deno", "bun", "chromium"];

/**
 * Runs the bench in every runtime found (or in `runtimes`); returns the
 * Markdown table and the raw results (also written to
 * bench/results/worker.json, or to `out`).
 */
export async function runWorkerBench(
  { quick = false, runtimes = RUNTIMES, runs = 5, out, cases } = {},
) {
  await build();
  const results = {};
  for (const runtime of runtimes.filter((r) => r !== "chromium")) {
    try {
      results[runtime] = await runProcess(runtime, quick, runs, cases);
    } catch (error) {
      results[runtime] = { error: String(error.message).split("\n")[0] };
    }
  }
  if (runtimes.includes("chromium")) {
    try {
      const chromium = await runChromium(quick, runs, cases);
      results.chromium = chromium ?? { error: "no Chromium found" };
    } catch (error) {
      results.chromium = { error: String(error.message).split("\n")[0] };
    }
  }
  const markdown = workerTable(results);
  const file = out ?? join(ROOT, "bench", "results", "worker.json");
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(
    file,
    JSON.stringify(
      { quick, date: new Date().toISOString(), results },
      null,
      2,
    ) + "\n",
  );
  return { markdown, results };
}

/** The value of `--name=value` among the command's arguments. */
function option(name) {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

if (
  process.argv[1] !== undefined &&
  import.meta.url === pathToFileURL(process.argv[1]).href
) {
  const runtimes = option("runtimes")?.split(",") ?? RUNTIMES;
  for (const runtime of runtimes) {
    if (!RUNTIMES.includes(runtime)) {
      throw new RangeError(
        `--runtimes: expected some of ${RUNTIMES.join(",")} (got "${runtime}")`,
      );
    }
  }
  const runs = Number(option("runs") ?? 5);
  if (!Number.isInteger(runs) || runs < 1) {
    throw new RangeError(`--runs: expected a whole number ≥ 1 (got ${runs})`);
  }
  const out = option("out");
  const { markdown } = await runWorkerBench({
    quick: process.argv.includes("--quick"),
    runtimes,
    runs,
    cases: option("cases")?.split(","),
    out: out === undefined ? undefined : resolve(out),
  });
  console.log(markdown);
}
