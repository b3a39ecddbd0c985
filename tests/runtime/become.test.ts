// Copyright 2026 the understudy authors. MIT license.
// Specification of context.become / unbecome.

import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { Actor, type ActorSystem, type Behavior, Props } from "../../mod.ts";
import { createSystem, settle } from "./_helpers.ts";

/**
 * Replies with the name of the handler that got each message. Commands:
 * "become:<name>" (replace), "push:<name>" (discardOld: false), "unbecome",
 * "fail".
 */
class Switcher extends Actor<string> {
  constructor(readonly seen: string[]) {
    super();
  }
  handler(name: string): Behavior<string> {
    return (message) => this.handle(name, message);
  }
  handle(name: string, message: string): void {
    if (message === "fail") throw new Error("boom");
    const [command, arg] = message.split(":");
    if (command === "become") this.context.become(this.handler(arg));
    else if (command === "push") {
      this.context.become(this.handler(arg), { discardOld: false });
    } else if (command === "unbecome") this.context.unbecome();
    else this.seen.push(`${name} ${message}`);
  }
  onReceive(message: string): void {
    this.handle("initial", message);
  }
}

describe("context.become", () => {
  let system: ActorSystem;
  beforeEach(() => {
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  function switcher(seen: string[]) {
    return system.actorOf(Props.create(() => new Switcher(seen)), "switcher");
  }

  it("handles the following messages with the new behavior", async () => {
    const seen: string[] = [];
    const ref = switcher(seen);
    for (const m of ["a", "become:B", "b", "c"]) ref.tell(m);
    await settle();
    assert.deepEqual(seen, ["initial a", "B b", "B c"]);
  });

  it("replaces the current behavior by default, so unbecome returns to onReceive", async () => {
    const seen: string[] = [];
    const ref = switcher(seen);
    for (const m of ["become:B", "become:C", "x", "unbecome", "y"]) ref.tell(m);
    await settle();
    assert.deepEqual(seen, ["C x", "initial y"]);
  });

  it("with discardOld: false keeps a stack that unbecome pops one at a time", async () => {
    const seen: string[] = [];
    const ref = switcher(seen);
    for (
      const m of [
        "become:B",
        "push:C",
        "push:D",
        "1",
        "unbecome",
        "2",
        "unbecome",
        "3",
        "unbecome",
        "4",
        "unbecome", // nothing left to pop: stays on onReceive
        "5",
      ]
    ) ref.tell(m);
    await settle();
    assert.deepEqual(seen, ["D 1", "C 2", "B 3", "initial 4", "initial 5"]);
  });

  it("is reset to onReceive by a restart", async () => {
    const seen: string[] = [];
    const ref = switcher(seen);
    for (const m of ["become:B", "push:C", "x", "fail", "y"]) ref.tell(m);
    await settle();
    assert.deepEqual(seen, ["C x", "initial y"]);
  });

  it("treats a throw in a become behavior as a failure", async () => {
    const seen: string[] = [];
    const ref = switcher(seen);
    for (const m of ["become:B", "fail", "after"]) ref.tell(m);
    await settle();
    assert.deepEqual(seen, ["initial after"]);
  });

  it("rejects a behavior that is not a function, naming the value", async () => {
    const errors: unknown[] = [];
    class Bad extends Actor<string> {
      onReceive(): void {
        try {
          this.context.become("not a function" as unknown as Behavior<string>);
        } catch (error) {
          errors.push(error);
        }
      }
    }
    system.actorOf(Props.create(() => new Bad()), "bad").tell("go");
    await settle();
    assert.equal(errors.length, 1);
    assert.ok(errors[0] instanceof TypeError);
    assert.match(errors[0].message, /"behavior" must be a function/);
    assert.match(errors[0].message, /got "not a function"/);
  });
});
