import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Actor, type ActorRef, ActorSystem, Props } from "../../mod.ts";
import { ManualScheduler, TestProbe } from "../../src/testing/mod.ts";

// The actor under test asks a backend for a price and answers in euros.
class Prices extends Actor<string> {
  constructor(private readonly backend: ActorRef<string>) {
    super();
  }
  async onReceive(item: string): Promise<void> {
    const replyTo = this.sender;
    if (item === "quit") return this.context.stopSelf();
    const cents = await this.backend.ask<number>(item, 2_000);
    replyTo?.tell(`${item}: €${(cents / 100).toFixed(2)}`, this.self);
  }
}

describe("Prices, with a probe for its backend", () => {
  it("asks the backend, answers the client, and stops when told", async () => {
    const system = ActorSystem.create("test", {
      scheduler: new ManualScheduler(),
      logLevel: "off",
    });
    const backend = new TestProbe<string>(system, "backend");
    const client = new TestProbe<string>(system, "client");
    const prices = system.actorOf(
      Props.create(() => new Prices(backend.ref)),
      "prices",
    );

    client.send(prices, "tea");
    await backend.expectMessage("tea"); // the question reached the backend
    backend.reply(250); // answers the ask: lastSender is its temporary ref
    assert.equal(
      await client.expectMessage((m) => m.startsWith("tea")),
      "tea: €2.50",
    );
    assert.equal(client.lastSender, prices);

    // No answer from the backend: the ask times out after 2 virtual seconds,
    // the handler fails, and the client hears nothing.
    client.send(prices, "coffee");
    await backend.expectMessage("coffee");
    await client.expectNoMessage(5_000);

    await assert.rejects(client.expectMessage("anything", 100), {
      name: "ExpectationError",
      message: /timed out after 100 ms .*no message arrived/,
    });

    client.send(prices, "quit");
    await client.expectTerminated(prices);
    await system.terminate();
  });
});
