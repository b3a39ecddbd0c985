// Copyright 2026 the understudy authors. MIT license.
// The room app's actors (examples/durable-objects/room.ts) without the
// platform: a Map for the object's storage, a ManualScheduler for time, a
// function for the upstream. What example.test.ts shows in workerd and
// Chromium, here in every runtime and in virtual time: a page's word is
// stored and looked up, a failed lookup is asked again after the backoff,
// and a new life of the room asks again for what has no definition, once.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Actor, ActorSystem, Props } from "../../mod.ts";
import { ManualScheduler } from "../../src/testing/mod.ts";
import { type BackoffRecord, SocketMessage } from "../../src/durable/mod.ts";
import {
  type Item,
  LOOKUP_BACKOFF,
  Room,
  type RoomFrame,
} from "../../examples/durable-objects/room.ts";

/** Stands in for a page's connection: what the room tells it. */
class Page extends Actor<unknown> {
  constructor(readonly frames: unknown[]) {
    super();
  }
  onReceive(frame: unknown): void {
    this.frames.push(frame);
  }
}

/** A room on `store` whose upstream fails the first `failures` calls. */
function room(store: Map<string, unknown>, failures: number) {
  const scheduler = new ManualScheduler();
  const system = ActorSystem.create("room", { scheduler, logLevel: "off" });
  const calls: string[] = [];
  const broadcast: RoomFrame[] = [];
  const upstream = (word: string) => {
    calls.push(word);
    return calls.length <= failures
      ? Promise.reject(new Error("upstream answered 503"))
      : Promise.resolve(`${word}: defined`);
  };
  const ref = system.actorOf(
    Props.create(() => new Room(store, upstream, (f) => broadcast.push(f))),
    "room",
  );
  const frames: unknown[] = [];
  const page = system.actorOf(Props.create(() => new Page(frames)), "page");
  const add = (id: number, word: string) =>
    ref.tell(
      new SocketMessage(
        "tab-1",
        id,
        JSON.stringify({ op: "add", word, by: "me" }),
        page,
      ),
    );
  const items = () => store.get("room/items") as Item[] | undefined;
  return { scheduler, system, calls, broadcast, add, items, ref, page, frames };
}

describe("examples/durable-objects: the room's actors", () => {
  it("a word is stored, told to every page, and defined by the upstream", async () => {
    const store = new Map<string, unknown>();
    const r = room(store, 0);
    r.add(1, "cat");
    await r.scheduler.timePasses(100);
    assert.deepEqual(r.items(), [
      { n: 1, word: "cat", by: "me", definition: "cat: defined" },
    ]);
    assert.deepEqual(r.broadcast, [
      { type: "item", item: { n: 1, word: "cat", by: "me" } },
      {
        type: "item",
        item: { n: 1, word: "cat", by: "me", definition: "cat: defined" },
      },
    ]);
    // A page that joins is told the whole list, as text.
    r.ref.tell({ type: "join" }, r.page);
    await r.scheduler.timePasses(0);
    assert.deepEqual(r.frames.map((f) => JSON.parse(String(f))), [
      { type: "items", items: r.items() },
    ]);
    await r.system.terminate();
  });

  it("a failed lookup is asked again no sooner than the backoff, longer each time, until it succeeds", async () => {
    const store = new Map<string, unknown>();
    const r = room(store, 2);
    r.add(1, "cat");
    await r.scheduler.timePasses(0);
    assert.deepEqual(r.calls, ["cat"]);
    const floor = LOOKUP_BACKOFF.minBackoff * (1 - LOOKUP_BACKOFF.randomFactor);
    await r.scheduler.timePasses(floor - 1);
    assert.deepEqual(r.calls, ["cat"], "not before the shortest backoff");
    await r.scheduler.timePasses(10_000);
    assert.deepEqual(r.calls, ["cat", "cat", "cat"]);
    assert.equal(r.items()?.[0].definition, "cat: defined");
    // Its success set the count back to 0 (resetCounter: "manual").
    assert.equal((store.get("room/lookups") as BackoffRecord).restartCount, 0);
    await r.system.terminate();
  });

  it("a new life asks again for a word without a definition, and skips the copy its stash held", async () => {
    const store = new Map<string, unknown>([
      ["room/items", [{ n: 1, word: "cat", by: "me" }]],
      // The last life's supervisor had stashed the lookup.
      [
        "room/lookups",
        {
          restartCount: 1,
          stash: [{ n: 1, word: "cat" }],
          respawnAt: null,
        } satisfies BackoffRecord,
      ],
    ]);
    const r = room(store, 0);
    await r.scheduler.timePasses(1_000);
    assert.deepEqual(r.calls, ["cat"], "called once, not once per copy");
    assert.equal(r.items()?.[0].definition, "cat: defined");
    await r.system.terminate();
  });
});
