import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Actor, ActorSystem, Props, ReceiveTimeout } from "../../mod.ts";
import { ManualScheduler } from "../../src/testing/mod.ts";

// A session that reminds itself every 10 s and closes after 60 s of silence.
class Session extends Actor<string | ReceiveTimeout> {
  readonly seen: string[];
  constructor(seen: string[]) {
    super();
    this.seen = seen;
  }
  override preStart(): void {
    this.context.timers.startTimerWithFixedDelay("tick", "tick", 10_000);
    this.context.setReceiveTimeout(60_000);
  }
  onReceive(message: string | ReceiveTimeout): void {
    if (message === ReceiveTimeout) this.context.stopSelf();
    else this.seen.push(`${message} at ${this.context.system.scheduler.now()}`);
  }
}

describe("a session in virtual time", () => {
  it("ticks every 10 s and closes after 60 s of silence", async () => {
    const scheduler = new ManualScheduler();
    const system = ActorSystem.create("test", { scheduler, logLevel: "off" });
    const seen: string[] = [];
    system.actorOf(Props.create(() => new Session(seen)), "session");

    await scheduler.timePasses(0); // the actor starts: its timers are armed
    assert.equal(scheduler.nextDueInMs(), 10_000);
    await scheduler.timePasses(25_000); // fires at 10 s and 20 s, in order
    assert.deepEqual(seen, ["tick at 10000", "tick at 20000"]);
    assert.equal(scheduler.now(), 25_000);

    await scheduler.timePasses(60_000); // its own ticks do not count as messages
    // Ticks at 30, 40 and 50 s; at 60 s two timers fall due, and the one
    // started first (the receive timeout, armed at 0 s) fires first.
    assert.deepEqual(seen.slice(2), [
      "tick at 30000",
      "tick at 40000",
      "tick at 50000",
    ]);
    assert.equal(scheduler.pendingTimers, 0); // stopping cancelled both timers
    await system.terminate();
  });
});
