// Copyright 2026 the understudy authors. MIT license.
// Specification of the event stream: dead letters on every loss path,
// lifecycle events, subscribe / unsubscribe and filtering by class.

import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  ActorFailed,
  type ActorRef,
  ActorRestarted,
  ActorStarted,
  ActorStopped,
  type ActorSystem,
  DeadLetter,
  EventStream,
  Props,
  UndeliveredError,
} from "../../mod.ts";
import {
  collect,
  collectDeadLetters,
  createSystem,
  deferred,
  fnProps,
  logRecorder,
  recorderProps,
  settle,
} from "./_helpers.ts";
import { ManualScheduler } from "../../src/testing/manual_scheduler.ts";

describe("Dead letters", () => {
  let system: ActorSystem;
  beforeEach(() => {
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  it("are published for a message to a stopped actor, with message, sender, recipient and reason", async () => {
    const dead = collectDeadLetters(system);
    const target = system.actorOf(
      fnProps((a) => a.context.stopSelf()),
      "target",
    );
    const sender = system.actorOf(recorderProps(), "sender");
    target.tell("stop");
    await settle();
    const message = { late: true };
    target.tell(message, sender);
    assert.equal(dead.length, 1);
    assert.ok(dead[0] instanceof DeadLetter);
    assert.equal(dead[0].message, message);
    assert.equal(dead[0].sender, sender);
    assert.equal(dead[0].recipient, target);
    assert.equal(dead[0].reason, "recipient stopped");
  });

  it("are published for every message still queued when an actor stops, in order", async () => {
    const dead = collectDeadLetters(system);
    const sender = system.actorOf(recorderProps(), "sender");
    const target = system.actorOf(
      fnProps((a) => a.context.stopSelf()),
      "target",
    );
    target.tell("stop");
    target.tell("q1", sender);
    target.tell("q2");
    await settle();
    assert.deepEqual(
      dead.map((d) => [d.message, d.sender, d.recipient, d.reason]),
      [
        ["q1", sender, target, "recipient stopped"],
        ["q2", undefined, target, "recipient stopped"],
      ],
    );
  });

  it("are published for messages queued when a parent stops its child", async () => {
    const dead = collectDeadLetters(system);
    const gate = deferred();
    let child!: ActorRef<string>;
    class Parent extends Actor<string> {
      override preStart(): void {
        child = this.context.actorOf(
          fnProps(async () => await gate.promise),
          "child",
        );
      }
      onReceive(): void {
        this.context.stop(child);
      }
    }
    const parent = system.actorOf(Props.create(() => new Parent()), "parent");
    await settle();
    child.tell("busy"); // in progress when the stop comes: it completes
    child.tell("queued");
    parent.tell("stop your child");
    await settle();
    assert.equal(dead.length, 0);
    gate.resolve();
    await settle();
    assert.deepEqual(dead.map((d) => [d.message, d.recipient.path, d.reason]), [
      ["queued", "/user/parent/child", "recipient stopped"],
    ]);
  });

  it("are published, in order, for messages an idle child had not yet taken when its parent stopped it", async () => {
    const dead = collectDeadLetters(system);
    const received: unknown[] = [];
    let child!: ActorRef<string>;
    class Parent extends Actor<string> {
      override preStart(): void {
        child = this.context.actorOf(recorderProps(received), "child");
      }
      onReceive(): void {
        child.tell("first"); // the child is idle: it will take this next
        child.tell("second");
        this.context.stop(child);
      }
    }
    const parent = system.actorOf(Props.create(() => new Parent()), "parent");
    await settle();
    parent.tell("go");
    await settle();
    assert.deepEqual(received, []);
    assert.deepEqual(dead.map((d) => [d.message, d.recipient.path, d.reason]), [
      ["first", "/user/parent/child", "recipient stopped"],
      ["second", "/user/parent/child", "recipient stopped"],
    ]);
  });

  it("are published for a stash overflow", async () => {
    const dead = collectDeadLetters(system);
    const ref = system.actorOf(
      Props.create(
        () =>
          new (class extends Actor<string> {
            onReceive(): void {
              this.context.stash();
            }
          })(),
        { stashCapacity: 1 },
      ),
      "stasher",
    );
    ref.tell("kept");
    ref.tell("overflow");
    await settle();
    assert.deepEqual(dead.map((d) => [d.message, d.reason]), [[
      "overflow",
      "stash overflow",
    ]]);
  });

  it("are published for the message whose processing failed", async () => {
    const dead = collectDeadLetters(system);
    const sender = system.actorOf(recorderProps(), "sender");
    const ref = system.actorOf(
      fnProps(() => {
        throw new RangeError("bad input");
      }),
      "failing",
    );
    ref.tell("poison", sender);
    await settle();
    assert.deepEqual(
      dead.map((d) => [d.message, d.sender, d.recipient, d.reason]),
      [
        ["poison", sender, ref, "processing failed: RangeError: bad input"],
      ],
    );
  });

  it("are published for system.deadLetters.tell, and its ask rejects at once", async () => {
    const dead = collectDeadLetters(system);
    const sender = system.actorOf(recorderProps(), "sender");
    system.deadLetters.tell("to nobody", sender);
    await assert.rejects(system.deadLetters.ask("anyone?"), UndeliveredError);
    assert.deepEqual(
      dead.map((d) => [d.message, d.sender, d.recipient, d.reason]),
      [
        ["to nobody", sender, system.deadLetters, "sent to deadLetters"],
        ["anyone?", undefined, system.deadLetters, "sent to deadLetters"],
      ],
    );
  });

  it("are published for a late reply to a completed ask", async () => {
    const dead = collectDeadLetters(system);
    const ref = system.actorOf(
      fnProps((a) => {
        a.sender?.tell("answer");
        a.sender?.tell("too late");
      }),
      "r",
    );
    assert.equal(await ref.ask("q"), "answer");
    assert.deepEqual(dead.map((d) => [d.message, d.reason]), [[
      "too late",
      "ask already completed",
    ]]);
  });

  it("are logged at debug level when logDeadLetters is 0", async () => {
    const { records, sink } = logRecorder();
    const logged = createSystem({
      logLevel: "debug",
      logger: sink,
      logDeadLetters: 0,
    });
    try {
      logged.deadLetters.tell("lost");
      assert.deepEqual(
        records.filter((r) => /dead letter/.test(r.message)).map((r) =>
          r.level
        ),
        ["debug"],
      );
      assert.ok(records.some((r) => r.data.includes("lost")));
    } finally {
      await logged.terminate();
    }
  });

  it("the first logDeadLetters (default 10) are logged at info, then a pause of five minutes says so, then as many again", async () => {
    const { records, sink } = logRecorder();
    const scheduler = new ManualScheduler();
    const logged = createSystem({ logLevel: "info", logger: sink, scheduler });
    try {
      const infos = () =>
        records.filter((r) => r.level === "info").map((r) => r.message);
      for (let i = 0; i < 12; i++) logged.deadLetters.tell(`lost ${i}`);
      assert.equal(infos().length, 11);
      assert.match(
        infos()[0],
        /^dead letter to \/deadLetters \(sent to deadLetters\)$/,
      );
      assert.equal(infos()[10], "further dead letters not logged for 5 min");
      await scheduler.timePasses(300_000);
      logged.deadLetters.tell("after the pause");
      assert.equal(infos().length, 12);
    } finally {
      await logged.terminate();
    }
  });

  it("a terminate()'s dead letters are not logged at info", async () => {
    const { records, sink } = logRecorder();
    const logged = createSystem({ logLevel: "info", logger: sink });
    const ref = logged.actorOf(
      Props.create(() =>
        new (class extends Actor<string> {
          onReceive(): Promise<void> {
            return new Promise(() => {});
          }
        })(), { shutdownTimeoutMs: 10 }),
      "stuck",
    );
    ref.tell("hang");
    ref.tell("queued");
    await settle();
    await logged.terminate();
    assert.deepEqual(
      records.filter((r) =>
        r.level === "info" && /dead letter/.test(r.message)
      ),
      [],
    );
  });
});

describe("Lifecycle events", () => {
  let system: ActorSystem;
  beforeEach(() => {
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  it("ActorStarted after preStart completes, ActorStopped after postStop", async () => {
    const events: string[] = [];
    system.eventStream.subscribe((e) => {
      if (e instanceof ActorStarted) events.push(`started ${e.ref.path}`);
      if (e instanceof ActorStopped) events.push(`stopped ${e.ref.path}`);
    });
    class Life extends Actor<string> {
      override preStart(): void {
        events.push("preStart");
      }
      onReceive(): void {
        this.context.stopSelf();
      }
      override postStop(): void {
        events.push("postStop");
      }
    }
    const ref = system.actorOf(Props.create(() => new Life()), "life");
    await settle();
    ref.tell("stop");
    await settle();
    assert.deepEqual(events, [
      "preStart",
      "started /user/life",
      "postStop",
      "stopped /user/life",
    ]);
  });

  it("ActorFailed with the error and the directive, then ActorRestarted with the reason", async () => {
    const events: object[] = [];
    system.eventStream.subscribe((e) => {
      if (e instanceof ActorFailed || e instanceof ActorRestarted) {
        events.push(e);
      }
    });
    const boom = new Error("boom");
    const ref = system.actorOf(
      fnProps(() => {
        throw boom;
      }),
      "failing",
    );
    ref.tell("x");
    await settle();
    assert.equal(events.length, 2);
    const [failed, restarted] = events;
    assert.ok(failed instanceof ActorFailed);
    assert.deepEqual([failed.ref, failed.error, failed.directive], [
      ref,
      boom,
      "restart",
    ]);
    assert.ok(restarted instanceof ActorRestarted);
    assert.deepEqual([restarted.ref, restarted.reason], [ref, boom]);
  });
});

describe("EventStream.subscribe", () => {
  let system: ActorSystem;
  beforeEach(() => {
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  it("returns a function that unsubscribes", () => {
    const seen: unknown[] = [];
    const unsubscribe = system.eventStream.subscribe(
      DeadLetter,
      (d) => seen.push(d.message),
    );
    system.deadLetters.tell(1);
    unsubscribe();
    system.deadLetters.tell(2);
    assert.deepEqual(seen, [1]);
    unsubscribe(); // twice is harmless
  });

  it("with a class, delivers only instances of that class (subclasses included)", () => {
    class Custom {}
    class SubCustom extends Custom {}
    const customs: object[] = [];
    const all: object[] = [];
    system.eventStream.subscribe(Custom, (e) => customs.push(e));
    system.eventStream.subscribe((e) => all.push(e));
    const a = new Custom();
    const b = new SubCustom();
    system.eventStream.publish(a);
    system.eventStream.publish(b);
    system.deadLetters.tell("x");
    assert.deepEqual(customs, [a, b]);
    assert.equal(all.length, 3);
    assert.ok(all[2] instanceof DeadLetter);
  });

  it("delivers in subscription order, and a throwing listener does not stop the others", () => {
    const { records, sink } = logRecorder();
    const stream = new EventStream((error) =>
      sink({ level: "error", path: "-", message: String(error), data: [] })
    );
    const order: string[] = [];
    stream.subscribe(() => order.push("first"));
    stream.subscribe(() => {
      throw new Error("listener broke");
    });
    stream.subscribe(() => order.push("third"));
    stream.publish({});
    assert.deepEqual(order, ["first", "third"]);
    assert.equal(records.length, 1);
    assert.match(records[0].message, /listener broke/);
  });

  it("lets a listener unsubscribe while an event is being published", () => {
    const seen: string[] = [];
    const stream = new EventStream();
    const off = stream.subscribe(() => {
      seen.push("once");
      off();
    });
    stream.subscribe(() => seen.push("always"));
    stream.publish({});
    stream.publish({});
    assert.deepEqual(seen, ["once", "always", "always"]);
  });

  it("rejects a listener or class that is not a function", () => {
    assert.throws(
      () => system.eventStream.subscribe("nope" as unknown as () => void),
      (e: unknown) =>
        e instanceof TypeError &&
        /"listener" must be a function \(got "nope"\)/.test(e.message),
    );
    assert.throws(
      () =>
        system.eventStream.subscribe(DeadLetter, 42 as unknown as () => void),
      TypeError,
    );
  });

  it("does not replay events published before subscribing", () => {
    system.deadLetters.tell("before");
    const dead = collect(system, DeadLetter);
    system.deadLetters.tell("after");
    assert.deepEqual(dead.map((d) => d.message), ["after"]);
  });
});
