// Copyright 2026 the understudy authors. MIT license.
// FlakyEndpoint and flakyWorkers: the worker adapter of the flaky link,
// over the fake worker of the worker tests (runs everywhere, workerd
// included, which has no MessageChannel).
import { workerBackoff } from "../../src/worker/worker_backoff.ts";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ActorSystem } from "../../src/runtime/actor_system.ts";
import {
  FlakyEndpoint,
  flakyWorkers,
  ManualScheduler,
  seededRandom,
} from "../../src/testing/mod.ts";
import { spawnInWorker, workerProps } from "../../src/worker/worker_props.ts";
import { FakeEndpoint, fakeWorkers } from "../worker/_fake_endpoint.ts";
import { Echo } from "../worker/_actors.ts";

function pair() {
  const a = new FakeEndpoint();
  const b = new FakeEndpoint();
  a.other = b;
  b.other = a;
  return { a, b };
}

const microtasks = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("FlakyEndpoint", () => {
  it("clones at the call, delays each way in order, and passes start() and other events through", async () => {
    const scheduler = new ManualScheduler();
    const { a, b } = pair();
    const flaky = new FlakyEndpoint(a, {
      random: seededRandom(1),
      scheduler,
      outbound: { delayMs: [0, 40] },
      inbound: { delayMs: 10 },
    });
    const heardByB: unknown[] = [];
    b.addEventListener("message", (e) => heardByB.push(e.data));
    const heardByA: unknown[] = [];
    const listener = (e: { data: unknown }) => heardByA.push(e.data);
    flaky.addEventListener("message", listener);
    const message = { n: 1 };
    flaky.postMessage(message);
    message.n = 99; // too late: cloned at the call
    for (let n = 2; n <= 20; n++) flaky.postMessage({ n });
    assert.throws(
      () => flaky.postMessage(() => {}),
      /could not be cloned|DataCloneError/i,
    );
    b.postMessage("to a");
    await microtasks();
    await scheduler.timePasses(9);
    assert.deepEqual(heardByA, []);
    await scheduler.timePasses(40);
    await microtasks();
    assert.deepEqual(
      heardByB,
      Array.from({ length: 20 }, (_, i) => ({ n: i + 1 })),
    );
    assert.deepEqual(heardByA, ["to a"]);
    let errors = 0;
    flaky.addEventListener("error", () => errors++);
    a.fireError("boom");
    assert.equal(errors, 1);
    flaky.removeEventListener("message", listener);
    assert.equal(a.listeners.get("message")?.size ?? 0, 0);
    flaky.start();
  });

  it("loses what is in flight when cut, and nothing more crosses", async () => {
    const scheduler = new ManualScheduler();
    const { a, b } = pair();
    const reasons: string[] = [];
    const flaky = new FlakyEndpoint(a, {
      random: seededRandom(2),
      scheduler,
      outbound: { delayMs: 10 },
      onCut: (reason) => reasons.push(reason),
    });
    const heard: unknown[] = [];
    b.addEventListener("message", (e) => heard.push(e.data));
    flaky.postMessage("in flight");
    flaky.cut("gone");
    flaky.cut("again");
    flaky.postMessage("after");
    assert.equal(scheduler.pendingTimers, 0);
    await scheduler.timePasses(20);
    await microtasks();
    assert.deepEqual(heard, []);
    assert.deepEqual(reasons, ["gone"]);
    assert.equal(flaky.isCut, true);
  });

  it("refuses bad input at the call, naming it", () => {
    const scheduler = new ManualScheduler();
    const random = seededRandom(1);
    assert.throws(
      () => new FlakyEndpoint({} as never, { random, scheduler }),
      /Cannot create FlakyEndpoint: "inner" must be an endpoint/,
    );
    assert.throws(
      () =>
        new FlakyEndpoint(pair().a, { random, scheduler, cutWhen: 1 as never }),
      /"cutWhen" must be a function/,
    );
    assert.throws(
      () => flakyWorkers(() => ({}), { random, scheduler, loss: 1.5 }),
      /Cannot make flaky workers: "loss" must be a probability in \[0, 1\]/,
    );
  });
});

describe("flakyWorkers", () => {
  it("makes every worker's endpoint flaky, and loses a worker: its owner is told it died, the next one takes over", async () => {
    const scheduler = new ManualScheduler();
    const fakes = fakeWorkers({ Echo: () => new Echo() });
    const flaky = flakyWorkers(fakes.create, {
      random: seededRandom(3),
      scheduler,
      outbound: { delayMs: 5 },
    });
    const system = ActorSystem.create("main", { scheduler, logLevel: "off" });
    try {
      const worker = system.actorOf(
        workerProps({
          create: flaky.create,
          backoff: workerBackoff({ minBackoff: 10, maxBackoff: 10 }),
        }),
      );
      let echo: { ask<R>(m: unknown, ms: number): Promise<R> } | undefined;
      spawnInWorker(worker, "echo", "Echo", [], 10_000).then((
        ref,
      ) => (echo = ref));
      while (echo === undefined) await scheduler.timePasses(5);
      const answer = echo.ask<unknown>("hello", 10_000);
      await scheduler.timePasses(20);
      assert.equal(await answer, "hello");
      assert.equal(flaky.endpoints.length, 1);
      flaky.lose();
      assert.equal(flaky.lost, 1);
      await scheduler.timePasses(50); // backoff, then worker 2
      assert.equal(flaky.endpoints.length, 2);
      const again = echo.ask<unknown>("again", 10_000);
      await scheduler.timePasses(50);
      assert.equal(await again, "again");
      assert.equal(flaky.endpoints[0].isCut, true);
    } finally {
      const terminated = system.terminate();
      await scheduler.timePasses(1_000);
      await terminated;
      await fakes.closed();
    }
    assert.equal(flaky.lost, 1, "a terminated worker is not lost");
    assert.equal(flaky.endpoints.every((e) => e.isCut), true);
  });
});
