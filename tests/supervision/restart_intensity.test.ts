// Copyright 2026 the understudy authors. MIT license.
// Specification of restart intensity (onLimitExceeded): once a strategy's
// maxRetries within withinTimeRangeMs is exceeded, the child is stopped
// (Akka, the default) or the supervisor gives up itself and escalates to
// its own parent (OTP). In virtual time: the systems run on a ManualScheduler,
// whose clock is also what the restart window is measured with.

import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  ActorFailed,
  type ActorRef,
  ActorRestarted,
  ActorStopped,
  type ActorSystem,
  AllForOneStrategy,
  type FaultHandlingStrategy,
  OneForOneStrategy,
  Props,
} from "../../mod.ts";
import {
  type LimitExceeded,
  RestartLimitExceeded,
  RestForOneStrategy,
} from "../../src/supervision/strategy.ts";
import { ManualScheduler } from "../../src/testing/manual_scheduler.ts";
import { collect, createSystem } from "../runtime/_helpers.ts";

/** Fails on "fail"; counts "inc"; answers "get". Logs its starts. */
class Worker extends Actor<string> {
  count = 0;
  constructor(readonly journal: string[]) {
    super();
  }
  override preStart(): void {
    this.journal.push(`start ${this.self.path}`);
  }
  onReceive(message: string): void {
    if (message === "fail") throw new Error(`${this.self.path} broke`);
    if (message === "inc") this.count++;
    if (message === "get") this.sender?.tell(this.count);
  }
}

/** A supervisor of named Workers under `strategy`; forwards "name>message". */
class Mid extends Actor<string> {
  constructor(
    override readonly supervisorStrategy: FaultHandlingStrategy,
    readonly names: string[],
    readonly journal: string[],
  ) {
    super();
  }
  override preStart(): void {
    this.journal.push(`start ${this.self.path}`);
    for (const name of this.names) {
      this.context.actorOf(
        Props.create(() => new Worker(this.journal)),
        name,
      );
    }
  }
  onReceive(message: string): void {
    const [name, body] = message.split(">");
    this.context.child(name)?.tell(body, this.self as ActorRef<never>);
  }
}

/** The grandparent: records the errors its strategy is asked about. */
class Root extends Actor<string> {
  override readonly supervisorStrategy: OneForOneStrategy;
  mid!: ActorRef<string>;
  constructor(
    decision: "restart" | "stop" | "resume",
    readonly seen: unknown[],
    readonly midStrategy: FaultHandlingStrategy,
    readonly names: string[],
    readonly journal: string[],
  ) {
    super();
    this.supervisorStrategy = new OneForOneStrategy((error) => {
      seen.push(error);
      return decision;
    }, { loggingEnabled: false });
  }
  override preStart(): void {
    this.mid = this.context.actorOf(
      Props.create(() => new Mid(this.midStrategy, this.names, this.journal)),
      "mid",
    );
  }
  onReceive(message: string): void {
    this.mid.tell(message, this.self as ActorRef<never>);
  }
}

function limited(
  onLimitExceeded: LimitExceeded | undefined,
  maxRetries = 2,
  withinTimeRangeMs = 1_000,
  Strategy: typeof OneForOneStrategy = OneForOneStrategy,
): FaultHandlingStrategy {
  return new Strategy(() => "restart", {
    maxRetries,
    withinTimeRangeMs,
    loggingEnabled: false,
    ...(onLimitExceeded === undefined ? {} : { onLimitExceeded }),
  });
}

describe("onLimitExceeded", () => {
  let scheduler: ManualScheduler;
  let system: ActorSystem;
  beforeEach(() => {
    scheduler = new ManualScheduler();
    system = createSystem({ scheduler });
  });
  afterEach(async () => {
    await system.terminate();
    assert.equal(scheduler.pendingTimers, 0, "no timer left after terminate");
  });

  function tree(
    midStrategy: FaultHandlingStrategy,
    decision: "restart" | "stop" | "resume" = "restart",
    names = ["worker"],
  ) {
    const seen: unknown[] = [];
    const journal: string[] = [];
    const root = system.actorOf(
      Props.create(() => new Root(decision, seen, midStrategy, names, journal)),
      "root",
    );
    return { root, seen, journal };
  }

  async function failTimes(root: ActorRef<string>, n: number, who = "worker") {
    for (let i = 0; i < n; i++) {
      root.tell(`${who}>fail`);
      await scheduler.timePasses(10);
    }
  }

  it('by default ("stop-child") stops the child once the limit is exceeded; the supervisor goes on', async () => {
    const stopped = collect(system, ActorStopped);
    const { root, seen, journal } = tree(limited(undefined));
    await scheduler.timePasses(0);
    await failTimes(root, 3);
    assert.deepEqual(seen, []); // the grandparent was never asked
    assert.deepEqual(stopped.map((e) => e.ref.path), [
      "/user/root/mid/worker",
    ]);
    assert.equal(
      journal.filter((l) => l === "start /user/root/mid").length,
      1,
    );
  });

  it('"escalate": the supervisor fails with RestartLimitExceeded, and the grandparent\'s strategy decides', async () => {
    const restarted = collect(system, ActorRestarted);
    const { root, seen, journal } = tree(limited("escalate"));
    await scheduler.timePasses(0);
    await failTimes(root, 2);
    assert.deepEqual(seen, []); // two restarts are within the limit
    await failTimes(root, 1);
    assert.equal(seen.length, 1);
    const error = seen[0] as unknown; // (deepEqual above narrowed `seen`)
    assert.ok(error instanceof RestartLimitExceeded);
    assert.equal(error.childPath, "/user/root/mid/worker");
    assert.equal(error.maxRetries, 2);
    assert.equal(error.withinTimeRangeMs, 1_000);
    assert.ok(error.cause instanceof Error);
    assert.equal(error.cause.message, "/user/root/mid/worker broke");
    assert.match(error.message, /failed more than 2 time\(s\) within 1000 ms/);
    // The grandparent restarted the supervisor, which started a fresh child.
    assert.deepEqual(
      restarted.map((e) => e.ref.path).filter((p) => p === "/user/root/mid"),
      ["/user/root/mid"],
    );
    assert.deepEqual(journal.slice(-2), [
      "start /user/root/mid",
      "start /user/root/mid/worker",
    ]);
    // The fresh child has a fresh restart count: two more failures are fine.
    await failTimes(root, 2);
    assert.equal(seen.length, 1);
  });

  it('"escalate" with a grandparent that stops: supervisor and child stop', async () => {
    const stopped = collect(system, ActorStopped);
    const { root, seen } = tree(limited("escalate"), "stop");
    await scheduler.timePasses(0);
    await failTimes(root, 3);
    assert.equal(seen.length, 1);
    assert.deepEqual(stopped.map((e) => e.ref.path), [
      "/user/root/mid/worker",
      "/user/root/mid",
    ]);
  });

  it('"escalate" is reported as the child\'s failure with directive "escalate"', async () => {
    const failed = collect(system, ActorFailed);
    const { root } = tree(limited("escalate", 0));
    await scheduler.timePasses(0);
    await failTimes(root, 1);
    assert.deepEqual(
      failed.map((e) => [e.ref.path, e.directive]),
      [
        ["/user/root/mid/worker", "escalate"],
        ["/user/root/mid", "restart"],
      ],
    );
  });

  it("failures spread beyond the window never exceed the limit", async () => {
    const { root, seen } = tree(limited("escalate", 2, 1_000));
    await scheduler.timePasses(0);
    for (let i = 0; i < 6; i++) {
      root.tell("worker>fail");
      await scheduler.timePasses(600); // at most two failures in any 1000 ms
    }
    assert.deepEqual(seen, []);
  });

  it("AllForOne and RestForOne escalate the same way; the siblings wait for the grandparent's decision", async () => {
    for (const Strategy of [AllForOneStrategy, RestForOneStrategy]) {
      const seen: unknown[] = [];
      const journal: string[] = [];
      const root = system.actorOf(
        Props.create(() =>
          new Root(
            "resume",
            seen,
            limited(
              "escalate",
              0,
              1_000,
              Strategy as unknown as typeof OneForOneStrategy,
            ),
            ["a", "b"],
            journal,
          )
        ),
      );
      await scheduler.timePasses(0);
      root.tell("b>inc");
      root.tell("a>fail");
      await scheduler.timePasses(10);
      assert.equal(seen.length, 1, Strategy.name);
      assert.ok(seen[0] instanceof RestartLimitExceeded);
      // Resumed by the grandparent: the same instances, state kept.
      root.tell("b>inc");
      await scheduler.timePasses(10);
      assert.equal(
        journal.filter((l) => l.startsWith("start")).length,
        3,
        Strategy.name,
      );
    }
  });

  it('at the top of the tree (the guardian\'s strategy) means "stop-child"', async () => {
    const guarded = createSystem({
      guardianStrategy: limited("escalate", 1),
      scheduler,
    });
    try {
      const stopped = collect(guarded, ActorStopped);
      const journal: string[] = [];
      const worker = guarded.actorOf(
        Props.create(() => new Worker(journal)),
        "worker",
      );
      worker.tell("fail");
      worker.tell("fail");
      await scheduler.timePasses(10);
      assert.deepEqual(stopped.map((e) => e.ref.path), ["/user/worker"]);
      // The system goes on.
      const other = guarded.actorOf(
        Props.create(() => new Worker(journal)),
        "other",
      );
      other.tell("inc");
      const count = other.ask<number>("get");
      await scheduler.timePasses(0);
      assert.equal(await count, 1);
    } finally {
      await guarded.terminate();
    }
  });

  it("rejects an unknown onLimitExceeded, naming the option and the value", () => {
    assert.throws(
      () =>
        new OneForOneStrategy(() => "restart", {
          onLimitExceeded: "shrug" as LimitExceeded,
        }),
      (error: unknown) =>
        error instanceof TypeError &&
        error.message ===
          'Cannot create OneForOneStrategy: "onLimitExceeded" must be "stop-child" or "escalate" (got "shrug")',
    );
    assert.equal(
      new RestForOneStrategy(() => "stop").onLimitExceeded,
      "stop-child",
    );
  });
});
