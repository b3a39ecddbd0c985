// Copyright 2026 the understudy authors. MIT license.
// Specification of bounded mailboxes: `mailboxCapacity` on Props and on the
// system. A message past the bound is a dead letter with a reason (and its
// DeadLetter event); the sender's turn goes on, and the other actors too.

import { afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { Actor, ActorSystem, Props } from "../../mod.ts";
import { collectDeadLetters, createSystem, settle } from "./_helpers.ts";

/** Records what it gets; "slow" holds the mailbox for a while. */
class Recorder extends Actor<string> {
  constructor(readonly received: string[]) {
    super();
  }
  onReceive(message: string): void {
    this.received.push(message);
  }
}

describe("mailboxCapacity", () => {
  let system: ActorSystem;
  afterEach(async () => {
    await system.terminate();
  });

  it("on Props: messages past the bound are dead letters with the reason, in order; the rest are handled", async () => {
    system = createSystem();
    const received: string[] = [];
    const dead = collectDeadLetters(system);
    const ref = system.actorOf(
      Props.create(() => new Recorder(received), { mailboxCapacity: 3 }),
      "bounded",
    );
    await settle(); // started and idle
    for (const m of ["a", "b", "c", "d", "e"]) ref.tell(m);
    await settle();
    assert.deepEqual(received, ["a", "b", "c"]);
    assert.deepEqual(dead.map((d) => [d.message, d.recipient, d.reason]), [
      ["d", ref, "mailbox full (capacity 3)"],
      ["e", ref, "mailbox full (capacity 3)"],
    ]);
    // Once drained, the mailbox takes messages again.
    ref.tell("f");
    await settle();
    assert.deepEqual(received, ["a", "b", "c", "f"]);
  });

  it("on the system: the default for every actor whose Props set none; Props override it", async () => {
    system = createSystem({ mailboxCapacity: 1 });
    const small: string[] = [];
    const large: string[] = [];
    const dead = collectDeadLetters(system);
    const a = system.actorOf(Props.create(() => new Recorder(small)), "a");
    const b = system.actorOf(
      Props.create(() => new Recorder(large), { mailboxCapacity: 10 }),
      "b",
    );
    await settle();
    for (const m of ["1", "2", "3"]) {
      a.tell(m);
      b.tell(m);
    }
    await settle();
    assert.deepEqual(small, ["1"]);
    assert.deepEqual(large, ["1", "2", "3"]);
    assert.deepEqual(dead.map((d) => [d.message, d.recipient.path]), [
      ["2", "/user/a"],
      ["3", "/user/a"],
    ]);
  });

  it("an ask past the bound is rejected at once, naming the reason", async () => {
    system = createSystem();
    const ref = system.actorOf(
      Props.create(() => new Recorder([]), { mailboxCapacity: 1 }),
      "bounded",
    );
    await settle();
    ref.tell("first");
    await assert.rejects(
      ref.ask("second", 1_000),
      /mailbox full \(capacity 1\)/,
    );
  });

  it("the sender's turn goes on: a flood from one actor is bounded, and the sender finishes its loop", async () => {
    system = createSystem();
    const received: string[] = [];
    const dead = collectDeadLetters(system);
    const sink = system.actorOf(
      Props.create(() => new Recorder(received), { mailboxCapacity: 100 }),
      "sink",
    );
    let sent = 0;
    class Flooder extends Actor<string> {
      onReceive(): void {
        for (let i = 0; i < 10_000; i++) {
          sink.tell(`m${i}`);
          sent++;
        }
        this.sender?.tell("done");
      }
    }
    const flooder = system.actorOf(
      Props.create(() => new Flooder()),
      "flooder",
    );
    await settle();
    assert.equal(await flooder.ask("go"), "done");
    await settle();
    assert.equal(sent, 10_000);
    assert.equal(received.length + dead.length, 10_000);
    assert.equal(received.length, 100);
    assert.deepEqual(received.slice(0, 2), ["m0", "m1"]);
  });

  it("never refuses the runtime's own notices (a timer's tick) to a full mailbox", async () => {
    system = createSystem();
    const received: string[] = [];
    class Ticker extends Recorder {
      override preStart(): void {
        this.context.timers.startSingleTimer("t", "tick", 0);
      }
    }
    const ref = system.actorOf(
      Props.create(() => new Ticker(received), { mailboxCapacity: 1 }),
      "ticker",
    );
    ref.tell("a"); // fills the mailbox before the actor has started
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(received, ["a", "tick"]);
  });

  it("rejects a capacity that is not a whole number >= 1, naming the option and the value", () => {
    system = createSystem();
    for (const bad of [0, -1, 1.5, NaN, "10"]) {
      assert.throws(
        () =>
          Props.create(() => new Recorder([]), {
            mailboxCapacity: bad as number,
          }),
        (error: unknown) =>
          (error instanceof RangeError || error instanceof TypeError) &&
          /"mailboxCapacity" must be a whole number >= 1 or Infinity/.test(
            error.message,
          ),
      );
      assert.throws(
        () => ActorSystem.create("bad", { mailboxCapacity: bad as number }),
        /create actor system: "mailboxCapacity" must be a whole number >= 1 or Infinity/,
      );
    }
  });
});
