// Copyright 2026 the understudy authors. MIT license.
// Specification of context.stash / unstashAll and the Props stashCapacity.

import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  type ActorContext,
  type ActorRef,
  type ActorSystem,
  Props,
  UndeliveredError,
} from "../../mod.ts";
import {
  collectDeadLetters,
  createSystem,
  recorderProps,
  settle,
} from "./_helpers.ts";

/**
 * Stashes everything until "open"; then unstashes and records messages with
 * their senders. "close" starts stashing again; "fail" throws.
 */
class Gate extends Actor<string> {
  #open = false;
  constructor(
    readonly seen: [string, ActorRef<unknown> | undefined][],
    readonly stashed: boolean[] = [],
  ) {
    super();
  }
  onReceive(message: string): void {
    if (message === "fail") throw new Error("boom");
    if (message === "open") {
      this.#open = true;
      this.context.unstashAll();
    } else if (message === "close") {
      this.#open = false;
    } else if (!this.#open) {
      this.stashed.push(this.context.stash());
    } else {
      this.seen.push([message, this.sender]);
    }
  }
}

describe("context.stash", () => {
  let system: ActorSystem;
  beforeEach(() => {
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  it("keeps messages aside and unstashAll replays them in order, with their senders, before later ones", async () => {
    const seen: [string, ActorRef<unknown> | undefined][] = [];
    const gate = system.actorOf(Props.create(() => new Gate(seen)), "gate");
    const alice = system.actorOf(recorderProps(), "alice");
    const bob = system.actorOf(recorderProps(), "bob");
    gate.tell("m1", alice);
    gate.tell("m2", bob);
    gate.tell("m3");
    gate.tell("open");
    gate.tell("m4", alice);
    await settle();
    assert.deepEqual(seen, [["m1", alice], ["m2", bob], ["m3", undefined], [
      "m4",
      alice,
    ]]);
  });

  it("puts unstashed messages ahead of messages already waiting in the mailbox", async () => {
    const seen: [string, ActorRef<unknown> | undefined][] = [];
    const gate = system.actorOf(Props.create(() => new Gate(seen)), "gate");
    // All told at once: m3 is already in the mailbox when "open" unstashes m1 and m2.
    for (const m of ["m1", "m2", "open", "m3", "close", "m4", "open", "m5"]) {
      gate.tell(m);
    }
    await settle();
    assert.deepEqual(seen.map(([m]) => m), ["m1", "m2", "m3", "m4", "m5"]);
  });

  it("is bounded by stashCapacity: over it the message goes to dead letters with reason 'stash overflow'", async () => {
    const dead = collectDeadLetters(system);
    const seen: [string, ActorRef<unknown> | undefined][] = [];
    const stashed: boolean[] = [];
    const gate = system.actorOf(
      Props.create(() => new Gate(seen, stashed), { stashCapacity: 2 }),
      "gate",
    );
    const alice = system.actorOf(recorderProps(), "alice");
    gate.tell("m1");
    gate.tell("m2");
    gate.tell("m3", alice);
    gate.tell("open");
    await settle();
    assert.deepEqual(stashed, [true, true, false]);
    assert.deepEqual(seen.map(([m]) => m), ["m1", "m2"]);
    assert.equal(dead.length, 1);
    assert.equal(dead[0].message, "m3");
    assert.equal(dead[0].sender, alice);
    assert.equal(dead[0].recipient, gate);
    assert.equal(dead[0].reason, "stash overflow");
  });

  it("fails an ask whose message overflows the stash at once", async () => {
    const gate = system.actorOf(
      Props.create(() => new Gate([]), { stashCapacity: 0 }),
      "gate",
    );
    await assert.rejects(
      gate.ask("question", 60_000),
      (e: unknown) =>
        e instanceof UndeliveredError && /stash overflow/.test(e.message),
    );
  });

  it("frees capacity once unstashed", async () => {
    const dead = collectDeadLetters(system);
    const seen: [string, ActorRef<unknown> | undefined][] = [];
    const gate = system.actorOf(
      Props.create(() => new Gate(seen), { stashCapacity: 2 }),
      "gate",
    );
    for (const m of ["a", "b", "open", "close", "c", "d", "open"]) gate.tell(m);
    await settle();
    assert.deepEqual(seen.map(([m]) => m), ["a", "b", "c", "d"]);
    assert.equal(dead.length, 0);
  });

  it("keeps stashed messages across a restart, ahead of the mailbox", async () => {
    const seen: [string, ActorRef<unknown> | undefined][] = [];
    const gate = system.actorOf(Props.create(() => new Gate(seen)), "gate");
    for (const m of ["m1", "m2", "fail", "m3", "open"]) gate.tell(m);
    await settle();
    // The fresh instance gets m1 and m2 back first (and stashes them again,
    // as it starts closed), then m3; "open" releases all three.
    assert.deepEqual(seen.map(([m]) => m), ["m1", "m2", "m3"]);
  });

  it("sends stashed messages to dead letters when the actor stops", async () => {
    const dead = collectDeadLetters(system);
    class StashThenStop extends Actor<string> {
      onReceive(message: string): void {
        if (message === "stop") this.context.stopSelf();
        else this.context.stash();
      }
    }
    const ref = system.actorOf(Props.create(() => new StashThenStop()), "s");
    const alice = system.actorOf(recorderProps(), "alice");
    ref.tell("kept 1", alice);
    ref.tell("kept 2");
    ref.tell("stop");
    await settle();
    assert.deepEqual(
      dead.map((d) => [d.message, d.sender, d.reason]),
      [["kept 1", alice, "recipient stopped"], [
        "kept 2",
        undefined,
        "recipient stopped",
      ]],
    );
  });

  it("unstashAll() outside a turn keeps the stashed messages ahead of one sent meanwhile", async () => {
    // As a WebSocket's onopen does: the actor stashes until a callback
    // outside any turn opens it. A message sent to the idle actor just
    // before (handed over with its turn, not yet processed) is newer than
    // the stashed ones, and must come after them.
    const seen: string[] = [];
    let open = false;
    let context: ActorContext<string> | undefined;
    class Waiting extends Actor<string> {
      override preStart(): void {
        context = this.context;
      }
      onReceive(message: string): void {
        if (!open) this.context.stash();
        else seen.push(message);
      }
    }
    const ref = system.actorOf(Props.create(() => new Waiting()), "waiting");
    ref.tell("first");
    await settle();
    ref.tell("second");
    open = true;
    context!.unstashAll();
    await settle();
    assert.deepEqual(seen, ["first", "second"]);
  });

  it("rejects an invalid stashCapacity, naming the option and the value", () => {
    for (const bad of [-1, 1.5, NaN, "10"]) {
      assert.throws(
        () =>
          Props.create(() => new Gate([]), { stashCapacity: bad as number }),
        (e: unknown) =>
          // A number out of range is a RangeError, a string a TypeError.
          e instanceof (typeof bad === "number" ? RangeError : TypeError) &&
          /"stashCapacity" must be a whole number >= 0 or Infinity/.test(
            e.message,
          ) &&
          e.message.includes(
            `(got ${typeof bad === "string" ? `"${bad}"` : String(bad)})`,
          ),
      );
    }
  });
});
