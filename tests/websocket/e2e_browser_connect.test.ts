// @runtimes deno
// Copyright 2026 the understudy authors. MIT license.
// The front door in Chromium, against a Deno.serve server: connect's status
// (with a heartbeat, "open" only after a first round trip), a confirming
// send and its echo, the back-forward cache (away and back: the socket
// closed on pagehide, the page restored with its state, connected again on
// pageshow, with the freeze and resume Chromium adds), and close.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type Browser, chromium } from "playwright-core";
import type { ConnectPage } from "./_e2e_connect_page.ts";
import { waitFor } from "./_e2e_scenario.ts";
import { DenoServer } from "./_deno_server.ts";
import { findChromium } from "../../scripts/lib/chromium.mjs";
import { bundlePage, CHROMIUM_ARGS } from "./_e2e_chromium.ts";

describe("connect in Chromium", () => {
  if (typeof (globalThis as { Deno?: unknown }).Deno === "undefined") {
    throw new Error(
      "this file needs Deno (Deno.serve and Deno.Command): run it with node scripts/test.mjs",
    );
  }
  it("connects after a round trip, confirms a send, survives the back-forward cache, and closes", async () => {
    const server = new DenoServer({
      "/": {
        type: "text/html",
        body:
          '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>connect</title><script type="module" src="/client.js"></script>',
      },
      "/client.js": {
        type: "text/javascript",
        body: await bundlePage("./_e2e_connect_page.ts"),
      },
      "/other": {
        type: "text/html",
        body: '<!doctype html><meta charset="utf-8"><title>other</title>',
      },
    });
    let browser: Browser | undefined;
    try {
      await server.start();
      browser = await chromium.launch({
        executablePath: findChromium(),
        args: CHROMIUM_ARGS,
        // Playwright turns the back-forward cache off by default.
        ignoreDefaultArgs: ["--disable-back-forward-cache"],
        timeout: 30_000,
      });
      const context = await browser.newContext();
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      const pageErrors: string[] = [];
      page.on("pageerror", (error) => pageErrors.push(String(error)));
      await page.goto(`http://127.0.0.1:${server.port}/`);
      await page.waitForFunction(() => "e2e" in globalThis);
      const statuses = () =>
        page.evaluate(() =>
          (globalThis as never as { e2e: ConnectPage }).e2e.statuses
        );

      await page.evaluate(
        (url) => (globalThis as never as { e2e: ConnectPage }).e2e.start(url),
        `ws://127.0.0.1:${server.port}/`,
      );
      await waitFor(
        "open",
        async () => (await statuses()).at(-1) === "open",
      );
      assert.deepEqual(await statuses(), ["connecting", "open"]);
      // The heartbeat's probe went out, and came back, before "open".
      assert.ok(server.received.includes("echo:pong"));

      const sent = await page.evaluate(() =>
        (globalThis as never as { e2e: ConnectPage }).e2e.sendConfirmed(
          "echo:hello",
        )
      );
      assert.equal(sent, "echo:hello");
      await waitFor(
        "the echo",
        async () =>
          (await page.evaluate(() =>
            (globalThis as never as { e2e: ConnectPage }).e2e.messages
          )).includes("hello"),
      );

      // Away to another page and back: the page goes into the back-forward
      // cache (its socket closed on pagehide, or Chromium would not keep it),
      // frozen there, and is restored with its state, resumed and shown
      // again: it connects again at once.
      await page.goto(`http://127.0.0.1:${server.port}/other`);
      await waitFor(
        "the server to see the close",
        () => server.openSockets === 0,
      );
      await page.goBack({ waitUntil: "commit" }); // a restored page fires no load
      await page.waitForFunction(() => "e2e" in globalThis);
      await waitFor(
        "open again",
        async () => (await statuses()).at(-1) === "open",
      );
      assert.deepEqual(await statuses(), [
        "connecting",
        "open",
        "paused",
        "connecting",
        "open",
      ], "restored from the back-forward cache, with its state");
      assert.deepEqual(
        await page.evaluate(() =>
          (globalThis as never as { e2e: ConnectPage }).e2e.lifecycle
        ),
        // The first load's pageshow; then Chromium freezes the cached page.
        [
          "pageshow",
          "pagehide (persisted)",
          "freeze",
          "resume",
          "pageshow (persisted)",
        ],
      );
      assert.equal(server.openSockets, 1);

      const closed = await page.evaluate(() =>
        (globalThis as never as { e2e: ConnectPage }).e2e.close()
      );
      assert.equal(closed, "closed");
      await waitFor("no socket left", () => server.openSockets === 0);
      assert.deepEqual(pageErrors, []);
    } finally {
      await browser?.close();
      await server.kill();
    }
  });
});
