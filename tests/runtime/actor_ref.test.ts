// Copyright 2026 the understudy authors. MIT license.
// Specification of ActorRef: tell, ask, path, and messages kept as they are.

import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  type ActorRef,
  type ActorSystem,
  AskTimeoutError,
  DEFAULT_ASK_TIMEOUT_MS,
  Props,
  UndeliveredError,
} from "../../mod.ts";
import {
  type Clock,
  collectDeadLetters,
  createSystem,
  echoProps,
  fnProps,
  installClock,
  recorderProps,
  settle,
} from "./_helpers.ts";

class Order {
  constructor(readonly id: number, readonly items: string[]) {}
  total(): number {
    return this.items.length;
  }
}

describe("ActorRef.tell", () => {
  let system: ActorSystem;
  beforeEach(() => {
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  it("delivers the message, with the sender the receiver sees as this.sender", async () => {
    const seen: [unknown, ActorRef<unknown> | undefined][] = [];
    const receiver = system.actorOf(
      fnProps((a, m) => void seen.push([m, a.sender])),
      "rx",
    );
    const sender = system.actorOf(recorderProps([]), "tx");
    receiver.tell("one", sender);
    receiver.tell("two");
    await settle();
    assert.deepEqual(seen, [["one", sender], ["two", undefined]]);
  });

  it("lets the receiver reply to the sender", async () => {
    const replies: unknown[] = [];
    const echo = system.actorOf(echoProps(), "echo");
    const client = system.actorOf(recorderProps(replies), "client");
    echo.tell("ping", client);
    await settle();
    assert.deepEqual(replies, ["ping"]);
  });

  it("delivers a class instance as the same object, prototype intact", async () => {
    const received: unknown[] = [];
    const ref = system.actorOf(recorderProps(received), "orders");
    const order = new Order(7, ["a", "b"]);
    ref.tell(order);
    await settle();
    assert.equal(received[0], order);
    assert.ok(received[0] instanceof Order);
    assert.equal((received[0] as Order).total(), 2);
  });
});

describe("ActorRef.ask", () => {
  let system: ActorSystem;
  beforeEach(() => {
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  it("resolves with the reply the receiver sends to this.sender", async () => {
    const doubler = system.actorOf(
      fnProps<number>((a, n) => a.sender?.tell(n * 2)),
      "doubler",
    );
    assert.equal(await doubler.ask<number>(21), 42);
  });

  it("passes the message as the same object, so instanceof works, and returns the reply as is", async () => {
    const order = new Order(1, ["x"]);
    const seen: unknown[] = [];
    const ref = system.actorOf(
      fnProps<Order>((a, m) => {
        seen.push(m, m instanceof Order);
        a.sender?.tell(new Order(m.id + 1, [...m.items, "y"]));
      }),
      "orders",
    );
    const reply = await ref.ask<Order>(order);
    assert.equal(seen[0], order);
    assert.equal(seen[1], true);
    assert.ok(reply instanceof Order);
    assert.deepEqual(reply.items, ["x", "y"]);
  });

  it("gives the receiver a sender whose path is not the receiver's own", async () => {
    let senderPath = "";
    const ref = system.actorOf(
      fnProps((a, m) => {
        senderPath = a.sender!.path;
        a.sender!.tell(m);
      }),
      "r",
    );
    await ref.ask("x");
    assert.notEqual(senderPath, ref.path);
    assert.match(senderPath, /^\/temp\//);
  });

  it("rejects at once with UndeliveredError when the target is already dead", async () => {
    const dead = collectDeadLetters(system);
    const shortLived = system.actorOf(
      fnProps((a) => a.context.stopSelf()),
      "short-lived",
    );
    shortLived.tell("stop now");
    await settle();
    let settled = false;
    const answer = shortLived.ask("hello?", 60_000);
    answer.then(() => (settled = true), () => (settled = true));
    await Promise.resolve();
    await Promise.resolve();
    assert.equal(
      settled,
      true,
      "the ask settled without waiting for any timer",
    );
    await assert.rejects(
      answer,
      (e: unknown) =>
        e instanceof UndeliveredError && /recipient stopped/.test(e.message),
    );
    assert.equal(dead.length, 1);
    assert.equal(dead[0].message, "hello?");
    assert.equal(dead[0].recipient, shortLived);
  });

  it("rejects with UndeliveredError when the target stops with the question still queued", async () => {
    let release!: () => void;
    const ref = system.actorOf(
      fnProps(async (a, m) => {
        if (m === "block") {
          await new Promise<void>((r) => (release = r));
          a.context.stopSelf();
        }
      }),
      "busy",
    );
    ref.tell("block");
    await settle();
    const answer = ref.ask("queued", 60_000);
    release();
    await assert.rejects(answer, UndeliveredError);
  });

  it("rejects a late or second reply to dead letters with reason 'ask already completed'", async () => {
    const dead = collectDeadLetters(system);
    const ref = system.actorOf(
      fnProps((a, m) => {
        a.sender?.tell(`first ${m}`);
        a.sender?.tell(`second ${m}`);
      }),
      "twice",
    );
    assert.equal(await ref.ask("q"), "first q");
    assert.equal(dead.length, 1);
    assert.equal(dead[0].message, "second q");
    assert.equal(dead[0].reason, "ask already completed");
    assert.match(dead[0].recipient.path, /^\/temp\//);
  });

  it("rejects a timeout that is negative, not finite or not a number, naming timeoutMs and the value", () => {
    const ref = system.actorOf(recorderProps([]), "r");
    for (const bad of [-1, NaN, Infinity, 2 ** 31, "100"]) {
      assert.throws(
        () => ref.ask("x", bad as number),
        (e: unknown) =>
          // A number out of range is a RangeError, anything else a TypeError.
          e instanceof (typeof bad === "number" ? RangeError : TypeError) &&
          /"timeoutMs"/.test(e.message) &&
          e.message.includes(
            `(got ${typeof bad === "string" ? `"${bad}"` : String(bad)})`,
          ) &&
          /finite number of milliseconds from 0 to 2147483647/.test(e.message),
      );
    }
  });
});

describe("ActorRef.ask timeouts", () => {
  let clock: Clock;
  let system: ActorSystem;
  beforeEach(() => {
    clock = installClock();
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
    clock.uninstall();
  });

  it("rejects with AskTimeoutError exactly when the timeout elapses", async () => {
    const silent = system.actorOf(fnProps(() => {}), "silent");
    const outcome: unknown[] = [];
    silent.ask("anyone?", 1_000).then(
      (v) => outcome.push(v),
      (e) => outcome.push(e),
    );
    await clock.tickAsync(999);
    assert.equal(outcome.length, 0);
    await clock.tickAsync(1);
    assert.equal(outcome.length, 1);
    const error = outcome[0];
    assert.ok(error instanceof AskTimeoutError);
    assert.equal(error.timeoutMs, 1_000);
    assert.equal(error.path, "/user/silent");
    assert.match(error.message, /\/user\/silent timed out after 1000 ms/);
  });

  it("defaults to DEFAULT_ASK_TIMEOUT_MS", async () => {
    const silent = system.actorOf(fnProps(() => {}), "silent");
    const outcome: unknown[] = [];
    silent.ask("anyone?").then((v) => outcome.push(v), (e) => outcome.push(e));
    await clock.tickAsync(DEFAULT_ASK_TIMEOUT_MS - 1);
    assert.equal(outcome.length, 0);
    await clock.tickAsync(1);
    assert.equal(outcome.length, 1);
    assert.ok(outcome[0] instanceof AskTimeoutError);
  });

  it("times out each ask at its own deadline, whatever happened to earlier ones", async () => {
    // Answers "answer-me" and nothing else.
    const picky = system.actorOf(
      fnProps((a, m) => {
        if (m === "answer-me") a.sender?.tell("ok");
      }),
      "picky",
    );
    const settledAt: Record<string, number> = {};
    const ask = (message: string, timeoutMs: number) =>
      picky.ask(message, timeoutMs).then(
        () => (settledAt[message] = Date.now()),
        () => (settledAt[message] = -Date.now()), // negative: timed out
      );
    const start = Date.now();
    ask("answer-me", 1_000);
    await clock.tickAsync(300);
    ask("a@300", 1_000);
    await clock.tickAsync(300);
    ask("b@600", 1_000);
    ask("short@600", 100);
    await clock.tickAsync(2_000);
    assert.deepEqual(
      Object.fromEntries(
        Object.entries(settledAt).map((
          [k, t],
        ) => [k, Math.sign(t) * (Math.abs(t) - start)]),
      ),
      {
        "answer-me": 0,
        "a@300": -1_300,
        "short@600": -700,
        "b@600": -1_600,
      },
    );
  });

  it("leaves no timer behind once its asks are settled", async () => {
    const echo = system.actorOf(fnProps((a, m) => a.sender?.tell(m)), "echo");
    const silent = system.actorOf(fnProps(() => {}), "silent");
    await clock.tickAsync(0);
    for (let i = 0; i < 3; i++) assert.equal(await echo.ask(i, 1_000), i);
    await Promise.resolve();
    assert.equal(clock.countTimers(), 0);
    const timedOut = silent.ask("q", 1_000).catch((e: unknown) => e);
    await clock.tickAsync(1_000);
    assert.ok((await timedOut) instanceof AskTimeoutError);
    assert.equal(clock.countTimers(), 0);
  });

  it("sends a reply that arrives after the timeout to dead letters", async () => {
    const dead = collectDeadLetters(system);
    // Answers 2 s later, from a timer message that carries the asker.
    const answering = system.actorOf(
      fnProps<unknown>((a, m) => {
        if (typeof m === "object" && m !== null && "replyTo" in m) {
          (m as { replyTo: ActorRef<unknown> }).replyTo.tell("late answer");
        } else {
          a.context.timers.startSingleTimer(
            "k",
            { replyTo: a.sender, m },
            2_000,
          );
        }
      }),
      "answering",
    );
    const asked = answering.ask("q", 1_000).catch((e: unknown) => e);
    await clock.tickAsync(1_000);
    assert.ok((await asked) instanceof AskTimeoutError);
    assert.equal(dead.length, 0);
    await clock.tickAsync(1_000);
    assert.equal(dead.length, 1);
    assert.equal(dead[0].message, "late answer");
    assert.equal(dead[0].reason, "ask already completed");
  });
});

describe("ActorRef.path", () => {
  it("is /user/<name> for top-level actors and /user/parent/child below", async () => {
    const system = createSystem();
    try {
      let childPath = "";
      let grandchildPath = "";
      class Parent extends Actor<string> {
        override preStart(): void {
          const child = this.context.actorOf(
            Props.create(() => new Child()),
            "child",
          );
          childPath = child.path;
        }
        onReceive(): void {}
      }
      class Child extends Actor<string> {
        override preStart(): void {
          grandchildPath =
            this.context.actorOf(recorderProps<string>([]), "grandchild").path;
        }
        onReceive(): void {}
      }
      const parent = system.actorOf(Props.create(() => new Parent()), "parent");
      await settle();
      assert.equal(parent.path, "/user/parent");
      assert.equal(childPath, "/user/parent/child");
      assert.equal(grandchildPath, "/user/parent/child/grandchild");
      assert.equal(String(parent), "ActorRef(/user/parent)");
      assert.equal(system.deadLetters.path, "/deadLetters");
    } finally {
      await system.terminate();
    }
  });
});
