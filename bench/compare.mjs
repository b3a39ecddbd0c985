// Copyright 2026 the understudy authors. MIT license.

/**
 * `node bench/compare.mjs [--base=COMMIT] [--rounds=N] [--runtimes=node,deno,bun] [--quick]`
 *
 * Measures this checkout against another commit side by side, in one run:
 * ping-pong, fan-in and fan-out throughput, the time to spawn 100 k and
 * 400 k actors (collections included; their ratio is the spawn growth), and
 * heap per idle actor. The same workloads (bench/lib/compare_workloads.ts,
 * public API only) are bundled once per source tree; each round runs both
 * trees in fresh processes, alternating which goes first, on every runtime.
 * Prints medians and the ratio current/base; writes the figures to
 * .build/compare/latest.json. Never asserts on speed.
 */

import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, ".build", "compare");
const bin = (name) => join(root, "node_modules", ".bin", name);

const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, "").split(/=(.*)/s);
    return [k, v ?? true];
  }),
);
const base = args.base ?? "6b58159";
const quick = args.quick === true;
const rounds = Number(args.rounds ?? (quick ? 1 : 5));
const runtimes = String(args.runtimes ?? "node,deno,bun").split(",");

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, "base"), { recursive: true });
// The base tree: its mod.ts and src/, as committed.
const archive = execFileSync("git", ["archive", base, "mod.ts", "src"], {
  cwd: root,
  maxBuffer: 1 << 28,
});
execFileSync("tar", ["-x", "-C", join(out, "base")], { input: archive });

async function bundle(tree, name, group) {
  const file = join(out, `${name}-${group}.mjs`);
  await build({
    entryPoints: [join(root, "bench", "lib", "compare_workloads.ts")],
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    outfile: file,
    alias: { LIBRARY: join(tree, "mod.ts") },
    banner: {
      js: `globalThis.COMPARE_GROUP = ${JSON.stringify(group)};${
        quick ? " globalThis.COMPARE_QUICK = true;" : ""
      }`,
    },
    logLevel: "error",
  });
  return file;
}

// Each tree's workloads run in two fresh processes: message workloads, then
// spawning (see bench/lib/compare_workloads.ts for why).
const GROUPS = ["messages", "spawn"];
const files = { base: {}, current: {} };
for (const group of GROUPS) {
  files.base[group] = await bundle(join(out, "base"), "base", group);
  files.current[group] = await bundle(root, "current", group);
}

function runOnce(runtime, file) {
  const command = {
    node: [process.execPath, ["--expose-gc", file]],
    deno: [bin("deno"), ["run", "-A", "--v8-flags=--expose-gc", file]],
    bun: [bin("bun"), [file]],
  }[runtime];
  const result = spawnSync(command[0], command[1], {
    encoding: "utf8",
    timeout: 300_000,
    env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
  });
  const line = result.stdout?.split("\n").find((l) =>
    l.startsWith("@@COMPARE ")
  );
  if (line === undefined) {
    throw new Error(
      `${runtime} ${file} failed: ${result.stderr || result.error}`,
    );
  }
  return JSON.parse(line.slice("@@COMPARE ".length));
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2
    ? s[s.length >> 1]
    : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const report = { base, rounds, runtimes: {} };
const lines = [
  `Side by side with ${base}, ${rounds} round(s), medians; ratio = current / base`,
  "(throughput: higher is better; time and heap: lower is better).",
  "",
  "| runtime | workload | base | current | ratio |",
  "|---|---|---:|---:|---:|",
];
for (const runtime of runtimes) {
  const samples = { base: [], current: [] };
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? ["base", "current"] : ["current", "base"];
    for (const tree of order) {
      samples[tree].push(
        Object.assign(
          {},
          ...GROUPS.map((group) => runOnce(runtime, files[tree][group])),
        ),
      );
    }
  }
  const figures = {};
  for (const metric of Object.keys(samples.base[0])) {
    const b = median(samples.base.map((s) => s[metric]));
    const c = median(samples.current.map((s) => s[metric]));
    figures[metric] = { base: b, current: c, ratio: c / b };
    lines.push(
      `| ${runtime} | ${metric} | ${fmt(b)} | ${fmt(c)} | ${
        (c / b).toFixed(2)
      } |`,
    );
  }
  const growth = (tree) =>
    median(
      samples[tree].map((s) => s["spawn 400k (ms)"] / s["spawn 100k (ms)"]),
    );
  figures["spawn growth 100k→400k"] = {
    base: growth("base"),
    current: growth("current"),
  };
  lines.push(
    `| ${runtime} | spawn growth 100k→400k (target ≤ 4.4×) | ${
      growth("base").toFixed(2)
    }× | ${growth("current").toFixed(2)}× | |`,
  );
  report.runtimes[runtime] = figures;
}
writeFileSync(join(out, "latest.json"), JSON.stringify(report, null, 2));
console.log(lines.join("\n"));

function fmt(x) {
  return x >= 1e6
    ? `${(x / 1e6).toFixed(2)} M`
    : x >= 1e3
    ? `${(x / 1e3).toFixed(1)} k`
    : x.toFixed(1);
}
