/**
 * `@sinonjs/fake-timers` must work the same way in every runtime the suite
 * runs in (Deno, Node, Bun, Chromium). Test files import it as a namespace:
 *
 *   import * as FakeTimers from "@sinonjs/fake-timers";
 *
 * and install the clock with `nextTick` and `queueMicrotask` left native:
 *
 *   const clock = FakeTimers.install({ toNotFake: ["nextTick", "queueMicrotask"] });
 *
 * fake-timers 15 fakes `process.nextTick` and `queueMicrotask` by default.
 * A faked `nextTick` stalls Node's test reporter while an async test awaits:
 * the process then exits 0 having reported nothing (the harness catches that
 * as "registered no tests", but the real fix is the option above).
 *
 * These tests pin that down, including in the browser bundle, where esbuild
 * replaces fake-timers' `require("util")` with `tests/_shims/util_browser.ts`.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import * as FakeTimers from "@sinonjs/fake-timers";

type InstallOptions = NonNullable<Parameters<typeof FakeTimers.install>[0]>;
const KEEP_NATIVE: InstallOptions = {
  toNotFake: ["nextTick", "queueMicrotask"],
};

describe("@sinonjs/fake-timers interop", () => {
  it("exposes install, createClock and withGlobal on the namespace", () => {
    assert.equal(typeof FakeTimers.install, "function");
    assert.equal(typeof FakeTimers.createClock, "function");
    assert.equal(typeof FakeTimers.withGlobal, "function");
  });

  it("install() fakes timers and Date; uninstall() restores them", () => {
    const realSetTimeout = globalThis.setTimeout;
    const realDateNow = Date.now;
    const clock = FakeTimers.install({ ...KEEP_NATIVE, now: 1_000 });
    try {
      assert.notEqual(globalThis.setTimeout, realSetTimeout);
      const fired: number[] = [];
      setTimeout(() => fired.push(Date.now()), 50);
      const interval = setInterval(() => fired.push(-Date.now()), 30);
      clock.tick(49);
      assert.deepEqual(fired, [-1_030]);
      clock.tick(1);
      assert.deepEqual(fired, [-1_030, 1_050]);
      clearInterval(interval);
      clock.tick(1_000);
      assert.deepEqual(fired, [-1_030, 1_050]);
      assert.equal(Date.now(), 2_050);
      assert.equal(clock.countTimers(), 0);
    } finally {
      clock.uninstall();
    }
    assert.equal(globalThis.setTimeout, realSetTimeout);
    assert.equal(Date.now, realDateNow);
  });

  it("tickAsync() lets promise callbacks run between timers", async () => {
    const clock = FakeTimers.install({ ...KEEP_NATIVE });
    try {
      const steps: string[] = [];
      const sleep = (ms: number) =>
        new Promise<void>((resolve) => setTimeout(resolve, ms));
      const task = (async () => {
        await sleep(100);
        steps.push("first");
        await sleep(100);
        steps.push("second");
      })();
      await clock.tickAsync(150);
      assert.deepEqual(steps, ["first"]);
      await clock.tickAsync(50);
      assert.deepEqual(steps, ["first", "second"]);
      await task;
    } finally {
      clock.uninstall();
    }
  });

  it("leaves queueMicrotask native with the recommended options", async () => {
    const realQueueMicrotask = globalThis.queueMicrotask;
    const clock = FakeTimers.install({ ...KEEP_NATIVE });
    try {
      assert.equal(globalThis.queueMicrotask, realQueueMicrotask);
      assert.ok(!clock.methods.includes("queueMicrotask"));
      assert.ok(!clock.methods.includes("nextTick"));
      const seen: string[] = [];
      queueMicrotask(() => seen.push("microtask"));
      await Promise.resolve();
      assert.deepEqual(seen, ["microtask"]);
    } finally {
      clock.uninstall();
    }
  });

  it("createClock() drives its own timers without touching globals", () => {
    const realSetTimeout = globalThis.setTimeout;
    const clock = FakeTimers.createClock(0);
    let calls = 0;
    clock.setTimeout(() => calls++, 10);
    clock.runAll();
    assert.equal(calls, 1);
    assert.equal(clock.now, 10);
    assert.equal(globalThis.setTimeout, realSetTimeout);
  });
});
