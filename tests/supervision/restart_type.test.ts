// Copyright 2026 the understudy authors. MIT license.
// Specification of OTP's restart types on Props ("permanent", "transient",
// "temporary") under each supervisor style: classic strategies, typed
// supervision, and the BackoffSupervisor.

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
  BackoffChildStarted,
  BackoffSupervisor,
  DeadLetter,
  OneForOneStrategy,
  Props,
  RestForOneStrategy,
  supervise,
  SupervisorStrategy,
} from "../../mod.ts";
import {
  mayRestart,
  type RestartType,
} from "../../src/supervision/restart_type.ts";
import {
  type Clock,
  collect,
  createSystem,
  installClock,
  settle,
} from "../runtime/_helpers.ts";

/** Fails on "fail", stops itself on "stop", records everything else. */
class Job extends Actor<string> {
  constructor(readonly seen: string[]) {
    super();
  }
  onReceive(message: string): void {
    if (message === "fail") throw new Error("job failed");
    if (message === "stop") return this.context.stopSelf();
    this.seen.push(`${this.self.path} ${message}`);
  }
}

const jobProps = (seen: string[], restart?: RestartType): Props<string> =>
  Props.create(
    () => new Job(seen),
    restart === undefined ? {} : { restart },
  );

describe("mayRestart", () => {
  it("permanent always, transient after a failure only, temporary never", () => {
    const table = (["permanent", "transient", "temporary"] as const).map((
      type,
    ) => [type, mayRestart(type, "failure"), mayRestart(type, "stop")]);
    assert.deepEqual(table, [
      ["permanent", true, true],
      ["transient", true, false],
      ["temporary", false, false],
    ]);
  });
});

describe("Props restart option", () => {
  it('defaults to "permanent" and is kept by supervise()', () => {
    const seen: string[] = [];
    assert.equal(jobProps(seen).restart, "permanent");
    assert.equal(jobProps(seen, "transient").restart, "transient");
    assert.equal(
      supervise(jobProps(seen, "temporary"))
        .onFailure(Error, SupervisorStrategy.restart).restart,
      "temporary",
    );
  });

  it("rejects anything else with a TypeError naming the option and the value", () => {
    assert.throws(
      () =>
        Props.create(() => new Job([]), {
          restart: "sometimes" as RestartType,
        }),
      (error: unknown) =>
        error instanceof TypeError &&
        error.message ===
          'Cannot create Props: "restart" must be "permanent", "transient" or "temporary" (got "sometimes")',
    );
  });
});

describe("Restart types under a classic strategy (OneForOne)", () => {
  let system: ActorSystem;
  beforeEach(() => {
    system = createSystem({
      guardianStrategy: new OneForOneStrategy(() => "restart", {
        loggingEnabled: false,
      }),
    });
  });
  afterEach(async () => {
    await system.terminate();
  });

  for (const restart of ["permanent", "transient"] as const) {
    it(`a ${restart} child is restarted after a failure`, async () => {
      const seen: string[] = [];
      const restarted = collect(system, ActorRestarted);
      const ref = system.actorOf(jobProps(seen, restart), "job");
      ref.tell("fail");
      ref.tell("after");
      await settle();
      assert.deepEqual(restarted.map((e) => e.ref), [ref]);
      assert.deepEqual(seen, ["/user/job after"]);
    });
  }

  it("a temporary child is stopped where the directive says Restart", async () => {
    const seen: string[] = [];
    const failed = collect(system, ActorFailed);
    const stopped = collect(system, ActorStopped);
    const dead = collect(system, DeadLetter);
    const ref = system.actorOf(jobProps(seen, "temporary"), "job");
    ref.tell("fail");
    ref.tell("after");
    await settle();
    assert.deepEqual(failed.map((e) => e.directive), ["stop"]);
    assert.deepEqual(stopped.map((e) => e.ref), [ref]);
    assert.deepEqual(seen, []);
    assert.deepEqual(dead.map((d) => d.message), ["fail", "after"]);
  });

  for (const Strategy of [AllForOneStrategy, RestForOneStrategy]) {
    it(`a failed temporary child is dropped alone under ${Strategy.name}: its siblings go on`, async () => {
      const seen: string[] = [];
      const grouped = createSystem({
        guardianStrategy: new Strategy(() => "restart", {
          loggingEnabled: false,
        }),
      });
      try {
        const stopped = collect(grouped, ActorStopped);
        const restarted = collect(grouped, ActorRestarted);
        const temporary = grouped.actorOf(jobProps(seen, "temporary"), "a");
        const sibling = grouped.actorOf(jobProps(seen), "b");
        temporary.tell("fail");
        sibling.tell("after");
        await settle();
        assert.deepEqual(stopped.map((e) => e.ref), [temporary]);
        assert.deepEqual(restarted, []);
        assert.deepEqual(seen, ["/user/b after"]);
      } finally {
        await grouped.terminate();
      }
    });
  }

  it("a temporary child is still resumed by Resume", async () => {
    const seen: string[] = [];
    const resuming = createSystem({
      guardianStrategy: new OneForOneStrategy(() => "resume", {
        loggingEnabled: false,
      }),
    });
    try {
      const ref = resuming.actorOf(jobProps(seen, "temporary"), "job");
      ref.tell("fail");
      ref.tell("after");
      await settle();
      assert.deepEqual(seen, ["/user/job after"]);
    } finally {
      await resuming.terminate();
    }
  });

  for (const restart of ["permanent", "transient", "temporary"] as const) {
    it(`a ${restart} child that stops normally is not revived (classic supervision only handles failures)`, async () => {
      const seen: string[] = [];
      const stopped = collect(system, ActorStopped);
      const ref = system.actorOf(jobProps(seen, restart), "job");
      ref.tell("stop");
      ref.tell("after");
      await settle();
      assert.deepEqual(stopped.map((e) => e.ref), [ref]);
      assert.deepEqual(seen, []);
    });
  }
});

describe("Restart types under typed supervision", () => {
  let system: ActorSystem;
  beforeEach(() => {
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  it("a temporary actor is stopped where restart or restartWithBackoff would restart it", async () => {
    const seen: string[] = [];
    const stopped = collect(system, ActorStopped);
    const failed = collect(system, ActorFailed);
    const plain = system.actorOf(
      supervise(jobProps(seen, "temporary")).onFailure(
        Error,
        SupervisorStrategy.restart.withLoggingEnabled(false),
      ),
      "plain",
    );
    const backoff = system.actorOf(
      supervise(jobProps(seen, "temporary")).onFailure(
        Error,
        SupervisorStrategy.restartWithBackoff({
          minBackoff: 10,
          maxBackoff: 100,
        }).withLoggingEnabled(false),
      ),
      "backoff",
    );
    plain.tell("fail");
    backoff.tell("fail");
    await settle();
    assert.deepEqual(failed.map((e) => e.directive), ["stop", "stop"]);
    assert.deepEqual(
      new Set(stopped.map((e) => e.ref)),
      new Set([plain, backoff]),
    );
  });

  it("a transient actor is restarted after a failure, like a permanent one", async () => {
    const seen: string[] = [];
    const restarted = collect(system, ActorRestarted);
    const ref = system.actorOf(
      supervise(jobProps(seen, "transient")).onFailure(
        Error,
        SupervisorStrategy.restart.withLoggingEnabled(false),
      ),
      "job",
    );
    ref.tell("fail");
    ref.tell("after");
    await settle();
    assert.deepEqual(restarted.map((e) => e.ref), [ref]);
    assert.deepEqual(seen, ["/user/job after"]);
  });
});

describe("Restart types under the BackoffSupervisor", () => {
  let clock: Clock;
  let system: ActorSystem;
  beforeEach(() => {
    clock = installClock();
    system = createSystem();
  });
  afterEach(async () => {
    const done = system.terminate();
    await clock.runAllAsync();
    await done;
    clock.uninstall();
  });

  function supervisor(seen: string[], restart?: RestartType) {
    return system.actorOf(
      BackoffSupervisor.props({
        childProps: jobProps(seen, restart),
        childName: "job",
        minBackoff: 100,
        maxBackoff: 1_000,
        randomFactor: 0,
        drainGraceMs: 0,
      }),
      "supervisor",
    ) as ActorRef<string>;
  }

  /** Spawns seen, and whether the supervisor stopped, after `ending` and 2 s. */
  async function after(
    restart: RestartType | undefined,
    ending: "fail" | "stop",
  ) {
    const seen: string[] = [];
    const spawned = collect(system, BackoffChildStarted);
    const stopped = collect(system, ActorStopped);
    const dead = collect(system, DeadLetter);
    const ref = supervisor(seen, restart);
    await clock.tickAsync(0);
    ref.tell(ending);
    await clock.tickAsync(0);
    ref.tell("later");
    await clock.tickAsync(2_000);
    return {
      children: spawned.map((e) => e.child.path),
      supervisorStopped: stopped.some((e) => e.ref === ref),
      seen,
      dead: dead.map((d) => d.message),
    };
  }

  it("permanent (the default): respawned after a crash and after a normal stop", async () => {
    for (const ending of ["fail", "stop"] as const) {
      const outcome = await after(undefined, ending);
      assert.deepEqual(outcome.children, [
        "/user/supervisor/job-1",
        "/user/supervisor/job-2",
      ], ending);
      assert.equal(outcome.supervisorStopped, false);
      assert.deepEqual(outcome.seen, ["/user/supervisor/job-2 later"]);
      await system.terminate();
      system = createSystem();
    }
  });

  it("transient: respawned after a crash", async () => {
    const outcome = await after("transient", "fail");
    assert.deepEqual(outcome.children, [
      "/user/supervisor/job-1",
      "/user/supervisor/job-2",
    ]);
    assert.deepEqual(outcome.seen, ["/user/supervisor/job-2 later"]);
    assert.equal(outcome.supervisorStopped, false);
  });

  it("transient: not respawned after a normal stop; the supervisor stops, what waits for a child is a dead letter", async () => {
    const outcome = await after("transient", "stop");
    assert.deepEqual(outcome.children, ["/user/supervisor/job-1"]);
    assert.equal(outcome.supervisorStopped, true);
    assert.deepEqual(outcome.seen, []);
    assert.ok(outcome.dead.includes("later"));
  });

  for (const ending of ["fail", "stop"] as const) {
    it(`temporary: never respawned (after a ${ending}); the supervisor stops`, async () => {
      const outcome = await after("temporary", ending);
      assert.deepEqual(outcome.children, ["/user/supervisor/job-1"]);
      assert.equal(outcome.supervisorStopped, true);
      assert.deepEqual(outcome.seen, []);
      assert.ok(outcome.dead.includes("later"));
    });
  }
});
