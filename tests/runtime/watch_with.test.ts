// Copyright 2026 the understudy authors. MIT license.
// Specification of context.watchWith: a watcher's own message instead of
// Terminated when the watched actor stops.

import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type ActorRef, type ActorSystem, Terminated } from "../../mod.ts";
import {
  createSystem,
  deferred,
  type FnActor,
  fnProps,
  recorderProps,
  settle,
} from "./_helpers.ts";

/** The watcher's own message for a worker's end. */
class WorkerGone {
  constructor(readonly id: number) {}
}

type Command =
  | { watchWith: ActorRef<unknown>; message: unknown }
  | { watch: ActorRef<unknown> }
  | { unwatch: ActorRef<unknown> }
  | { hold: Promise<void>; then: (watcher: FnActor<unknown>) => void };

/** Records what it gets (and its sender) and any error its commands throw. */
function watcherProps(got: unknown[], errors: unknown[] = []) {
  return fnProps<unknown>(async (a, m) => {
    const c = m as Command;
    try {
      if (typeof c === "object" && c !== null && "watchWith" in c) {
        a.context.watchWith(c.watchWith, c.message);
      } else if (typeof c === "object" && c !== null && "watch" in c) {
        a.context.watch(c.watch);
      } else if (typeof c === "object" && c !== null && "unwatch" in c) {
        a.context.unwatch(c.unwatch as ActorRef<never>);
      } else if (typeof c === "object" && c !== null && "hold" in c) {
        await c.hold;
        c.then(a);
      } else {
        got.push(m, a.sender);
      }
    } catch (error) {
      errors.push(error);
    }
  });
}

describe("context.watchWith", () => {
  let system: ActorSystem;
  beforeEach(() => {
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  it("delivers the given message instead of Terminated, exactly once, with the stopped actor as sender", async () => {
    const got: unknown[] = [];
    const worker = system.actorOf(recorderProps(), "worker");
    const watcher = system.actorOf(watcherProps(got), "watcher");
    const gone = new WorkerGone(7);
    watcher.tell({ watchWith: worker, message: gone });
    await settle();
    system.stop(worker);
    await settle();
    assert.deepEqual(got, [gone, worker]);
    assert.equal(got[0], gone); // the same object
  });

  it("delivers it at once for an actor that has stopped already", async () => {
    const got: unknown[] = [];
    const worker = system.actorOf(recorderProps(), "worker");
    system.stop(worker);
    await settle();
    const watcher = system.actorOf(watcherProps(got), "watcher");
    watcher.tell({ watchWith: worker, message: "already gone" });
    await settle();
    assert.deepEqual(got, ["already gone", worker]);
  });

  it("after unwatch, nothing comes; a new watch brings its own message", async () => {
    const got: unknown[] = [];
    const a = system.actorOf(recorderProps(), "a");
    const b = system.actorOf(recorderProps(), "b");
    const watcher = system.actorOf(watcherProps(got), "watcher");
    watcher.tell({ watchWith: a, message: "a gone" });
    watcher.tell({ unwatch: a });
    watcher.tell({ watchWith: b, message: "b gone (first)" });
    watcher.tell({ unwatch: b });
    watcher.tell({ watch: b }); // plain watch: Terminated this time
    await settle();
    system.stop(a);
    system.stop(b);
    await settle();
    assert.equal(got.length, 2);
    assert.ok(got[0] instanceof Terminated);
    assert.equal((got[0] as Terminated).ref, b);
  });

  it("unwatch drops a message already queued, and re-watching with another message brings the new one", async () => {
    const got: unknown[] = [];
    const worker = system.actorOf(recorderProps(), "worker");
    const watcher = system.actorOf(watcherProps(got), "watcher");
    watcher.tell({ watchWith: worker, message: "old" });
    await settle();
    const gate = deferred();
    // While the watcher is busy, the worker stops: "old" waits in its
    // mailbox when the watcher unwatches and watches again.
    watcher.tell({
      hold: gate.promise,
      then: (a: FnActor<unknown>) => {
        a.context.unwatch(worker as ActorRef<never>);
        a.context.watchWith(worker, "new");
      },
    });
    await settle();
    system.stop(worker);
    await settle();
    gate.resolve();
    await settle();
    assert.deepEqual(got, ["new", worker]);
  });

  it("throws a TypeError when the ref is already watched with another message (unwatch first), and accepts the same one again", async () => {
    const got: unknown[] = [];
    const errors: unknown[] = [];
    const worker = system.actorOf(recorderProps(), "worker");
    const watcher = system.actorOf(watcherProps(got, errors), "watcher");
    watcher.tell({ watchWith: worker, message: "first" });
    watcher.tell({ watchWith: worker, message: "first" }); // same: no change
    watcher.tell({ watchWith: worker, message: "second" });
    watcher.tell({ watch: worker });
    await settle();
    assert.equal(errors.length, 2);
    assert.ok(errors.every((e) => e instanceof TypeError));
    assert.match(
      (errors[0] as Error).message,
      /Cannot watch \/user\/worker from \/user\/watcher with "second": it is already watched with "first" \(unwatch it first/,
    );
    assert.match(
      (errors[1] as Error).message,
      /with Terminated: it is already watched with "first"/,
    );
    system.stop(worker);
    await settle();
    assert.deepEqual(got, ["first", worker]);
  });

  it("rejects what is not an actor ref", async () => {
    const errors: unknown[] = [];
    const watcher = system.actorOf(watcherProps([], errors), "watcher");
    watcher.tell({ watchWith: system.deadLetters, message: "x" });
    await settle();
    assert.equal(errors.length, 1);
    assert.ok(errors[0] instanceof TypeError);
    assert.equal(
      (errors[0] as Error).message,
      `Cannot watchWith: "ref" must be an actor's ref, as from actorOf (not dead letters or an ask's temporary ref) (got an object (DeadLettersRef))`,
    );
  });

  it("delivers even undefined as given", async () => {
    const got: unknown[] = [];
    const a = system.actorOf(recorderProps(), "a");
    const watcher = system.actorOf(watcherProps(got), "watcher");
    watcher.tell({ watchWith: a, message: undefined });
    await settle();
    system.stop(a);
    await settle();
    assert.deepEqual(got, [undefined, a]);
  });
});
