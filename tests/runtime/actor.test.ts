// Copyright 2026 the understudy authors. MIT license.
// Specification of the Actor base class: construction, lifecycle hooks,
// self, sender, context and log.

import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  type ActorContext,
  type ActorRef,
  type ActorSystem,
  OneForOneStrategy,
  Props,
} from "../../mod.ts";
import {
  createSystem,
  fnProps,
  logRecorder,
  recorderProps,
  settle,
} from "./_helpers.ts";

class Quiet extends Actor<string> {
  onReceive(): void {}
}

describe("Actor construction", () => {
  it("throws when constructed with new outside a Props factory", () => {
    assert.throws(
      () => new Quiet(),
      /Cannot construct an Actor directly: create it with system\.actorOf\(Props\.create/,
    );
  });

  it("throws when a factory constructs a second actor", async () => {
    const system = createSystem();
    try {
      const errors: unknown[] = [];
      class Parent extends Actor<string> {
        override supervisorStrategy = new OneForOneStrategy((error) => {
          errors.push(error);
          return "stop";
        });
        override preStart(): void {
          this.context.actorOf(Props.create(() => {
            new Quiet(); // takes the context
            return new Quiet(); // has none left
          }));
        }
        onReceive(): void {}
      }
      system.actorOf(Props.create(() => new Parent()), "parent");
      await settle();
      assert.equal(errors.length, 1);
      assert.match(String(errors[0]), /Cannot construct an Actor directly/);
    } finally {
      await system.terminate();
    }
  });

  it("calls the factory again for each restart, so every incarnation is a new instance", async () => {
    const system = createSystem();
    try {
      const instances: Actor<string>[] = [];
      class Fragile extends Actor<string> {
        constructor() {
          super();
          instances.push(this);
        }
        onReceive(message: string): void {
          if (message === "fail") throw new Error("boom");
        }
      }
      const ref = system.actorOf(Props.create(() => new Fragile()), "fragile");
      ref.tell("fail");
      ref.tell("fail");
      await settle();
      assert.equal(instances.length, 3);
      assert.equal(new Set(instances).size, 3);
      for (const instance of instances) assert.equal(instance.self, ref);
    } finally {
      await system.terminate();
    }
  });
});

describe("Actor lifecycle hooks", () => {
  let system: ActorSystem;
  beforeEach(() => {
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  it("runs preStart before the first message and postStop after the last", async () => {
    const log: string[] = [];
    class Life extends Actor<string> {
      override preStart(): void {
        log.push("preStart");
      }
      onReceive(message: string): void {
        log.push(`receive ${message}`);
        if (message === "stop") this.context.stopSelf();
      }
      override postStop(): void {
        log.push("postStop");
      }
    }
    const ref = system.actorOf(Props.create(() => new Life()), "life");
    ref.tell("a");
    ref.tell("stop");
    await settle();
    assert.deepEqual(log, [
      "preStart",
      "receive a",
      "receive stop",
      "postStop",
    ]);
  });

  it("calls preRestart(reason, message) on the old instance and postRestart(reason) on the new one", async () => {
    const log: unknown[][] = [];
    const boom = new Error("boom");
    let incarnation = 0;
    class Phoenix extends Actor<string> {
      readonly id = ++incarnation;
      override preStart(): void {
        log.push(["preStart", this.id]);
      }
      onReceive(message: string): void {
        if (message === "fail") throw boom;
        log.push(["receive", this.id, message]);
      }
      override preRestart(reason: unknown, message?: unknown): void {
        log.push(["preRestart", this.id, reason, message]);
      }
      override postRestart(reason: unknown): void {
        log.push(["postRestart", this.id, reason]);
      }
      override postStop(): void {
        log.push(["postStop", this.id]);
      }
    }
    const ref = system.actorOf(Props.create(() => new Phoenix()), "phoenix");
    ref.tell("fail");
    ref.tell("after");
    await settle();
    assert.deepEqual(log, [
      ["preStart", 1],
      ["preRestart", 1, boom, "fail"],
      ["postRestart", 2, boom],
      ["receive", 2, "after"],
    ]);
  });

  it("by default, preRestart runs postStop and postRestart runs preStart", async () => {
    const log: string[] = [];
    let incarnation = 0;
    class Defaults extends Actor<string> {
      readonly id = ++incarnation;
      override preStart(): void {
        log.push(`preStart ${this.id}`);
      }
      onReceive(): void {
        throw new Error("boom");
      }
      override postStop(): void {
        log.push(`postStop ${this.id}`);
      }
    }
    system.actorOf(Props.create(() => new Defaults()), "d").tell("fail");
    await settle();
    assert.deepEqual(log, ["preStart 1", "postStop 1", "preStart 2"]);
  });

  it("passes undefined as preRestart's message when the failure was not in a message", async () => {
    const seen: unknown[] = [];
    let starts = 0;
    class FailsFirstStart extends Actor<string> {
      override preStart(): void {
        if (starts++ === 0) throw new Error("no start");
      }
      onReceive(): void {}
      override preRestart(reason: unknown, message?: unknown): void {
        seen.push(String(reason), message);
      }
    }
    system.actorOf(Props.create(() => new FailsFirstStart()), "f");
    await settle();
    assert.deepEqual(seen, ["Error: no start", undefined]);
  });
});

describe("Actor self, sender, context and log", () => {
  let system: ActorSystem;
  const { records, sink } = logRecorder();
  beforeEach(() => {
    records.length = 0;
    system = createSystem({ logLevel: "debug", logger: sink });
  });
  afterEach(async () => {
    await system.terminate();
  });

  it("exposes self (the actor's own ref) and context.system", async () => {
    let self: ActorRef<unknown> | undefined;
    let contextSystem: ActorSystem | undefined;
    const ref = system.actorOf(
      fnProps((actor) => {
        self = actor.self;
        contextSystem = actor.context.system;
      }),
      "me",
    );
    ref.tell("who am I?");
    await settle();
    assert.equal(self, ref);
    assert.equal(contextSystem, system);
  });

  it("exposes the sender of the message being processed, undefined when none was given", async () => {
    const senders: (ActorRef<unknown> | undefined)[] = [];
    const receiver = system.actorOf(
      fnProps((actor) => void senders.push(actor.sender)),
      "rx",
    );
    const other = system.actorOf(recorderProps([]), "other");
    receiver.tell("anonymous");
    receiver.tell("signed", other);
    await settle();
    assert.deepEqual(senders, [undefined, other]);
  });

  it("shows no sender between turns, even while a message sent to the idle actor waits for its turn", async () => {
    let context: ActorContext<string> | undefined;
    const senders: (ActorRef<unknown> | undefined)[] = [];
    class Idle extends Actor<string> {
      override preStart(): void {
        context = this.context;
      }
      onReceive(): void {
        senders.push(this.sender);
      }
    }
    const ref = system.actorOf(Props.create(() => new Idle()), "idle");
    const other = system.actorOf(recorderProps([]), "other");
    ref.tell("first", other);
    await settle();
    assert.equal(context!.sender, undefined);
    // Not processed yet: the idle actor has it with its next turn.
    ref.tell("second", other);
    assert.equal(context!.sender, undefined);
    assert.throws(() => context!.stash(), /no message is being processed/);
    await settle();
    assert.deepEqual(senders, [other, other]);
  });

  it("writes every log line with the actor's path, at each level", async () => {
    class Chatty extends Actor<string> {
      override preStart(): void {
        this.context.actorOf(Props.create(() => new ChattyChild()), "child");
      }
      onReceive(message: string): void {
        this.log.debug(`debug ${message}`);
        this.log.info(`info ${message}`);
        this.log.warn(`warn ${message}`);
        this.log.error(`error ${message}`, { detail: 1 });
      }
    }
    class ChattyChild extends Actor<string> {
      override preStart(): void {
        this.log.info("child up");
      }
      onReceive(): void {}
    }
    system.actorOf(Props.create(() => new Chatty()), "chatty").tell("x");
    await settle();
    const lines = records.filter((r) => r.path.startsWith("/user"));
    assert.deepEqual(
      lines.map((r) => [r.level, r.path, r.message]).sort(),
      [
        ["debug", "/user/chatty", "debug x"],
        ["error", "/user/chatty", "error x"],
        ["info", "/user/chatty", "info x"],
        ["info", "/user/chatty/child", "child up"],
        ["warn", "/user/chatty", "warn x"],
      ],
    );
    const error = lines.find((r) => r.level === "error");
    assert.deepEqual(error?.data, [{ detail: 1 }]);
    assert.deepEqual(error?.error, { detail: 1 });
    assert.equal("error" in lines.find((r) => r.level === "warn")!, false);
  });

  it("logs a failure at error level with the failing actor's path", async () => {
    system.actorOf(
      fnProps(() => {
        throw new Error("kaput");
      }),
      "failing",
    ).tell("x");
    await settle();
    const errors = records.filter((r) => r.level === "error");
    assert.ok(errors.length >= 1);
    for (const record of errors) assert.equal(record.path, "/user/failing");
    // The message says what happened; the error itself is the record's
    // `error` (and `data[0]`), so its text is not written twice.
    assert.equal(errors[0].message, "failed (restart)");
    assert.ok(errors[0].error instanceof Error);
    assert.equal((errors[0].error as Error).message, "kaput");
    assert.deepEqual(errors[0].data, [errors[0].error]);
  });

  it("prints a failure to the console with the error's text once", async () => {
    const printed: unknown[][] = [];
    const console = globalThis.console;
    const original = console.error;
    console.error = (...args: unknown[]) => void printed.push(args);
    const loud = createSystem({ logLevel: "error" }); // the console sink
    try {
      loud.actorOf(
        fnProps(() => {
          throw new Error("kaput");
        }),
        "failing",
      ).tell("x");
      await settle();
    } finally {
      console.error = original;
      await loud.terminate();
    }
    assert.equal(printed.length, 1);
    const [line, error, ...rest] = printed[0];
    assert.equal(line, "[error] /user/failing failed (restart):");
    assert.ok(error instanceof Error && error.message === "kaput");
    assert.deepEqual(rest, []);
  });

  it("drops log lines below the system's logLevel", async () => {
    const quiet = createSystem({ logLevel: "error", logger: sink });
    try {
      quiet.actorOf(
        fnProps((actor) => {
          actor.log.debug("d");
          actor.log.info("i");
          actor.log.warn("w");
          actor.log.error("e");
        }),
        "q",
      ).tell("go");
      await settle();
      assert.deepEqual(records.map((r) => r.message), ["e"]);
      assert.equal(records[0].path, "/user/q");
    } finally {
      await quiet.terminate();
    }
  });

  it("keeps running when the log sink throws", async () => {
    const broken = createSystem({
      logLevel: "info",
      logger: () => {
        throw new Error("sink down");
      },
    });
    try {
      const received: string[] = [];
      const ref = broken.actorOf(
        fnProps<string>((actor, m) => {
          actor.log.info("about to record");
          received.push(m);
        }),
        "r",
      );
      ref.tell("a");
      ref.tell("b");
      await settle();
      assert.deepEqual(received, ["a", "b"]);
    } finally {
      await broken.terminate();
    }
  });
});
