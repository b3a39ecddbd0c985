// @runtimes node
// Copyright 2026 the understudy authors. MIT license.
// src/durable/ in the real runtime: tests/durable/_worker.ts, bundled with
// esbuild and served by Cloudflare's workerd (the npm package, started on a
// generated Cap'n Proto config; no miniflare), driven over HTTP. Node only:
// it starts the workerd process from outside, which the workerd run of the
// suite (inside workerd) cannot do.

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { findRepoRoot } from "../meta/_repo.ts";
import { serveWorker, type Workerd } from "./_bundle.ts";

// By path from the repository root: the Node run executes a bundled copy.
const WORKER = join(findRepoRoot(), "tests", "durable", "_worker.ts");

interface Counts {
  pings: Record<string, number>;
  pongs: Record<string, number>;
  outOfOrder: number;
}
interface Losses {
  deadLetters: { reason: string; message: unknown }[];
  failures: {
    attempts: number;
    retryable: boolean;
    overloaded: boolean;
    error: string;
  }[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("durable: actors in Durable Objects, in workerd", () => {
  let worker: Workerd;

  /** Calls `method` on the object `name` of namespace `ns` over RPC. */
  async function call<R>(
    ns: string,
    name: string,
    method: string,
    ...args: unknown[]
  ): Promise<R> {
    const res = await fetch(worker.url, {
      method: "POST",
      body: JSON.stringify({ ns, name, method, args }),
      signal: AbortSignal.timeout(20_000),
    });
    const body = await res.json() as { result?: R; error?: unknown };
    if (res.status !== 200) {
      throw Object.assign(
        new Error(`${ns}/${name}.${method}: ${JSON.stringify(body.error)}`),
        { body },
      );
    }
    return body.result as R;
  }

  /** Polls until `check` returns a value, or fails with the last one after 10 s. */
  async function eventually<T>(
    read: () => Promise<T>,
    done: (value: T) => boolean,
  ): Promise<T> {
    let value = await read();
    for (let i = 0; i < 200 && !done(value); i++) {
      await sleep(50);
      value = await read();
    }
    return value;
  }

  before(async () => {
    worker = await serveWorker(WORKER, {
      PEER: "Peer",
      FLAKY: "Flaky",
      TICKER: "Ticker",
      KEEPER: "Keeper",
    });
  });

  after(async () => {
    await worker?.stop();
  });

  it("three objects exchange pings and pongs through remote refs: every one arrives, in order", async () => {
    const peers = ["p1", "p2", "p3"];
    const count = 200;
    for (const me of peers) {
      await call("PEER", me, "start", peers.filter((p) => p !== me), count);
    }
    const expected = count * (peers.length - 1);
    for (const me of peers) {
      const counts = await eventually(
        () => call<Counts>("PEER", me, "counts"),
        (c) =>
          Object.values(c.pongs).reduce((a, b) => a + b, 0) >= expected &&
          Object.values(c.pings).reduce((a, b) => a + b, 0) >= expected,
      );
      const others = peers.filter((p) => p !== me);
      assert.deepEqual(
        counts.pings,
        Object.fromEntries(others.map((p) => [p, count])),
        `${me} received pings`,
      );
      assert.deepEqual(
        counts.pongs,
        Object.fromEntries(others.map((p) => [p, count])),
        `${me} received pongs`,
      );
      assert.equal(counts.outOfOrder, 0, `${me}: pings out of order`);
      const losses = await call<Losses>("PEER", me, "lossesSoFar");
      assert.deepEqual(losses.deadLetters, [], `${me}: dead letters`);
    }
  });

  it("ask through a remote ref: the reply comes back as the call's result", async () => {
    const counts = await call<Counts>("PEER", "p1", "askPeer", "p2");
    assert.equal(counts.pings.p1, 200);
    assert.equal(counts.pings.p3, 200);
  });

  it("an ask to a path nothing is exposed at rejects as undelivered, without retries", async () => {
    const outcome = await call<{ error: { name: string; message: string } }>(
      "PEER",
      "ask-nobody",
      "ask",
      "PEER",
      "p2",
      "/user/nobody",
      "?",
    );
    assert.equal(outcome.error.name, "UndeliveredError");
    assert.match(outcome.error.message, /no actor exposed at \/user\/nobody/);
  });

  it("a message that cannot be serialized goes to dead letters with the DataCloneError; the rest of its batch is delivered in order", async () => {
    await call("FLAKY", "clone", "failNext", 0, false);
    await call("PEER", "cloner", "send", "FLAKY", "clone", "/user/inbox", [
      "a",
      null, // an instance of a class: RPC refuses it
      "b",
    ]);
    const state = await eventually(
      () => call<{ received: unknown[] }>("FLAKY", "clone", "state"),
      (s) => s.received.length >= 2,
    );
    assert.deepEqual(state.received, ["a", "b"]);
    const losses = await eventually(
      () => call<Losses>("PEER", "cloner", "lossesSoFar"),
      (l) => l.deadLetters.length >= 1,
    );
    assert.equal(losses.deadLetters.length, 1);
    assert.match(losses.deadLetters[0].reason, /DataCloneError/);
    assert.deepEqual(
      losses.failures.map((f) => f.attempts),
      [1],
      "not retried",
    );
  });

  it("retryable failures are retried: two injected failures, delivered on the third call", async () => {
    await call("FLAKY", "retry-2", "failNext", 2, false);
    await call("PEER", "sender-1", "send", "FLAKY", "retry-2", "/user/inbox", [
      "one",
      "two",
    ]);
    const state = await eventually(
      () =>
        call<{ calls: number; received: unknown[] }>(
          "FLAKY",
          "retry-2",
          "state",
        ),
      (s) => s.received.length >= 2,
    );
    assert.deepEqual(state.received, ["one", "two"]);
    // Both tells left in one call; it failed twice, then went through.
    // (state() itself is not a delivery call, so it is not counted.)
    assert.equal(state.calls, 3);
    const losses = await call<Losses>("PEER", "sender-1", "lossesSoFar");
    assert.deepEqual(losses.deadLetters, []);
  });

  it("retryable failures past maxAttempts: exactly maxAttempts calls, then a dead letter with the error", async () => {
    await call("FLAKY", "retry-all", "failNext", 100, false);
    await call(
      "PEER",
      "sender-2",
      "send",
      "FLAKY",
      "retry-all",
      "/user/inbox",
      [
        "lost",
      ],
    );
    const losses = await eventually(
      () => call<Losses>("PEER", "sender-2", "lossesSoFar"),
      (l) => l.deadLetters.length >= 1,
    );
    assert.equal(losses.deadLetters.length, 1);
    assert.equal(losses.deadLetters[0].message, "lost");
    assert.match(
      losses.deadLetters[0].reason,
      /failed after 4 attempts: Error: Network connection lost \(injected\) \(retryable\)/,
    );
    assert.deepEqual(losses.failures, [{
      attempts: 4,
      retryable: true,
      overloaded: false,
      error: "Error: Network connection lost (injected)",
    }]);
    await sleep(100); // no fifth attempt comes later
    const state = await call<{ calls: number; received: unknown[] }>(
      "FLAKY",
      "retry-all",
      "state",
    );
    assert.equal(state.calls, 4);
    assert.deepEqual(state.received, []);
  });

  it("an ask that keeps failing retryably rejects with RemoteDeliveryError after maxAttempts", async () => {
    await call("FLAKY", "ask-retry", "failNext", 100, false);
    const outcome = await call<{ error: Record<string, unknown> }>(
      "PEER",
      "asker-1",
      "ask",
      "FLAKY",
      "ask-retry",
      "/user/inbox",
      "?",
    );
    assert.equal(outcome.error.name, "RemoteDeliveryError");
    assert.equal(outcome.error.isRemoteDeliveryError, true);
    assert.equal(outcome.error.attempts, 4);
    assert.equal(outcome.error.causeRetryable, true);
    const state = await call<{ calls: number }>("FLAKY", "ask-retry", "state");
    assert.equal(state.calls, 4);
  });

  it("an overloaded error is not retried: one call, a dead letter, and an ask rejected with it", async () => {
    await call("FLAKY", "busy", "failNext", 100, true);
    await call("PEER", "sender-3", "send", "FLAKY", "busy", "/user/inbox", [
      "too much",
    ]);
    const losses = await eventually(
      () => call<Losses>("PEER", "sender-3", "lossesSoFar"),
      (l) => l.deadLetters.length >= 1,
    );
    assert.deepEqual(losses.failures, [{
      attempts: 1,
      retryable: false,
      overloaded: true,
      error: "Error: Durable Object is overloaded (injected)",
    }]);
    const outcome = await call<{ error: Record<string, unknown> }>(
      "PEER",
      "sender-3",
      "ask",
      "FLAKY",
      "busy",
      "/user/inbox",
      "?",
    );
    assert.equal(outcome.error.name, "RemoteDeliveryError");
    assert.equal(outcome.error.attempts, 1);
    assert.equal(outcome.error.causeOverloaded, true);
    await sleep(100);
    const state = await call<{ calls: number }>("FLAKY", "busy", "state");
    assert.equal(state.calls, 2, "one call for the tell, one for the ask");
  });

  it("reset(): the system terminates (postStop runs), no timer is left running, and the next use creates a fresh system", async () => {
    const { number } = await call<{ number: number }>(
      "TICKER",
      "t-reset",
      "start",
    );
    await sleep(400); // ticks, and the child crashes and is restarted after 150 ms
    type Report = {
      number: number;
      generations: number;
      history: Record<
        number,
        { ticks: number; childStarts: number; stops: number }
      >;
      liveTimers: number;
    };
    const before = await call<Report>("TICKER", "t-reset", "report");
    assert.ok(
      before.history[number].ticks > 5,
      "the timer ticks while the object lives",
    );
    assert.ok(
      before.history[number].childStarts >= 2,
      "the BackoffSupervisor restarts its child",
    );
    assert.ok(before.liveTimers > 0, "timers are running");

    await call("TICKER", "t-reset", "reset");
    const afterReset = await call<Report>("TICKER", "t-reset", "report");
    assert.equal(afterReset.history[number].stops, 1, "postStop ran");
    assert.equal(afterReset.liveTimers, 0, "no timer left running");
    await sleep(300);
    const later = await call<Report>("TICKER", "t-reset", "report");
    assert.equal(later.history[number].ticks, afterReset.history[number].ticks);
    assert.equal(
      later.history[number].childStarts,
      afterReset.history[number].childStarts,
    );
    assert.equal(later.liveTimers, 0);

    const again = await call<{ number: number; generations: number }>(
      "TICKER",
      "t-reset",
      "start",
    );
    assert.equal(again.number, number, "the same object");
    assert.equal(again.generations, 2, "a fresh actor system");
    await call("TICKER", "t-reset", "reset");
  });

  it("eviction (ctx.abort()): the old object's timers never fire again, and the re-created object starts a fresh system", async () => {
    const { number } = await call<{ number: number }>(
      "TICKER",
      "t-evict",
      "start",
    );
    await sleep(250);
    type Report = {
      number: number;
      history: Record<
        number,
        { ticks: number; childStarts: number; stops: number }
      >;
    };
    const alive = await call<Report>("TICKER", "t-evict", "report");
    assert.ok(alive.history[number].ticks > 5);

    await assert.rejects(
      call("TICKER", "t-evict", "evict"),
      /evicted by the test/,
    );
    const atEviction = await call<Report>("TICKER", "t-evict", "report");
    // That call re-created the object: a new instance, no system yet.
    assert.notEqual(atEviction.number, number, "a new object");
    const frozen = atEviction.history[number];
    await sleep(400); // several ticks, and past the next 150 ms restart
    const later = await call<Report>("TICKER", "t-evict", "report");
    assert.deepEqual(
      later.history[number],
      frozen,
      "nothing of the evicted object ran",
    );
    assert.equal(frozen.stops, 0, "no code runs on eviction: postStop did not");

    const fresh = await call<{ number: number; generations: number }>(
      "TICKER",
      "t-evict",
      "start",
    );
    assert.equal(fresh.number, atEviction.number);
    assert.equal(fresh.generations, 1);
    await sleep(100);
    const running = await call<Report>("TICKER", "t-evict", "report");
    assert.ok(
      running.history[fresh.number].ticks > 0,
      "the new system's timers run",
    );
    await call("TICKER", "t-evict", "reset");
  });

  // ------------------------------------------------ refs that heal, once

  it("a ref to an object that was evicted heals: later tells from the same ref are delivered", async () => {
    await call("FLAKY", "heal", "failNext", 0, false);
    await call("PEER", "healer", "send", "FLAKY", "heal", "/user/inbox", [
      "before",
    ]);
    await eventually(
      () => call<unknown[]>("FLAKY", "heal", "ledger"),
      (l) => l.length >= 1,
    );
    await assert.rejects(call("FLAKY", "heal", "evict"), /evicted/);
    for (let i = 1; i <= 10; i++) {
      await call("PEER", "healer", "send", "FLAKY", "heal", "/user/inbox", [
        `after-${i}`,
      ]);
      await sleep(20);
    }
    const ledger = await eventually(
      () => call<unknown[]>("FLAKY", "heal", "ledger"),
      (l) => l.includes("after-10"),
    );
    const losses = await call<Losses>("PEER", "healer", "lossesSoFar");
    const after = ledger.filter((m) => String(m).startsWith("after-"));
    // The first tell after the eviction meets the old, broken stub (an
    // error marked durableObjectReset): sent again on a fresh one.
    assert.deepEqual(
      after,
      Array.from({ length: 10 }, (_, i) => `after-${i + 1}`),
      `dead letters: ${JSON.stringify(losses.deadLetters)}`,
    );
    assert.deepEqual(losses.deadLetters, []);
  });

  it("a retried call whose first reply was lost is not taken twice (ids per sender, copies dropped)", async () => {
    await call("FLAKY", "once", "loseRepliesOfNext", 1);
    await call("PEER", "sender-once", "send", "FLAKY", "once", "/user/inbox", [
      "one",
      "two",
    ]);
    await eventually(
      () => call<{ calls: number }>("FLAKY", "once", "state"),
      (s) => s.calls >= 2,
    );
    await sleep(100);
    assert.deepEqual(await call("FLAKY", "once", "ledger"), ["one", "two"]);
    const state = await call<{ calls: number }>("FLAKY", "once", "state");
    assert.equal(state.calls, 2, "taken, reply lost, retried once");
    const losses = await call<Losses>("PEER", "sender-once", "lossesSoFar");
    assert.deepEqual(losses.deadLetters, []);
  });

  it("the high-water mark is in the receiver's storage: a copy sent after the receiver was evicted is dropped", async () => {
    await call("PEER", "mark-sender", "send", "FLAKY", "mark", "/user/inbox", [
      "m1",
      "m2",
    ]);
    await eventually(
      () => call<unknown[]>("FLAKY", "mark", "ledger"),
      (l) => l.length >= 2,
    );
    await assert.rejects(call("FLAKY", "mark", "evict"), /evicted/);
    // The sender's way is alive; its incarnation is what the receiver stored.
    await call("FLAKY", "mark", "loseRepliesOfNext", 1);
    await call("PEER", "mark-sender", "send", "FLAKY", "mark", "/user/inbox", [
      "m3",
    ]);
    await eventually(
      () => call<unknown[]>("FLAKY", "mark", "ledger"),
      (l) => l.length >= 3,
    );
    await assert.rejects(call("FLAKY", "mark", "evict"), /evicted/);
    await call("PEER", "mark-sender", "send", "FLAKY", "mark", "/user/inbox", [
      "m4",
    ]);
    const ledger = await eventually(
      () => call<unknown[]>("FLAKY", "mark", "ledger"),
      (l) => l.includes("m4"),
    );
    await sleep(100);
    assert.deepEqual(
      await call("FLAKY", "mark", "ledger"),
      ["m1", "m2", "m3", "m4"],
      `taken once each across two evictions (was ${JSON.stringify(ledger)}; ${
        JSON.stringify(await call("PEER", "mark-sender", "lossesSoFar"))
      })`,
    );
  });

  // ------------------------------------------------------- closed doors

  it("an actor never exposed is not reachable, even after it sent a remote message", async () => {
    await call(
      "PEER",
      "door",
      "sendFromHidden",
      "FLAKY",
      "door-target",
      "/user/inbox",
      "hello",
    );
    await eventually(
      () => call<unknown[]>("FLAKY", "door-target", "ledger"),
      (l) => l.length >= 1,
    );
    // Anyone holding a stub: the Worker's fetch, calling the RPC method.
    await call("PEER", "door", "understudyDeliver", null, 1, [[
      "/user/hidden",
      "intruder",
    ]]);
    const outcome = await call<unknown[]>(
      "PEER",
      "door",
      "understudyAsk",
      null,
      ["/user/hidden", "?"],
      1_000,
    );
    assert.equal(outcome[0], 2);
    assert.match(String(outcome[1]), /no actor exposed at \/user\/hidden/);
    await sleep(50);
    assert.deepEqual(await call("PEER", "door", "hiddenReceived"), []);
  });

  it("the sender a callee sees is vouched for: 50 claimed senders reach no actor and start no object's actors", async () => {
    const before = new Set(await call<string[]>("PEER", "p1", "systems"));
    const refused: string[] = [];
    for (let i = 0; i < 50; i++) {
      try {
        await call(
          "FLAKY",
          "claims",
          "understudyDeliver",
          [
            "PEER",
            `claimed-${i}`,
            "0123456789abcdef0123456789abcdef",
          ],
          1,
          [["/user/inbox", "?", "/user/peer"]],
        );
      } catch (error) {
        refused.push(String(error));
      }
    }
    assert.equal(refused.length, 50);
    assert.match(
      refused[0],
      /claims to be PEER\/claimed-0, which does not vouch for it/,
    );
    await sleep(100);
    const after = await call<string[]>("PEER", "p1", "systems");
    assert.deepEqual(
      after.filter((name) => !before.has(name) && name.startsWith("claimed-")),
      [],
      "no reply went to a claimed sender",
    );
    assert.deepEqual(await call("FLAKY", "claims", "ledger"), []);
  });

  it("authorize: an exposed actor takes only what its hook allows, seeing the vouched caller", async () => {
    await call("PEER", "friend-1", "send", "FLAKY", "guard", "/user/guarded", [
      "from a friend",
    ]);
    await call("PEER", "stranger", "send", "FLAKY", "guard", "/user/guarded", [
      "from a stranger",
    ]);
    await call("FLAKY", "guard", "understudyDeliver", null, 1, [[
      "/user/guarded",
      "from a raw stub",
    ]]);
    await eventually(
      () => call<unknown[]>("FLAKY", "guard", "ledger", "/guarded"),
      (l) => l.length >= 1,
    );
    await sleep(100);
    assert.deepEqual(await call("FLAKY", "guard", "ledger", "/guarded"), [
      "from a friend",
    ]);
  });

  it("limits: a batch past maxBatch, and a flood past maxQueued, are refused with a clear error", async () => {
    const big = Array.from({ length: 2_000 }, (_, i) => ["/user/inbox", i]);
    await assert.rejects(
      call("FLAKY", "limits", "understudyDeliver", null, 1, big),
      /RangeError.*a batch of 2000 messages is more than limits\.maxBatch \(1024\)/,
    );
    const batch = Array.from(
      { length: 1_000 },
      (_, i) => ["/user/stuck", "x".repeat(1_000) + i],
    );
    let accepted = 0;
    let refusal = "";
    for (let i = 0; i < 15 && refusal === ""; i++) {
      try {
        await call("FLAKY", "limits", "understudyDeliver", null, 1, batch);
        accepted++;
      } catch (error) {
        refusal = String(error);
      }
    }
    assert.equal(
      accepted,
      10,
      "10,000 messages queue; the next call is refused",
    );
    assert.match(
      refusal,
      /\/user\/stuck has 9999 messages waiting; 1000 more would be more than limits\.maxQueued \(10000\)/,
    );
    await call("FLAKY", "limits", "release");
  });

  // -------------------------------------------------------------- watch

  type WatchEntry = { path: string; remote: boolean; reason: string };

  it("watch on a remote ref: Terminated when the actor stops, when its object is evicted, and when it cannot be reached past the deadline", async () => {
    await call("FLAKY", "w-stop", "failNext", 0, false);
    await call("FLAKY", "w-evict", "failNext", 0, false);
    await call("FLAKY", "w-cut", "failNext", 0, false);
    await call("PEER", "watcher", "watch", "FLAKY", "w-stop", "/user/inbox");
    await call("PEER", "watcher", "watch", "FLAKY", "w-evict", "/user/inbox");
    await call("PEER", "watcher", "watch", "FLAKY", "w-cut", "/user/inbox");
    await call("PEER", "watcher", "watch", "FLAKY", "w-stop", "/user/nobody");
    await sleep(300); // a few heartbeats: all but the last are alive
    let log = await call<WatchEntry[]>("PEER", "watcher", "watchLog");
    assert.deepEqual(log, [{
      path: "durable://FLAKY/w-stop/user/nobody",
      remote: true,
      reason: "no actor exposed at /user/nobody in this object",
    }]);

    await call("FLAKY", "w-stop", "stopInbox");
    await assert.rejects(call("FLAKY", "w-evict", "evict"), /evicted/);
    await call("FLAKY", "w-cut", "failNext", 1_000, false);
    log = await eventually(
      () => call<WatchEntry[]>("PEER", "watcher", "watchLog"),
      (l) => l.length >= 4,
    );
    await sleep(300); // once each: nothing more comes
    log = await call<WatchEntry[]>("PEER", "watcher", "watchLog");
    const byPath = Object.fromEntries(log.map((e) => [e.path, e]));
    assert.equal(log.length, 4, JSON.stringify(log));
    assert.deepEqual(byPath["durable://FLAKY/w-stop/user/inbox"], {
      path: "durable://FLAKY/w-stop/user/inbox",
      remote: true,
      reason: "/user/inbox stopped",
    });
    assert.match(
      byPath["durable://FLAKY/w-evict/user/inbox"].reason,
      /no longer has it \(the object was reset or evicted\)/,
    );
    assert.match(
      byPath["durable://FLAKY/w-cut/user/inbox"].reason,
      /could not be reached for \d+ ms: Error: Network connection lost \(injected\) \(retryable\)/,
    );
    await call("FLAKY", "w-cut", "failNext", 0, false);
  });

  it("outbox: tells a sender had not delivered when it was evicted are sent by its next life, once", async () => {
    await call("FLAKY", "kept", "failNext", 1_000, false);
    await call("KEEPER", "k1", "send", "FLAKY", "kept", "/user/inbox", [
      "k-one",
      "k-two",
    ]);
    await sleep(100); // retried, refused: waiting in the outbox
    assert.equal(await call("KEEPER", "k1", "stored"), 1);
    await assert.rejects(call("KEEPER", "k1", "evict"), /evicted/);
    await call("FLAKY", "kept", "failNext", 0, false);
    assert.deepEqual(
      await call("KEEPER", "k1", "wake"),
      [],
      "nothing given up",
    );
    const ledger = await eventually(
      () => call<unknown[]>("FLAKY", "kept", "ledger"),
      (l) => l.length >= 2,
    );
    await sleep(100);
    assert.deepEqual(await call("FLAKY", "kept", "ledger"), ["k-one", "k-two"]);
    assert.deepEqual(ledger.slice(0, 2), ["k-one", "k-two"]);
    assert.equal(await call("KEEPER", "k1", "stored"), 0, "delivered: deleted");
  });
});
