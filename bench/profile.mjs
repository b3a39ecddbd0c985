// Copyright 2026 the understudy authors. MIT license.

/**
 * Profiles one workload of one implementation and prints where the time (or
 * the allocation) goes, by function and source line, largest first.
 *
 *   npm run bench:profile -- <impl> <workload> <n> [--runtime=node|deno|bun] [--heap] [--top=N]
 *   npm run bench:profile -- understudy pingpong 1000000
 *   npm run bench:profile -- understudy spawn 100000 --heap
 *
 * CPU: `--cpu-prof` (Node, Deno and Bun all have it), summed self time per
 * function. Heap (`--heap`, Node only): V8's sampling heap profiler, started
 * through node:inspector by a preloaded module, counting every sampled
 * allocation, including objects already collected, so it shows what each
 * function allocates over the whole process (the GC pressure), not only
 * what is live at exit. Node runs an esbuild bundle with a source map, so
 * lines are mapped back to the TypeScript sources.
 * Profiles are kept in .build/bench/profiles/ (open them in Chrome DevTools).
 */

import { spawnSync } from "node:child_process";
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const benchDir = dirname(fileURLToPath(import.meta.url));
const root = join(benchDir, "..");
const outDir = join(root, ".build", "bench", "profiles");

function parseArgs(argv) {
  const positional = argv.filter((a) => !a.startsWith("--"));
  const flag = (name) =>
    argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
  const [impl, fn, n] = positional;
  if (!impl || !fn || !n) {
    console.error(
      "usage: node bench/profile.mjs <impl> <workload> <n> [--runtime=node|deno|bun] [--heap] [--top=N]",
    );
    process.exit(2);
  }
  return {
    impl,
    fn,
    n,
    runtime: flag("runtime") ?? "node",
    heap: argv.includes("--heap"),
    top: Number(flag("top") ?? 20),
  };
}

// ───────────── source maps (just enough: generated line/column → source line) ─────────────

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

function decodeVlq(segment) {
  const values = [];
  let value = 0;
  let shift = 0;
  for (const char of segment) {
    const digit = B64.indexOf(char);
    value += (digit & 31) << shift;
    if (digit & 32) {
      shift += 5;
    } else {
      values.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return values;
}

/** For each generated line, its segments `[column, source, line]`, sorted by column. */
function parseSourceMap(map) {
  const lines = [];
  let source = 0;
  let line = 0;
  let column = 0;
  for (const text of map.mappings.split(";")) {
    const segments = [];
    let generated = 0;
    for (const segment of text.split(",")) {
      if (segment === "") continue;
      const v = decodeVlq(segment);
      generated += v[0];
      if (v.length >= 4) {
        source += v[1];
        line += v[2];
        column += v[3];
        segments.push([generated, source, line]);
      }
    }
    lines.push(segments);
  }
  return (genLine, genColumn) => {
    const segments = lines[genLine] ?? [];
    let found = segments[0];
    for (const s of segments) {
      if (s[0] <= genColumn) found = s;
      else break;
    }
    return found === undefined
      ? undefined
      : { file: map.sources[found[1]], line: found[2] + 1 };
  };
}

/** A module preloaded with --import: samples every allocation and writes the profile at exit. */
function heapSamplingPreload(file) {
  return `import { Session } from "node:inspector";
import { writeFileSync } from "node:fs";
const session = new Session();
session.connect();
session.post("HeapProfiler.startSampling", {
  samplingInterval: 4096,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
process.on("exit", () => {
  session.post("HeapProfiler.stopSampling", (error, result) => {
    if (!error) writeFileSync(${
    JSON.stringify(file)
  }, JSON.stringify(result.profile));
  });
});
`;
}

// ───────────── profiles ─────────────

function newest(dir, suffix) {
  const files = readdirSync(dir).filter((f) => f.endsWith(suffix));
  if (files.length === 0) throw new Error(`no ${suffix} written to ${dir}`);
  return join(dir, files.sort().at(-1));
}

function where(callFrame, mapper, bundlePath) {
  const url = callFrame.url ?? "";
  if (mapper !== undefined && url.endsWith(bundlePath.split("/").at(-1))) {
    const original = mapper(callFrame.lineNumber, callFrame.columnNumber);
    if (original !== undefined) {
      return `${
        original.file.replace(/^(\.\.\/)+/, "").replace(/^.*node_modules\//, "")
      }:${original.line}`;
    }
  }
  if (url === "") return "";
  const file = url.replace(/^file:\/\//, "");
  return `${
    file.startsWith(root)
      ? relative(root, file)
      : file.replace(/^.*node_modules\//, "")
  }:${callFrame.lineNumber + 1}`;
}

function report(rows, total, unit, top) {
  const sorted = [...rows].sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [key, value] of sorted) {
    const amount = unit === "ms"
      ? `${value.toFixed(1)} ms`
      : `${(value / 1024).toFixed(0)} KiB`;
    console.log(
      `${(100 * value / total).toFixed(1).padStart(5)}%  ${
        amount.padStart(11)
      }  ${key}`,
    );
  }
}

function cpuReport(file, mapper, bundlePath, top) {
  const profile = JSON.parse(readFileSync(file, "utf8"));
  const selfTime = new Map();
  profile.samples.forEach((id, i) => {
    selfTime.set(
      id,
      (selfTime.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000,
    );
  });
  const byFunction = new Map();
  let total = 0;
  for (const node of profile.nodes) {
    const t = selfTime.get(node.id) ?? 0;
    if (t === 0) continue;
    total += t;
    const name = node.callFrame.functionName || "(anonymous)";
    const key = `${name}  ${where(node.callFrame, mapper, bundlePath)}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + t);
  }
  console.log(
    `CPU profile ${relative(root, file)}: ${
      total.toFixed(0)
    } ms sampled; self time by function:`,
  );
  report(byFunction, total, "ms", top);
}

function heapReport(file, mapper, bundlePath, top) {
  const profile = JSON.parse(readFileSync(file, "utf8"));
  const bySite = new Map();
  let total = 0;
  const visit = (node) => {
    if (node.selfSize > 0) {
      const name = node.callFrame.functionName || "(anonymous)";
      const key = `${name}  ${where(node.callFrame, mapper, bundlePath)}`;
      bySite.set(key, (bySite.get(key) ?? 0) + node.selfSize);
      total += node.selfSize;
    }
    for (const child of node.children ?? []) visit(child);
  };
  visit(profile.head);
  console.log(
    `Heap profile ${relative(root, file)}: ${
      (total / 2 ** 20).toFixed(1)
    } MiB allocated (sampled, freed or not); by allocating function:`,
  );
  report(bySite, total, "bytes", top);
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const dir = join(
    outDir,
    `${options.impl}-${options.fn}-${options.runtime}${
      options.heap ? "-heap" : ""
    }`,
  );
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const args = [options.fn, options.n, "1", "3"];
  const source = join(benchDir, "impl", `${options.impl}.ts`);
  const env = { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" };
  let mapper;
  let bundlePath = "";
  let command;
  if (options.runtime === "node") {
    bundlePath = join(dir, `${options.impl}.mjs`);
    await build({
      entryPoints: [source],
      outfile: bundlePath,
      bundle: true,
      format: "esm",
      platform: "node",
      target: "node20",
      sourcemap: "external",
      logLevel: "silent",
      banner: {
        js:
          'import { createRequire as __benchCreateRequire } from "node:module";\n' +
          "const require = __benchCreateRequire(import.meta.url);",
      },
      define: { "process.env.NODE_ENV": '"production"' },
    });
    mapper = parseSourceMap(
      JSON.parse(readFileSync(`${bundlePath}.map`, "utf8")),
    );
    const preload = join(dir, "heap-sampling.mjs");
    writeFileSync(
      preload,
      heapSamplingPreload(join(dir, "allocations.heapprofile")),
    );
    const profileFlags = options.heap
      ? [`--import=${preload}`]
      : ["--cpu-prof", `--cpu-prof-dir=${dir}`, "--cpu-prof-interval=200"];
    command = [process.execPath, [
      ...profileFlags,
      "--expose-gc",
      bundlePath,
      ...args,
    ]];
  } else if (options.runtime === "deno") {
    command = [join(root, "node_modules/.bin/deno"), [
      "run",
      "-A",
      `--cpu-prof-dir=${dir}`,
      "--cpu-prof-interval=200",
      "--v8-flags=--expose-gc",
      source,
      ...args,
    ]];
  } else if (options.runtime === "bun") {
    command = [join(root, "node_modules/.bin/bun"), [
      "--cpu-prof",
      `--cpu-prof-dir=${dir}`,
      "--cpu-prof-interval=200",
      source,
      ...args,
    ]];
  } else {
    throw new Error(`unknown runtime ${options.runtime}`);
  }
  if (options.heap && options.runtime !== "node") {
    throw new Error("--heap is for --runtime=node");
  }
  const result = spawnSync(command[0], command[1], {
    cwd: root,
    env,
    encoding: "utf8",
  });
  process.stderr.write(result.stderr);
  console.log(result.stdout.trim());
  if (options.heap) {
    heapReport(newest(dir, ".heapprofile"), mapper, bundlePath, options.top);
  } else cpuReport(newest(dir, ".cpuprofile"), mapper, bundlePath, options.top);
}

await main();
