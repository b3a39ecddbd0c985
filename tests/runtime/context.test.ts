// Copyright 2026 the understudy authors. MIT license.
// Specification of the ActorContext basics: creating children, parent,
// system, and stopping (context.stop, stopSelf). Watch, become, stash and
// timers have their own files.

import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  type ActorRef,
  ActorStopped,
  type ActorSystem,
  Props,
  Terminated,
} from "../../mod.ts";
import {
  collect,
  collectDeadLetters,
  createSystem,
  fnProps,
  recorderProps,
  settle,
} from "./_helpers.ts";

describe("context.actorOf and context.parent", () => {
  let system: ActorSystem;
  beforeEach(() => {
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  it("creates a child whose parent is the creating actor", async () => {
    let parentOfChild: ActorRef<unknown> | undefined;
    let parentRef: ActorRef<unknown> | undefined;
    class Parent extends Actor<string> {
      override preStart(): void {
        parentRef = this.self;
        this.context.actorOf(
          fnProps((a) => {
            parentOfChild = a.context.parent;
          }),
          "child",
        ).tell("who is my parent?");
      }
      onReceive(): void {}
    }
    system.actorOf(Props.create(() => new Parent()), "parent");
    await settle();
    assert.ok(parentRef !== undefined);
    assert.equal(parentOfChild, parentRef);
  });

  it("gives every actor of a system the same context.system", async () => {
    const systems: ActorSystem[] = [];
    class Parent extends Actor<string> {
      override preStart(): void {
        systems.push(this.context.system);
        this.context.actorOf(
          fnProps((a) => void systems.push(a.context.system)),
          "c",
        ).tell("x");
      }
      onReceive(): void {}
    }
    system.actorOf(Props.create(() => new Parent()), "p");
    await settle();
    assert.deepEqual(systems, [system, system]);
  });

  it("creates a child after stopSelf (stopped with its parent), but throws once the parent is stopping", async () => {
    const errors: unknown[] = [];
    const events = collect(system, ActorStopped);
    const ref = system.actorOf(
      fnProps((a) => {
        a.context.stopSelf();
        a.context.actorOf(recorderProps(), "still-in-time");
      }),
      "stopping",
    );
    class LateSpawner extends Actor<string> {
      override postStop(): void {
        try {
          this.context.actorOf(recorderProps(), "too-late");
        } catch (error) {
          errors.push(error);
        }
      }
      onReceive(): void {
        this.context.stopSelf();
      }
    }
    const late = system.actorOf(Props.create(() => new LateSpawner()), "late");
    ref.tell("go");
    await settle();
    late.tell("stop");
    await settle();
    assert.deepEqual(
      events.map((event) => event.ref.path),
      ["/user/stopping/still-in-time", "/user/stopping", "/user/late"],
    );
    assert.equal(errors.length, 1);
    assert.match(
      String(errors[0]),
      /Cannot create actor under \/user\/late: it is stopping/,
    );
  });
});

describe("context.stop and stopSelf", () => {
  let system: ActorSystem;
  beforeEach(() => {
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  it("stopSelf lets the current message finish, then stops; queued messages become dead letters", async () => {
    const dead = collectDeadLetters(system);
    const log: string[] = [];
    class Quitter extends Actor<string> {
      onReceive(message: string): void {
        if (message === "quit") {
          this.context.stopSelf();
          log.push("after stopSelf, still in the handler");
        } else {
          log.push(message);
        }
      }
      override postStop(): void {
        log.push("postStop");
      }
    }
    const ref = system.actorOf(Props.create(() => new Quitter()), "quitter");
    for (const m of ["a", "quit", "b"]) ref.tell(m);
    await settle();
    assert.deepEqual(log, [
      "a",
      "after stopSelf, still in the handler",
      "postStop",
    ]);
    assert.deepEqual(dead.map((d) => d.message), ["b"]);
  });

  it("context.stop(self) is the same as stopSelf", async () => {
    const stopped = collect(system, ActorStopped);
    const ref = system.actorOf(
      fnProps((a) => a.context.stop(a.self as ActorRef<never>)),
      "s",
    );
    ref.tell("stop");
    await settle();
    assert.deepEqual(stopped.map((s) => s.ref), [ref]);
  });

  it("a parent stops a child: the child's postStop runs and the parent may create a new one under the same name", async () => {
    const log: string[] = [];
    class Child extends Actor<string> {
      onReceive(): void {}
      override postStop(): void {
        log.push(`child stopped`);
      }
    }
    class Parent extends Actor<string | Terminated> {
      #child!: ActorRef<string>;
      override preStart(): void {
        this.#child = this.context.watch(
          this.context.actorOf(Props.create(() => new Child()), "child"),
        );
      }
      onReceive(message: string | Terminated): void {
        if (message instanceof Terminated) {
          const again = this.context.actorOf(
            Props.create(() => new Child()),
            "child",
          );
          log.push(
            `recreated ${again.path} ${
              again === this.#child ? "same" : "new"
            } ref`,
          );
        } else {
          this.context.stop(this.#child as ActorRef<never>);
        }
      }
    }
    const parent = system.actorOf(Props.create(() => new Parent()), "parent");
    await settle(); // the child has started
    parent.tell("stop the child");
    await settle();
    assert.deepEqual(log, [
      "child stopped",
      "recreated /user/parent/child new ref",
    ]);
  });

  it("an actor stopped before it started still runs preStart then postStop; its queued messages are dead letters", async () => {
    const dead = collectDeadLetters(system);
    const stopped = collect(system, ActorStopped);
    const log: string[] = [];
    class Child extends Actor<string> {
      override preStart(): void {
        log.push("preStart");
      }
      onReceive(): void {}
      override postStop(): void {
        log.push("postStop");
      }
    }
    let child!: ActorRef<string>;
    class Parent extends Actor<string> {
      override preStart(): void {
        child = this.context.actorOf(Props.create(() => new Child()), "child");
        child.tell("early");
        this.context.stop(child as ActorRef<never>);
      }
      onReceive(): void {}
    }
    system.actorOf(Props.create(() => new Parent()), "parent");
    await settle();
    assert.deepEqual(log, ["preStart", "postStop"]);
    assert.deepEqual(stopped.map((s) => s.ref), [child]);
    assert.deepEqual(dead.map((d) => [d.message, d.reason]), [[
      "early",
      "recipient stopped",
    ]]);
  });

  it("stopping a parent stops its children first", async () => {
    const log: string[] = [];
    class Leaf extends Actor<string> {
      onReceive(): void {}
      override postStop(): void {
        log.push(this.self.path);
      }
    }
    class Branch extends Actor<string> {
      override preStart(): void {
        this.context.actorOf(Props.create(() => new Leaf()), "leaf1");
        this.context.actorOf(Props.create(() => new Leaf()), "leaf2");
      }
      onReceive(): void {
        this.context.stopSelf();
      }
      override postStop(): void {
        log.push(this.self.path);
      }
    }
    const branch = system.actorOf(Props.create(() => new Branch()), "branch");
    await settle();
    branch.tell("stop");
    await settle();
    assert.equal(log.at(-1), "/user/branch");
    assert.deepEqual(log.slice(0, 2).sort(), [
      "/user/branch/leaf1",
      "/user/branch/leaf2",
    ]);
  });

  it("waits for an async handler in flight before stopping", async () => {
    const log: string[] = [];
    let release!: () => void;
    class Slow extends Actor<string> {
      async onReceive(): Promise<void> {
        await new Promise<void>((r) => (release = r));
        log.push("handler done");
      }
      override postStop(): void {
        log.push("postStop");
      }
    }
    class Parent extends Actor<string> {
      #child!: ActorRef<string>;
      override preStart(): void {
        this.#child = this.context.actorOf(
          Props.create(() => new Slow()),
          "slow",
        );
        this.#child.tell("work");
      }
      onReceive(): void {
        this.context.stop(this.#child as ActorRef<never>);
      }
    }
    const parent = system.actorOf(Props.create(() => new Parent()), "parent");
    await settle();
    parent.tell("stop it");
    await settle();
    assert.deepEqual(log, []);
    release();
    await settle();
    assert.deepEqual(log, ["handler done", "postStop"]);
  });
});
