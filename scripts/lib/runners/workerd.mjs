// Cloudflare's workerd: each test file is bundled like the browser run's
// (node:test, node:assert/strict and util aliased to tests/_shims/) and runs
// in a fresh workerd process, as the only module of a worker whose fetch
// handler runs the tests and answers with the report (JSON).
//
// workerd forbids timers, random values and I/O in a worker's global scope,
// and evaluates every module (dynamic imports included) there. So the bundle
// is not a module of its own: its code is wrapped in an async function that
// the first request calls, and the file's top level (registering tests,
// loading fake-timers, ...) runs inside that request like everything else.
// The plain Workers platform (no nodejs_compat) with its global MessageChannel
// turned off, as in every worker dated before 2025-08-15, so the dispatcher's
// fallback path is what runs here (the handler refuses to run otherwise). Locally workerd
// enforces no CPU limit, and a request may last as long as its client waits
// (FILE_TIMEOUT_MS).
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pool, RUN_DIR } from "../util.mjs";
import { bundleForWeb, formatBuildError, SHIM } from "../web_bundle.mjs";
import {
  capnpConfig,
  COMPATIBILITY_DATE,
  startWorkerd,
  TEST_COMPATIBILITY_FLAGS,
} from "../workerd.mjs";

const OUT = join(RUN_DIR, "workerd");
const FILE_TIMEOUT_MS = 120_000;
const FILES_AT_ONCE = 2;

/**
 * The worker's main module: the bundle's code inside `load()`, and a fetch
 * handler that calls it, then runs what it registered.
 */
export function workerModule(bundleCode) {
  if (/^\s*(?:import|export)\b[\s{*]/m.test(bundleCode)) {
    throw new Error(
      "the bundle has top-level import/export statements; it cannot be wrapped",
    );
  }
  return [
    "async function load() {",
    bundleCode,
    "}",
    "const describe = (error) =>",
    "  error instanceof Error",
    "    ? (error.stack ?? `${error.name}: ${error.message}`)",
    "    : `thrown non-Error value: ${String(error)}`;",
    "let loaded = false;",
    "export default {",
    "  async fetch() {",
    "    if (loaded) return new Response('already ran', { status: 409 });",
    "    loaded = true;",
    "    if (typeof MessageChannel !== 'undefined') {",
    "      return Response.json({ loadError: 'MessageChannel exists in this " +
    "workerd configuration: the workerd run must exercise the dispatcher " +
    "fallback (see TEST_COMPATIBILITY_FLAGS in scripts/lib/workerd.mjs)' });",
    "    }",
    "    try {",
    "      await load();",
    "    } catch (error) {",
    "      return Response.json({ loadError: describe(error) });",
    "    }",
    "    return Response.json(await globalThis.__understudyRunTests());",
    "  },",
    "};",
    "",
  ].join("\n");
}

async function bundleOne(file) {
  const dir = join(OUT, file.rel.replace(/\.ts$/, ""));
  mkdirSync(dir, { recursive: true });
  const entry = [
    `import ${JSON.stringify(file.path)};`,
    `import { runBrowserTests } from ${JSON.stringify(SHIM["node:test"])};`,
    `globalThis.__understudyRunTests = runBrowserTests;`,
  ].join("\n");
  const result = await bundleForWeb({
    entry,
    sourcefile: `workerd-entry:${file.rel}`,
    outfile: join(dir, "bundle.js"),
    file,
  }, {
    runtime: "workerd",
    target: "es2022",
    sourcemap: false,
    write: false,
  });
  writeFileSync(
    join(dir, "worker.js"),
    workerModule(result.outputFiles[0].text),
  );
  const config = join(dir, "config.capnp");
  return config;
}

/** Runs one file's worker; resolves to `{ kind, report?, detail?, output }`. */
async function runOne(configPath) {
  let server;
  try {
    server = await startWorkerd(
      configPath,
      capnpConfig({
        modules: [{ name: "worker.js", path: "worker.js" }],
        compatibilityFlags: TEST_COMPATIBILITY_FLAGS,
      }),
    );
  } catch (error) {
    return { kind: "start-error", detail: error.message, output: "" };
  }
  try {
    const res = await fetch(server.url, {
      signal: AbortSignal.timeout(FILE_TIMEOUT_MS),
    });
    const text = await res.text();
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      return {
        kind: "bad-response",
        detail: `HTTP ${res.status}: ${text.slice(0, 2000)}`,
        output: server.output(),
      };
    }
    if (body.loadError) {
      return {
        kind: "load-error",
        detail: body.loadError,
        output: server.output(),
      };
    }
    return { kind: "done", report: body, output: server.output() };
  } catch (error) {
    const timedOut = error.name === "TimeoutError";
    return {
      kind: timedOut ? "timeout" : "request-error",
      detail: timedOut ? "" : String(error),
      output: server.output(),
    };
  } finally {
    await server.stop();
  }
}

/** Runs the files in workerd; returns the usual runtime result. */
export async function runWorkerd(files, { echo, log }) {
  const started = Date.now();
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const counts = { passed: 0, failed: 0, skipped: 0 };
  const report = [];
  const failures = [];

  const built = await Promise.all(files.map(async (file) => {
    try {
      return { file, config: await bundleOne(file) };
    } catch (error) {
      return { file, error: formatBuildError(error, file, "workerd") };
    }
  }));
  for (const b of built.filter((b) => b.error)) {
    counts.failed++;
    failures.push(`${b.file.rel}: bundling for workerd failed:\n${b.error}`);
  }
  const outcomes = await pool(
    built.filter((b) => !b.error).map(({ file, config }) => async () => {
      const fileStart = Date.now();
      const result = await runOne(config);
      return { file, result, ms: Date.now() - fileStart };
    }),
    FILES_AT_ONCE,
  );
  for (const { file, result, ms } of outcomes) {
    const lines = [];
    let fileFailed = false;
    if (result.kind === "done") {
      for (const r of result.report.results ?? []) {
        if (r.status === "pass") counts.passed++;
        else if (r.status === "skip") counts.skipped++;
        else {
          counts.failed++;
          fileFailed = true;
          lines.push(`✖ ${r.name}\n${r.error ?? ""}`);
        }
        report.push(`${file.rel}: ${r.status} ${r.name}`);
      }
      if ((result.report.results ?? []).length === 0) {
        counts.failed++;
        fileFailed = true;
        lines.push("✖ the file registered no tests");
      }
    } else {
      counts.failed++;
      fileFailed = true;
      const what = {
        "timeout": `did not finish within ${FILE_TIMEOUT_MS / 1000}s`,
        "load-error": "failed to load (its top level threw)",
        "start-error": "could not start workerd",
        "bad-response": "answered without a report",
        "request-error": "lost its request",
      }[result.kind];
      lines.push(
        `✖ ${file.rel} ${what}${result.detail ? `:\n${result.detail}` : ""}`,
      );
    }
    const output = result.output.trim();
    if (fileFailed && output) lines.push(`workerd output:\n${output}`);
    if (lines.length > 0) failures.push(`${file.rel}:\n${lines.join("\n")}`);
    const fileLine = `  ${fileFailed ? "✖" : "✔"} ${file.rel} (${ms}ms)`;
    if (echo || fileFailed) log(fileLine);
    report.push(fileLine);
    if (output && !fileFailed) report.push(output);
  }
  const text = failures.join("\n\n");
  return {
    ...counts,
    code: counts.failed > 0 ? 1 : 0,
    output: `${report.join("\n")}\n${text}`,
    failureText: text,
    durationMs: Date.now() - started,
    command:
      `workerd serve (one process per file, compatibility date ${COMPATIBILITY_DATE}, flags ${
        TEST_COMPATIBILITY_FLAGS.join(" ")
      })`,
  };
}
