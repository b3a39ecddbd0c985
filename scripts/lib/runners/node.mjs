// Node 20: esbuild bundles each test file (TypeScript, relative .ts imports)
// into .build/node/ with packages left external, then `node --test` runs the
// bundles. The spec reporter's output is shown and its closing summary
// ("ℹ pass N", ...) counted; node_file_reporter.mjs adds per-file counts.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import * as esbuild from "esbuild";
import { BIN, ROOT, run, RUN_DIR } from "../util.mjs";

const OUT = join(RUN_DIR, "node");
const REPORTER = pathToFileURL(
  join(ROOT, "scripts", "lib", "node_file_reporter.mjs"),
).href;

/** Bundles the test files; returns `{ bundles, errors }`. */
export async function bundleForNode(files) {
  rmSync(OUT, { recursive: true, force: true });
  const bundles = [];
  const errors = [];
  await Promise.all(files.map(async (f) => {
    const outfile = join(OUT, f.rel.replace(/\.ts$/, ".mjs"));
    try {
      await esbuild.build({
        absWorkingDir: ROOT,
        entryPoints: [f.path],
        outfile,
        bundle: true,
        platform: "node",
        format: "esm",
        packages: "external",
        target: "node20",
        sourcemap: "inline",
        logLevel: "silent",
      });
      bundles.push({ file: f, outfile });
    } catch (error) {
      const msgs = error.errors?.length
        ? esbuild.formatMessagesSync(error.errors, {
          kind: "error",
          color: false,
        })
          .join("\n")
        : String(error);
      errors.push({ file: f, message: msgs });
    }
  }));
  bundles.sort((a, b) => a.file.rel.localeCompare(b.file.rel));
  return { bundles, errors };
}

/**
 * Reads node --test's closing summary: "# pass N" (TAP) or "ℹ pass N"
 * (spec), last occurrence of each.
 */
export function countNodeSummary(text) {
  const last = (word) => {
    const all = [
      ...text.matchAll(new RegExp(`^(?:#|ℹ) ${word} (\\d+)\\s*$`, "gm")),
    ];
    return all.length ? Number(all[all.length - 1][1]) : 0;
  };
  return {
    passed: last("pass"),
    failed: last("fail") + last("cancelled"),
    skipped: last("skipped") + last("todo"),
  };
}

function failureText(output) {
  const i = output.indexOf("✖ failing tests:");
  const relevant = i >= 0 ? output.slice(i) : output;
  return relevant.split("\n").filter((l) => !/^\s*✔ /.test(l)).join("\n");
}

export async function runNode(files, { echo }) {
  const { bundles, errors } = await bundleForNode(files);
  const bundleErrors = errors.map((e) =>
    `esbuild failed for ${e.file.rel}:\n${e.message}`
  ).join("\n");
  if (bundles.length === 0) {
    return {
      passed: 0,
      failed: errors.length,
      skipped: 0,
      code: 1,
      output: bundleErrors,
      failureText: bundleErrors,
      durationMs: 0,
      command: "esbuild",
    };
  }
  const filesReport = join(OUT, "files.json");
  const args = [
    "--enable-source-maps",
    "--test",
    "--test-reporter=spec",
    "--test-reporter-destination=stdout",
    `--test-reporter=${REPORTER}`,
    `--test-reporter-destination=${filesReport}`,
    ...bundles.map((b) => b.outfile),
  ];
  const res = await run(BIN.node, args, { timeoutMs: 10 * 60_000, echo });
  const counts = countNodeSummary(res.output);
  counts.failed += errors.length;
  // Files that reported no leaf test: nothing registered, or the child's
  // reporter stalled (e.g. a test faked process.nextTick) and it exited 0
  // having said nothing, which the parent counts as one passing test.
  let perFile = {};
  try {
    perFile = JSON.parse(readFileSync(filesReport, "utf8"));
  } catch {
    // no report: the exit code tells
  }
  // With --enable-source-maps, events name the .ts source; the file-level
  // pseudo test names the bundle.
  const leaves = (b) =>
    (perFile[b.file.path]?.leaves ?? 0) + (perFile[b.outfile]?.leaves ?? 0);
  const silent = bundles.filter((b) => leaves(b) === 0);
  for (const b of silent) {
    const fileLevel = perFile[b.outfile]?.fileLevel;
    if (fileLevel === "fail") continue; // already counted as a failure
    counts.failed++;
    if (fileLevel === "pass") counts.passed = Math.max(0, counts.passed - 1);
  }
  const notes = silent.map((b) =>
    `${b.file.rel}: reported no tests under Node (nothing registered, or ` +
    `the test process stopped reporting, e.g. because fake timers faked ` +
    `process.nextTick; install them with toNotFake: ["nextTick", "queueMicrotask"])`
  );
  const output = [bundleErrors, res.output].filter(Boolean).join("\n");
  return {
    ...counts,
    notes: notes.join("\n"),
    code: (errors.length > 0 || silent.length > 0) && res.code === 0
      ? 1
      : res.code,
    output,
    failureText: [bundleErrors, failureText(res.output)].filter(Boolean).join(
      "\n",
    ),
    durationMs: res.durationMs,
    command: `node ${
      args.slice(0, -bundles.length).join(" ")
    } <${bundles.length} bundles>`,
  };
}
