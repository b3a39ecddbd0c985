// Copyright 2026 the understudy authors. MIT license.

/**
 * Checks the bench's Node ping-pong figures against an independent,
 * unbundled run of the same workload (bench/reference/pingpong.mjs), in the
 * same run: for each of xstate's `fromTransition` actors, the bare
 * `queueMicrotask` chain and understudy, the bench's job (its esbuild bundle,
 * through bench/lib/harness.ts, as `npm run bench` runs it) and the reference
 * alternate, process after process, so both see the same machine. Prints
 * each side's median msg/s (min–max) and the ratios that BENCHMARKS.md and
 * docs/benchmarks.md state.
 *
 *   node bench/reference/check.mjs [--rounds=N] [--runs=N] [--repeat=N]
 *
 * Defaults: 1,000,000 rounds (the bench's size), 5 runs per process, 2
 * processes per side and implementation. Exits 1 if a process fails, never
 * because of a figure.
 */

import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { buildNodeBundles } from "../build.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const benchDir = join(here, "..");
const root = join(benchDir, "..");
const outDir = join(root, ".build", "reference");

const options = { rounds: 1_000_000, runs: 5, repeat: 2 };
for (const arg of process.argv.slice(2)) {
  const [key, value] = arg.replace(/^--/, "").split("=");
  if (!(key in options) || !(Number(value) > 0)) {
    console.error(`unknown or bad option ${arg}`);
    process.exit(2);
  }
  options[key] = Number(value);
}

// understudy built once, as a user's bundler would: mod.ts to one ES module.
mkdirSync(outDir, { recursive: true });
const understudyBundle = join(outDir, "understudy.mjs");
await build({
  entryPoints: [join(root, "mod.ts")],
  outfile: understudyBundle,
  bundle: true,
  format: "esm",
  platform: "neutral",
  logLevel: "silent",
});
const { bundles, errors } = await buildNodeBundles(
  benchDir,
  join(outDir, "bench"),
);
for (const impl of ["understudy", "baseline", "xstate"]) {
  if (bundles[impl] === undefined) {
    console.error(`bench bundle ${impl} failed: ${errors[impl]}`);
    process.exit(1);
  }
}

/** What each side runs for each implementation. */
const subjects = [
  {
    label: "xstate 5 (fromTransition)",
    reference: ["xstate"],
    bench: [bundles.xstate, "pingpong", String(options.rounds)],
  },
  {
    label: "queueMicrotask chain",
    reference: ["microtask"],
    // The bench's chain counts callbacks: 2 per round, as the reference's.
    bench: [bundles.baseline, "pingpong-microtask", String(2 * options.rounds)],
  },
  {
    label: "understudy",
    reference: ["understudy"],
    bench: [bundles.understudy, "pingpong", String(options.rounds)],
  },
];

function runNode(args) {
  const out = spawnSync(process.execPath, args, {
    cwd: root,
    encoding: "utf8",
    timeout: 600_000,
  });
  if (out.status !== 0) {
    console.error(`node ${args.join(" ")} failed:\n${out.stderr}`);
    process.exit(1);
  }
  return out.stdout;
}

function referenceRates(subject) {
  const line = runNode([
    join(here, "pingpong.mjs"),
    ...subject.reference,
    String(options.rounds),
    String(options.runs),
    understudyBundle,
  ]).trim().split("\n").pop();
  return JSON.parse(line).rates;
}

function benchRates(subject) {
  const [bundle, workload, n] = subject.bench;
  const stdout = runNode([
    "--expose-gc",
    bundle,
    workload,
    n,
    "1",
    String(options.runs),
  ]);
  const line = stdout.split("\n").find((l) => l.startsWith("@@BENCH "));
  const result = JSON.parse(line.slice("@@BENCH ".length));
  return result.samples.map((s) => s.ops / (s.ms / 1000));
}

const rates = subjects.map(() => ({ reference: [], bench: [] }));
for (let round = 0; round < options.repeat; round++) {
  for (const [i, subject] of subjects.entries()) {
    // Alternate which side goes first, so a drift of the machine favours neither.
    const sides = round % 2 === 0
      ? ["reference", "bench"]
      : ["bench", "reference"];
    for (const side of sides) {
      const got = side === "reference"
        ? referenceRates(subject)
        : benchRates(subject);
      rates[i][side].push(...got);
      console.error(
        `${subject.label}, ${side}: ${got.map(format).join(" ")} msg/s`,
      );
    }
  }
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? sorted[mid]
    : (sorted[mid - 1] + sorted[mid]) / 2;
}

function format(x) {
  if (x >= 1e6) return `${(x / 1e6).toFixed(2)} M`;
  return `${(x / 1e3).toFixed(0)} k`;
}

function spread(values) {
  return `${format(median(values))} (${format(Math.min(...values))}–${
    format(Math.max(...values))
  })`;
}

console.log(
  `\nNode ${process.version}, ping-pong of ${options.rounds} rounds, ${options.repeat} processes × ${options.runs} runs per side\n`,
);
console.log(
  "| implementation | bench (its bundle and harness) | reference (unbundled) | bench / reference |",
);
console.log("| --- | --: | --: | --: |");
for (const [i, subject] of subjects.entries()) {
  const { bench, reference } = rates[i];
  console.log(
    `| ${subject.label} | ${spread(bench)} | ${spread(reference)} | ${
      (median(bench) / median(reference)).toFixed(2)
    } |`,
  );
}
const ratio = (side, a, b) =>
  (median(rates[a][side]) / median(rates[b][side])).toFixed(2);
console.log(
  `\nunderstudy / xstate: bench ${ratio("bench", 2, 0)}×, reference ${
    ratio("reference", 2, 0)
  }×`,
);
console.log(
  `understudy / queueMicrotask chain: bench ${
    ratio("bench", 2, 1)
  }×, reference ${ratio("reference", 2, 1)}×`,
);
