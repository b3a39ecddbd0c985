// Copyright 2026 the understudy authors. MIT license.
// Specification of actor names: validity, uniqueness among siblings,
// generated names, and finding children by name.

import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { Actor, type ActorRef, type ActorSystem, Props } from "../../mod.ts";
import { createSystem, fnProps, recorderProps, settle } from "./_helpers.ts";

describe("Actor names", () => {
  let system: ActorSystem;
  beforeEach(() => {
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  it("rejects invalid names with a TypeError naming the value and what is expected", () => {
    const invalid: [unknown, string][] = [
      ["a/b", '"a/b"'],
      ["/", '"/"'],
      ["$reserved", '"$reserved"'],
      ["", '""'],
      [" ", '" "'],
      ["two words", '"two words"'],
      ["tab\there", '"tab\\there"'],
      ["trailing\n", '"trailing\\n"'],
      [42, "42"],
      [null, "null"],
      [{}, "an object (Object)"],
    ];
    for (const [name, shown] of invalid) {
      assert.throws(
        () => system.actorOf(recorderProps(), name as string),
        (e: unknown) =>
          e instanceof TypeError &&
          e.message.startsWith(
            'Cannot create actor: "name" must be a non-empty string without "/" or whitespace, not starting with "$"',
          ) &&
          e.message.endsWith(`(got ${shown})`),
        `name ${shown}`,
      );
    }
  });

  it("accepts names with other characters, including $ after the first", () => {
    for (const name of ["a", "worker-1", "a$b", "ünïcödé", "a.b", "A_B:c@d"]) {
      assert.equal(system.actorOf(recorderProps(), name).path, `/user/${name}`);
    }
  });

  it("rejects a name taken by a live sibling with a clear TypeError", () => {
    system.actorOf(recorderProps(), "worker");
    assert.throws(
      () => system.actorOf(recorderProps(), "worker"),
      (e: unknown) =>
        e instanceof TypeError && /"worker"/.test(e.message) &&
        /already taken by a live child of \/user \(expected a name unique among its children\)/
          .test(e.message),
    );
  });

  it("rejects a duplicate child name inside an actor too", async () => {
    const errors: unknown[] = [];
    class Parent extends Actor<string> {
      override preStart(): void {
        this.context.actorOf(recorderProps(), "kid");
        try {
          this.context.actorOf(recorderProps(), "kid");
        } catch (error) {
          errors.push(error);
        }
      }
      onReceive(): void {}
    }
    system.actorOf(Props.create(() => new Parent()), "parent");
    await settle();
    assert.equal(errors.length, 1);
    assert.match(
      String(errors[0]),
      /"kid" is already taken by a live child of \/user\/parent/,
    );
  });

  it("allows the same name under different parents", async () => {
    const paths: string[] = [];
    class Parent extends Actor<string> {
      override preStart(): void {
        paths.push(this.context.actorOf(recorderProps(), "same").path);
      }
      onReceive(): void {}
    }
    system.actorOf(Props.create(() => new Parent()), "p1");
    system.actorOf(Props.create(() => new Parent()), "p2");
    await settle();
    assert.deepEqual(paths.sort(), ["/user/p1/same", "/user/p2/same"]);
  });

  it("frees a name once its actor has stopped", async () => {
    const first = system.actorOf(
      fnProps((a) => a.context.stopSelf()),
      "reused",
    );
    first.tell("stop");
    await settle();
    const second = system.actorOf(recorderProps(), "reused");
    assert.notEqual(second, first);
    assert.equal(second.path, "/user/reused");
  });

  it("generates a unique name when none is given, starting with $", () => {
    const a = system.actorOf(recorderProps());
    const b = system.actorOf(recorderProps());
    assert.match(a.path, /^\/user\/\$[^/]+$/);
    assert.notEqual(a.path, b.path);
  });

  it("generates distinct paths for 60,000 unnamed siblings", async () => {
    const paths = new Set<string>();
    for (let i = 0; i < 60_000; i++) {
      paths.add(system.actorOf(recorderProps()).path);
    }
    assert.equal(paths.size, 60_000);
    await settle();
  });

  it("generates names that do not collide with explicit ones", () => {
    const generated = system.actorOf(recorderProps());
    const name = generated.path.slice("/user/".length);
    assert.throws(() => system.actorOf(recorderProps(), name), TypeError);
  });
});

describe("context.child and context.children", () => {
  it("find live children by name, in creation order", async () => {
    const system = createSystem();
    try {
      const snapshots: string[][] = [];
      const found: (ActorRef<unknown> | undefined)[] = [];
      class Parent extends Actor<string> {
        override preStart(): void {
          for (const name of ["c", "a", "b"]) {
            this.context.actorOf(fnProps((k) => k.context.stopSelf()), name);
          }
        }
        onReceive(message: string): void {
          if (message === "stop a") this.context.child("a")?.tell("stop");
          else {
            snapshots.push(this.context.children.map((c) => c.path));
            found.push(this.context.child("a"), this.context.child("zzz"));
          }
        }
      }
      const parent = system.actorOf(Props.create(() => new Parent()), "parent");
      parent.tell("look");
      await settle();
      parent.tell("stop a");
      await settle();
      parent.tell("look");
      await settle();
      assert.deepEqual(snapshots, [
        ["/user/parent/c", "/user/parent/a", "/user/parent/b"],
        ["/user/parent/c", "/user/parent/b"],
      ]);
      assert.equal(found[0]?.path, "/user/parent/a");
      assert.deepEqual(found.slice(1), [undefined, undefined, undefined]);
    } finally {
      await system.terminate();
    }
  });

  it("keep creation order and lookups as many children stop and new ones start", async () => {
    const system = createSystem();
    try {
      let postStops = 0;
      class Child extends Actor<string> {
        onReceive(): void {}
        override postStop(): void {
          postStops++;
        }
      }
      const childProps = Props.create(() => new Child());
      type Command =
        | { spawn: (string | undefined)[] }
        | { stop: (name: string, index: number) => boolean }
        | "look";
      const looks: { names: string[]; found: (string | undefined)[] }[] = [];
      const created: string[] = [];
      const nameOf = (ref: ActorRef<unknown>) =>
        ref.path.slice(ref.path.lastIndexOf("/") + 1);
      class Parent extends Actor<Command> {
        onReceive(command: Command): void {
          if (command === "look") {
            looks.push({
              names: this.context.children.map(nameOf),
              found: created.map((name) =>
                this.context.child(name) === undefined ? undefined : name
              ),
            });
          } else if ("spawn" in command) {
            for (const name of command.spawn) {
              created.push(nameOf(this.context.actorOf(childProps, name)));
            }
          } else {
            this.context.children.forEach((child, index) => {
              if (command.stop(nameOf(child), index)) this.context.stop(child);
            });
          }
        }
      }
      const parent = system.actorOf(Props.create(() => new Parent()), "parent");
      // 120 children, every third one named. The first look also finds
      // generated names, so later lookups use an index kept up to date.
      for (let i = 0; i < 40; i++) {
        parent.tell({ spawn: [undefined, undefined, `n${i}`] });
      }
      parent.tell("look");
      await settle();
      assert.equal(created.length, 120);
      assert.deepEqual(looks[0].names, created);
      assert.deepEqual(looks[0].found, created);
      // Stop three in four (90 stops), then the newest survivor, then start
      // a child under a freed name and an unnamed one, and stop the latter.
      parent.tell({ stop: (_name, index) => index % 4 !== 0 });
      await settle();
      parent.tell({ stop: (_name, index) => index === 29 });
      await settle();
      parent.tell({ spawn: ["n1", undefined] });
      await settle();
      parent.tell({ stop: (name) => name === created[121] });
      await settle();
      parent.tell("look");
      await settle();
      assert.equal(created[120], "n1");
      const live = created.filter((_name, index) =>
        (index % 4 === 0 && index < 116) || index === 120
      );
      assert.deepEqual(looks[1].names, live);
      assert.deepEqual(
        looks[1].found,
        created.map((name) => live.includes(name) ? name : undefined),
      );
      assert.equal(postStops, 122 - live.length);
      await system.terminate();
      assert.equal(postStops, 122, "every child stopped exactly once");
    } finally {
      await system.terminate();
    }
  });

  it("find an unnamed child by its generated name, and by nothing else", async () => {
    const system = createSystem();
    try {
      const lookups: Record<string, string | undefined> = {};
      class Parent extends Actor<string> {
        override preStart(): void {
          // The eleventh generated name has a letter in it ("$a").
          for (let i = 0; i < 11; i++) this.context.actorOf(recorderProps());
        }
        onReceive(): void {
          const last = this.context.children.at(-1)!;
          const name = last.path.slice(last.path.lastIndexOf("/") + 1);
          const digits = name.slice(1);
          for (
            const candidate of [name, `$0${digits}`, `$${digits.toUpperCase()}`]
          ) {
            lookups[candidate] = this.context.child(candidate)?.path;
          }
        }
      }
      const parent = system.actorOf(Props.create(() => new Parent()), "parent");
      parent.tell("look");
      await settle();
      const [name, padded, upper] = Object.keys(lookups);
      assert.equal(name, "$a");
      assert.equal(lookups[name], `/user/parent/${name}`);
      assert.equal(lookups[padded], undefined);
      assert.equal(lookups[upper], undefined);
    } finally {
      await system.terminate();
    }
  });
});
