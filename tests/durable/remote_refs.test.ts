// Copyright 2026 the understudy authors. MIT license.
// Remote refs that behave like local ones, and closed doors, without the
// platform: hosts in one process (_local_namespace.ts) whose stubs can
// fail before or after the object takes a call, and whose storage outlives
// an eviction. The same behaviours in the real runtime are in
// workerd.test.ts.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Actor, type ActorRef, DeadLetter, Props } from "../../mod.ts";
import {
  ActorHost,
  type ActorHostOptions,
  RemoteTerminated,
} from "../../src/durable/mod.ts";
import { localNamespace } from "./_local_namespace.ts";

class Recorder extends Actor<unknown> {
  constructor(readonly seen: unknown[]) {
    super();
  }
  onReceive(message: unknown): void {
    if (message === "echo") this.sender?.tell("echoed");
    else this.seen.push(message);
  }
}

const quick = { maxAttempts: 4, policy: { delayFor: () => 1 } };
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !condition(); i++) await tick();
  assert.ok(condition(), "condition not reached in time");
}

/** Objects "a" (sending) and "b" (an exposed recorder), both of NODE. */
function objects(extra: (name: string) => ActorHostOptions = () => ({})) {
  const seen: unknown[] = [];
  const recorders: ActorRef<unknown>[] = [];
  const ns = localNamespace("NODE", (name) => ({
    system: { logLevel: "off" },
    retry: quick,
    ...extra(name),
    setup: name === "b"
      ? (system, host) => {
        recorders.push(host.expose(
          system.actorOf(Props.create(() => new Recorder(seen)), "recorder"),
        ));
      }
      : undefined,
  }));
  const deadIn = (name: string) => {
    const dead: DeadLetter[] = [];
    ns.host(name).system.eventStream.subscribe(DeadLetter, (d) => dead.push(d));
    return dead;
  };
  const done = async () => {
    for (let round = 0; round < 2; round++) {
      for (const host of ns.hosts.values()) await host.reset();
      await tick();
    }
  };
  return { ns, seen, recorders, deadIn, done };
}

describe("durable: remote refs heal, and tell once", () => {
  it("a stub that failed is not used again: the next tell takes a fresh one", async () => {
    const t = objects();
    const dead = t.deadIn("a");
    const ref = t.ns.host("a").ref("NODE", "b", "/user/recorder");
    t.ns.brokenAfterFailure = true;
    t.ns.failures.push(new Error("not retryable (injected)"));
    ref.tell("lost");
    await until(() => dead.length === 1);
    for (let i = 1; i <= 3; i++) ref.tell(`after-${i}`);
    await until(() => t.seen.length === 3);
    assert.deepEqual(t.seen, ["after-1", "after-2", "after-3"]);
    assert.equal(dead.length, 1, "only the tell that met the error");
    await t.done();
  });

  it("a retry of a call whose reply was lost is dropped as a copy", async () => {
    const t = objects();
    const ref = t.ns.host("a").ref("NODE", "b", "/user/recorder");
    t.ns.lostReplies.push(
      Object.assign(new Error("connection lost"), { retryable: true }),
    );
    ref.tell("one");
    ref.tell("two");
    await until(() => t.ns.calls >= 2);
    await tick();
    assert.deepEqual(t.seen, ["one", "two"]);
    assert.equal(t.ns.storage("b").puts, 1, "one mark written per batch taken");
    await t.done();
  });

  it("the mark survives the receiver's eviction: a copy sent to the fresh object is dropped too", async () => {
    const t = objects();
    const ref = t.ns.host("a").ref("NODE", "b", "/user/recorder");
    ref.tell("m1");
    await until(() => t.seen.length === 1);
    // The next call is taken and the object evicted before its reply.
    t.ns.lostReplies.push(
      Object.assign(new Error("evicted"), { durableObjectReset: true }),
    );
    const evicted = t.ns.host("b");
    ref.tell("m2");
    await until(() => t.seen.length === 2);
    await t.ns.evict("b");
    assert.notEqual(t.ns.host("b"), evicted);
    await until(() => t.ns.calls >= 3);
    ref.tell("m3");
    await until(() => t.seen.length >= 3);
    await tick();
    assert.deepEqual(t.seen, ["m1", "m2", "m3"]);
    await t.done();
  });

  it("an ask retried after its reply was lost is delivered once and answered with the first call's answer", async () => {
    const asked: unknown[] = [];
    class Counting extends Actor<string> {
      onReceive(message: string): void {
        asked.push(message);
        this.sender?.tell(`answer ${asked.length}`);
      }
    }
    const ns = localNamespace("NODE", (name) => ({
      system: { logLevel: "off" },
      retry: quick,
      setup: name === "b"
        ? (system, host) => {
          host.expose(
            system.actorOf(Props.create(() => new Counting()), "counting"),
          );
        }
        : undefined,
    }));
    const ref = ns.host("a").ref<string>("NODE", "b", "/user/counting");
    ns.lostReplies.push(
      Object.assign(new Error("connection lost"), { retryable: true }),
    );
    assert.equal(await ref.ask("once", 1_000), "answer 1");
    assert.ok(ns.calls >= 2, "the ask was sent again");
    assert.deepEqual(asked, ["once"], "and delivered once");
    // A host that does not know itself sends no number: its retry is
    // delivered again (the copy cannot be told apart).
    const anonymous = new ActorHost(undefined, ns.env, {
      system: { logLevel: "off" },
      retry: quick,
    });
    ns.lostReplies.push(
      Object.assign(new Error("connection lost"), { retryable: true }),
    );
    assert.equal(
      await anonymous.ref<string>("NODE", "b", "/user/counting").ask(
        "twice",
        1_000,
      ),
      "answer 3",
    );
    assert.deepEqual(asked, ["once", "twice", "twice"]);
    await anonymous.reset();
    for (const host of ns.hosts.values()) await host.reset();
  });

  it("after the sender's eviction its fresh object numbers anew, and is taken", async () => {
    const t = objects();
    t.ns.host("a").ref("NODE", "b", "/user/recorder").tell("first life");
    await until(() => t.seen.length === 1);
    await t.ns.evict("a");
    t.ns.host("a").ref("NODE", "b", "/user/recorder").tell("second life");
    await until(() => t.seen.length === 2);
    assert.deepEqual(t.seen, ["first life", "second life"]);
    await t.done();
  });
});

describe("durable: the outbox", () => {
  it("tells a sender had not delivered when it was evicted are sent by its next life, once, in order", async () => {
    const t = objects((name) => ({
      outbox: name === "a",
      retry: { maxAttempts: 3, policy: { delayFor: () => 60_000 } },
    }));
    const a = t.ns.host("a");
    const ref = a.ref("NODE", "b", "/user/recorder");
    ref.tell("one");
    await until(() => t.seen.length === 1);
    // The next call is taken but its reply lost: its retry is a minute
    // away, the next tell waits behind it, and the sender is evicted
    // meanwhile.
    t.ns.lostReplies.push(
      Object.assign(new Error("connection lost"), { retryable: true }),
    );
    ref.tell("two");
    ref.tell("three");
    await until(() => t.seen.length === 3);
    await tick();
    const storage = t.ns.storage("a");
    assert.equal(
      [...storage.map.keys()].filter((k) => k.includes("outbox")).length,
      1,
      "the undelivered call is stored",
    );
    ref.tell("four");
    await tick();
    assert.equal(
      [...storage.map.keys()].filter((k) => k.includes("outbox")).length,
      2,
    );
    await t.ns.evict("a");
    // Its next life reads the outbox back (withActors does it in
    // blockConcurrencyWhile) and sends it, first.
    const again = t.ns.host("a");
    await again.recover();
    again.ref("NODE", "b", "/user/recorder").tell("five");
    await until(() => t.seen.length === 5);
    await tick();
    assert.deepEqual(t.seen, ["one", "two", "three", "four", "five"]);
    await until(() =>
      [...storage.map.keys()].filter((k) => k.includes("outbox")).length === 0
    );
    assert.ok(storage.deletes >= 2, "delivered: the stored copies go");
    await t.done();
  });

  it("tells stored by two lives that both went undelivered are sent by the third in the order told", async () => {
    // Each life's tells are stored under its random incarnation; a third
    // life once sent them in the order of those keys, so in about half of
    // the cases the second life's tells went first (found by the workerd
    // chaos test, seed 105). Eight senders make a pass by chance 1 in 256.
    const senders = ["a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8"];
    const t = objects((name) => ({
      outbox: name !== "b",
      retry: { maxAttempts: 3, policy: { delayFor: () => 60_000 } },
    }));
    const say = async (name: string, life: number) => {
      const host = t.ns.host(name);
      await host.recover();
      t.ns.failures.push(
        Object.assign(new Error("unreachable"), { retryable: true }),
      );
      host.ref("NODE", "b", "/user/recorder").tell(`${name}:${life}a`);
      host.ref("NODE", "b", "/user/recorder").tell(`${name}:${life}b`);
      await tick();
    };
    for (const name of senders) {
      await say(name, 1); // refused; its retry is a minute away
      await t.ns.evict(name);
      await say(name, 2); // the first life's tells, then its own: refused
      await t.ns.evict(name);
    }
    for (const name of senders) {
      const host = t.ns.host(name);
      await host.recover();
      host.ref("NODE", "b", "/user/recorder").tell(`${name}:3a`);
    }
    await until(() => t.seen.length === senders.length * 5);
    await tick();
    for (const name of senders) {
      assert.deepEqual(
        t.seen.filter((m) => String(m).startsWith(`${name}:`)),
        [`${name}:1a`, `${name}:1b`, `${name}:2a`, `${name}:2b`, `${name}:3a`],
      );
    }
    await t.done();
  });

  it("an outbox needs a storage that lists and deletes", () => {
    assert.throws(
      () =>
        new ActorHost(
          {
            id: { name: "x" },
            storage: { get: async () => {}, put: async () => {} },
          },
          {},
          { binding: "NODE", outbox: true },
        ),
      /"outbox" must be false when the object's storage has no list and delete \(got true\)/,
    );
  });
});

describe("durable: closed doors", () => {
  it("a local actor that sent a remote message takes replies only from the object it sent to", async () => {
    const t = objects();
    const a = t.ns.host("a");
    const replies: unknown[] = [];
    const hidden = a.system.actorOf(
      Props.create(() => new Recorder(replies)),
      "hidden",
    );
    a.ref("NODE", "b", "/user/recorder").tell(
      "echo",
      hidden as ActorRef<never>,
    );
    await until(() => replies.length === 1);
    const dead = t.deadIn("a");
    await a.deliver(null, 1, [["/user/hidden", "from a raw stub"]]);
    assert.deepEqual(await a.ask(null, ["/user/hidden", "?"], 100), [
      2,
      "no actor exposed at /user/hidden in this object",
    ]);
    assert.deepEqual(replies, ["echoed"]);
    assert.equal(dead.length, 2);
    await t.done();
  });

  it("a claimed identity the named object does not vouch for is refused; nothing is replied to it", async () => {
    const t = objects();
    const b = t.ns.host("b");
    await assert.rejects(
      b.deliver(["NODE", "someone", "0".repeat(32)], 1, [[
        "/user/recorder",
        "echo",
        "/user/x",
      ]]),
      /the caller claims to be NODE\/someone, which does not vouch for it/,
    );
    assert.deepEqual(t.seen, []);
    assert.equal(t.ns.made.includes("someone"), true, "asked once");
    assert.equal(
      t.ns.host("someone").generations,
      0,
      "its actors never started",
    );
    await assert.rejects(
      b.deliver(["NODE", "a"], 1, []),
      /"from" must be null or \[binding, name, incarnation\]/,
    );
    await t.done();
  });

  it("authorize sees the vouched caller, the path, the message and the kind", async () => {
    const seen: unknown[] = [];
    const asked: unknown[] = [];
    const ns = localNamespace("NODE", (name) => ({
      system: { logLevel: "off" },
      setup: name === "guard"
        ? (system, host) => {
          host.expose(
            system.actorOf(Props.create(() => new Recorder(seen)), "guarded"),
            {
              authorize: (request) => {
                asked.push(request);
                return request.caller?.name === "friend";
              },
            },
          );
        }
        : undefined,
    }));
    ns.host("friend").ref("NODE", "guard", "/user/guarded").tell("hi");
    ns.host("stranger").ref("NODE", "guard", "/user/guarded").tell("hi too");
    await until(() => asked.length === 2);
    await tick();
    assert.deepEqual(seen, ["hi"]);
    assert.deepEqual(asked[0], {
      caller: { binding: "NODE", name: "friend" },
      path: "/user/guarded",
      message: "hi",
      kind: "tell",
    });
    for (const host of ns.hosts.values()) await host.reset();
  });

  it("limits: a batch past maxBatch and a mailbox past maxQueued refuse the call with a RangeError marked overloaded", async () => {
    class Stuck extends Actor<unknown> {
      onReceive(): Promise<void> {
        return new Promise(() => {});
      }
    }
    const host = new ActorHost(undefined, {}, {
      system: { logLevel: "off" },
      limits: { maxBatch: 3, maxQueued: 4 },
      setup: (system, host) => {
        host.expose(system.actorOf(Props.create(() => new Stuck()), "stuck"));
      },
    });
    await assert.rejects(
      host.deliver(null, 1, [["/user/stuck", 1], ["/user/stuck", 2], [
        "/user/stuck",
        3,
      ], ["/user/stuck", 4]]),
      (error: unknown) =>
        error instanceof RangeError &&
        (error as { overloaded?: boolean }).overloaded === true &&
        /a batch of 4 messages is more than limits\.maxBatch \(3\)/.test(
          error.message,
        ),
    );
    await host.deliver(null, 1, [["/user/stuck", 1], ["/user/stuck", 2]]);
    await tick(); // the first is taken, the second waits
    await host.deliver(null, 1, [["/user/stuck", 3], ["/user/stuck", 4]]);
    await assert.rejects(
      host.deliver(null, 1, [["/user/stuck", 5], ["/user/stuck", 6]]),
      /\/user\/stuck has 3 messages waiting; 2 more would be more than limits\.maxQueued \(4\)/,
    );
    assert.throws(
      () => new ActorHost(undefined, {}, { limits: { maxBatch: 0 } }),
      /"limits.maxBatch" must be a whole number >= 1 or Infinity \(got 0\)/,
    );
    assert.throws(
      () => new ActorHost(undefined, {}, { watch: { heartbeatMs: -1 } }),
      RangeError,
    );
    assert.throws(
      () =>
        host.expose(host.system.deadLetters as ActorRef<unknown>, {
          authorize: 1 as unknown as () => boolean,
        }),
      /"authorize" must be a function/,
    );
    await host.reset();
  });
});

describe("durable: watch across objects", () => {
  class Watcher extends Actor<unknown> {
    constructor(readonly told: RemoteTerminated[]) {
      super();
    }
    onReceive(message: unknown): void {
      if (message instanceof RemoteTerminated) this.told.push(message);
    }
  }

  it("context.watchWith on a remote ref: its own message when the actor stops", async () => {
    const t = objects(() => ({}));
    const a = t.ns.host("a");
    const told: unknown[] = [];
    class WithWatcher extends Actor<unknown> {
      override preStart(): void {
        this.context.watchWith(
          a.ref("NODE", "b", "/user/recorder") as ActorRef<never>,
          { kind: "recorder gone" },
        );
      }
      onReceive(message: unknown): void {
        told.push(message);
      }
    }
    a.system.actorOf(Props.create(() => new WithWatcher()));
    await tick();
    await tick();
    const b = t.ns.host("b");
    b.system.stop(t.recorders[0] as ActorRef<never>);
    await until(() => told.length === 1);
    assert.deepEqual(told, [{ kind: "recorder gone" }]);
  });

  it("RemoteTerminated when the actor stops, when its object is evicted, and past the deadline", async () => {
    const t = objects(() => ({
      watch: { heartbeatMs: 10, unreachableAfterMs: 60 },
    }));
    const a = t.ns.host("a");
    const told: RemoteTerminated[] = [];
    const watcher = a.system.actorOf(Props.create(() => new Watcher(told)));
    for (const target of ["/user/recorder", "/user/nobody"]) {
      a.ref("NODE", "b", target).watchRemote(watcher as ActorRef<never>);
    }
    await until(() => told.length === 1);
    assert.equal(told[0].ref.path, "durable://NODE/b/user/nobody");
    assert.equal(
      told[0].reason,
      "no actor exposed at /user/nobody in this object",
    );
    await tick();
    assert.equal(told.length, 1, "the recorder's watch goes on");

    // It stops.
    const b = t.ns.host("b");
    b.system.stop(t.recorders[0] as ActorRef<never>);
    await until(() => told.length === 2);
    assert.equal(told[1].reason, "/user/recorder stopped");

    // Its object is evicted (its fresh self has a recorder of its own,
    // which is not the one watched).
    await t.ns.evict("b");
    a.ref("NODE", "b", "/user/recorder").watchRemote(
      watcher as ActorRef<never>,
    );
    await until(() => t.recorders.length === 2);
    await tick(); // registered with the fresh object
    await tick();
    await t.ns.evict("b");
    t.ns.host("b").system;
    await until(() => told.length === 3);
    assert.match(
      told[2].reason,
      /no longer has it \(the object was reset or evicted\)/,
    );

    // Its object cannot be reached.
    const stop = a.ref("NODE", "b", "/user/recorder").watchRemote(
      watcher as ActorRef<never>,
    );
    await tick();
    for (let i = 0; i < 1_000; i++) {
      t.ns.failures.push(
        Object.assign(new Error("cut (injected)"), { retryable: true }),
      );
    }
    await until(() => told.length === 4);
    assert.match(
      told[3].reason,
      /could not be reached for \d+ ms: Error: cut \(injected\) \(retryable\)/,
    );
    t.ns.failures.length = 0;
    stop(); // already ended: nothing happens
    await tick();
    assert.equal(told.length, 4);
    await t.done();
  });

  it("a heartbeat that comes before the stop's notice does not take the watch for lost: the reason is the stop", async () => {
    const t = objects(() => ({ watch: { heartbeatMs: 10 } }));
    const get = t.ns.get.bind(t.ns);
    t.ns.get = (id: unknown) => {
      const stub = get(id);
      const ended = stub.understudyWatchEnded;
      // The notice takes a while on its way; heartbeats go on meanwhile.
      stub.understudyWatchEnded = (watchId: unknown, reason: unknown) =>
        new Promise((resolve) => setTimeout(resolve, 80)).then(() =>
          ended(watchId, reason)
        );
      return stub;
    };
    const a = t.ns.host("a");
    const told: RemoteTerminated[] = [];
    const watcher = a.system.actorOf(Props.create(() => new Watcher(told)));
    a.ref("NODE", "b", "/user/recorder").watchRemote(
      watcher as ActorRef<never>,
    );
    await tick();
    await tick();
    t.ns.host("b").system.stop(t.recorders[0] as ActorRef<never>);
    await until(() => told.length === 1);
    assert.equal(told[0].reason, "/user/recorder stopped");
    await t.done();
  });

  it("ending a watch early: nothing is told after", async () => {
    const t = objects(() => ({ watch: { heartbeatMs: 10 } }));
    const a = t.ns.host("a");
    const told: RemoteTerminated[] = [];
    const watcher = a.system.actorOf(Props.create(() => new Watcher(told)));
    const unwatch = a.ref("NODE", "b", "/user/recorder").watchRemote(
      watcher as ActorRef<never>,
    );
    await tick();
    unwatch();
    await tick();
    t.ns.host("b").system.stop(t.recorders[0] as ActorRef<never>);
    await tick();
    await tick();
    assert.deepEqual(told, []);
    await t.done();
  });
});
