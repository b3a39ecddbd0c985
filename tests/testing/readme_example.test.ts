import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  ActorSystem,
  BackoffSupervisor,
  DeadLetter,
  Props,
} from "../../mod.ts";
import { ManualScheduler, TestProbe } from "../../src/testing/mod.ts";

// The actor under test: answers queries through a database client that
// fails now and then; a BackoffSupervisor restarts it after a failure.
interface Client {
  query(sql: string): string;
}
class Query {
  constructor(readonly sql: string) {}
}
class Repository extends Actor<Query> {
  constructor(private readonly client: Client) {
    super();
  }
  onReceive(message: Query): void {
    this.sender?.tell(this.client.query(message.sql));
  }
}

describe("Repository under a BackoffSupervisor", () => {
  it("comes back after its backoff and answers the queries kept meanwhile", async () => {
    let failuresLeft = 1;
    const client: Client = {
      query(sql) {
        if (failuresLeft-- > 0) throw new Error("connection reset");
        return `rows for ${sql}`;
      },
    };
    const scheduler = new ManualScheduler();
    const system = ActorSystem.create("test", { scheduler, logLevel: "off" });
    const deadLetters: string[] = [];
    system.eventStream.subscribe(
      DeadLetter,
      (dead) => deadLetters.push(dead.reason),
    );
    const probe = new TestProbe<string>(system);
    const repository = system.actorOf(BackoffSupervisor.props({
      childProps: Props.create(() => new Repository(client)),
      minBackoff: 1_000,
      maxBackoff: 30_000,
      randomFactor: 0, // exact delays
    }));

    probe.send(repository, new Query("select 1")); // the child fails and stops
    await probe.expectNoMessage(999); // nothing while it backs off…
    probe.send(repository, new Query("select 2")); // …this one is kept meanwhile
    await probe.expectMessage("rows for select 2", 1_000);
    // Respawned at 1 s; kept messages follow after the 50 ms drain grace.
    assert.equal(scheduler.now(), 1_050);
    // The message that failed is not retried (see BackoffSender): it is a dead letter.
    assert.deepEqual(deadLetters, [
      "processing failed: Error: connection reset",
    ]);

    await system.terminate();
    assert.equal(scheduler.pendingTimers, 0); // no timer left behind
  });
});
