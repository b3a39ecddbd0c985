// Copyright 2026 the understudy authors. MIT license.

/**
 * `node bench/kernel_targets.mjs [--base=COMMIT] [--rounds=N] [--runtimes=node,deno,bun] [--quick]`
 *
 * Issue 25's speed targets as ratios measured side by side in one process
 * (bench/lib/kernel_targets_workloads.ts): ping-pong against a
 * queueMicrotask chain (target >= 1), a 1 → 1,000 → 1 fan-out against a
 * 15-line mailbox actor (>= 1.5), a direct tell's speed over one through a
 * BackoffSupervisor (the supervised one's cost: <= 1.2), the per-message
 * speed at 1 pair over 10,000 concurrent pairs (<= 1.25), and, as a
 * reference and not a target, that last ratio for the 15-line actor (a wide
 * working set slows any actor). With --base, the same
 * workloads bundled against another commit run in alternation. Each round
 * is a fresh process per tree and runtime; prints the median and the
 * spread (min–max) of each ratio. Never asserts on speed.
 */

import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, ".build", "kernel_targets");
const bin = (name) => join(root, "node_modules", ".bin", name);
const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, "").split(/=(.*)/s);
    return [k, v ?? true];
  }),
);
const quick = args.quick === true;
const rounds = Number(args.rounds ?? (quick ? 1 : 5));
const runtimes = String(args.runtimes ?? "node,deno,bun").split(",");

rmSync(out, { recursive: true, force: true });
const trees = [["current", root]];
if (args.base !== undefined) {
  mkdirSync(join(out, "base"), { recursive: true });
  const archive = execFileSync("git", ["archive", args.base, "mod.ts", "src"], {
    cwd: root,
    maxBuffer: 1 << 28,
  });
  execFileSync("tar", ["-x", "-C", join(out, "base")], { input: archive });
  trees.push([`base ${args.base}`, join(out, "base")]);
}

const bundles = [];
for (const [name, tree] of trees) {
  const file = join(out, `${name.replace(/\W+/g, "_")}.mjs`);
  await build({
    entryPoints: [join(root, "bench", "lib", "kernel_targets_workloads.ts")],
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    outfile: file,
    alias: { LIBRARY: join(tree, "mod.ts") },
    banner: { js: quick ? "globalThis.TARGETS_QUICK = true;" : "" },
    logLevel: "warning",
  });
  bundles.push([name, file]);
}

function run(runtime, file) {
  const cmd = runtime === "node"
    ? [process.execPath, ["--expose-gc", file]]
    : runtime === "deno"
    ? [bin("deno"), ["run", "--quiet", "--allow-all", "--no-config", file]]
    : [bin("bun"), ["run", file]];
  const r = spawnSync(cmd[0], cmd[1], { encoding: "utf8", timeout: 600_000 });
  const line = (r.stdout ?? "").split("\n").find((l) =>
    l.startsWith("@@TARGETS ")
  );
  if (!line) throw new Error(`${runtime}: no result\n${r.stderr}`);
  return JSON.parse(line.slice("@@TARGETS ".length));
}

const results = {}; // runtime → tree → target → [ratios]
for (let round = 0; round < rounds; round++) {
  for (const runtime of runtimes) {
    const order = round % 2 === 0 ? bundles : [...bundles].reverse();
    for (const [name, file] of order) {
      const figures = run(runtime, file);
      for (const [target, value] of Object.entries(figures)) {
        ((results[runtime] ??= {})[name] ??= {})[target] ??= [];
        results[runtime][name][target].push(value);
      }
    }
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const fmt = (x) => `${x.toFixed(2)}×`;
console.log(
  `Issue 25's targets, ratios in one process, ${rounds} round(s), median (min–max)\n`,
);
console.log(
  `| runtime | tree | ${
    Object.keys(Object.values(Object.values(results)[0])[0]).join(" | ")
  } |`,
);
console.log(
  `|---|---|${
    Object.keys(Object.values(Object.values(results)[0])[0]).map(() => "---:")
      .join("|")
  }|`,
);
for (const [runtime, byTree] of Object.entries(results)) {
  for (const [tree, byTarget] of Object.entries(byTree)) {
    const cells = Object.values(byTarget).map((xs) =>
      `${fmt(median(xs))} (${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))})`
    );
    console.log(`| ${runtime} | ${tree} | ${cells.join(" | ")} |`);
  }
}
