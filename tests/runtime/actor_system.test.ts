// Copyright 2026 the understudy authors. MIT license.
// Specification of ActorSystem: creation, options, actorOf and terminate.

import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  ActorFailed,
  type ActorRef,
  ActorRestarted,
  ActorStopped,
  ActorSystem,
  OneForOneStrategy,
  Props,
  stoppingStrategy,
  supervise,
  SupervisorStrategy,
  UndeliveredError,
} from "../../mod.ts";
import {
  type Clock,
  collect,
  collectDeadLetters,
  createSystem,
  deferred,
  fnProps,
  installClock,
  logRecorder,
  recorderProps,
  settle,
} from "./_helpers.ts";

/** Records its lifecycle in a shared log, and builds the children it is given. */
class Node extends Actor<string> {
  constructor(
    readonly label: string,
    readonly log_: string[],
    readonly childLabels: string[] = [],
  ) {
    super();
  }
  override preStart(): void {
    this.log_.push(`start ${this.label}`);
    for (const label of this.childLabels) {
      this.context.actorOf(
        Props.create(() => new Node(label, this.log_)),
        label,
      );
    }
  }
  onReceive(): void {}
  override postStop(): void {
    this.log_.push(`stop ${this.label}`);
  }
}

describe("ActorSystem.create", () => {
  it("creates a named system whose top-level actors live under /user", async () => {
    const system = ActorSystem.create("orders", { logLevel: "off" });
    try {
      assert.equal(system.name, "orders");
      const worker = system.actorOf(recorderProps<string>([]), "worker");
      assert.equal(worker.path, "/user/worker");
    } finally {
      await system.terminate();
    }
  });

  it("works without options", async () => {
    const system = ActorSystem.create("plain");
    try {
      const received: unknown[] = [];
      system.actorOf(recorderProps(received), "r").tell("hello");
      await settle();
      assert.deepEqual(received, ["hello"]);
    } finally {
      await system.terminate();
    }
  });

  it("sends log records at or above logLevel to the logger sink", async () => {
    const { records, sink } = logRecorder();
    const system = ActorSystem.create("logs", {
      logLevel: "warn",
      logger: sink,
    });
    try {
      system.log.info("not written");
      system.log.warn("written");
      assert.deepEqual(
        records.map((r) => [r.level, r.path, r.message]),
        [["warn", "/logs", "written"]],
      );
    } finally {
      await system.terminate();
    }
  });

  it("uses guardianStrategy for failing top-level actors", async () => {
    const stopping = createSystem({ guardianStrategy: stoppingStrategy });
    const restarting = createSystem({
      guardianStrategy: new OneForOneStrategy(() => "restart"),
    });
    try {
      const failing = fnProps(() => {
        throw new Error("boom");
      });
      const stopped = collect(stopping, ActorStopped);
      const restarted = collect(restarting, ActorRestarted);
      const a = stopping.actorOf(failing, "a");
      const b = restarting.actorOf(failing, "b");
      a.tell("x");
      b.tell("x");
      await settle();
      assert.deepEqual(stopped.map((e) => e.ref), [a]);
      assert.deepEqual(restarted.map((e) => e.ref), [b]);
    } finally {
      await Promise.all([stopping.terminate(), restarting.terminate()]);
    }
  });

  it("treats Escalate from the guardian's strategy as Stop", async () => {
    const system = createSystem({
      guardianStrategy: new OneForOneStrategy(() => "escalate"),
    });
    try {
      const failed = collect(system, ActorFailed);
      const stopped = collect(system, ActorStopped);
      const a = system.actorOf(
        fnProps(() => {
          throw new Error("boom");
        }),
        "a",
      );
      a.tell("x");
      await settle();
      assert.deepEqual(failed.map((e) => e.directive), ["stop"]);
      assert.deepEqual(stopped.map((e) => e.ref), [a]);
    } finally {
      await system.terminate();
    }
  });

  it("rejects an invalid system name, naming the value", () => {
    for (const name of ["", "a/b", "has space", "$x", "-lead"]) {
      assert.throws(
        () => ActorSystem.create(name),
        (error: unknown) =>
          error instanceof TypeError &&
          error.message.includes(`(got ${JSON.stringify(name)})`) &&
          error.message.startsWith(
            'Cannot create actor system: "name" must be a string of letters, digits, "-" and "_", starting with a letter or digit',
          ),
      );
    }
    assert.throws(
      () => ActorSystem.create(42 as unknown as string),
      /"name" must be a string .* \(got 42\)/,
    );
  });

  it("rejects an invalid logLevel or logger, naming the option and the value", () => {
    assert.throws(
      () => ActorSystem.create("x", { logLevel: "verbose" as "info" }),
      (e: unknown) =>
        e instanceof RangeError && /"logLevel"/.test(e.message) &&
        /"verbose"/.test(e.message) &&
        /"debug", "info", "warn", "error" or "off"/.test(e.message),
    );
    assert.throws(
      () =>
        ActorSystem.create("x", { logger: "console" as unknown as () => void }),
      (e: unknown) =>
        e instanceof TypeError &&
        /"logger" must be a function/.test(e.message) &&
        /"console"/.test(e.message),
    );
  });
});

describe("ActorSystem.terminate", () => {
  let system: ActorSystem;
  beforeEach(() => {
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  it("stops every actor, children before parents, running each postStop", async () => {
    const log: string[] = [];
    system.actorOf(Props.create(() => new Node("a", log, ["a1", "a2"])), "a");
    system.actorOf(Props.create(() => new Node("b", log, ["b1"])), "b");
    await settle();
    assert.equal(log.filter((l) => l.startsWith("start")).length, 5);

    await system.terminate();

    const stops = log.filter((l) => l.startsWith("stop"));
    assert.deepEqual([...stops].sort(), [
      "stop a",
      "stop a1",
      "stop a2",
      "stop b",
      "stop b1",
    ]);
    assert.ok(stops.indexOf("stop a1") < stops.indexOf("stop a"));
    assert.ok(stops.indexOf("stop a2") < stops.indexOf("stop a"));
    assert.ok(stops.indexOf("stop b1") < stops.indexOf("stop b"));
  });

  it("stops a deep tree bottom-up", async () => {
    const log: string[] = [];
    class Chain extends Actor<string> {
      constructor(readonly depth: number) {
        super();
      }
      override preStart(): void {
        if (this.depth > 0) {
          this.context.actorOf(
            Props.create(() => new Chain(this.depth - 1)),
            `d${this.depth - 1}`,
          );
        }
      }
      onReceive(): void {}
      override postStop(): void {
        log.push(this.self.path);
      }
    }
    system.actorOf(Props.create(() => new Chain(3)), "d3");
    await settle();
    await system.terminate();
    assert.deepEqual(log, [
      "/user/d3/d2/d1/d0",
      "/user/d3/d2/d1",
      "/user/d3/d2",
      "/user/d3",
    ]);
  });

  it("resolves only after an async postStop has finished", async () => {
    const cleanup = deferred();
    let cleaned = false;
    class Slow extends Actor<string> {
      onReceive(): void {}
      override async postStop(): Promise<void> {
        await cleanup.promise;
        cleaned = true;
      }
    }
    system.actorOf(Props.create(() => new Slow()), "slow");
    await settle();
    let terminated = false;
    const done = system.terminate().then(() => (terminated = true));
    await settle();
    assert.equal(terminated, false);
    cleanup.resolve();
    await done;
    assert.equal(cleaned, true);
  });

  it("returns the same promise when called again, and settles whenTerminated", async () => {
    const first = system.terminate();
    assert.equal(system.terminate(), first);
    await first;
    await system.whenTerminated;
  });

  it("makes actorOf throw a clear error afterwards", async () => {
    await system.terminate();
    assert.throws(
      () => system.actorOf(recorderProps<string>([]), "late"),
      /Cannot create actor: actor system "test" is terminated/,
    );
  });

  it("sends later messages to dead letters", async () => {
    const dead = collectDeadLetters(system);
    const ref = system.actorOf(recorderProps<string>([]), "r");
    await settle();
    await system.terminate();
    ref.tell("after");
    assert.equal(dead.length, 1);
    assert.equal(dead[0].message, "after");
    assert.equal(dead[0].recipient, ref);
    assert.equal(dead[0].reason, "recipient stopped");
  });

  it("rejects asks pending at termination with UndeliveredError", async () => {
    const silent = system.actorOf(fnProps(() => {}), "silent");
    const pending = silent.ask("anyone?", 60_000);
    await settle();
    await system.terminate();
    await assert.rejects(
      pending,
      (e: unknown) =>
        e instanceof UndeliveredError &&
        /actor system terminated/.test(e.message),
    );
  });

  it("terminates from inside an actor", async () => {
    const ref = system.actorOf(
      fnProps((actor) => {
        void actor.context.system.terminate();
      }),
      "quitter",
    );
    ref.tell("quit");
    await system.whenTerminated;
    assert.throws(
      () => system.actorOf(recorderProps<string>([])),
      /terminated/,
    );
  });
});

describe("ActorSystem.terminate with timers", () => {
  let clock: Clock;
  beforeEach(() => {
    clock = installClock();
  });
  afterEach(() => {
    clock.uninstall();
  });

  it("clears every timer: actor timers, ask timeouts, backoff waits", async () => {
    const system = createSystem();
    try {
      class Ticking extends Actor<string> {
        override preStart(): void {
          this.context.timers.startTimerWithFixedDelay("beat", "beat", 1_000);
          this.context.timers.startSingleTimer("once", "once", 50_000);
        }
        onReceive(): void {}
      }
      system.actorOf(Props.create(() => new Ticking()), "ticking");
      const silent = system.actorOf(fnProps(() => {}), "silent");
      const pending = silent.ask("?", 30_000).catch((e: unknown) => e);
      const flaky = system.actorOf(
        supervise(fnProps(() => {
          throw new Error("down");
        })).onFailure(
          Error,
          SupervisorStrategy.restartWithBackoff({
            minBackoff: 10_000,
            maxBackoff: 60_000,
            randomFactor: 0,
          }),
        ),
        "flaky",
      );
      flaky.tell("fail");
      await clock.tickAsync(0);
      assert.ok(
        clock.countTimers() >= 4,
        `expected timers, got ${clock.countTimers()}`,
      );

      await system.terminate();

      assert.equal(clock.countTimers(), 0);
      assert.ok((await pending) instanceof UndeliveredError);
    } finally {
      await system.terminate();
    }
  });

  it("leaves no timer behind when ask replies arrive in time", async () => {
    const system = createSystem();
    try {
      const echo = system.actorOf(
        fnProps((actor, m) => actor.sender?.tell(m)),
        "echo",
      );
      const replies = await Promise.all([
        echo.ask(1),
        echo.ask(2),
        echo.ask(3),
      ]);
      assert.deepEqual(replies, [1, 2, 3]);
      assert.equal(clock.countTimers(), 0);
    } finally {
      await system.terminate();
    }
  });
});

describe("ActorSystem.actorOf", () => {
  let system: ActorSystem;
  beforeEach(() => {
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  it("rejects something that is not Props, naming the value", () => {
    assert.throws(
      () => system.actorOf({} as Props<unknown>),
      (e: unknown) =>
        e instanceof TypeError && /"props" must be Props/.test(e.message) &&
        /got an object \(Object\)/.test(e.message),
    );
    assert.throws(
      () => system.actorOf((() => {}) as unknown as Props<unknown>),
      /"props" must be Props/,
    );
  });

  it("gives each top-level actor the /user guardian as parent", async () => {
    let parent: ActorRef<unknown> | undefined;
    const ref = system.actorOf(
      fnProps((actor) => {
        parent = actor.context.parent;
      }),
      "top",
    );
    ref.tell("x");
    await settle();
    assert.equal(parent?.path, "/user");
  });
});
