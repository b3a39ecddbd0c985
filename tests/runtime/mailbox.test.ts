// Copyright 2026 the understudy authors. MIT license.
// Specification of message processing: asynchronous delivery, one message
// at a time, FIFO per sender, run-to-completion, async handlers and preStart.

import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  ActorFailed,
  type ActorRef,
  ActorRestarted,
  type ActorSystem,
  Props,
} from "../../mod.ts";
import {
  collect,
  collectDeadLetters,
  createSystem,
  deferred,
  fnProps,
  recorderProps,
  settle,
} from "./_helpers.ts";

describe("Mailbox delivery", () => {
  let system: ActorSystem;
  beforeEach(() => {
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  it("never runs the receiver inside tell: nothing is processed synchronously", async () => {
    const received: unknown[] = [];
    const ref = system.actorOf(recorderProps(received), "r");
    await settle(); // started and idle
    ref.tell("a");
    ref.tell("b");
    assert.deepEqual(received, []);
    await settle();
    assert.deepEqual(received, ["a", "b"]);
  });

  it("never runs the receiver inside ask either", async () => {
    const received: unknown[] = [];
    const ref = system.actorOf(
      fnProps((a, m) => {
        received.push(m);
        a.sender?.tell("ok");
      }),
      "r",
    );
    await settle();
    const answer = ref.ask("q");
    assert.deepEqual(received, []);
    assert.equal(await answer, "ok");
  });

  it("does not run a receiver inside the handler that tells it, nor recurse on a self-tell", async () => {
    const log: string[] = [];
    const receiver = system.actorOf(
      fnProps((_, m) => void log.push(`receiver ${m}`)),
      "rx",
    );
    const sender = system.actorOf(
      fnProps<string>((a, m) => {
        log.push(`sender ${m} begin`);
        if (m === "go") {
          receiver.tell("hello");
          a.self.tell("again");
        }
        log.push(`sender ${m} end`);
      }),
      "tx",
    );
    sender.tell("go");
    await settle();
    assert.ok(log.indexOf("sender go end") < log.indexOf("receiver hello"));
    assert.ok(log.indexOf("sender go end") < log.indexOf("sender again begin"));
    assert.equal(log.length, 5);
  });

  it("processes one message at a time, each to completion", async () => {
    let inside = 0;
    let maxInside = 0;
    const order: number[] = [];
    const ref = system.actorOf(
      fnProps<number>((a, n) => {
        inside++;
        maxInside = Math.max(maxInside, inside);
        order.push(n);
        if (n < 100) a.self.tell(n + 100); // handled later, not nested
        order.push(-n);
        inside--;
      }),
      "r",
    );
    for (let i = 0; i < 50; i++) ref.tell(i);
    await settle();
    assert.equal(maxInside, 1);
    // Every message's start is immediately followed by its own end.
    for (let i = 0; i < order.length; i += 2) {
      assert.equal(order[i + 1], -order[i]);
    }
    assert.equal(order.length, 200);
  });

  it("keeps FIFO order per sender, with senders interleaved", async () => {
    const received: [string, number][] = [];
    const ref = system.actorOf(
      fnProps<[string, number]>((_, m) => void received.push(m)),
      "r",
    );
    const a = system.actorOf(recorderProps(), "a");
    const b = system.actorOf(recorderProps(), "b");
    for (let i = 0; i < 1_000; i++) {
      ref.tell(["a", i], a);
      ref.tell(["b", i], b);
      if (i % 3 === 0) ref.tell(["anon", i]);
    }
    await settle();
    for (const who of ["a", "b", "anon"]) {
      const seq = received.filter(([w]) => w === who).map(([, i]) => i);
      assert.deepEqual(seq, [...seq].sort((x, y) => x - y));
    }
    assert.equal(received.length, 2_000 + 334);
  });

  it("keeps FIFO order between two actors exchanging messages", async () => {
    const received: number[] = [];
    const sink = system.actorOf(
      fnProps<number>((_, n) => void received.push(n)),
      "sink",
    );
    const relay = system.actorOf(
      fnProps<number>((a, n) => sink.tell(n, a.self as ActorRef<never>)),
      "relay",
    );
    for (let i = 0; i < 5_000; i++) relay.tell(i);
    await settle();
    assert.deepEqual(received, Array.from({ length: 5_000 }, (_, i) => i));
  });
});

describe("Async handlers", () => {
  let system: ActorSystem;
  beforeEach(() => {
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  it("awaits an async onReceive before taking the next message", async () => {
    const log: string[] = [];
    const gate = deferred();
    const ref = system.actorOf(
      fnProps<string>(async (_, m) => {
        log.push(`start ${m}`);
        if (m === "first") await gate.promise;
        log.push(`end ${m}`);
      }),
      "r",
    );
    ref.tell("first");
    ref.tell("second");
    await settle();
    assert.deepEqual(log, ["start first"]);
    ref.tell("third");
    await settle();
    assert.deepEqual(log, ["start first"]);
    gate.resolve();
    await settle();
    assert.deepEqual(log, [
      "start first",
      "end first",
      "start second",
      "end second",
      "start third",
      "end third",
    ]);
  });

  it("treats a rejected promise as a failure, like a throw", async () => {
    const failed = collect(system, ActorFailed);
    const restarted = collect(system, ActorRestarted);
    const dead = collectDeadLetters(system);
    const received: string[] = [];
    const ref = system.actorOf(
      fnProps<string>(async (_, m) => {
        await Promise.resolve();
        if (m === "bad") throw new Error("async boom");
        received.push(m);
      }),
      "r",
    );
    ref.tell("bad");
    ref.tell("good");
    await settle();
    assert.equal(failed.length, 1);
    assert.match(String(failed[0].error), /async boom/);
    assert.equal(failed[0].directive, "restart");
    assert.equal(restarted.length, 1);
    assert.deepEqual(received, ["good"]);
    assert.equal(dead.length, 1);
    assert.equal(dead[0].message, "bad");
  });

  it("holds the mailbox until an async preStart resolves", async () => {
    const ready = deferred();
    const log: string[] = [];
    class SlowStart extends Actor<string> {
      override async preStart(): Promise<void> {
        log.push("preStart begin");
        await ready.promise;
        log.push("preStart end");
      }
      onReceive(message: string): void {
        log.push(message);
      }
    }
    const ref = system.actorOf(Props.create(() => new SlowStart()), "slow");
    ref.tell("a");
    ref.tell("b");
    await settle();
    assert.deepEqual(log, ["preStart begin"]);
    ready.resolve();
    await settle();
    assert.deepEqual(log, ["preStart begin", "preStart end", "a", "b"]);
  });

  it("treats a rejected async preStart as a failure", async () => {
    const failed = collect(system, ActorFailed);
    let starts = 0;
    const received: string[] = [];
    class Flaky extends Actor<string> {
      override async preStart(): Promise<void> {
        await Promise.resolve();
        if (starts++ === 0) throw new Error("not ready");
      }
      onReceive(message: string): void {
        received.push(message);
      }
    }
    const ref = system.actorOf(Props.create(() => new Flaky()), "flaky");
    ref.tell("hello");
    await settle();
    assert.equal(failed.length, 1);
    assert.match(String(failed[0].error), /not ready/);
    assert.equal(starts, 2);
    assert.deepEqual(received, ["hello"]);
  });

  it("lets other actors run while one awaits", async () => {
    const gate = deferred();
    const log: string[] = [];
    const slow = system.actorOf(
      fnProps(async () => {
        await gate.promise;
        log.push("slow done");
      }),
      "slow",
    );
    const fast = system.actorOf(fnProps(() => void log.push("fast")), "fast");
    slow.tell("x");
    fast.tell("y");
    await settle();
    assert.deepEqual(log, ["fast"]);
    gate.resolve();
    await settle();
    assert.deepEqual(log, ["fast", "slow done"]);
  });
});
