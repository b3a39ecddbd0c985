// Copyright 2026 the understudy authors. MIT license.
// Specification of typed supervision: supervise(props).onFailure(ErrorClass,
// strategy) restarts, resumes or stops the actor in place, keeping its ref.

import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  ActorFailed,
  type ActorRef,
  ActorRestarted,
  ActorStopped,
  type ActorSystem,
  Props,
  stoppingStrategy,
  supervise,
  SupervisorStrategy,
  type TypedStrategy,
} from "../../mod.ts";
import {
  type Clock,
  collect,
  collectDeadLetters,
  createSystem,
  installClock,
  logRecorder,
  settle,
} from "./_helpers.ts";

/**
 * "inc" counts, "get" replies with the count, "fail" throws an Error,
 * "fail:TypeError" / "fail:RangeError" throw those; anything else is recorded
 * as "<incarnation>:<message>".
 */
class Flaky extends Actor<string> {
  count = 0;
  constructor(readonly incarnation: number, readonly received: string[]) {
    super();
  }
  onReceive(message: string): void {
    if (message === "inc") this.count++;
    else if (message === "get") this.sender?.tell(this.count);
    else if (message === "fail") throw new Error("flaky");
    else if (message === "fail:TypeError") throw new TypeError("typed");
    else if (message === "fail:RangeError") throw new RangeError("ranged");
    else this.received.push(`${this.incarnation}:${message}`);
  }
}

function flakyProps(received: string[] = []): Props<string> {
  let incarnation = 0;
  return Props.create(() => new Flaky(++incarnation, received));
}

function supervised(strategy: TypedStrategy, received: string[] = []) {
  return supervise(flakyProps(received)).onFailure(Error, strategy);
}

describe("supervise(props).onFailure", () => {
  let system: ActorSystem;
  beforeEach(() => {
    // The guardian would stop a failing actor: typed supervision must act first.
    system = createSystem({ guardianStrategy: stoppingStrategy });
  });
  afterEach(async () => {
    await system.terminate();
  });

  it("restart: a fresh instance behind the same ref; the parent is not consulted", async () => {
    const received: string[] = [];
    const stopped = collect(system, ActorStopped);
    const restarted = collect(system, ActorRestarted);
    const ref = system.actorOf(
      supervised(SupervisorStrategy.restart, received),
      "flaky",
    );
    for (const m of ["inc", "inc", "a", "fail", "b"]) ref.tell(m);
    assert.equal(await ref.ask("get"), 0);
    assert.deepEqual(received, ["1:a", "2:b"]);
    assert.deepEqual(restarted.map((r) => r.ref), [ref]);
    assert.equal(stopped.length, 0);
  });

  it("restart sends the failing message to dead letters", async () => {
    const dead = collectDeadLetters(system);
    const ref = system.actorOf(supervised(SupervisorStrategy.restart), "flaky");
    ref.tell("fail");
    await settle();
    assert.deepEqual(dead.map((d) => [d.message, d.recipient, d.reason]), [
      ["fail", ref, "processing failed: Error: flaky"],
    ]);
  });

  it("resume: the same instance goes on, state kept", async () => {
    const received: string[] = [];
    const ref = system.actorOf(
      supervised(SupervisorStrategy.resume, received),
      "flaky",
    );
    for (const m of ["inc", "fail", "inc", "a"]) ref.tell(m);
    assert.equal(await ref.ask("get"), 2);
    assert.deepEqual(received, ["1:a"]);
  });

  it("stop: the actor stops; later messages are dead letters", async () => {
    const stopped = collect(system, ActorStopped);
    const dead = collectDeadLetters(system);
    const ref = system.actorOf(supervised(SupervisorStrategy.stop), "flaky");
    ref.tell("fail");
    ref.tell("queued");
    await settle();
    assert.deepEqual(stopped.map((s) => s.ref), [ref]);
    assert.deepEqual(dead.map((d) => [d.message, d.reason]), [
      ["fail", "processing failed: Error: flaky"],
      ["queued", "recipient stopped"],
    ]);
  });

  it("stops the actor on an error that no clause matches", async () => {
    const stopped = collect(system, ActorStopped);
    const failed = collect(system, ActorFailed);
    const ref = system.actorOf(
      supervise(flakyProps()).onFailure(TypeError, SupervisorStrategy.restart),
      "flaky",
    );
    ref.tell("fail:RangeError");
    await settle();
    assert.deepEqual(failed.map((f) => f.directive), ["stop"]);
    assert.deepEqual(stopped.map((s) => s.ref), [ref]);
  });

  it("applies the most specific matching clause, whatever the order", async () => {
    const failed = collect(system, ActorFailed);
    for (
      const [name, props] of [
        [
          "ab",
          supervise(flakyProps()).onFailure(Error, SupervisorStrategy.stop)
            .onFailure(TypeError, SupervisorStrategy.resume),
        ],
        [
          "ba",
          supervise(flakyProps()).onFailure(
            TypeError,
            SupervisorStrategy.resume,
          ).onFailure(Error, SupervisorStrategy.stop),
        ],
      ] as const
    ) {
      const ref = system.actorOf(props, name);
      ref.tell("fail:TypeError");
      ref.tell("fail:RangeError");
    }
    await settle();
    assert.deepEqual(
      failed.map((f) => `${f.ref.path} ${f.directive}`).sort(),
      ["/user/ab resume", "/user/ab stop", "/user/ba resume", "/user/ba stop"],
    );
  });

  it("logs a failure at error level, unless withLoggingEnabled(false)", async () => {
    for (const quiet of [false, true]) {
      const { records, sink } = logRecorder();
      const logged = createSystem({ logLevel: "info", logger: sink });
      try {
        const strategy = quiet
          ? SupervisorStrategy.restart.withLoggingEnabled(false)
          : SupervisorStrategy.restart;
        const ref = logged.actorOf(supervised(strategy), "flaky");
        ref.tell("fail");
        await settle();
        const errors = records.filter((r) => r.level === "error");
        if (quiet) {
          assert.equal(errors.length, 0);
        } else {
          assert.equal(errors.length, 1);
          assert.equal(errors[0].path, "/user/flaky");
          assert.equal(errors[0].message, "failed (restart)");
          assert.equal((errors[0].error as Error).message, "flaky");
        }
      } finally {
        await logged.terminate();
      }
    }
  });

  it("withLoggingEnabled returns a new strategy and leaves the original alone", () => {
    const quiet = SupervisorStrategy.resume.withLoggingEnabled(false);
    assert.equal(quiet.loggingEnabled, false);
    assert.equal(quiet.kind, "resume");
    assert.equal(SupervisorStrategy.resume.loggingEnabled, true);
  });
});

describe("SupervisorStrategy.restartWithLimit", () => {
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

  for (const limit of [0, 1, 3]) {
    it(`restartWithLimit(${limit}, …) grants exactly ${limit} restart(s), then stops`, async () => {
      const restarted = collect(system, ActorRestarted);
      const stopped = collect(system, ActorStopped);
      const ref = system.actorOf(
        supervised(SupervisorStrategy.restartWithLimit(limit, 60_000)),
        "flaky",
      );
      for (let i = 0; i < limit + 3; i++) ref.tell("fail");
      await clock.tickAsync(0);
      assert.equal(restarted.length, limit);
      assert.deepEqual(stopped.map((s) => s.ref), [ref]);
    });
  }

  it("counts restarts per window: a failure after the window restarts again", async () => {
    const restarted = collect(system, ActorRestarted);
    const stopped = collect(system, ActorStopped);
    const ref = system.actorOf(
      supervised(SupervisorStrategy.restartWithLimit(2, 10_000)),
      "flaky",
    );
    ref.tell("fail");
    ref.tell("fail");
    await clock.tickAsync(10_001);
    ref.tell("fail");
    ref.tell("fail");
    await clock.tickAsync(0);
    assert.equal(restarted.length, 4);
    assert.equal(stopped.length, 0);
    ref.tell("fail");
    await clock.tickAsync(0);
    assert.equal(restarted.length, 4);
    assert.deepEqual(stopped.map((s) => s.ref), [ref]);
  });

  it("rejects a bad limit or window, naming the argument, the value and what is expected", () => {
    for (
      const [bad, shown] of [[-1, "-1"], [2.5, "2.5"], [NaN, "NaN"]] as const
    ) {
      assert.throws(
        () => SupervisorStrategy.restartWithLimit(bad, 1_000),
        (e: unknown) =>
          e instanceof RangeError &&
          e.message.includes(
            `"maxRetries" must be a whole number >= 0 or Infinity (got ${shown})`,
          ),
      );
    }
    assert.throws(
      () => SupervisorStrategy.restartWithLimit(3, 0),
      (e: unknown) =>
        e instanceof RangeError &&
        e.message.includes(
          `"withinMs" must be a number of milliseconds > 0 or Infinity (got 0)`,
        ),
    );
  });
});

describe("SupervisorStrategy.restartWithBackoff", () => {
  let clock: Clock;
  let system: ActorSystem;
  let t0: number;
  beforeEach(() => {
    clock = installClock();
    system = createSystem();
    t0 = Date.now();
  });
  afterEach(async () => {
    await system.terminate();
    clock.uninstall();
  });

  const backoff = (
    options: Partial<
      Parameters<typeof SupervisorStrategy.restartWithBackoff>[0]
    > = {},
  ) =>
    SupervisorStrategy.restartWithBackoff({
      minBackoff: 100,
      maxBackoff: 10_000,
      randomFactor: 0,
      resetBackoffAfter: 60_000,
      ...options,
    });

  /** Restart times relative to t0. */
  function restartTimes(): number[] {
    const times: number[] = [];
    system.eventStream.subscribe(
      ActorRestarted,
      () => times.push(Date.now() - t0),
    );
    return times;
  }

  it("restarts after exactly minBackoff, then doubles: 100, 200, 400 ms", async () => {
    const times = restartTimes();
    const ref = system.actorOf(supervised(backoff()), "flaky");
    await clock.tickAsync(0);
    ref.tell("fail");
    await clock.tickAsync(99);
    assert.deepEqual(times, []);
    await clock.tickAsync(1);
    assert.deepEqual(times, [100]);
    ref.tell("fail");
    await clock.tickAsync(199);
    assert.deepEqual(times, [100]);
    await clock.tickAsync(1);
    assert.deepEqual(times, [100, 300]);
    ref.tell("fail");
    await clock.tickAsync(399);
    assert.deepEqual(times, [100, 300]);
    await clock.tickAsync(1);
    assert.deepEqual(times, [100, 300, 700]);
  });

  it("never waits longer than maxBackoff", async () => {
    const times = restartTimes();
    const ref = system.actorOf(
      supervised(backoff({ maxBackoff: 300 })),
      "flaky",
    );
    await clock.tickAsync(0);
    for (let i = 0; i < 5; i++) {
      ref.tell("fail"); // at i seconds
      await clock.tickAsync(1_000);
    }
    assert.equal(times.length, 5);
    assert.deepEqual(times.map((t, i) => t - i * 1_000), [
      100,
      200,
      300,
      300,
      300,
    ]);
  });

  it("keeps the messages queued behind the failure and those sent during the backoff, in order", async () => {
    const received: string[] = [];
    const ref = system.actorOf(supervised(backoff(), received), "flaky");
    await clock.tickAsync(0);
    ref.tell("fail");
    ref.tell("a");
    ref.tell("b");
    await clock.tickAsync(50);
    ref.tell("c");
    const answer = ref.ask("get", 1_000);
    ref.tell("d");
    assert.deepEqual(received, []);
    await clock.tickAsync(50);
    assert.deepEqual(received, ["2:a", "2:b", "2:c", "2:d"]);
    assert.equal(await answer, 0);
  });

  it("sends messages beyond its stashCapacity during the backoff to dead letters", async () => {
    const received: string[] = [];
    const dead = collectDeadLetters(system);
    const alice = system.actorOf(flakyProps(), "alice");
    const ref = system.actorOf(
      supervised(backoff({ stashCapacity: 2 }), received),
      "flaky",
    );
    await clock.tickAsync(0);
    ref.tell("fail");
    await clock.tickAsync(0);
    ref.tell("a");
    ref.tell("b");
    ref.tell("c", alice);
    await clock.tickAsync(100);
    assert.deepEqual(received, ["2:a", "2:b"]);
    assert.deepEqual(
      dead.map((d) => [d.message, d.sender, d.recipient, d.reason]),
      [
        ["fail", undefined, ref, "processing failed: Error: flaky"],
        ["c", alice, ref, "stash full while waiting to restart"],
      ],
    );
  });

  it("bounds what was queued behind the failure by stashCapacity too (capacity 0 keeps none)", async () => {
    const received: string[] = [];
    const dead = collectDeadLetters(system);
    const ref = system.actorOf(
      supervised(backoff({ stashCapacity: 0 }), received),
      "flaky",
    );
    await clock.tickAsync(0);
    for (const m of ["fail", "a", "b", "c", "d"]) ref.tell(m);
    await clock.tickAsync(100);
    ref.tell("e");
    await clock.tickAsync(0);
    assert.deepEqual(received, ["2:e"]);
    assert.deepEqual(dead.map((d) => [d.message, d.reason]), [
      ["fail", "processing failed: Error: flaky"],
      ["a", "stash full while waiting to restart"],
      ["b", "stash full while waiting to restart"],
      ["c", "stash full while waiting to restart"],
      ["d", "stash full while waiting to restart"],
    ]);
  });

  it("runs preRestart and stops the failed actor's children at the failure, not after the backoff (Akka Typed)", async () => {
    const journal: string[] = [];
    let incarnation = 0;
    class Kid extends Actor<string> {
      onReceive(): void {}
      override postStop(): void {
        journal.push(`kid stopped at ${Date.now() - t0}`);
      }
    }
    class WithKid extends Flaky {
      override preStart(): void {
        this.context.actorOf(Props.create(() => new Kid()), "kid");
      }
      override preRestart(reason: unknown, message?: unknown): void {
        journal.push(`preRestart ${message} at ${Date.now() - t0}`);
        super.preRestart(reason, message);
      }
    }
    const ref = system.actorOf(
      supervise(Props.create(() => new WithKid(++incarnation, [])))
        .onFailure(Error, backoff({ minBackoff: 1_000 })),
      "flaky",
    );
    await clock.tickAsync(0);
    ref.tell("fail");
    await clock.tickAsync(0);
    assert.deepEqual(journal, ["preRestart fail at 0", "kid stopped at 0"]);
    await clock.tickAsync(1_000);
    assert.equal(incarnation, 2);
    assert.deepEqual(journal, ["preRestart fail at 0", "kid stopped at 0"]);
  });

  it("does not let the failed instance's timers fill the backoff stash", async () => {
    const received: string[] = [];
    const dead = collectDeadLetters(system);
    let incarnation = 0;
    class Ticking extends Flaky {
      override preStart(): void {
        if (this.incarnation === 1) {
          this.context.timers.startTimerWithFixedDelay("tick", "tick", 10);
        }
      }
    }
    const ref = system.actorOf(
      supervise(Props.create(() => new Ticking(++incarnation, received)))
        .onFailure(Error, backoff({ minBackoff: 1_000, stashCapacity: 2 })),
      "flaky",
    );
    await clock.tickAsync(25);
    assert.deepEqual(received, ["1:tick", "1:tick"]);
    ref.tell("fail");
    await clock.tickAsync(500);
    ref.tell("a");
    ref.tell("b");
    await clock.tickAsync(500);
    assert.deepEqual(received, ["1:tick", "1:tick", "2:a", "2:b"]);
    assert.deepEqual(dead.map((d) => d.message), ["fail"]);
  });

  it("resets the backoff after resetBackoffAfter of running without failure", async () => {
    const times = restartTimes();
    const ref = system.actorOf(
      supervised(backoff({ resetBackoffAfter: 1_000 })),
      "flaky",
    );
    await clock.tickAsync(0);
    ref.tell("fail");
    await clock.tickAsync(100); // restarted after 100
    ref.tell("fail");
    await clock.tickAsync(200); // after 200
    await clock.tickAsync(999); // not quite stable long enough
    ref.tell("fail");
    await clock.tickAsync(400); // after 400
    assert.deepEqual(times, [100, 300, 1_699]);
    await clock.tickAsync(1_000); // stable long enough: back to minBackoff
    ref.tell("fail");
    await clock.tickAsync(99);
    assert.equal(times.length, 3);
    await clock.tickAsync(1);
    assert.deepEqual(times, [100, 300, 1_699, 2_799]);
  });

  it("stops the actor after maxRestarts restarts without a reset", async () => {
    const restarted = collect(system, ActorRestarted);
    const stopped = collect(system, ActorStopped);
    const dead = collectDeadLetters(system);
    const ref = system.actorOf(
      supervised(backoff({ maxRestarts: 2 })),
      "flaky",
    );
    await clock.tickAsync(0);
    ref.tell("fail");
    await clock.tickAsync(100);
    ref.tell("fail");
    await clock.tickAsync(200);
    assert.equal(restarted.length, 2);
    assert.equal(stopped.length, 0);
    ref.tell("fail");
    ref.tell("queued");
    await clock.tickAsync(10_000);
    assert.equal(restarted.length, 2);
    assert.deepEqual(stopped.map((s) => s.ref), [ref]);
    assert.deepEqual(dead.map((d) => [d.message, d.reason]).slice(-1), [[
      "queued",
      "recipient stopped",
    ]]);
    assert.equal(clock.countTimers(), 0);
  });

  it("maxRestarts: 0 never restarts", async () => {
    const restarted = collect(system, ActorRestarted);
    const stopped = collect(system, ActorStopped);
    const ref = system.actorOf(
      supervised(backoff({ maxRestarts: 0 })),
      "flaky",
    );
    ref.tell("fail");
    await clock.tickAsync(10_000);
    assert.equal(restarted.length, 0);
    assert.deepEqual(stopped.map((s) => s.ref), [ref]);
  });

  it("retries a failure of the first preStart with the backoff, then processes the waiting messages", async () => {
    const times = restartTimes();
    const received: string[] = [];
    let attempts = 0;
    class SlowToStart extends Flaky {
      override preStart(): void {
        if (++attempts <= 2) throw new Error(`not yet (${attempts})`);
      }
    }
    let incarnation = 0;
    const ref = system.actorOf(
      supervise(Props.create(() => new SlowToStart(++incarnation, received)))
        .onFailure(Error, backoff()),
      "slow",
    );
    ref.tell("a");
    ref.tell("b");
    await clock.tickAsync(0);
    assert.equal(attempts, 1);
    await clock.tickAsync(99);
    assert.equal(attempts, 1);
    await clock.tickAsync(1);
    assert.equal(attempts, 2);
    await clock.tickAsync(200);
    assert.equal(attempts, 3);
    assert.deepEqual(times, [300]);
    assert.deepEqual(received, ["3:a", "3:b"]);
  });

  it("sends the kept messages to dead letters if the actor is stopped while waiting", async () => {
    const dead = collectDeadLetters(system);
    const ref = system.actorOf(
      supervised(backoff({ minBackoff: 5_000 })),
      "flaky",
    );
    ref.tell("fail");
    ref.tell("kept");
    await clock.tickAsync(1_000);
    await system.terminate();
    assert.deepEqual(dead.map((d) => [d.message, d.reason]), [
      ["fail", "processing failed: Error: flaky"],
      ["kept", "recipient stopped"],
    ]);
    assert.equal(clock.countTimers(), 0);
  });

  it("reports the failure as ActorFailed with directive 'backoff'", async () => {
    const failed = collect(system, ActorFailed);
    const ref = system.actorOf(supervised(backoff()), "flaky");
    ref.tell("fail");
    await clock.tickAsync(0);
    assert.deepEqual(failed.map((f) => [f.ref, f.directive, String(f.error)]), [
      [ref, "backoff", "Error: flaky"],
    ]);
  });

  it("rejects bad options, naming the option, the value and what is expected", () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ minBackoff: -1, maxBackoff: 100 }, /"minBackoff".*-1/],
      [{ minBackoff: 0, maxBackoff: 100 }, /"minBackoff".*\b0\b/],
      [{ minBackoff: NaN, maxBackoff: 100 }, /"minBackoff".*NaN/],
      [{ minBackoff: 100, maxBackoff: 50 }, /"maxBackoff".*50/],
      [{ minBackoff: 100, maxBackoff: Infinity }, /"maxBackoff".*Infinity/],
      [
        { minBackoff: 100, maxBackoff: 200, randomFactor: 2 },
        /"randomFactor".*2/,
      ],
      [
        { minBackoff: 100, maxBackoff: 200, maxRestarts: -1 },
        /"maxRestarts".*-1/,
      ],
      [
        { minBackoff: 100, maxBackoff: 200, stashCapacity: 1.5 },
        /"stashCapacity".*1\.5/,
      ],
      [
        { minBackoff: 100, maxBackoff: 200, resetBackoffAfter: 0 },
        /"resetBackoffAfter".*0/,
      ],
    ];
    for (const [options, pattern] of cases) {
      assert.throws(
        () => SupervisorStrategy.restartWithBackoff(options as never),
        (e: unknown) =>
          (e instanceof RangeError || e instanceof TypeError) &&
          pattern.test(e.message) &&
          /Cannot create SupervisorStrategy\.restartWithBackoff/.test(
            e.message,
          ),
        JSON.stringify(options),
      );
    }
  });
});

describe("supervise and onFailure arguments", () => {
  it("reject what is not Props, an error class or a strategy, naming the value", () => {
    assert.throws(
      () => supervise({} as Props<unknown>),
      (e: unknown) =>
        e instanceof TypeError && /"props" must be Props/.test(e.message),
    );
    const props = supervise(flakyProps());
    assert.throws(
      () =>
        props.onFailure(
          "Error" as unknown as typeof Error,
          SupervisorStrategy.stop,
        ),
      (e: unknown) =>
        e instanceof TypeError &&
        /"errorClass" must be an error class/.test(e.message) &&
        /got "Error"/.test(e.message),
    );
    assert.throws(
      () => props.onFailure(Error, "restart" as unknown as TypedStrategy),
      (e: unknown) =>
        e instanceof TypeError &&
        /"strategy" must be a strategy from SupervisorStrategy/.test(
          e.message,
        ) &&
        /got "restart"/.test(e.message),
    );
  });

  it("onFailure returns new props and leaves the original unchanged", async () => {
    const system = createSystem();
    try {
      const stopped = collect(system, ActorStopped);
      const base = supervise(flakyProps());
      const resuming = base.onFailure(Error, SupervisorStrategy.resume);
      assert.notEqual(resuming, base);
      const a: ActorRef<string> = system.actorOf(base, "a");
      const b: ActorRef<string> = system.actorOf(resuming, "b");
      a.tell("fail");
      b.tell("fail");
      await settle();
      // `base` has no clause: the parent's (default) strategy restarts `a`; `b` resumes.
      assert.equal(stopped.length, 0);
      b.tell("inc");
      assert.equal(await b.ask("get"), 1);
    } finally {
      await system.terminate();
    }
  });
});
