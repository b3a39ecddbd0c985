// Copyright 2026 the understudy authors. MIT license.
// The MessageLedger: every message a test sends is handled once,
// dead-lettered once, or still pending; a breach fails with the seed and
// the first message that broke the rule.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Actor, ActorSystem, Props } from "../../mod.ts";
import {
  LedgerError,
  ManualScheduler,
  MessageLedger,
  seededRandom,
} from "../../src/testing/mod.ts";

function failure(ledger: MessageLedger<unknown>, options = {}): LedgerError {
  try {
    ledger.check(options);
  } catch (error) {
    assert.ok(error instanceof LedgerError);
    return error;
  }
  assert.fail("check() passed");
}

describe("MessageLedger", () => {
  it("passes when every message is handled once or dead-lettered once", () => {
    const ledger = new MessageLedger<number>({ seed: 5 });
    for (const n of [1, 2, 3]) ledger.sent(n);
    ledger.handled(1);
    ledger.deadLettered(2, "recipient stopped");
    ledger.handled(3);
    ledger.check();
    assert.deepEqual(ledger.counts, {
      sent: 3,
      handled: 2,
      deadLettered: 1,
      pending: 0,
      inDoubt: 0,
      problems: 0,
    });
    assert.equal(ledger.fateOf(2), "dead-lettered");
    assert.equal(ledger.fateOf(9), undefined);
  });

  it("fails on a message still pending, naming the seed and the first one in send order", () => {
    const ledger = new MessageLedger<string>({ seed: seededRandom(314) });
    ledger.sent("a");
    ledger.sent("b", "job b");
    ledger.sent("c");
    ledger.handled("a");
    const error = failure(ledger);
    assert.equal(error.seed, 314);
    assert.equal(
      error.message,
      "seed 314: message job b (#2) neither handled nor dead-lettered; sent 3, handled 1, dead-lettered 0, pending 2",
    );
    assert.deepEqual(ledger.pending, ["b", "c"]);
    ledger.check({ pendingAllowed: true });
  });

  it("fails on the first breach in time order, stamped with the clock's time", async () => {
    const scheduler = new ManualScheduler();
    const ledger = new MessageLedger<number>({ seed: 1, clock: scheduler });
    for (const n of [1, 2, 3]) ledger.sent(n);
    await scheduler.timePasses(10);
    ledger.deadLettered(3, "x");
    ledger.deadLettered(3, "y");
    await scheduler.timePasses(5);
    ledger.handled(1);
    ledger.handled(1);
    ledger.handled(3);
    ledger.handled(8);
    ledger.sent(2);
    assert.deepEqual(ledger.problems, [
      "message 3 (#3) dead-lettered twice (x; y) at 10 ms",
      "message 1 (#1) handled twice at 15 ms",
      "message 3 (#3) handled after it was dead-lettered (x) at 15 ms",
      "message 8 handled, but never sent at 15 ms",
      "message 2 (#2) sent twice (keys must be unique) at 15 ms",
    ]);
    const error = failure(ledger, { pendingAllowed: true });
    assert.equal(
      error.problem,
      "message 3 (#3) dead-lettered twice (x; y) at 10 ms",
    );
    assert.match(error.message, /^seed 1: .* \(and 4 more problems\); sent 3/);
  });

  it("flags a dead letter after the message was handled", () => {
    const ledger = new MessageLedger<number>({ seed: 2 });
    ledger.sent(1);
    ledger.handled(1);
    ledger.deadLettered(1, "late");
    assert.deepEqual(ledger.problems, [
      "message 1 (#1) dead-lettered (late) after it was handled",
    ]);
    assert.equal(ledger.counts.handled, 0, "a breach counts in no state");
  });

  it("accepts a handling beside a dead letter in doubt, but not two handlings or two dead letters", () => {
    const ledger = new MessageLedger<number>({ seed: 4 });
    for (const n of [1, 2, 3, 4]) ledger.sent(n);
    ledger.handled(1);
    ledger.deadLetteredInDoubt(1, "worker died");
    ledger.deadLetteredInDoubt(2, "worker died");
    ledger.deadLetteredInDoubt(3, "worker died");
    ledger.handled(3);
    ledger.handled(3);
    ledger.deadLetteredInDoubt(4, "worker died");
    ledger.deadLettered(4, "again");
    assert.deepEqual(ledger.problems, [
      "message 3 (#3) handled twice",
      "message 4 (#4) dead-lettered twice (worker died; again)",
    ]);
    const c = ledger.counts;
    assert.deepEqual([c.handled, c.deadLettered, c.inDoubt], [1, 1, 4]);
  });

  it("counts a system's dead letters for the messages it names", async () => {
    const scheduler = new ManualScheduler();
    const system = ActorSystem.create("ledger", { scheduler, logLevel: "off" });
    try {
      const ledger = new MessageLedger<number>({ seed: 3, clock: scheduler });
      const stop = ledger.watchDeadLetters(
        system,
        (m) => (typeof m === "number" ? m : undefined),
      );
      class Worker extends Actor<number> {
        onReceive(n: number): void {
          ledger.handled(n);
          if (n === 2) this.context.stop(this.self);
        }
      }
      const worker = system.actorOf(Props.create(() => new Worker()));
      for (const n of [1, 2, 3, 4]) worker.tell(ledger.sent(n));
      system.deadLetters.tell("not the test's");
      await scheduler.timePasses(0);
      ledger.check();
      assert.deepEqual(ledger.counts, {
        sent: 4,
        handled: 2,
        deadLettered: 2,
        pending: 0,
        inDoubt: 0,
        problems: 0,
      });
      stop();
      ledger.sent(5);
      system.deadLetters.tell(5);
      await scheduler.timePasses(0);
      assert.deepEqual(ledger.pending, [5], "no longer counted");
    } finally {
      await system.terminate();
    }
  });

  it("refuses bad options at the call, naming them", () => {
    assert.throws(
      () => new MessageLedger(undefined as never),
      /"options" must be an object/,
    );
    assert.throws(
      () => new MessageLedger({ seed: "1" as never }),
      /"seed" must be a seed \(a whole number\) or a SeededRandom/,
    );
    assert.throws(
      () => new MessageLedger({ seed: 1, clock: {} as never }),
      /"clock" must be an object with now\(\)/,
    );
    const system = { eventStream: {} } as never;
    assert.throws(
      () => new MessageLedger({ seed: 1 }).watchDeadLetters(system, 1 as never),
      /"keyOf" must be a function/,
    );
  });
});
