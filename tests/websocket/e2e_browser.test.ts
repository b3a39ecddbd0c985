// @runtimes deno
// Copyright 2026 the understudy authors. MIT license.
// End to end in Chromium: a page running the bundled library (esbuild)
// against a Deno.serve server on 127.0.0.1, killed and restarted on the same
// port (see _e2e_scenario.ts). The page's console must show no error but
// Chromium's own report of each refused connection while the server is down.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type Browser, chromium, type Page } from "playwright-core";
import type {
  Delivery,
  E2eClient,
  EventRecord,
  Outcomes,
} from "./_e2e_client.ts";
import { runScenario } from "./_e2e_scenario.ts";
import { runStream } from "./_e2e_stream.ts";
import { DenoServer } from "./_deno_server.ts";
// The harness's discovery ($UNDERSTUDY_CHROMIUM, /usr/bin/chromium, ...): the
// browser it found or installed before the run.
import { findChromium } from "../../scripts/lib/chromium.mjs";
import { bundlePage, CHROMIUM_ARGS } from "./_e2e_chromium.ts";

/** The client in the page, driven through Playwright. */
class PageClient implements E2eClient {
  constructor(readonly page: Page) {}
  start(url: string, delivery?: Delivery): Promise<void> {
    return this.page.evaluate(
      ([url, delivery]) =>
        (globalThis as never as { e2e: E2eClient }).e2e.start(url, delivery),
      [url, delivery] as const,
    );
  }
  stream(texts: string[]): Promise<void> {
    return this.page.evaluate(
      (texts) => (globalThis as never as { e2e: E2eClient }).e2e.stream(texts),
      texts,
    );
  }
  outcomes(): Promise<Outcomes> {
    return this.page.evaluate(() =>
      (globalThis as never as { e2e: E2eClient }).e2e.outcomes()
    );
  }
  send(texts: string[]): Promise<void> {
    return this.page.evaluate(
      (texts) => (globalThis as never as { e2e: E2eClient }).e2e.send(texts),
      texts,
    );
  }
  events(): Promise<EventRecord[]> {
    return this.page.evaluate(() =>
      (globalThis as never as { e2e: E2eClient }).e2e.events()
    );
  }
  close(): Promise<void> {
    return this.page.evaluate(() =>
      (globalThis as never as { e2e: E2eClient }).e2e.close()
    );
  }
}

describe("end to end in Chromium", () => {
  // The harness runs this file in Deno only (see its first line). Elsewhere
  // it fails loudly rather than skipping: a skipped test proves nothing.
  if (typeof (globalThis as { Deno?: unknown }).Deno === "undefined") {
    throw new Error(
      "this file needs Deno (Deno.serve and Deno.Command): run it with node scripts/test.mjs",
    );
  }
  it(
    "delivers 50 messages written while the server was down, in order, after spaced retries",
    async () => {
      const server = new DenoServer({
        "/": {
          type: "text/html",
          body:
            '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>e2e</title><script type="module" src="/client.js"></script>',
        },
        "/client.js": {
          type: "text/javascript",
          body: await bundlePage("./_e2e_page.ts"),
        },
      });
      let browser: Browser | undefined;
      try {
        await server.start();
        browser = await chromium.launch({
          executablePath: findChromium(),
          args: CHROMIUM_ARGS,
          timeout: 30_000,
        });
        const page = await browser.newPage();
        page.setDefaultTimeout(15_000);
        const consoleErrors: string[] = [];
        const pageErrors: string[] = [];
        page.on("console", (message) => {
          if (message.type() === "error") consoleErrors.push(message.text());
        });
        page.on("pageerror", (error) => pageErrors.push(String(error)));
        await page.goto(`http://127.0.0.1:${server.port}/`);
        await page.waitForFunction(() => "e2e" in globalThis);

        const events = await runScenario(server, new PageClient(page));

        assert.deepEqual(pageErrors, []);
        const refused = new RegExp(
          `^WebSocket connection to 'ws://127\\.0\\.0\\.1:${server.port}/' failed: `,
        );
        const others = consoleErrors.filter((text) => !refused.test(text));
        assert.deepEqual(
          others,
          [],
          "console errors besides refused connections",
        );
        const failedAttempts = events.filter((e) =>
          e.type === "WebSocketClosed" && e.code === 1006
        )
          .length;
        console.log(
          `console: ${consoleErrors.length} refused-connection reports for ${failedAttempts} failed attempts, nothing else`,
        );
        assert.ok(
          consoleErrors.length <= failedAttempts,
          `${consoleErrors.length} console errors for ${failedAttempts} failed attempts`,
        );
      } finally {
        await browser?.close();
        await server.kill();
      }
    },
  );
  for (const delivery of ["ack", "default"] as const) {
    it(`streams 1,200 messages through 10 kills of a server process (${delivery} mode): nothing lost unreported`, async () => {
      // The page is served here; its WebSocket server is the other process.
      const pages = new DenoServer({
        "/": {
          type: "text/html",
          body:
            '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>e2e</title><script type="module" src="/client.js"></script>',
        },
        "/client.js": {
          type: "text/javascript",
          body: await bundlePage("./_e2e_page.ts"),
        },
      });
      let browser: Browser | undefined;
      try {
        await pages.start();
        browser = await chromium.launch({
          executablePath: findChromium(),
          args: CHROMIUM_ARGS,
          timeout: 30_000,
        });
        const page = await browser.newPage();
        page.setDefaultTimeout(15_000);
        const pageErrors: string[] = [];
        page.on("pageerror", (error) => pageErrors.push(String(error)));
        await page.goto(`http://127.0.0.1:${pages.port}/`);
        await page.waitForFunction(() => "e2e" in globalThis);
        await runStream(new PageClient(page), delivery, "Chromium");
        assert.deepEqual(pageErrors, []);
      } finally {
        await browser?.close();
        await pages.kill();
      }
    });
  }
});
