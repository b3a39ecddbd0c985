// Copyright 2026 the understudy authors. MIT license.
// ActorHost and remote refs without the platform: a namespace of hosts in
// one process (_local_namespace.ts), whose stubs clone each message (as RPC
// serializes it) and can be told to fail. The real runtime is in
// workerd.test.ts; this file checks what does not need it, in every runtime.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { Actor, type ActorRef, DeadLetter, Props } from "../../mod.ts";
import {
  ActorHost,
  RemoteDeliveryError,
  RemoteDeliveryFailed,
  RemoteRef,
  withActors,
} from "../../src/durable/mod.ts";
import { LocalNamespace, localNamespace } from "./_local_namespace.ts";

class Recorder extends Actor<unknown> {
  constructor(readonly seen: unknown[]) {
    super();
  }
  onReceive(message: unknown): void {
    if (message === "?") this.sender?.tell(this.seen.length);
    else if (message === "echo") this.sender?.tell("echoed");
    else this.seen.push(message);
  }
}

const retryable = () =>
  Object.assign(new Error("Network connection lost."), { retryable: true });
const overloaded = () =>
  Object.assign(new Error("Durable Object is overloaded."), {
    overloaded: true,
  });
const quick = { maxAttempts: 3, policy: { delayFor: () => 1 } };

function pair(retry: object = quick) {
  const seen: unknown[] = [];
  const ns = localNamespace("NODE", (name) => ({
    system: { logLevel: "off" },
    retry,
    setup: name === "b"
      ? (system, host) => {
        host.expose(
          system.actorOf(Props.create(() => new Recorder(seen)), "recorder"),
        );
      }
      : undefined,
  }));
  const a = ns.host("a");
  const b = ns.host("b");
  const dead: DeadLetter[] = [];
  const failed: RemoteDeliveryFailed[] = [];
  a.system.eventStream.subscribe(DeadLetter, (d) => dead.push(d));
  a.system.eventStream.subscribe(RemoteDeliveryFailed, (f) => failed.push(f));
  const ref = a.ref<unknown>("NODE", "b", "/user/recorder");
  // Twice: a call still on its way (being vouched for) when the first
  // reset ran starts a fresh system, as any later call would.
  const done = async () => {
    for (const host of ns.hosts.values()) await host.reset();
    await new Promise((resolve) => setTimeout(resolve, 5));
    for (const host of ns.hosts.values()) await host.reset();
  };
  return { ns, a, b, seen, dead, failed, ref, done };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !condition(); i++) await tick();
  assert.ok(condition(), "condition not reached in time");
}

/** What a tell in a burst is: to which of three actors, from which of two local senders (or none). */
type Told = { to: 0 | 1 | 2; from: 0 | 1 | 2; n: number };

/**
 * Objects "a" and "b" of NODE: b exposes three actors that log what they
 * take (`[actor, message, sender path]`), a has two local senders; every
 * call to b is recorded with the size of its batch.
 */
function burstPair(retry: object = quick) {
  const log: [number, unknown, string | undefined][] = [];
  class Logger extends Actor<unknown> {
    constructor(readonly index: number) {
      super();
    }
    onReceive(message: unknown): void {
      log.push([this.index, message, this.sender?.path]);
    }
  }
  class Quiet extends Actor<unknown> {
    onReceive(): void {}
  }
  const ns = localNamespace("NODE", (name) => ({
    system: { logLevel: "off" },
    retry,
    setup: name === "b"
      ? (system, host) => {
        for (const i of [0, 1, 2]) {
          host.expose(
            system.actorOf(Props.create(() => new Logger(i)), `r${i}`),
          );
        }
      }
      : undefined,
  }));
  const a = ns.host("a");
  const sizes: number[] = [];
  const get = ns.get.bind(ns);
  ns.get = (id: unknown) => {
    const stub = get(id);
    const deliver = stub.understudyDeliver;
    stub.understudyDeliver = (from, first, batch) => {
      sizes.push((batch as { messages: unknown[] }).messages.length);
      return deliver(from, first, batch);
    };
    return stub;
  };
  const refs = [0, 1, 2].map((i) => a.ref<unknown>("NODE", "b", `/user/r${i}`));
  const senders = [
    undefined,
    a.system.actorOf(Props.create(() => new Quiet()), "s1"),
    a.system.actorOf(Props.create(() => new Quiet()), "s2"),
  ] as (ActorRef<never> | undefined)[];
  const dead: DeadLetter[] = [];
  const failed: RemoteDeliveryFailed[] = [];
  a.system.eventStream.subscribe(DeadLetter, (d) => dead.push(d));
  a.system.eventStream.subscribe(RemoteDeliveryFailed, (f) => failed.push(f));
  const tell = (told: Told[], message = (t: Told): unknown => t.n) => {
    for (const t of told) refs[t.to].tell(message(t), senders[t.from]);
  };
  const done = async () => {
    for (const host of ns.hosts.values()) await host.reset();
    await tick();
    for (const host of ns.hosts.values()) await host.reset();
  };
  return { ns, a, log, sizes, refs, senders, dead, failed, tell, done };
}

const toldArbitrary = fc.array(
  fc.record({
    to: fc.constantFrom(0 as const, 1 as const, 2 as const),
    from: fc.constantFrom(0 as const, 1 as const, 2 as const),
  }),
  { minLength: 1, maxLength: 700, size: "max" },
).map((told) => told.map((t, n): Told => ({ ...t, n })));

describe("durable: ActorHost and remote refs", () => {
  it("tells cross in order, in one call per turn, as clones", async () => {
    const t = pair();
    const message = { n: 0 };
    for (let n = 1; n <= 5; n++) t.ref.tell({ n });
    t.ref.tell(message);
    await until(() => t.seen.length === 6);
    assert.deepEqual(t.seen.slice(0, 5), [1, 2, 3, 4, 5].map((n) => ({ n })));
    assert.notEqual(t.seen[5], message, "a copy, not the same object");
    assert.equal(t.ns.calls, 1);
    assert.ok(t.ref instanceof RemoteRef);
    assert.equal(t.ref.path, "durable://NODE/b/user/recorder");
    await t.done();
  });

  it("a batch crosses as runs: each path once a run, then the messages; a host takes runs and [path, message] entries alike", async () => {
    const t = pair();
    const batches: unknown[] = [];
    const get = t.ns.get.bind(t.ns);
    t.ns.get = (id: unknown) => {
      const stub = get(id);
      const deliver = stub.understudyDeliver;
      stub.understudyDeliver = (from, first, batch) => {
        batches.push(structuredClone(batch));
        return deliver(from, first, batch);
      };
      return stub;
    };
    const local = t.a.system.actorOf(
      Props.create(() => new Recorder([])),
      "local",
    );
    t.ref.tell(1);
    t.ref.tell(2);
    t.ref.tell(3, local as ActorRef<never>);
    t.a.ref("NODE", "b", "/user/nobody").tell(4);
    await until(() => t.seen.length === 3);
    assert.deepEqual(batches, [{
      runs: [
        "/user/recorder",
        "",
        2,
        "/user/recorder",
        "/user/local",
        1,
        "/user/nobody",
        "",
        1,
      ],
      messages: [1, 2, 3, 4],
    }]);
    const dead: DeadLetter[] = [];
    t.b.system.eventStream.subscribe(DeadLetter, (d) => dead.push(d));
    await t.b.deliver(null, 1, [
      ["/user/recorder", "entry"],
      "not an entry",
    ]);
    await t.b.deliver(null, 1, {
      runs: ["/user/recorder", "", 2],
      messages: ["r1", "r2"],
    });
    assert.deepEqual(t.seen.slice(3), ["entry", "r1", "r2"]);
    assert.deepEqual(dead.map((d) => [d.message, d.reason]), [[
      "not an entry",
      "malformed remote message",
    ]]);
    for (
      const bad of [
        { runs: ["/user/recorder", "", 3], messages: ["one", "two"] },
        { runs: ["/user/recorder", "", 1], messages: ["one", "two"] },
        { runs: ["/user/recorder", "", 0], messages: [] },
        { runs: ["/user/recorder", 7, 1], messages: ["one"] },
        { runs: ["/user/recorder", ""], messages: ["one"] },
        { messages: ["one"] },
        "one",
      ]
    ) {
      await assert.rejects(
        t.b.deliver(null, 1, bad),
        (e: unknown) =>
          e instanceof TypeError &&
          /"batch" must be an array of \[path, message\] entries, or runs and messages/
            .test(e.message),
        JSON.stringify(bad),
      );
    }
    await t.done();
  });

  it("a burst of 20,000 tells in one turn arrives whole, in order, in calls of at most 256", async () => {
    const t = pair();
    for (let n = 0; n < 20_000; n++) t.ref.tell(n);
    await until(() => t.seen.length === 20_000);
    assert.ok(t.seen.every((n, i) => n === i), "in order");
    assert.equal(t.ns.calls, Math.ceil(20_000 / 256));
    await t.done();
  });

  it("a burst to several actors from several senders: each takes its tells once, in order, from its sender; calls of 256 but the last", async () => {
    await fc.assert(
      fc.asyncProperty(
        toldArbitrary,
        // Fewer than maxAttempts: each lost reply costs one retry.
        fc.integer({ min: 0, max: 2 }),
        async (told, lost) => {
          const t = burstPair();
          // Replies lost: the calls are retried, and the copies dropped.
          for (let i = 0; i < lost; i++) t.ns.lostReplies.push(retryable());
          t.tell(told);
          await until(() => t.log.length >= told.length);
          await tick();
          for (const to of [0, 1, 2]) {
            assert.deepEqual(
              t.log.filter(([actor]) => actor === to).map(([, n, from]) => [
                n,
                from,
              ]),
              told.filter((m) => m.to === to).map((m) => [
                m.n,
                m.from === 0 ? undefined : `durable://NODE/a/user/s${m.from}`,
              ]),
            );
          }
          assert.equal(t.log.length, told.length, "none twice");
          // 256 a call, whatever the recipients; a lost reply's retry
          // may still be on its way.
          const calls = Math.ceil(told.length / 256);
          await until(() => t.sizes.length >= calls + lost);
          await tick();
          assert.equal(t.sizes.length, calls + lost);
          assert.ok(t.sizes.every((n) => n <= 256), `${t.sizes}`);
          assert.deepEqual(t.dead, []);
          await t.done();
        },
      ),
      { numRuns: 25 },
    );
  });

  it("runs of 150 tells to two actors leave in calls of 256: a call ends inside a run, the rest follows it", async () => {
    const t = burstPair();
    const told: Told[] = [];
    for (let n = 0; n < 750; n++) {
      told.push({ to: Math.floor(n / 150) % 2 as Told["to"], from: 0, n });
    }
    t.tell(told);
    await until(() => t.log.length === 750);
    assert.deepEqual(t.sizes, [256, 256, 238]);
    for (const to of [0, 1]) {
      assert.deepEqual(
        t.log.filter(([actor]) => actor === to).map(([, n]) => n),
        told.filter((m) => m.to === to).map((m) => m.n),
      );
    }
    await t.done();
  });

  it("a message RPC cannot serialize, in a batch of runs: it alone is a dead letter, with its recipient and sender; the rest arrive", async () => {
    await fc.assert(
      fc.asyncProperty(toldArbitrary, fc.nat(), async (told, at) => {
        const t = burstPair();
        const bad = told[at % told.length];
        const fn = () => {};
        t.tell(told, (m) => (m === bad ? fn : m.n));
        await until(() =>
          t.log.length === told.length - 1 && t.dead.length > 0
        );
        await tick();
        for (const to of [0, 1, 2]) {
          assert.deepEqual(
            t.log.filter(([actor]) => actor === to).map(([, n]) => n),
            told.filter((m) => m.to === to && m !== bad).map((m) => m.n),
          );
        }
        assert.equal(t.dead.length, 1);
        assert.equal(t.dead[0].message, fn);
        assert.equal(t.dead[0].recipient, t.refs[bad.to]);
        assert.equal(t.dead[0].sender, t.senders[bad.from]);
        assert.match(
          t.dead[0].reason,
          /remote delivery failed after 1 attempt/,
        );
        assert.equal(t.failed.length, 1);
        await t.done();
      }),
      { numRuns: 15 },
    );
  });

  it("a reset gives up each tell of a burst waiting behind a retry: one dead letter and one event a message, with its recipient and sender", async () => {
    const t = burstPair({ maxAttempts: 3, policy: { delayFor: () => 60_000 } });
    t.ns.failures.push(retryable());
    const told: Told[] = [];
    for (let n = 0; n < 600; n++) {
      told.push({
        to: (n % 7 < 4 ? 0 : n % 3) as Told["to"],
        from: (n % 5 === 0 ? 1 : 0) as Told["from"],
        n,
      });
    }
    const slow = t.a;
    t.tell(told);
    await until(() => t.ns.calls === 1);
    await tick();
    await slow.reset();
    assert.deepEqual(t.log, []);
    assert.deepEqual(
      t.dead.map((d) => [d.message, d.recipient, d.sender]),
      told.map((m) => [m.n, t.refs[m.to], t.senders[m.from]]),
    );
    assert.ok(t.dead.every((d) => /actor host was reset/.test(d.reason)));
    assert.equal(t.failed.length, told.length);
    await t.done();
  });

  it("ask resolves with the reply; a sender's address lets the receiver reply by tell", async () => {
    const t = pair();
    assert.equal(await t.ref.ask("echo", 1_000), "echoed");
    const replies: unknown[] = [];
    const local = t.a.expose(
      t.a.system.actorOf(Props.create(() => new Recorder(replies)), "local"),
    );
    t.ref.tell("echo", local as ActorRef<never>);
    await until(() => replies.length === 1);
    assert.deepEqual(replies, ["echoed"]);
    await t.done();
  });

  it("retries a retryable error, then delivers", async () => {
    const t = pair();
    t.ns.failures.push(retryable(), retryable());
    t.ref.tell("x");
    await until(() => t.seen.length === 1);
    assert.equal(t.ns.calls, 3);
    assert.deepEqual(t.dead, []);
    await t.done();
  });

  it("gives up after maxAttempts: a dead letter with the error, and the event", async () => {
    const t = pair();
    t.ns.failures.push(retryable(), retryable(), retryable(), retryable());
    t.ref.tell("lost");
    await until(() => t.dead.length === 1);
    assert.equal(t.ns.calls, 3);
    assert.match(
      t.dead[0].reason,
      /after 3 attempts: Error: Network connection lost\. \(retryable\)/,
    );
    assert.equal(t.failed[0].attempts, 3);
    assert.equal((t.failed[0].error as { retryable: boolean }).retryable, true);
    assert.deepEqual(t.seen, []);
    await t.done();
  });

  it("does not retry an overloaded error by default; a custom shouldRetry may, up to maxAttempts", async () => {
    const t = pair();
    t.ns.failures.push(overloaded());
    await assert.rejects(t.ref.ask("echo", 1_000), (error) => {
      assert.ok(error instanceof RemoteDeliveryError);
      assert.equal(error.attempts, 1);
      assert.equal((error.cause as { overloaded: boolean }).overloaded, true);
      return true;
    });
    assert.equal(t.ns.calls, 1);
    await t.done();

    const asked: number[] = [];
    const u = pair({
      ...quick,
      shouldRetry: (_error: unknown, attempt: number) => {
        asked.push(attempt);
        return true;
      },
    });
    u.ns.failures.push(overloaded(), overloaded(), overloaded(), overloaded());
    await assert.rejects(u.ref.ask("echo", 1_000), RemoteDeliveryError);
    assert.equal(u.ns.calls, 3);
    // Asked after the first and second calls; the third was the last allowed.
    assert.deepEqual(asked, [1, 2]);
    await u.done();
  });

  it("reset gives up messages waiting for a retry (no timer left) and starts a fresh system on next use", async () => {
    const t = pair({ maxAttempts: 3, policy: { delayFor: () => 60_000 } });
    t.ns.failures.push(retryable());
    t.ref.tell("waiting");
    await until(() => t.ns.calls === 1);
    await tick();
    const first = t.a.system;
    await t.a.reset();
    assert.equal(t.dead.length, 1);
    assert.match(t.dead[0].reason, /actor host was reset/);
    assert.notEqual(t.a.system, first);
    assert.equal(t.a.generations, 2);
    await t.done();
  });

  it("a message for a path nothing is exposed at is a dead letter in the receiving object", async () => {
    const t = pair();
    const dead: DeadLetter[] = [];
    t.b.system.eventStream.subscribe(DeadLetter, (d) => dead.push(d));
    t.a.ref("NODE", "b", "/user/nobody").tell("hello");
    await until(() => dead.length === 1);
    assert.match(dead[0].reason, /no actor exposed at \/user\/nobody/);
    await t.done();
  });

  it("an aborted signal rejects the ask with its reason", async () => {
    const t = pair();
    const controller = new AbortController();
    const asked = t.ref.ask("never answered", {
      timeoutMs: 1_000,
      signal: controller.signal,
    });
    controller.abort(new Error("gave up"));
    await assert.rejects(asked, /gave up/);
    await t.done();
  });

  it("bad arguments fail at the call that took them, naming the option", async () => {
    const ns = new LocalNamespace();
    assert.throws(
      () => new ActorHost(undefined, {}, { retry: { maxAttempts: 0 } }),
      RangeError,
    );
    assert.throws(
      () => new ActorHost(undefined, {}, { retry: { maxAttempts: 0 } }),
      /"retry.maxAttempts" must be an integer in \[1, 100\] \(got 0\)/,
    );
    assert.throws(
      () =>
        new ActorHost(undefined, {}, {
          retry: { policy: {} as { delayFor(n: number): number } },
        }),
      (e: unknown) =>
        e instanceof TypeError &&
        e.message.endsWith(
          `"retry.policy" must be a BackoffPolicy (an object with a delayFor(restartCount) method) (got an object (Object))`,
        ),
    );
    assert.throws(
      () => new ActorHost(undefined, null as unknown as object),
      /"env"/,
    );
    const host = new ActorHost(undefined, { NODE: ns, TEXT: "x" });
    assert.throws(
      () => host.ref("MISSING", "b", "/user/x"),
      /env\["MISSING"\] is undefined/,
    );
    assert.throws(() => host.ref("TEXT", "b", "/user/x"), TypeError);
    assert.throws(
      () => host.ref("NODE", "b", "user/x"),
      /"path" must be an actor path/,
    );
    assert.throws(
      () => host.ref("NODE", "b", "/user/x").ask("?", -1),
      RangeError,
    );
    assert.throws(
      () => withActors(42 as unknown as typeof Object),
      /"Base" must be a class/,
    );
    await host.reset();
  });

  it("withActors: the objects it makes host a system, set up by createActors, and answer the RPC methods", async () => {
    class Base {
      constructor(readonly ctx: unknown, readonly env: unknown) {}
    }
    const seen: unknown[] = [];
    class Room extends withActors(Base, { system: { logLevel: "off" } }) {
      override createActors(): void {
        this.actors.expose(
          this.actors.system.actorOf(
            Props.create(() => new Recorder(seen)),
            "room",
          ),
        );
      }
    }
    const room = new Room({ id: { name: "lobby" } }, {});
    await room.understudyDeliver(null, 1, [["/user/room", "hi"]]);
    assert.deepEqual(
      await room.understudyAsk(null, ["/user/room", "?"], 1_000),
      [0, 1],
    );
    assert.equal(room.understudyVouch("0123", "ROOM", "x"), false);
    assert.equal(room.actors.address, undefined, "no binding option");
    await room.actors.reset();
  });
});
