// @runtimes deno bun node browser
// Copyright 2026 the understudy authors. MIT license.
// A Transfer whose objects can only move, never be copied (a MessagePort),
// beside a message that cannot be cloned: the batch cannot go as one, and
// each message goes on its own with its own objects. (workerd has no
// MessageChannel, hence the runtimes above.)
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Actor } from "../../src/runtime/actor.ts";
import { ActorSystem } from "../../src/runtime/actor_system.ts";
import { DeadLetter } from "../../src/runtime/event_stream.ts";
import { Transfer } from "../../src/worker/transfer.ts";
import { spawnInWorker, workerProps } from "../../src/worker/worker_props.ts";
import { fakeWorkers } from "./_fake_endpoint.ts";

/** Answers whether its message brought a port, and closes it. */
class PortTaker extends Actor<unknown> {
  onReceive(message: unknown): void {
    const port = (message as { port?: MessagePort }).port;
    this.sender?.tell(port === undefined ? "no port" : "got port");
    port?.close();
  }
}

describe("a Transfer of a MessagePort", () => {
  it("crosses though a message of the same turn cannot be cloned, which alone is a dead letter", async () => {
    const fakes = fakeWorkers({ PortTaker: () => new PortTaker() });
    const system = ActorSystem.create("main", { logLevel: "off" });
    const dead: DeadLetter[] = [];
    system.eventStream.subscribe(DeadLetter, (letter) => dead.push(letter));
    const worker = system.actorOf(workerProps({ create: fakes.create }));
    const { port1, port2 } = new MessageChannel();
    try {
      const taker = await spawnInWorker<unknown>(worker, "taker", "PortTaker");
      await taker.ask("ready");
      const bad = { run: () => 1 };
      taker.tell(bad); // cannot be cloned: the batch cannot go as one
      const answer = taker.ask(new Transfer({ port: port2 }, [port2]), 5_000);
      assert.equal(await answer, "got port");
      assert.deepEqual(dead.map((letter) => letter.message), [bad]);
      assert.match(dead[0].reason, /^message could not be cloned/);
    } finally {
      port1.close();
      await system.terminate();
      await fakes.closed();
    }
  });
});
