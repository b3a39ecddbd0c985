// @runtimes deno
// Copyright 2026 the understudy authors. MIT license.
// One connection per browser, in Chromium with two tabs of one origin
// against a Deno.serve server: the first tab leads (holds the Web Lock) and
// opens the only socket; the second sends through it and hears its frames
// over a BroadcastChannel; when the first tab closes, the second takes over
// with a socket of its own.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type Browser, chromium, type Page } from "playwright-core";
import type { SharedPage } from "./_e2e_shared_page.ts";
import { waitFor } from "./_e2e_scenario.ts";
import { DenoServer } from "./_deno_server.ts";
import { findChromium } from "../../scripts/lib/chromium.mjs";
import { bundlePage, CHROMIUM_ARGS } from "./_e2e_chromium.ts";

type E2e = { e2e: SharedPage };

describe("connectShared in Chromium", () => {
  if (typeof (globalThis as { Deno?: unknown }).Deno === "undefined") {
    throw new Error(
      "this file needs Deno (Deno.serve and Deno.Command): run it with node scripts/test.mjs",
    );
  }
  it("opens one socket for two tabs, and the second takes over when the first closes", async () => {
    const server = new DenoServer({
      "/": {
        type: "text/html",
        body:
          '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>shared</title><script type="module" src="/client.js"></script>',
      },
      "/client.js": {
        type: "text/javascript",
        body: await bundlePage("./_e2e_shared_page.ts"),
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
      const context = await browser.newContext();
      const pageErrors: string[] = [];
      const open = async (): Promise<Page> => {
        const page = await context.newPage();
        page.setDefaultTimeout(15_000);
        page.on("pageerror", (error) => pageErrors.push(String(error)));
        await page.goto(`http://127.0.0.1:${server.port}/`);
        await page.waitForFunction(() => "e2e" in globalThis);
        await page.evaluate(
          (url) => (globalThis as never as E2e).e2e.start(url),
          `ws://127.0.0.1:${server.port}/`,
        );
        return page;
      };
      const read = <T>(page: Page, what: (e2e: SharedPage) => T) =>
        page.evaluate(
          `(${what.toString()})(globalThis.e2e)`,
        ) as Promise<T>;

      const first = await open();
      await waitFor(
        "the first tab to lead",
        async () =>
          await read(first, (e) => e.leader()) &&
          await read(first, (e) => e.status()) === "open",
      );
      const second = await open();
      await waitFor(
        "the second tab to hear the leader's status",
        async () => await read(second, (e) => e.status()) === "open",
      );
      assert.equal(await read(second, (e) => e.leader()), false);
      assert.equal(server.openSockets, 1, "one socket for two tabs");

      // The follower sends through the leader, and hears the echo.
      assert.equal(
        await second.evaluate(() =>
          (globalThis as never as E2e).e2e.send("echo:from the second tab")
        ),
        "sent",
      );
      await waitFor(
        "the echo in both tabs",
        async () =>
          (await read(second, (e) => e.messages)).includes(
            "from the second tab",
          ) &&
          (await read(first, (e) => e.messages)).includes(
            "from the second tab",
          ),
      );
      assert.deepEqual(server.received, ["echo:from the second tab"]);

      // The leader's tab closes: the second takes over with its own socket.
      await first.close();
      await waitFor(
        "the second tab to lead",
        async () =>
          await read(second, (e) => e.leader()) &&
          await read(second, (e) => e.status()) === "open",
      );
      await waitFor("one socket", () => server.openSockets === 1);
      assert.equal(
        await second.evaluate(() =>
          (globalThis as never as E2e).e2e.send("echo:after the takeover")
        ),
        "sent",
      );
      assert.deepEqual(server.received, [
        "echo:from the second tab",
        "echo:after the takeover",
      ]);
      assert.deepEqual(pageErrors, []);
    } finally {
      await browser?.close();
      await server.kill();
    }
  });
});
