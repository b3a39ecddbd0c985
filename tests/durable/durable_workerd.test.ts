// @runtimes node
// Copyright 2026 the understudy authors. MIT license.
// Durable actors in the real runtime: tests/durable/_durable_worker.ts,
// bundled and served by workerd with SQLite-backed objects on a local disk
// (so that storage and alarms outlive the workerd process), driven over
// HTTP. Evictions are ctx.abort() and a kill of the workerd process. Node
// only: it starts workerd from outside, which the workerd run of the suite
// (inside workerd) cannot do.

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findRepoRoot } from "../meta/_repo.ts";
import { bundleWorker, serveOnDisk, type Workerd } from "./_bundle.ts";

const WORKER = join(findRepoRoot(), "tests", "durable", "_durable_worker.ts");

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Events = Record<string, unknown[][]>;

/** workerd on `dir`: the bundle, SQL on, storage on disk. */
function serve(dir: string, bundle: string): Promise<Workerd> {
  return serveOnDisk(dir, bundle, { KEEPER: "Keeper" });
}

describe("durable: timers, respawns and stashes survive eviction, in workerd", () => {
  let dir: string;
  let bundle: string;
  let worker: Workerd;

  async function call<R>(
    name: string,
    method: string,
    ...args: unknown[]
  ): Promise<R> {
    const res = await fetch(worker.url, {
      method: "POST",
      body: JSON.stringify({ ns: "KEEPER", name, method, args }),
      signal: AbortSignal.timeout(20_000),
    });
    const body = await res.json() as {
      result?: R;
      error?: { message: string };
    };
    if (res.status !== 200) {
      throw new Error(`${name}.${method}: ${body.error?.message}`);
    }
    return body.result as R;
  }

  /** The module's record: read without touching any object. */
  async function events(name: string): Promise<unknown[][]> {
    const res = await fetch(worker.url, {
      signal: AbortSignal.timeout(20_000),
    });
    return ((await res.json()) as Events)[name] ?? [];
  }

  async function evict(name: string): Promise<void> {
    await assert.rejects(call(name, "evict"), /evicted by the test/);
  }

  /** Polls the record of `name` until `done`, for up to `ms`. */
  async function eventually(
    name: string,
    done: (events: unknown[][]) => boolean,
    ms = 15_000,
  ): Promise<unknown[][]> {
    const until = Date.now() + ms;
    let seen = await events(name);
    while (!done(seen) && Date.now() < until) {
      await sleep(100);
      seen = await events(name);
    }
    return seen;
  }

  const count = (seen: unknown[][], kind: string) =>
    seen.filter((e) => e[0] === kind).length;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "understudy-durable-disk-"));
    bundle = await bundleWorker(WORKER);
    worker = await serve(dir, bundle);
  });

  after(async () => {
    await worker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a stored timer set before ctx.abort() is delivered by the alarm to the re-created object, once, with no call of its own", async () => {
    await call("timer", "startTimer", 800, { kind: "remind" });
    await evict("timer");
    const seen = await eventually(
      "timer",
      (e) => count(e, "log") > 0 && count(e, "constructed") >= 2,
    );
    assert.deepEqual(seen.filter((e) => e[0] === "log"), [
      ["log", { kind: "remind" }],
    ]);
    assert.equal(count(seen, "constructed"), 2, "the alarm re-created it");
    assert.ok(count(seen, "alarm") >= 1);
    await sleep(1_000);
    assert.equal(count(await events("timer"), "log"), 1, "delivered once");
  });

  it("a periodic tick stopped by ctx.abort() starts again: the alarm wakes the object and its actors start anew", async () => {
    await call("tick", "stored"); // creates the object and its ticking actor
    await eventually("tick", (e) => count(e, "tick") >= 3);
    await evict("tick");
    const before = count(await events("tick"), "tick");
    const seen = await eventually(
      "tick",
      (e) => count(e, "constructed") >= 2 && count(e, "tick") > before + 3,
    );
    assert.equal(count(seen, "constructed"), 2);
    assert.ok(count(seen, "alarm") >= 1, "woken by its alarm");
    assert.ok(count(seen, "tick") > before + 3, "ticking again");
    await evict("tick"); // stop it
  });

  it("a BackoffSupervisor whose child was down at ctx.abort() respawns on the stored schedule and delivers its stash, in order", async () => {
    await call("sup", "send", ["m1", "m2", "m3"]);
    const stored = await call<
      { restartCount: number; stash: unknown[]; respawnAt: number | null }
    >("sup", "stored");
    assert.equal(stored.restartCount, 1);
    assert.deepEqual(stored.stash, ["m1", "m2", "m3"]);
    assert.ok(typeof stored.respawnAt === "number");
    await evict("sup");
    const seen = await eventually("sup", (e) => count(e, "child") >= 3);
    assert.deepEqual(
      seen.filter((e) => e[0] === "child" || e[0] === "start"),
      [
        ["start", 1],
        ["start", 2],
        ["child", "m1"],
        ["child", "m2"],
        ["child", "m3"],
      ],
    );
    assert.equal(count(seen, "constructed"), 2, "woken by its alarm, no call");
    const after = await call<{ stash: unknown[]; respawnAt: unknown }>(
      "sup",
      "stored",
    );
    assert.deepEqual(after.stash, []);
    assert.equal(after.respawnAt, null);
  });

  it("a BackoffSender's unacknowledged messages at ctx.abort() are sent again after the alarm wakes the object, and acknowledged", async () => {
    await call("sender", "send", ["s1", "s2"], "/user/sender");
    await eventually("sender", (e) => count(e, "sender") >= 2);
    const stored = await call<{ entries: unknown[] }>(
      "sender",
      "stored",
      "sender",
    );
    assert.deepEqual(stored.entries, [[1, "s1", 1], [2, "s2", 1]]);
    await evict("sender");
    const seen = await eventually("sender", (e) => count(e, "sender") >= 4);
    assert.deepEqual(seen.filter((e) => e[0] === "sender"), [
      ["sender", "s1", 1],
      ["sender", "s2", 1],
      ["sender", "s1", 2],
      ["sender", "s2", 2],
    ]);
    assert.equal(count(seen, "constructed"), 2, "woken by its alarm, no call");
    await sleep(200);
    const after = await call<{ entries: unknown[] }>(
      "sender",
      "stored",
      "sender",
    );
    assert.deepEqual(after.entries, [], "both acknowledged");
  });

  it("a thrown alarm is retried by the platform, with retryCount, and the stored timer is then delivered once", async () => {
    await call("retry", "failAlarms", 2);
    await call("retry", "startTimer", 100, "after-retries");
    const seen = await eventually(
      "retry",
      (e) => count(e, "log") > 0,
      30_000,
    );
    assert.deepEqual(
      seen.filter((e) => e[0] === "alarm").map((e) => e[1]),
      [0, 1, 2],
    );
    assert.deepEqual(seen.filter((e) => e[0] === "log"), [
      ["log", "after-retries"],
    ]);
  });

  it("a workerd restart: a stored timer and a down child's respawn, set before the kill, happen in the new process", async () => {
    await call("restart-t", "startTimer", 1_500, "after-restart");
    await call("sup-restart", "send", ["r1", "r2"]);
    await worker.stop();
    worker = await serve(dir, bundle);
    const timer = await eventually(
      "restart-t",
      (e) => count(e, "log") > 0,
    );
    assert.deepEqual(timer.filter((e) => e[0] === "log"), [
      ["log", "after-restart"],
    ]);
    const sup = await eventually("sup-restart", (e) => count(e, "child") >= 2);
    assert.deepEqual(sup.filter((e) => e[0] === "child"), [
      ["child", "r1"],
      ["child", "r2"],
    ]);
  });

  it("a receive timeout set at the start fires at the due time kept before ctx.abort(), not a period after the object is re-created, and once", async () => {
    const start = Date.now();
    await call("idle", "stored"); // creates the object: its timeout is due in 2 s
    await evict("idle");
    // The alarm wakes the object about 2.2 s in; the kept due time has
    // passed, so ReceiveTimeout comes then (a fresh period: about 4.2 s).
    const seen = await eventually("idle", (e) => count(e, "timeout") >= 1);
    const elapsed = Date.now() - start;
    assert.equal(count(seen, "timeout"), 1);
    assert.equal(count(seen, "constructed"), 2, "woken by its alarm");
    assert.ok(elapsed < 3_400, `ReceiveTimeout came ${elapsed} ms in`);
    await sleep(1_000);
    assert.equal(count(await events("idle"), "timeout"), 1, "once");
    await evict("idle"); // stop it
  });

  it("an actor waiting for its typed backoff restart at ctx.abort() stays down until the kept due time, then restarts once with its count kept", async () => {
    await call("typed", "send", ["fail"], "/user/flaky"); // restart due in 1.5 s
    const failedAt = Date.now();
    await evict("typed");
    await call("typed", "send", ["m1"], "/user/flaky"); // re-created at once
    let seen = await eventually("typed", (e) => count(e, "flaky") >= 1);
    const waited = Date.now() - failedAt;
    assert.ok(
      waited >= 1_300,
      `m1 was processed ${waited} ms after the failure`,
    );
    assert.deepEqual(
      seen.filter((e) => e[0] === "start" || e[0] === "flaky"),
      [
        ["start", "preStart"],
        ["start", "postRestart"],
        ["flaky", "m1"],
      ],
    );
    // The count was kept: the second wait is 3 s, not the first's 1.5 s.
    await call("typed", "send", ["fail", "m2"], "/user/flaky");
    const again = Date.now();
    seen = await eventually("typed", (e) => count(e, "flaky") >= 2);
    const second = Date.now() - again;
    assert.ok(second >= 2_500, `the second wait was ${second} ms`);
    assert.equal(count(seen, "start"), 3, "restarted once each time");
    await evict("typed");
  });

  it("a workerd restart: a receive timeout and a typed restart's wait kept before the kill keep their schedule in the new process", async () => {
    const start = Date.now();
    await call("idle-restart", "stored"); // its timeout is due in 2 s
    await call("typed-restart", "send", ["fail"], "/user/flaky"); // 1.5 s
    await worker.stop();
    worker = await serve(dir, bundle);
    // The new process's record starts empty: each object is woken by its
    // alarm, once, and only this life's events are seen.
    const idle = await eventually(
      "idle-restart",
      (e) => count(e, "timeout") >= 1,
    );
    const elapsed = Date.now() - start;
    assert.ok(elapsed < 3_600, `ReceiveTimeout came ${elapsed} ms in`);
    assert.equal(count(idle, "timeout"), 1);
    const typed = await eventually(
      "typed-restart",
      (e) => count(e, "start") >= 1,
    );
    assert.deepEqual(typed.filter((e) => e[0] === "start"), [
      ["start", "postRestart"],
    ], "restarted on the kept schedule, not started anew");
    await evict("idle-restart");
    await evict("typed-restart");
  });
});
