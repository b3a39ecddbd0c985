// @runtimes node
// Copyright 2026 the understudy authors. MIT license.
// examples/durable-objects/, the room app, as its README runs it: built by
// its build.mjs, served by Cloudflare's workerd (the npm package) on the
// config it ships (with an ephemeral port and a temporary storage
// directory), and used from headless Chromium through its page. Words are
// added through the page while the room's object is evicted (ctx.abort(),
// at points drawn by the fault kit's HostLoss); afterwards every word took
// effect once, in order, each with its definition, and the flaky
// upstream's failed calls were retried after a backoff. Then workerd
// itself is killed (SIGKILL) while more words are on their way, and
// started again on the same storage and port: the page reconnects by
// itself and every word still takes effect once. Node only: it starts
// workerd and Chromium from outside. EXAMPLE_SEED=n picks other
// eviction points and upstream failures; a failure names the seed.

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { type Browser, chromium, type Page } from "playwright-core";
import { findRepoRoot } from "../meta/_repo.ts";
import { startWorkerd } from "../../scripts/lib/workerd.mjs";
import { findChromium, LAUNCH_ARGS } from "../../scripts/lib/chromium.mjs";
import { build } from "../../examples/durable-objects/build.mjs";
import { HostLoss, seededRandom } from "../../src/testing/mod.ts";
import type { Item } from "../../examples/durable-objects/room.ts";
import { LOOKUP_BACKOFF } from "../../examples/durable-objects/room.ts";
import type { UpstreamEvent } from "../../examples/durable-objects/upstream.ts";

const EXAMPLE = join(findRepoRoot(), "examples", "durable-objects");
const SEED = Number(process.env.EXAMPLE_SEED ?? 27);
const WORDS = 40;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Served {
  url: string;
  output(): string;
  stop(): Promise<void>;
}

/** A port nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The example's own config, on `port`, its storage in `dir`, upstream seeded. */
function configFor(dir: string, port: number): string {
  const shipped = readFileSync(join(EXAMPLE, "config.capnp"), "utf8");
  const config = shipped
    .replace('address = "127.0.0.1:8787"', `address = "127.0.0.1:${port}"`)
    .replace(
      'disk = (path = ".storage"',
      `disk = (path = ${JSON.stringify(join(dir, ".storage"))}`,
    )
    .replace(
      '(name = "UPSTREAM_SEED", text = "1")',
      `(name = "UPSTREAM_SEED", text = "${SEED}")`,
    );
  for (const changed of [`127.0.0.1:${port}`, dir, `text = "${SEED}"`]) {
    assert.ok(config.includes(changed), `the config no longer has ${changed}`);
  }
  return config;
}

describe("examples/durable-objects: the room app in workerd and Chromium", () => {
  let dir: string;
  let port: number;
  let worker: Served;
  let browser: Browser;

  async function get<T>(path: string): Promise<T> {
    const res = await fetch(`${worker.url}${path}`, {
      signal: AbortSignal.timeout(20_000),
    });
    const text = await res.text();
    assert.equal(res.status, 200, `GET ${path}: ${text}\n${worker.output()}`);
    return JSON.parse(text) as T;
  }

  let evictions = 0;
  async function evict(room: string): Promise<void> {
    evictions++;
    const res = await fetch(`${worker.url}/rooms/${room}/evict`, {
      method: "POST",
      signal: AbortSignal.timeout(20_000),
    });
    assert.equal(res.status, 200, await res.text());
  }

  /** Waits for `check` to hold, polling; its last value in the failure. */
  async function until<T>(
    what: string,
    read: () => Promise<T>,
    check: (value: T) => boolean,
    limitMs = 30_000,
  ): Promise<T> {
    const deadline = Date.now() + limitMs;
    let value = await read();
    while (!check(value)) {
      if (Date.now() > deadline) {
        throw new Error(
          `seed ${SEED}: ${what} within ${limitMs} ms; last: ${
            JSON.stringify(value).slice(0, 2_000)
          }\n${worker.output().slice(-4_000)}`,
        );
      }
      await sleep(100);
      value = await read();
    }
    return value;
  }

  const counts = (page: Page) =>
    page.evaluate(() =>
      JSON.parse(document.body.dataset.counts ?? "{}") as Record<
        string,
        number
      >
    );

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "understudy-room-"));
    await build(join(dir, "dist"), EXAMPLE);
    copyFileSync(join(EXAMPLE, "index.html"), join(dir, "index.html"));
    mkdirSync(join(dir, ".storage"), { recursive: true });
    port = await freePort();
    worker = await startWorkerd(
      join(dir, "config.capnp"),
      configFor(dir, port),
    );
    browser = await chromium.launch({
      executablePath: findChromium(),
      args: LAUNCH_ARGS,
      timeout: 30_000,
    });
  });

  after(async () => {
    await browser?.close();
    await worker?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("serves the page and its script from the Worker", async () => {
    const page = await fetch(`${worker.url}/?room=lobby`);
    assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
    assert.match(await page.text(), /<script type="module" src="\/page.js">/);
    const script = await fetch(`${worker.url}/page.js`);
    assert.equal(
      script.headers.get("content-type"),
      "text/javascript; charset=utf-8",
    );
    assert.ok((await script.text()).length > 10_000);
  });

  it(`words added through the page while the room is evicted, then workerd restarted, take effect once, looked up under backoff (seed ${SEED})`, async () => {
    const room = `room-${SEED}`;
    const page = await browser.newPage();
    page.setDefaultTimeout(20_000);
    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(String(error)));
    await page.goto(`${worker.url}/?room=${room}`);
    await until("the page connected", () => counts(page), (c) => c.opened >= 1);

    const source = seededRandom(SEED);
    const loss = new HostLoss(source.fork("evictions"), 0.15);
    const evicting: Promise<void>[] = [];
    const words = Array.from({ length: WORDS }, (_, i) => `word${i + 1}`);
    for (const [i, word] of words.entries()) {
      await page.fill("#word", word);
      await page.press("#word", "Enter");
      // At a random point of what is in flight; at least once in the middle.
      const lost = loss.offer(() => {
        evicting.push(
          sleep(Math.floor(source.next() * 20)).then(() => evict(room)),
        );
      });
      if (!lost && i === WORDS / 2 && loss.lost === 0) {
        evicting.push(evict(room));
      }
      await sleep(Math.floor(source.next() * 30));
    }
    await Promise.all(evicting);
    assert.ok(evictions >= 1);

    const final = await until(
      "every word acknowledged",
      () => counts(page),
      (c) => c.acknowledged + c.failed === WORDS,
    );
    assert.deepEqual(
      { sent: final.sent, acknowledged: final.acknowledged, failed: 0 },
      { sent: WORDS, acknowledged: WORDS, failed: final.failed },
    );
    // The page came back after the evictions that broke its socket.
    assert.ok(final.opened >= 2, `seed ${SEED}: opened ${final.opened}`);

    const items = await until(
      "every word defined",
      () => get<Item[]>(`/rooms/${room}/items`),
      (list) => list.length >= WORDS && list.every((it) => it.definition),
    );
    // Once each, in the order written.
    assert.deepEqual(items.map((it) => it.word), words);
    assert.deepEqual(items.map((it) => it.n), words.map((_, i) => i + 1));
    // What the page shows is what the room has.
    const shown = await until(
      "the page showing every definition",
      () =>
        page.$$eval(
          "#items li",
          (rows) => rows.map((row) => [row.dataset.word, row.className]),
        ),
      (rows) =>
        rows.length === WORDS && rows.every(([, state]) => state === "defined"),
    );
    assert.deepEqual(shown.map(([word]) => word), words);
    assert.deepEqual(pageErrors, []);

    // The upstream failed some calls; each failed word was asked again,
    // after at least the supervisor's shortest backoff unless an eviction
    // (after which the room asks again for what is still undefined) came
    // between.
    const log = await get<UpstreamEvent[]>("/upstream/calls");
    const calls = log.filter((e) => e.kind === "call");
    const failures = calls.filter((c) => !c.ok);
    assert.ok(
      failures.length >= 3,
      `seed ${SEED}: ${failures.length} failures`,
    );
    const gaps: number[] = [];
    for (const failure of failures) {
      const at = log.indexOf(failure);
      const next = log.slice(at + 1).find((e) =>
        e.kind === "call" && e.word === failure.word
      );
      if (next === undefined) {
        // A copy (asked again after an eviction) whose twin had the answer.
        assert.ok(
          calls.some((c) => c.word === failure.word && c.ok),
          `seed ${SEED}: ${failure.word} never asked again`,
        );
        continue;
      }
      const evictedBetween = log.slice(at + 1, log.indexOf(next)).some((e) =>
        e.kind === "eviction"
      );
      if (!evictedBetween) gaps.push(next.at - failure.at);
    }
    for (const word of words) {
      assert.ok(
        calls.some((c) => c.word === word && c.ok),
        `seed ${SEED}: ${word} never answered`,
      );
    }
    const floor = LOOKUP_BACKOFF.minBackoff * (1 - LOOKUP_BACKOFF.randomFactor);
    assert.ok(
      gaps.length > 0,
      `seed ${SEED}: every retry followed an eviction`,
    );
    assert.deepEqual(
      gaps.filter((gap) => gap < floor),
      [],
      `seed ${SEED}: retries sooner than ${floor} ms`,
    );
    gaps.sort((a, b) => a - b);
    console.log(
      `room seed ${SEED}: ${WORDS} words, each handled once, in order; ${evictions} evictions, ${final.opened} connections; upstream: ${calls.length} calls (${
        calls.length - failures.length
      } answered), ${failures.length} failed, retried after ${gaps[0]}–${
        gaps.at(-1)
      } ms (median ${
        gaps[Math.floor(gaps.length / 2)]
      }, ${gaps.length} retries with no eviction between)`,
    );

    // workerd itself goes (SIGKILL) while words are on their way, and
    // comes back on the same storage and port: the page reconnects by
    // itself, is told what the room handled, and sends the rest once.
    const more = Array.from({ length: 10 }, (_, i) => `word${WORDS + i + 1}`);
    for (const [i, word] of more.entries()) {
      await page.fill("#word", word);
      await page.press("#word", "Enter");
      if (i === 3) {
        await worker.stop();
        worker = await startWorkerd(
          join(dir, "config.capnp"),
          configFor(dir, port),
        );
      }
    }
    const all = [...words, ...more];
    const restarted = await until(
      "every word acknowledged after the restart",
      () => counts(page),
      (c) => c.acknowledged + c.failed === all.length,
    );
    assert.equal(restarted.failed, 0);
    assert.ok(restarted.opened > final.opened, "reconnected after the restart");
    const kept = await until(
      "every word defined after the restart",
      () => get<Item[]>(`/rooms/${room}/items`),
      (list) => list.length >= all.length && list.every((it) => it.definition),
    );
    assert.deepEqual(kept.map((it) => it.word), all);
    console.log(
      `room seed ${SEED}: after a workerd restart ${all.length} words, each handled once, in order (${restarted.opened} connections in all)`,
    );
    await page.close();
  });
});
