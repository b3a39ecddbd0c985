// Copyright 2026 the understudy authors. MIT license.
/**
 * The idle tracker under `@understudy/core/edge`, on a manual clock: it
 * counts the timers a system has pending, settles `whenIdle()` only when
 * none is (a backoff's respawn included), refuses what a stateless Worker
 * cannot keep, and hands its promise to `ctx.waitUntil`.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  type ActorRef,
  ActorSystem,
  BackoffSupervisor,
  Props,
} from "../../mod.ts";
import { ManualScheduler } from "../../src/testing/mod.ts";
import {
  edgeSystem,
  handle,
  IdleScheduler,
  keepAlive,
  perRequestBackoff,
  WAIT_UNTIL_LIMIT_MS,
} from "../../src/edge/mod.ts";

/** Whether `promise` has settled after a few host macrotasks. */
async function settledSoon(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(() => (settled = true));
  for (let i = 0; i < 5; i++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return settled;
}

/** Answers with its incarnation; throws on `"crash"`. */
class Child extends Actor<string> {
  constructor(readonly incarnation: number) {
    super();
  }
  onReceive(message: string): void {
    if (message === "crash") throw new Error("crash requested");
    this.sender?.tell(`${message} from ${this.incarnation}`);
  }
}

function childProps(): Props<string> {
  let starts = 0;
  return Props.create(() => new Child(++starts));
}

const quiet = { logger: () => {} };

describe("IdleScheduler", () => {
  it("counts timers until they fire or are cancelled", async () => {
    const base = new ManualScheduler();
    const scheduler = new IdleScheduler({ base });
    const fired: number[] = [];
    scheduler.setTimeout(() => fired.push(10), 10);
    const cancelled = scheduler.setTimeout(() => fired.push(20), 20);
    assert.equal(scheduler.pending, 2);
    assert.equal(base.pendingTimers, 2);
    scheduler.clearTimeout(cancelled);
    scheduler.clearTimeout(cancelled); // a second time: ignored
    scheduler.clearTimeout({}); // not its own: ignored
    assert.equal(scheduler.pending, 1);
    assert.equal(base.pendingTimers, 1);
    await base.timePasses(30);
    assert.deepEqual(fired, [10]);
    assert.equal(scheduler.pending, 0);
  });

  it("reads the base scheduler's clock", () => {
    assert.equal(
      new IdleScheduler({ base: new ManualScheduler(42) }).now(),
      42,
    );
  });

  it("whenIdle settles at once when nothing is pending, and not while a timer is", async () => {
    const base = new ManualScheduler();
    const scheduler = new IdleScheduler({ base });
    assert.equal(await settledSoon(scheduler.whenIdle()), true);
    scheduler.setTimeout(() => {}, 100);
    const idle = scheduler.whenIdle();
    assert.equal(await settledSoon(idle), false);
    await base.timePasses(100);
    assert.equal(await settledSoon(idle), true);
  });

  it("whenIdle waits for a timer started by a timer, and settles on a cancel", async () => {
    const base = new ManualScheduler();
    const scheduler = new IdleScheduler({ base });
    let second: unknown;
    scheduler.setTimeout(() => {
      second = scheduler.setTimeout(() => {}, 1_000);
    }, 10);
    const idle = scheduler.whenIdle();
    await base.timePasses(10);
    assert.equal(scheduler.pending, 1);
    assert.equal(await settledSoon(idle), false);
    scheduler.clearTimeout(second);
    assert.equal(await settledSoon(idle), true);
  });

  it("whenIdle covers a BackoffSupervisor's respawn after a failure told a moment before", async () => {
    const base = new ManualScheduler();
    const scheduler = new IdleScheduler({ base });
    const system = ActorSystem.create("idle", { ...quiet, scheduler });
    try {
      const supervisor = system.actorOf(BackoffSupervisor.props({
        childProps: childProps(),
        childName: "child",
        minBackoff: 50,
        maxBackoff: 50,
        randomFactor: 0,
      })) as ActorRef<string>;
      await base.timePasses(50); // past the first child's grace window
      assert.equal(await settledSoon(scheduler.whenIdle()), true);
      supervisor.tell("crash"); // the respawn timer is not started yet
      const idle = scheduler.whenIdle();
      assert.equal(await settledSoon(idle), false, "the respawn is due");
      await base.timePasses(50); // respawn
      assert.equal(await settledSoon(idle), false, "its grace window runs");
      await base.timePasses(50);
      assert.equal(await settledSoon(idle), true);
      const answer = supervisor.ask<string>("ping", 1_000);
      await base.timePasses(0);
      assert.equal(await answer, "ping from 2");
    } finally {
      const terminated = system.terminate();
      await base.timePasses(0);
      await terminated;
    }
  });

  it("refuses a timer over maxDelayMs with a RangeError naming a Durable Object", () => {
    const scheduler = new IdleScheduler({
      base: new ManualScheduler(),
      maxDelayMs: 1_000,
    });
    scheduler.clearTimeout(scheduler.setTimeout(() => {}, 1_000));
    assert.throws(
      () => scheduler.setTimeout(() => {}, 1_001),
      (error: unknown) =>
        error instanceof RangeError &&
        /1001 ms.*"maxDelayMs" is 1000.*Durable Object/.test(error.message),
    );
    assert.equal(scheduler.pending, 0);
  });

  it("turns the platform's global-scope refusal into a TypeError that names the fix", () => {
    const refusal = new Error(
      "Disallowed operation called within global scope. Asynchronous I/O " +
        "(ex: fetch() or connect()), setting a timeout, and generating " +
        "random values are not allowed within global scope.",
    );
    const globalScope = {
      setTimeout: () => {
        throw refusal;
      },
      clearTimeout: () => {},
      now: () => 0,
    };
    const scheduler = new IdleScheduler({ base: globalScope });
    assert.throws(
      () => scheduler.setTimeout(() => {}, 10),
      (error: unknown) =>
        error instanceof TypeError && error.cause === refusal &&
        /global scope.*inside the fetch handler.*edgeSystem.*Durable Object/s
          .test(error.message),
    );
    assert.equal(scheduler.pending, 0);
    // Any other error of the base passes through as it is.
    const broken = new IdleScheduler({
      base: {
        ...globalScope,
        setTimeout: () => {
          throw new Error("broken clock");
        },
      },
    });
    assert.throws(
      () => broken.setTimeout(() => {}, 10),
      /^Error: broken clock$/,
    );
  });

  it("checks its options", () => {
    assert.throws(
      () => new IdleScheduler({ maxDelayMs: -1 }),
      (error: unknown) =>
        error instanceof RangeError && /"maxDelayMs"/.test(error.message),
    );
    assert.throws(
      () => new IdleScheduler({ base: {} as never }),
      (error: unknown) =>
        error instanceof TypeError && /"base"/.test(error.message),
    );
    assert.throws(
      () => new IdleScheduler(null as never),
      (error: unknown) =>
        error instanceof TypeError && /"options"/.test(error.message),
    );
  });
});

describe("edgeSystem, keepAlive and handle", () => {
  it("edgeSystem runs the system's timers through an IdleScheduler over the given one, refusing those over 30 s", async () => {
    const base = new ManualScheduler();
    const errors: unknown[] = [];
    const system = edgeSystem("edge", {
      scheduler: base,
      logger: (record) => {
        if (record.error !== undefined) errors.push(record.error);
      },
    });
    try {
      assert.ok(system.scheduler instanceof IdleScheduler);
      assert.equal(system.scheduler.now(), base.now());
      assert.equal(WAIT_UNTIL_LIMIT_MS, 30_000);
      const echo = system.actorOf(childProps());
      assert.equal(await echo.ask<string>("soon", 30_000), "soon from 1");
      // An actor's timer over 30 s fails that actor, with the fix named.
      class Late extends Actor<string> {
        override preStart(): void {
          this.context.timers.startSingleTimer("late", "tick", 60_000);
        }
        onReceive(): void {}
      }
      system.actorOf(Props.create(() => new Late()));
      await base.timePasses(0);
      assert.ok(errors.length > 0, "the failure is logged");
      assert.ok(
        errors[0] instanceof RangeError &&
          /60000 ms.*Durable Object/.test(errors[0].message),
        String(errors[0]),
      );
    } finally {
      const terminated = system.terminate();
      await base.timePasses(0);
      await terminated;
    }
  });

  it("edgeSystem refuses the global scope at once, with the TypeError naming the fix", () => {
    const refusal = new Error(
      "Disallowed operation called within global scope",
    );
    assert.throws(
      () =>
        edgeSystem("edge", {
          scheduler: {
            setTimeout: () => {
              throw refusal;
            },
            clearTimeout: () => {},
            now: () => 0,
          },
        }),
      (error: unknown) =>
        error instanceof TypeError && error.cause === refusal &&
        /inside the fetch handler/.test(error.message),
    );
  });

  it("keepAlive hands ctx.waitUntil a promise that settles once the respawn has run", async () => {
    const base = new ManualScheduler();
    const system = edgeSystem("edge", { ...quiet, scheduler: base });
    try {
      const supervisor = system.actorOf(BackoffSupervisor.props({
        childProps: childProps(),
        childName: "child",
        minBackoff: 50,
        maxBackoff: 50,
        randomFactor: 0,
        drainGraceMs: 0,
      })) as ActorRef<string>;
      const kept: Promise<unknown>[] = [];
      supervisor.tell("crash");
      keepAlive({ waitUntil: (promise) => kept.push(promise) }, system);
      assert.equal(kept.length, 1);
      assert.equal(await settledSoon(kept[0]), false);
      await base.timePasses(50); // respawn
      assert.equal(await settledSoon(kept[0]), false, "the stability check");
      await base.timePasses(50);
      assert.equal(await settledSoon(kept[0]), true);
    } finally {
      const terminated = system.terminate();
      await base.timePasses(0);
      await terminated;
    }
  });

  it("handle returns the work's result, or its error, and keeps the request alive either way", async () => {
    const system = edgeSystem("edge", quiet);
    try {
      const kept: Promise<unknown>[] = [];
      const ctx = {
        waitUntil: (promise: Promise<unknown>) => kept.push(promise),
      };
      assert.equal(await handle(ctx, system, () => 7), 7);
      assert.equal(await handle(ctx, system, async () => await 8), 8);
      await assert.rejects(
        handle(ctx, system, () => {
          throw new Error("work failed");
        }),
        /work failed/,
      );
      assert.equal(kept.length, 3);
      await Promise.all(kept);
    } finally {
      await system.terminate();
    }
  });

  it("keepAlive and handle refuse a system whose timers they cannot see, and a ctx without waitUntil", async () => {
    const plain = ActorSystem.create("plain", quiet);
    const edge = edgeSystem("edge", quiet);
    try {
      const ctx = { waitUntil: () => {} };
      assert.throws(
        () => keepAlive(ctx, plain),
        (error: unknown) =>
          error instanceof TypeError && /"system".*edgeSystem/.test(
            (error as Error).message,
          ),
      );
      await assert.rejects(
        handle(ctx, plain, () => 1),
        (error: unknown) =>
          error instanceof TypeError && /edgeSystem/.test(
            (error as Error).message,
          ),
      );
      assert.throws(
        () => keepAlive({} as never, edge),
        (error: unknown) =>
          error instanceof TypeError && /"ctx".*waitUntil/.test(
            (error as Error).message,
          ),
      );
      let ran = false;
      await assert.rejects(
        handle(undefined as never, edge, () => (ran = true)),
        /"ctx"/,
      );
      assert.equal(ran, false, "the work does not run");
    } finally {
      await plain.terminate();
      await edge.terminate();
    }
  });
});

describe("perRequestBackoff", () => {
  async function stashedAnswerAt(
    props: (
      options: Parameters<typeof perRequestBackoff<string>>[0],
    ) => Props<unknown>,
  ): Promise<number> {
    const base = new ManualScheduler();
    const system = ActorSystem.create("request", { ...quiet, scheduler: base });
    try {
      const supervisor = system.actorOf(props({
        childProps: childProps(),
        childName: "child",
        minBackoff: 50,
        maxBackoff: 50,
        randomFactor: 0,
      })) as ActorRef<string>;
      await base.timePasses(50); // the first child's grace window, if any
      const started = base.now();
      supervisor.tell("crash");
      let answeredAt: number | undefined;
      supervisor.ask<string>("ping", 5_000).then(() => answeredAt = base.now());
      await base.advanceUntil(() => answeredAt !== undefined, 1_000);
      assert.ok(answeredAt !== undefined, "answered");
      return answeredAt - started;
    } finally {
      const terminated = system.terminate();
      await base.timePasses(0);
      await terminated;
    }
  }

  it("answers a request stashed during a backoff of 50 ms at 50 ms, where the default grace window makes it 100", async () => {
    assert.equal(
      await stashedAnswerAt((o) => BackoffSupervisor.props(o)),
      100,
    );
    assert.equal(await stashedAnswerAt((o) => perRequestBackoff(o)), 50);
  });

  it("leaves a drainGraceMs given to it alone, and checks its options", async () => {
    assert.equal(
      await stashedAnswerAt((o) =>
        perRequestBackoff({ ...o, drainGraceMs: 20 })
      ),
      70,
    );
    assert.throws(
      () => perRequestBackoff(null as never),
      (error: unknown) =>
        error instanceof TypeError && /"options"/.test(error.message),
    );
  });
});
