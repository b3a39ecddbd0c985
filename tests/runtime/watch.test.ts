// Copyright 2026 the understudy authors. MIT license.
// Specification of death watch: context.watch / unwatch and Terminated.

import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  ActorRef,
  type ActorSystem,
  Props,
  Terminated,
} from "../../mod.ts";
import {
  collectDeadLetters,
  createSystem,
  deferred,
  type FnActor,
  fnProps,
  settle,
} from "./_helpers.ts";

/** Stops itself on any message. */
const stopOnMessage = () => fnProps((a) => a.context.stopSelf());

/** What a watcher is asked to do. */
type WatcherCommand =
  | { watch: ActorRef<unknown> }
  | { unwatch: ActorRef<unknown> }
  | {
    hold: Promise<void>;
    then?: (actor: FnActor<WatcherCommand | Terminated>) => void;
  };

/** A watcher that records the Terminated messages it gets. */
function watcherProps(terminated: ActorRef<unknown>[]) {
  return fnProps<WatcherCommand | Terminated>(async (a, m) => {
    if (m instanceof Terminated) {
      terminated.push(m.ref);
    } else if ("watch" in m) {
      a.context.watch(m.watch);
    } else if ("unwatch" in m) {
      a.context.unwatch(m.unwatch as ActorRef<never>);
    } else {
      await m.hold;
      m.then?.(a);
    }
  });
}

describe("context.watch", () => {
  let system: ActorSystem;
  beforeEach(() => {
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  it("delivers Terminated(ref) exactly once when the watched actor stops", async () => {
    const terminated: ActorRef<unknown>[] = [];
    const target = system.actorOf(stopOnMessage(), "target");
    const watcher = system.actorOf(watcherProps(terminated), "watcher");
    watcher.tell({ watch: target });
    watcher.tell({ watch: target }); // watching twice is still one watch
    await settle();
    assert.deepEqual(terminated, []);
    target.tell("stop");
    await settle();
    assert.deepEqual(terminated, [target]);
  });

  it("gives the Terminated message the dead actor as sender", async () => {
    const seen: [unknown, unknown][] = [];
    const target = system.actorOf(stopOnMessage(), "target");
    const watcher = system.actorOf(
      fnProps<unknown>((a, m) => {
        if (m === "watch") a.context.watch(target);
        else if (m instanceof Terminated) seen.push([m.ref, a.sender]);
      }),
      "watcher",
    );
    watcher.tell("watch");
    await settle();
    target.tell("stop");
    await settle();
    assert.deepEqual(seen, [[target, target]]);
  });

  it("delivers Terminated exactly once when the actor is already dead, even if watched twice", async () => {
    const terminated: ActorRef<unknown>[] = [];
    const target = system.actorOf(stopOnMessage(), "target");
    target.tell("stop");
    await settle();
    const watcher = system.actorOf(watcherProps(terminated), "watcher");
    watcher.tell({ watch: target });
    watcher.tell({ watch: target });
    await settle();
    assert.deepEqual(terminated, [target]);
  });

  it("does not deliver a second Terminated when re-watched after death but before the first was processed", async () => {
    const terminated: ActorRef<unknown>[] = [];
    const target = system.actorOf(stopOnMessage(), "target");
    const watcher = system.actorOf(watcherProps(terminated), "watcher");
    watcher.tell({ watch: target });
    await settle();
    const gate = deferred();
    watcher.tell({ hold: gate.promise, then: (a) => a.context.watch(target) });
    await settle();
    target.tell("stop");
    await settle(); // target dead; its Terminated waits behind the held message
    gate.resolve();
    await settle();
    assert.deepEqual(terminated, [target]);
  });

  it("lets a watch made after the Terminated was processed deliver a new one", async () => {
    const terminated: ActorRef<unknown>[] = [];
    const target = system.actorOf(stopOnMessage(), "target");
    const watcher = system.actorOf(watcherProps(terminated), "watcher");
    watcher.tell({ watch: target });
    await settle();
    target.tell("stop");
    await settle();
    watcher.tell({ watch: target });
    await settle();
    assert.deepEqual(terminated, [target, target]);
  });

  it("tells every watcher", async () => {
    const a: ActorRef<unknown>[] = [];
    const b: ActorRef<unknown>[] = [];
    const target = system.actorOf(stopOnMessage(), "target");
    system.actorOf(watcherProps(a), "w1").tell({ watch: target });
    system.actorOf(watcherProps(b), "w2").tell({ watch: target });
    await settle();
    target.tell("stop");
    await settle();
    assert.deepEqual([a, b], [[target], [target]]);
  });

  it("lets a parent watch its child and learn when it stops", async () => {
    const log: string[] = [];
    class Parent extends Actor<string | Terminated> {
      #child!: ActorRef<string>;
      override preStart(): void {
        this.#child = this.context.watch(
          this.context.actorOf(stopOnMessage() as Props<string>, "child"),
        );
      }
      onReceive(message: string | Terminated): void {
        if (message instanceof Terminated) {
          log.push(`terminated ${message.ref.path}`);
          log.push(`children ${this.context.children.length}`);
        } else {
          this.#child.tell(message);
        }
      }
    }
    const parent = system.actorOf(Props.create(() => new Parent()), "parent");
    parent.tell("stop the child");
    await settle();
    assert.deepEqual(log, ["terminated /user/parent/child", "children 0"]);
  });

  it("rejects something that is not an actor ref", async () => {
    const errors: unknown[] = [];
    const ref = system.actorOf(
      fnProps((a) => {
        try {
          a.context.watch({} as ActorRef<unknown>);
        } catch (error) {
          errors.push(error);
        }
      }),
      "w",
    );
    ref.tell("go");
    await settle();
    assert.equal(errors.length, 1);
    assert.ok(errors[0] instanceof TypeError);
    assert.equal(
      errors[0].message,
      `Cannot watch: "ref" must be an actor's ref, as from actorOf (not dead letters or an ask's temporary ref) (got an object (Object))`,
    );
  });
});

describe("context.unwatch", () => {
  let system: ActorSystem;
  beforeEach(() => {
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  it("stops Terminated from coming when called before the target stops", async () => {
    const terminated: ActorRef<unknown>[] = [];
    const target = system.actorOf(stopOnMessage(), "target");
    const watcher = system.actorOf(watcherProps(terminated), "watcher");
    watcher.tell({ watch: target });
    watcher.tell({ unwatch: target });
    await settle();
    target.tell("stop");
    await settle();
    assert.deepEqual(terminated, []);
  });

  it("drops a Terminated that is already queued but not yet processed", async () => {
    const terminated: ActorRef<unknown>[] = [];
    const target = system.actorOf(stopOnMessage(), "target");
    const watcher = system.actorOf(watcherProps(terminated), "watcher");
    watcher.tell({ watch: target });
    await settle();
    const gate = deferred();
    watcher.tell({
      hold: gate.promise,
      then: (a) => a.context.unwatch(target as ActorRef<never>),
    });
    await settle();
    target.tell("stop");
    await settle(); // the Terminated now waits in the watcher's mailbox
    gate.resolve();
    await settle();
    assert.deepEqual(terminated, []);
  });

  it("drops the Terminated of an already-dead actor when unwatched before it is processed", async () => {
    const terminated: ActorRef<unknown>[] = [];
    const target = system.actorOf(stopOnMessage(), "target");
    target.tell("stop");
    await settle();
    const watcher = system.actorOf(
      fnProps<unknown>((a, m) => {
        if (m instanceof Terminated) {
          terminated.push(m.ref);
        } else {
          a.context.watch(target);
          a.context.unwatch(target as ActorRef<never>);
        }
      }),
      "watcher",
    );
    watcher.tell("watch and unwatch");
    await settle();
    assert.deepEqual(terminated, []);
  });
});

describe("Death watch and termination", () => {
  it("publishes no dead letter when watchers and watched stop together", async () => {
    const system = createSystem();
    try {
      const dead = collectDeadLetters(system);
      class Parent extends Actor<string | Terminated> {
        override preStart(): void {
          for (let i = 0; i < 3; i++) {
            this.context.watch(
              this.context.actorOf(fnProps(() => {}), `child${i}`),
            );
          }
        }
        onReceive(): void {}
      }
      system.actorOf(Props.create(() => new Parent()), "parent");
      await settle();
      await system.terminate();
      assert.deepEqual(dead.map((d) => d.message), []);
    } finally {
      await system.terminate();
    }
  });
});

describe("watch on a ref of another isolate (a Durable Object's RemoteRef)", () => {
  /** A ref that watches for itself, as RemoteRef does, recording what it is asked. */
  class RemoteLike extends ActorRef<string> {
    readonly path = "/remote/room";
    readonly watchers: ActorRef<never>[] = [];
    ended = 0;
    tell(): void {}
    ask<R>(): Promise<R> {
      return Promise.reject(new Error("not here"));
    }
    readonly instead: unknown[] = [];
    watchRemote(
      watcher: ActorRef<never>,
      instead?: { readonly message: unknown },
    ): () => void {
      this.watchers.push(watcher);
      this.instead.push(instead);
      return () => this.ended++;
    }
  }

  it("context.watch hands the watcher to the ref's watchRemote once; unwatch and the watcher's stop end it", async () => {
    const system = createSystem();
    try {
      const remote = new RemoteLike();
      const gone: unknown[] = [];
      class Watcher extends Actor<string | Terminated> {
        override preStart(): void {
          this.context.watch(remote);
          this.context.watch(remote); // again: nothing more
        }
        onReceive(message: string | Terminated): void {
          if (message === "unwatch") this.context.unwatch(remote as never);
          else if (message === "watch") this.context.watch(remote);
          else gone.push(message);
        }
      }
      const watcher = system.actorOf(Props.create(() => new Watcher()), "w");
      await settle();
      assert.deepEqual(remote.watchers, [watcher]);
      watcher.tell("unwatch");
      await settle();
      assert.equal(remote.ended, 1);
      watcher.tell("watch");
      await settle();
      assert.equal(remote.watchers.length, 2);
      // The remote side tells the watcher a Terminated itself.
      watcher.tell(new Terminated(remote as never) as never);
      await settle();
      assert.equal(gone.length, 1);
      system.stop(watcher);
      await settle();
      assert.equal(remote.ended, 2, "its stop ended the watch");
    } finally {
      await system.terminate();
    }
  });

  it("watchWith on such a ref hands it the message to tell instead of Terminated, once", async () => {
    const system = createSystem();
    try {
      const remote = new RemoteLike();
      const got: unknown[] = [];
      class Watcher extends Actor<string | Terminated> {
        override preStart(): void {
          this.context.watchWith(remote, "room gone");
          this.context.watchWith(remote, "room gone"); // again: nothing more
          this.context.watchWith(remote, "another"); // the first watch stays
        }
        onReceive(message: string | Terminated): void {
          got.push(message);
        }
      }
      system.actorOf(Props.create(() => new Watcher()), "w");
      await settle();
      assert.equal(remote.watchers.length, 1);
      // The remote side is asked to tell the watcher its own message.
      assert.deepEqual(remote.instead, [{ message: "room gone" }]);
    } finally {
      await system.terminate();
    }
  });
});
