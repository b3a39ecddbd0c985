// @runtimes deno node bun
// Imports node:util (its inspect is what Node's console.log prints with); a
// browser's console shows objects as trees of its own, and workerd has no
// node:util without nodejs_compat.
// Copyright 2026 the understudy authors. MIT license.
// Specification of how refs and systems print: `console.log(ref)` shows
// `ActorRef(/user/name)`, not the runtime's internals, in Node, Deno and Bun
// (through the registered inspect symbols; issue "A newcomer's first hour").

import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { inspect as nodeInspect } from "node:util";
import { Actor, type ActorSystem, Props } from "../../mod.ts";
import { createSystem, settle } from "./_helpers.ts";

type Inspect = (value: unknown) => string;

/** Every inspector this runtime's console uses: node:util's, plus Deno's or Bun's own. */
function inspectors(): [string, Inspect][] {
  const found: [string, Inspect][] = [["node:util", (v) => nodeInspect(v)]];
  const runtime = globalThis as {
    Deno?: { inspect: Inspect };
    Bun?: { inspect: Inspect };
  };
  if (runtime.Deno !== undefined) {
    found.push(["Deno.inspect", (v) => runtime.Deno!.inspect(v)]);
  }
  if (runtime.Bun !== undefined) {
    found.push(["Bun.inspect", (v) => runtime.Bun!.inspect(v)]);
  }
  return found;
}

class Parent extends Actor<string> {
  override preStart(): void {
    this.context.actorOf(Props.create(() => new Child()), "child");
  }
  onReceive(): void {}
}

class Child extends Actor<string> {
  onReceive(): void {}
}

describe("printing refs and systems", () => {
  let system: ActorSystem;
  beforeEach(() => {
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  for (const [name, inspect] of inspectors()) {
    it(`${name} prints a ref as ActorRef(path) and a system as ActorSystem(name)`, async () => {
      const parent = system.actorOf(Props.create(() => new Parent()), "p");
      await settle();
      assert.equal(inspect(parent), "ActorRef(/user/p)");
      assert.equal(inspect(system), "ActorSystem(test)");
      assert.equal(inspect(system.deadLetters), "ActorRef(/deadLetters)");
      const child = system.actorOf(Props.create(() => new Child()), "q");
      assert.equal(String(child), "ActorRef(/user/q)");
      // Nested in an object or an array, each is one short token.
      const nested = inspect({ refs: [parent, child], system });
      assert.match(nested, /ActorRef\(\/user\/p\)/);
      assert.match(nested, /ActorRef\(\/user\/q\)/);
      assert.match(nested, /ActorSystem\(test\)/);
      assert.ok(nested.split("\n").length <= 7, nested);
      assert.doesNotMatch(nested, /mailbox|dispatcher|core|flags/i);
    });
  }

  it("prints the refs an actor sees (children, ask's temporary sender) the same way", async () => {
    let seen: string[] = [];
    class Asked extends Actor<string> {
      override preStart(): void {
        this.context.actorOf(Props.create(() => new Child()), "kid");
      }
      onReceive(): void {
        seen = inspectors().flatMap(([, inspect]) => [
          inspect(this.context.child("kid")),
          inspect(this.sender),
        ]);
        this.sender?.tell("done");
      }
    }
    const asked = system.actorOf(Props.create(() => new Asked()), "asked");
    await asked.ask("who?");
    assert.ok(seen.length >= 2);
    for (let i = 0; i < seen.length; i += 2) {
      assert.equal(seen[i], "ActorRef(/user/asked/kid)");
      assert.match(seen[i + 1], /^ActorRef\(\/temp\/ask-\d+\)$/);
    }
  });
});
