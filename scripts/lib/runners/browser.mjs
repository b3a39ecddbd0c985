// Headless Chromium through playwright-core. Each test file is bundled by
// esbuild behind a small entry module (import the test file, then run what
// it registered), with `node:test`, `node:assert/strict` and `util` aliased
// to the shims in tests/_shims/. The bundles are served from 127.0.0.1 on an
// ephemeral port; each file runs in a fresh page and reports through an
// exposed `__understudyDone` binding.
import { createServer } from "node:http";
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, extname, join, normalize } from "node:path";
import { pool, RUN_DIR } from "../util.mjs";
import { bundleForWeb, formatBuildError, SHIM } from "../web_bundle.mjs";
import { findChromium, LAUNCH_ARGS } from "../chromium.mjs";

const OUT = join(RUN_DIR, "browser");
const FILE_TIMEOUT_MS = 120_000;
const PAGES_AT_ONCE = 2;

async function bundleOne(file) {
  const outBase = join(OUT, file.rel.replace(/\.ts$/, ""));
  const entry = [
    `import ${JSON.stringify(file.path)};`,
    `import { runBrowserTests } from ${JSON.stringify(SHIM["node:test"])};`,
    `await runBrowserTests();`,
  ].join("\n");
  await bundleForWeb({
    entry,
    sourcefile: `browser-entry:${file.rel}`,
    outfile: `${outBase}.js`,
    file,
  }, { runtime: "browser", target: "chrome120" });
  // A test may start module workers from `*.worker.ts` files beside it:
  // each is bundled next to the page, as `*.worker.js`.
  for (const name of readdirSync(dirname(file.path))) {
    if (!name.endsWith(".worker.ts")) continue;
    await bundleForWeb({
      entry: `import ${JSON.stringify(join(dirname(file.path), name))};`,
      sourcefile: `browser-worker:${join(dirname(file.rel), name)}`,
      outfile: join(OUT, dirname(file.rel), name.replace(/\.ts$/, ".js")),
      file,
    }, { runtime: "browser", target: "chrome120" });
  }
  const title = file.rel.replace(/&/g, "&amp;").replace(/</g, "&lt;");
  writeFileSync(
    `${outBase}.html`,
    `<!doctype html>\n<meta charset="utf-8">\n<title>${title}</title>\n` +
      `<link rel="icon" href="data:,">\n` +
      `<script type="module" src="./${basename(outBase)}.js"></script>\n`,
  );
  return `${outBase}.html`;
}

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".map": "application/json",
};

function startServer() {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const path = normalize(join(OUT, decodeURIComponent(url.pathname)));
    if (!path.startsWith(OUT + "/")) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = readFileSync(path);
      res.writeHead(200, {
        "content-type": TYPES[extname(path)] ?? "application/octet-stream",
        "cache-control": "no-store",
      });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

async function runPage(context, baseUrl, file) {
  const page = await context.newPage();
  const consoleLines = [];
  const pageErrors = [];
  let started = false;
  let settle;
  const outcome = new Promise((resolve) => (settle = resolve));
  page.on("console", (msg) => {
    const type = msg.type();
    consoleLines.push(`[console.${type}] ${msg.text()}`);
  });
  page.on("pageerror", (err) => {
    pageErrors.push(err.stack || String(err));
    // Before the shim starts, an uncaught error means the file failed to
    // load (module evaluation threw): nothing will report.
    if (!started) settle({ kind: "load-error" });
  });
  page.on("crash", () => settle({ kind: "crash" }));
  await page.exposeFunction("__understudyStarted", () => {
    started = true;
  });
  await page.exposeFunction("__understudyDone", (report) => {
    settle({ kind: "done", report });
  });
  const timer = setTimeout(
    () => settle({ kind: "timeout" }),
    FILE_TIMEOUT_MS,
  );
  const url = `${baseUrl}/${file.rel.replace(/\.ts$/, ".html")}`;
  page.goto(url).catch((err) =>
    settle({ kind: "load-error", detail: String(err) })
  );
  const result = await outcome;
  clearTimeout(timer);
  await page.close().catch(() => {});
  return { result, consoleLines, pageErrors };
}

/** Runs the files in Chromium; returns the usual runtime result. */
export async function runBrowser(files, { echo, log }) {
  const started = Date.now();
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const counts = { passed: 0, failed: 0, skipped: 0 };
  const report = [];
  const failures = [];
  const notes = [];

  const built = await Promise.all(files.map(async (file) => {
    try {
      return { file, html: await bundleOne(file) };
    } catch (error) {
      return { file, error: formatBuildError(error, file, "browser") };
    }
  }));
  for (const b of built.filter((b) => b.error)) {
    counts.failed++;
    failures.push(
      `${b.file.rel}: esbuild failed for the browser bundle:\n${b.error}`,
    );
  }
  const runnable = built.filter((b) => !b.error);

  let browser;
  let server;
  let executablePath = "(not found)";
  try {
    if (runnable.length > 0) {
      const { chromium } = await import("playwright-core");
      server = await startServer();
      const baseUrl = `http://127.0.0.1:${server.address().port}`;
      // The harness has found (or installed) it before any runtime ran.
      executablePath = findChromium();
      browser = await chromium.launch({
        executablePath,
        args: LAUNCH_ARGS,
      });
      const context = await browser.newContext();
      // Two pages at a time: opening a page costs ~200ms, and the tests
      // themselves mostly wait on timers.
      const outcomes = await pool(
        runnable.map(({ file }) => async () => {
          const fileStart = Date.now();
          const page = await runPage(context, baseUrl, file);
          return { file, ...page, ms: Date.now() - fileStart };
        }),
        PAGES_AT_ONCE,
      );
      for (const { file, result, consoleLines, pageErrors, ms } of outcomes) {
        const lines = [];
        let fileFailed = false;
        if (result.kind === "done") {
          for (const r of result.report.results) {
            if (r.status === "pass") counts.passed++;
            else if (r.status === "skip") counts.skipped++;
            else {
              counts.failed++;
              fileFailed = true;
              lines.push(`✖ ${r.name}\n${r.error ?? ""}`);
            }
            report.push(`${file.rel}: ${r.status} ${r.name}`);
          }
          if (result.report.results.length === 0) {
            counts.failed++;
            fileFailed = true;
            lines.push("✖ the file registered no tests");
          }
        } else {
          counts.failed++;
          fileFailed = true;
          const what = result.kind === "timeout"
            ? `did not finish within ${FILE_TIMEOUT_MS / 1000}s`
            : result.kind === "crash"
            ? "crashed the page"
            : "failed to load";
          lines.push(
            `✖ ${file.rel} ${what}${result.detail ? `: ${result.detail}` : ""}`,
          );
        }
        if (pageErrors.length > 0 && fileFailed) {
          lines.push(`uncaught page errors:\n${pageErrors.join("\n")}`);
        }
        const errorLines = consoleLines.filter((l) =>
          l.startsWith("[console.error]")
        );
        if (fileFailed && consoleLines.length > 0) {
          lines.push(`page console:\n${consoleLines.join("\n")}`);
        } else if (errorLines.length > 0) {
          // Forwarded even when the file passed.
          notes.push(
            `${file.rel}: page console errors:\n${errorLines.join("\n")}`,
          );
        }
        if (lines.length > 0) {
          failures.push(`${file.rel}:\n${lines.join("\n")}`);
        }
        const fileLine = `  ${fileFailed ? "✖" : "✔"} ${file.rel} (${ms}ms)`;
        if (echo || fileFailed) log(fileLine);
        report.push(fileLine);
      }
    }
  } catch (error) {
    counts.failed++;
    failures.push(`browser run failed: ${error.stack || error}`);
  } finally {
    await browser?.close().catch(() => {});
    server?.close();
  }
  const text = failures.join("\n\n");
  return {
    ...counts,
    code: counts.failed > 0 ? 1 : 0,
    output: `${report.join("\n")}\n${text}`,
    failureText: text,
    notes: notes.join("\n"),
    durationMs: Date.now() - started,
    command: `chromium (${executablePath}) via playwright-core`,
  };
}
