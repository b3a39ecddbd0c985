// Copyright 2026 the understudy authors. MIT license.

/**
 * Runs one bench job in headless Chromium: `node bench/browser.mjs
 * <bundle.js> <workload> <n> <warmup> <runs> [<warm-up n>]`, where the
 * bundle is a workload file built by `buildBrowserBundles` (bench/build.mjs).
 *
 * Serves the bundle from 127.0.0.1 (ephemeral port) to a fresh page of
 * `/usr/bin/chromium`, driven by playwright-core with the test harness's
 * launch flags (scripts/lib/runners/browser.mjs) plus `--expose-gc`; the
 * arguments reach the page as `globalThis.__benchArgs`. The page's
 * `@@BENCH` line goes to stdout, anything else it logs to stderr, and the
 * process exits with the code the page reports through `__benchExit`.
 * Without Chromium it prints an "unavailable" result and exits 0.
 * It gives up (closing the browser) after `BENCH_TIMEOUT_MS`, default 10
 * minutes, so a hung page never outlives the run.
 */

import { createServer } from "node:http";
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";

const CHROMIUM = "/usr/bin/chromium";
const LAUNCH_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-sync",
  "--disable-quic",
  "--js-flags=--expose-gc",
];

function emit(result) {
  console.log(`@@BENCH ${JSON.stringify(result)}`);
}

function page(bundleName, args) {
  return '<!doctype html>\n<meta charset="utf-8">\n<title>bench</title>\n' +
    '<link rel="icon" href="data:,">\n' +
    `<script>globalThis.__benchArgs = ${
      JSON.stringify(args).replace(/</g, "\\u003c")
    };</script>\n` +
    `<script type="module" src="./${bundleName}"></script>\n`;
}

function serve(bundle, args) {
  const html = page(basename(bundle), args);
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    if (path === "/" || path === "/index.html") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(html);
    } else if (path === `/${basename(bundle)}`) {
      res.writeHead(200, {
        "content-type": "text/javascript; charset=utf-8",
        "cache-control": "no-store",
      });
      res.end(readFileSync(join(dirname(bundle), basename(bundle))));
    } else {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

async function main() {
  const [bundle, ...args] = process.argv.slice(2);
  if (bundle === undefined || args.length === 0) {
    console.error(
      "usage: node bench/browser.mjs <bundle.js> <workload> <n> <warmup> <runs> [<warm-up n>]",
    );
    return 2;
  }
  if (!existsSync(CHROMIUM)) {
    emit({ status: "unavailable", reason: `no Chromium at ${CHROMIUM}` });
    return 0;
  }
  const { chromium } = await import("playwright-core");
  const server = await serve(bundle, args);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: LAUNCH_ARGS,
  });
  const timeoutMs = Number(process.env.BENCH_TIMEOUT_MS ?? 600_000);
  let timer;
  try {
    const tab = await browser.newPage();
    let finish;
    const exited = new Promise((resolve) => (finish = resolve));
    timer = setTimeout(() => {
      console.error(`bench/browser.mjs: no result after ${timeoutMs} ms`);
      finish(1);
    }, timeoutMs);
    tab.on("pageerror", (error) => {
      console.error(error.stack || String(error));
      finish(1);
    });
    tab.on("crash", () => {
      console.error("bench/browser.mjs: the page crashed");
      finish(1);
    });
    await tab.exposeFunction("__benchExit", (code) => finish(code));
    tab.on("console", (message) => {
      const text = message.text();
      if (text.startsWith("@@BENCH ")) console.log(text);
      else console.error(`[console.${message.type()}] ${text}`);
    });
    await tab.goto(`http://127.0.0.1:${server.address().port}/`);
    return await exited;
  } finally {
    clearTimeout(timer);
    await browser.close().catch(() => {});
    server.close();
  }
}

process.exitCode = await main();
