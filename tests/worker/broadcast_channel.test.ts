// @runtimes deno bun node browser
// Talks through BroadcastChannels, which workerd does not have.
// Copyright 2026 the understudy authors. MIT license.
// The worker transport over a pair of BroadcastChannels with one name (as
// between two tabs, or a page and a worker it did not start): the server
// on one, the gate on the other, in one thread here. A channel delivers to
// every other channel of its name, never to itself, so a pair is a
// point-to-point link.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ActorSystem } from "../../src/runtime/actor_system.ts";
import { DeadLetter } from "../../src/runtime/event_stream.ts";
import type { Endpoint } from "../../src/worker/endpoint.ts";
import { serveWorker } from "../../src/worker/serve_worker.ts";
import { spawnInWorker, workerProps } from "../../src/worker/worker_props.ts";
import { collecting, Echo } from "./_actors.ts";
import { until } from "./_fake_endpoint.ts";

let channels = 0;

describe("a BroadcastChannel as the endpoint", () => {
  it("carries tells, asks, senders and dead letters, and closes with the system", async () => {
    const name = `understudy-test-${++channels}-${Math.random()}`;
    const inside = new BroadcastChannel(name);
    const server = serveWorker(inside as unknown as Endpoint, {
      actors: { Echo: () => new Echo() },
    });
    const main = new BroadcastChannel(name);
    let terminated = false;
    const system = ActorSystem.create("tabs", { logLevel: "off" });
    const dead: DeadLetter[] = [];
    system.eventStream.subscribe(DeadLetter, (letter) => dead.push(letter));
    try {
      const gate = system.actorOf(
        workerProps({
          create: () => ({
            endpoint: main as unknown as Endpoint,
            terminate: () => {
              terminated = true;
              main.close();
            },
          }),
        }),
        "other-tab",
      );
      const echo = await spawnInWorker<unknown>(gate, "echo", "Echo");
      assert.equal(await echo.ask("hello"), "hello");
      const { seen, collector } = collecting(system);
      for (let n = 0; n < 100; n++) echo.tell(n, collector);
      await until(() => seen.length === 100);
      assert.deepEqual(seen, [...Array(100).keys()]);
      const bad = { run: () => 1 };
      echo.tell(bad, collector);
      await until(() => dead.some((letter) => letter.message === bad));
      const letter = dead.find((letter) => letter.message === bad)!;
      assert.match(letter.reason, /^message could not be cloned/);
      assert.equal(letter.recipient, echo);
    } finally {
      await system.terminate();
      await server.close();
      inside.close();
    }
    assert.equal(terminated, true);
  });
});
