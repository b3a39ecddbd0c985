// @runtimes node
// Copyright 2026 the understudy authors. MIT license.
// The socket server in the real workerd, from a headless Chromium page (the
// library bundled by esbuild, the browser's own WebSocket): the scenario
// of socket_workerd.test.ts (1,000 numbered messages through evictions
// and workerd restarts at seeded points; CHAOS_SEED=n picks another seed).
// Node drives both: it starts workerd and Chromium (playwright-core) and
// serves the page.

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import process from "node:process";
import * as esbuild from "esbuild";
import { type Browser, chromium, type Page } from "playwright-core";
import { findRepoRoot } from "../meta/_repo.ts";
import { findChromium } from "../../scripts/lib/chromium.mjs";
import { CHROMIUM_ARGS } from "../websocket/_e2e_chromium.ts";
import type { SocketPage } from "./_socket_page.ts";
import { serveSockets, type SocketWorkerd } from "./_socket_workerd.ts";
import { type Outcome, runSocketScenario } from "./_socket_scenario.ts";

const SEED = Number(process.env.CHAOS_SEED ?? 28);
const PAGE = join(findRepoRoot(), "tests", "durable", "_socket_page.ts");

describe("socket server in workerd, from Chromium", () => {
  let worker: SocketWorkerd;
  let http: Server;
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];

  before(async () => {
    worker = await serveSockets();
    const bundle = await esbuild.build({
      entryPoints: [PAGE],
      bundle: true,
      format: "esm",
      target: "chrome120",
      write: false,
      logLevel: "silent",
    });
    const script = bundle.outputFiles[0].text;
    http = createServer((request, response) => {
      if (request.url === "/client.js") {
        response.writeHead(200, { "content-type": "text/javascript" })
          .end(script);
      } else {
        response.writeHead(200, { "content-type": "text/html" }).end(
          '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>socket</title><script type="module" src="/client.js"></script>',
        );
      }
    });
    await new Promise<void>((resolve) =>
      http.listen(0, "127.0.0.1", () => resolve())
    );
    browser = await chromium.launch({
      executablePath: findChromium(),
      args: CHROMIUM_ARGS,
      timeout: 30_000,
    });
    page = await browser.newPage();
    page.setDefaultTimeout(20_000);
    page.on("pageerror", (error) => consoleErrors.push(String(error)));
    const { port } = http.address() as { port: number };
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForFunction(() => "e2e" in globalThis);
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => http?.close(resolve));
    await worker?.stop();
  });

  it(`1,000 messages through evictions and workerd restarts: each processed once, in order, acknowledged once (seed ${SEED})`, async () => {
    await page.evaluate(
      (url) => (globalThis as never as { e2e: SocketPage }).e2e.start(url),
      `${worker.url.replace("http", "ws")}/room/browser?client=tab-1`,
    );
    const line = await runSocketScenario(worker, "browser", {
      async send(texts) {
        await page.evaluate(
          (t) => (globalThis as never as { e2e: SocketPage }).e2e.send(t),
          texts,
        );
      },
      async settled(timeoutMs): Promise<Outcome> {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const outcome = await page.evaluate(() =>
            (globalThis as never as { e2e: SocketPage }).e2e.outcome()
          );
          if (outcome.pending === 0 || Date.now() > deadline) return outcome;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      },
    }, { seed: SEED, messages: 1_000, restarts: 2 });
    await page.evaluate(() =>
      (globalThis as never as { e2e: SocketPage }).e2e.close()
    );
    // Chromium's own reports of refused connections are console messages,
    // not page errors: the page itself threw nothing.
    assert.deepEqual(consoleErrors, []);
    console.log(`socket server, Chromium client: ${line}`);
  });
});
