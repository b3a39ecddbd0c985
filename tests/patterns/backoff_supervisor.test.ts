// The BackoffSupervisor, in virtual time (a ManualScheduler; no global timer
// faked): delays, resets, limits, order, stash, drop, ask, triggerOn, stale
// timers, events and bad options.
import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  type ActorRef,
  type ActorSystem,
  BackoffChildFailed,
  BackoffChildStarted,
  BackoffCounterReset,
  BackoffGaveUp,
  BackoffMessageDropped,
  type BackoffOptions,
  type BackoffProtocol,
  BackoffScheduled,
  BackoffSupervisor,
  type CurrentChild,
  DeadLetter,
  OneForOneStrategy,
  Props,
  type RestartCount,
  Terminated,
} from "../../mod.ts";
import { ManualScheduler } from "../../src/testing/manual_scheduler.ts";
import { deadJobs, eventsOf, Job, type Script } from "./_helpers.ts";
import { ManualScript, recordingManualSystem } from "../_helpers_testkit.ts";

let scheduler: ManualScheduler;
let system: ActorSystem;
let events: object[];
let script: Script;

beforeEach(() => {
  scheduler = new ManualScheduler();
  ({ system, events } = recordingManualSystem(scheduler));
  script = new ManualScript(scheduler);
});

afterEach(async () => {
  await system.terminate();
});

/** Lets the actors process what is queued and fires what is due now. */
function settle(): Promise<void> {
  return scheduler.timePasses(0);
}

function supervise(
  options: Partial<BackoffOptions<Job>> = {},
): ActorRef<unknown> {
  return system.actorOf(
    BackoffSupervisor.props({
      childProps: script.props(),
      minBackoff: 200,
      maxBackoff: 10_000,
      randomFactor: 0,
      ...options,
    }),
    "supervisor",
  );
}

/** Watches `ref` from a probe actor; resolves to a function telling whether it has stopped. */
function watchStopped(ref: ActorRef<unknown>): () => boolean {
  let stopped = false;
  class Probe extends Actor<Terminated> {
    override preStart(): void {
      this.context.watch(ref);
    }
    onReceive(message: Terminated): void {
      if (message instanceof Terminated && message.ref === (ref as unknown)) {
        stopped = true;
      }
    }
  }
  system.actorOf(Props.create(() => new Probe()));
  return () => stopped;
}

async function restartCount(supervisor: ActorRef<unknown>): Promise<number> {
  const reply = supervisor.ask<RestartCount>(BackoffSupervisor.GetRestartCount);
  await settle();
  return (await reply).count;
}

async function currentChild(
  supervisor: ActorRef<unknown>,
): Promise<string | undefined> {
  const reply = supervisor.ask<CurrentChild>(BackoffSupervisor.GetCurrentChild);
  await settle();
  return (await reply).ref?.path;
}

describe("BackoffSupervisor delays", () => {
  it("respawns after exactly 200, 400, 800, 1600 ms with randomFactor 0, never a millisecond early", async () => {
    script.failStarts = 4;
    supervise();
    await settle();
    const expectedSpawnTimes = [0, 200, 600, 1_400, 3_000];
    for (let i = 1; i < expectedSpawnTimes.length; i++) {
      await scheduler.timePasses(expectedSpawnTimes[i] - scheduler.now() - 1);
      assert.equal(
        script.spawns.length,
        i,
        `no child ${i + 1} at ${scheduler.now()} ms`,
      );
      await scheduler.timePasses(1);
      assert.equal(
        script.spawns.length,
        i + 1,
        `child ${i + 1} at ${scheduler.now()} ms`,
      );
    }
    assert.deepEqual(script.spawns.map((s) => s.at), expectedSpawnTimes);
    assert.deepEqual(
      script.spawns.map((s) => s.path),
      [1, 2, 3, 4, 5].map((n) => `/user/supervisor/child-${n}`),
    );
    assert.deepEqual(
      eventsOf(events, BackoffScheduled).map((
        e,
      ) => [e.restartCount, e.delayMs]),
      [[0, 200], [1, 400], [2, 800], [3, 1_600]],
    );
  });

  it("caps the delay at maxBackoff", async () => {
    script.failStarts = 8;
    supervise({ maxBackoff: 1_000 });
    await scheduler.timePasses(60_000);
    assert.deepEqual(
      eventsOf(events, BackoffScheduled).map((e) => e.delayMs),
      [200, 400, 800, 1_000, 1_000, 1_000, 1_000, 1_000],
    );
  });

  it("jitters each delay within ±randomFactor", async () => {
    script.failStarts = 40;
    supervise({ randomFactor: 0.5, maxBackoff: 400 });
    await scheduler.timePasses(60_000);
    const capped = eventsOf(events, BackoffScheduled).slice(2).map((e) =>
      e.delayMs
    );
    assert.equal(capped.length, 38);
    for (const delay of capped) {
      assert.ok(delay >= 200 && delay <= 600, `${delay} within 400 ± 50%`);
    }
    assert.ok(new Set(capped).size > 30, "capped delays still vary");
  });

  it("uses a custom policy's delays", async () => {
    script.failStarts = 3;
    supervise({ policy: { delayFor: (n) => [5, 7, 11][n] } });
    await scheduler.timePasses(1_000);
    assert.deepEqual(script.spawns.map((s) => s.at), [0, 5, 12, 23]);
  });
});

describe("BackoffSupervisor restart count", () => {
  it("resets once a child has been up minBackoff ('after-min-stable', the default)", async () => {
    script.failStarts = 3;
    const supervisor = supervise();
    await scheduler.timePasses(1_400); // children at 0, 200, 600 fail; the one at 1400 starts
    assert.equal(await restartCount(supervisor), 3);
    await scheduler.timePasses(199);
    assert.equal(await restartCount(supervisor), 3, "not yet stable");
    await scheduler.timePasses(1);
    assert.equal(await restartCount(supervisor), 0);
    assert.equal(eventsOf(events, BackoffCounterReset).length, 1);
    supervisor.tell(new Job(1, "crash"));
    await settle();
    assert.equal(
      eventsOf(events, BackoffScheduled).at(-1)!.delayMs,
      200,
      "back to minBackoff",
    );
  });

  it("resets after { kind: 'after-time', ms } alive, measured from the spawn", async () => {
    script.failStarts = 1;
    const supervisor = supervise({
      resetCounter: { kind: "after-time", ms: 5_000 },
    });
    await scheduler.timePasses(200);
    assert.equal(await restartCount(supervisor), 1);
    await scheduler.timePasses(4_999);
    assert.equal(await restartCount(supervisor), 1);
    await scheduler.timePasses(1);
    assert.equal(await restartCount(supervisor), 0);
  });

  it("never resets with 'never'", async () => {
    script.failStarts = 2;
    const supervisor = supervise({ resetCounter: "never" });
    await scheduler.timePasses(600 + 60_000);
    assert.equal(await restartCount(supervisor), 2);
    supervisor.tell(new Job(1, "crash"));
    await settle();
    assert.equal(eventsOf(events, BackoffScheduled).at(-1)!.delayMs, 800);
  });

  it("with 'manual' resets only when the child sends Reset to its parent", async () => {
    class Acknowledging extends Actor<string> {
      override preStart(): void {
        if (script.failStarts-- > 0) throw new Error("not yet");
      }
      onReceive(message: string): void {
        if (message === "success") {
          this.context.parent.tell(BackoffSupervisor.Reset);
        }
      }
    }
    script.failStarts = 2;
    const supervisor = system.actorOf(
      BackoffSupervisor.props({
        childProps: Props.create(() => new Acknowledging()),
        minBackoff: 200,
        maxBackoff: 10_000,
        randomFactor: 0,
        resetCounter: "manual",
      }),
    );
    await scheduler.timePasses(600 + 60_000);
    assert.equal(
      await restartCount(supervisor),
      2,
      "survival alone does not reset",
    );
    supervisor.tell("success");
    await settle();
    assert.equal(await restartCount(supervisor), 0);
    assert.equal(eventsOf(events, BackoffCounterReset).length, 1);
  });

  for (const maxRestarts of [0, 1, 3]) {
    it(`maxRestarts ${maxRestarts}: exactly ${maxRestarts} respawns, then gives up and stops`, async () => {
      script.failStarts = 100;
      const supervisor = supervise({ maxRestarts });
      const stopped = watchStopped(supervisor);
      supervisor.tell(new Job(1));
      await scheduler.timePasses(60_000);
      assert.equal(script.spawns.length, 1 + maxRestarts);
      assert.ok(stopped(), "the supervisor stopped");
      assert.deepEqual(
        eventsOf(events, BackoffGaveUp).map((e) => e.restartCount),
        [maxRestarts],
      );
      assert.deepEqual(deadJobs(events), [{
        id: 1,
        reason: "supervisor stopped",
      }]);
    });
  }
});

describe("BackoffSupervisor stash and order", () => {
  it("delivers messages sent during the backoff in arrival order, with their senders", async () => {
    script.failStarts = 1;
    const supervisor = supervise();
    await settle();
    for (let id = 1; id <= 5; id++) supervisor.tell(new Job(id));
    assert.equal(
      await currentChild(supervisor),
      undefined,
      "no child during the backoff",
    );
    const answer = supervisor.ask<string>(new Job(6), 10_000);
    await scheduler.timePasses(200); // respawn
    assert.deepEqual(script.handledIds(), [], "held for the grace window");
    await scheduler.timePasses(50); // drainGraceMs = min(50, minBackoff)
    assert.deepEqual(script.handledIds(), [1, 2, 3, 4, 5, 6]);
    assert.equal(
      await answer,
      "done 6",
      "an ask made while the child was down is answered",
    );
    assert.equal(await currentChild(supervisor), "/user/supervisor/child-2");
  });

  it("keeps order for messages arriving in the grace window behind stashed ones", async () => {
    script.failStarts = 1;
    const supervisor = supervise();
    await settle();
    supervisor.tell(new Job(1));
    supervisor.tell(new Job(2));
    await scheduler.timePasses(210); // respawned at 200; grace until 250
    supervisor.tell(new Job(3));
    supervisor.tell(new Job(4));
    await scheduler.timePasses(100);
    assert.deepEqual(script.handledIds(), [1, 2, 3, 4]);
  });

  it("forwards at once in the grace window when nothing is stashed (forwardDuringGrace)", async () => {
    const supervisor = supervise();
    await settle();
    supervisor.tell(new Job(1));
    await settle();
    assert.deepEqual(script.handledIds(), [1]);
  });

  it("with forwardDuringGrace false holds everything until the grace window ends", async () => {
    const supervisor = supervise({
      forwardDuringGrace: false,
      drainGraceMs: 100,
    });
    await settle();
    supervisor.tell(new Job(1));
    await scheduler.timePasses(99);
    assert.deepEqual(script.handledIds(), []);
    await scheduler.timePasses(1);
    assert.deepEqual(script.handledIds(), [1]);
  });

  it("keeps the messages queued behind the one that crashed the child", async () => {
    const supervisor = supervise();
    await scheduler.timePasses(100); // past the first grace window
    supervisor.tell(new Job(1));
    supervisor.tell(new Job(2, "crash"));
    supervisor.tell(new Job(3));
    supervisor.tell(new Job(4));
    await settle();
    supervisor.tell(new Job(5)); // arrives while the child is down
    await scheduler.timePasses(300);
    assert.deepEqual(script.handledIds(), [1, 3, 4, 5]);
    assert.deepEqual(deadJobs(events), [{
      id: 2,
      reason: "processing failed: Error: crash on job 2",
    }]);
    assert.deepEqual(
      script.handled.map((h) => h.path),
      ["child-1", "child-2", "child-2", "child-2"].map((c) =>
        `/user/supervisor/${c}`
      ),
    );
  });

  it("keeps the stash for the next child when the new child dies in its grace window", async () => {
    script.failStarts = 1;
    const supervisor = supervise({ drainGraceMs: 100 });
    await settle();
    supervisor.tell(new Job(1));
    await scheduler.timePasses(200); // child-2 is up, in its grace window
    supervisor.tell(new Job(2));
    const child2 = await currentChild(supervisor);
    assert.equal(child2, "/user/supervisor/child-2");
    // child-2 dies in its grace window, before the stash reached it.
    script.failStarts = 0;
    const stop = supervisor.ask<CurrentChild>(
      BackoffSupervisor.GetCurrentChild,
    );
    await settle();
    (await stop).ref!.tell(new Job(99, "crash"));
    await scheduler.timePasses(50);
    assert.deepEqual(
      script.handledIds(),
      [],
      "nothing delivered to the dying child",
    );
    await scheduler.timePasses(2_000);
    assert.deepEqual(script.handledIds(), [1, 2]);
    assert.equal(script.handled[0].path, "/user/supervisor/child-3");
  });

  it("sends stash overflow to dead letters, keeping the oldest", async () => {
    script.failStarts = 1;
    const supervisor = supervise({ maxStashSize: 2 });
    await settle();
    for (let id = 1; id <= 4; id++) supervisor.tell(new Job(id));
    await settle();
    assert.deepEqual(deadJobs(events), [
      { id: 3, reason: "stash full (maxStashSize 2)" },
      { id: 4, reason: "stash full (maxStashSize 2)" },
    ]);
    assert.equal(eventsOf(events, BackoffMessageDropped).length, 2);
    await scheduler.timePasses(1_000);
    assert.deepEqual(script.handledIds(), [1, 2]);
  });

  it("with forward 'drop' sends messages to dead letters while no child runs", async () => {
    script.failStarts = 1;
    const supervisor = supervise({ forward: "drop" });
    await settle();
    supervisor.tell(new Job(1));
    const rejected = assert.rejects(
      supervisor.ask(new Job(2), 10_000),
      /not delivered \(no child running \(forward: drop\)\)/,
    );
    await settle();
    await rejected;
    await scheduler.timePasses(1_000);
    supervisor.tell(new Job(3));
    await settle();
    assert.deepEqual(script.handledIds(), [3]);
    assert.deepEqual(
      deadJobs(events).map((d) => d.id),
      [1, 2],
    );
  });

  it("sends its stash to dead letters when stopped, also by its parent's restart (its own restart: backoff_supervisor_containment)", async () => {
    script.failStarts = 100;
    class Parent extends Actor<string> {
      override supervisorStrategy = new OneForOneStrategy(() => "restart");
      #supervisor!: ActorRef<unknown>;
      override preStart(): void {
        this.#supervisor = this.context.actorOf(
          BackoffSupervisor.props({
            childProps: script.props(),
            minBackoff: 200,
            maxBackoff: 10_000,
          }),
          "supervisor",
        );
      }
      onReceive(message: string): void {
        if (message === "restart-it") {
          throw new Error("parent fails, restarting its children");
        }
        this.#supervisor.tell(new Job(Number(message)));
      }
    }
    const parent = system.actorOf(Props.create(() => new Parent()), "parent");
    await settle();
    parent.tell("1");
    parent.tell("2");
    await settle();
    // The grandparent (/user) restarts the parent, which stops the supervisor.
    parent.tell("restart-it");
    await settle();
    assert.deepEqual(deadJobs(events), [
      { id: 1, reason: "supervisor stopped" },
      { id: 2, reason: "supervisor stopped" },
    ]);
  });
});

describe("BackoffSupervisor triggerOn", () => {
  it("'any' respawns after a clean stop, and the stopped child's queue moves to the next", async () => {
    const supervisor = supervise();
    await scheduler.timePasses(100);
    supervisor.tell(new Job(1, "stop"));
    supervisor.tell(new Job(2));
    await scheduler.timePasses(1_000);
    assert.deepEqual(script.handled.map((h) => [h.id, h.path]), [
      [1, "/user/supervisor/child-1"],
      [2, "/user/supervisor/child-2"],
    ]);
  });

  it("'failure' stops the supervisor when the child stops cleanly, respawns after a crash", async () => {
    const supervisor = supervise({ triggerOn: "failure" });
    const stopped = watchStopped(supervisor);
    await scheduler.timePasses(100);
    supervisor.tell(new Job(1, "crash"));
    await scheduler.timePasses(1_000);
    assert.equal(script.spawns.length, 2);
    assert.equal(stopped(), false);
    supervisor.tell(new Job(2, "stop"));
    supervisor.tell(new Job(3));
    await scheduler.timePasses(1_000);
    assert.equal(script.spawns.length, 2, "no respawn after the work is done");
    assert.ok(stopped());
    assert.deepEqual(deadJobs(events).map((d) => [d.id, d.reason]), [
      [1, "processing failed: Error: crash on job 1"],
      [3, "supervisor stopped"],
    ]);
  });

  it("'stop' respawns after a clean stop and escalates a crash to the supervisor's parent", async () => {
    const escalated: unknown[] = [];
    class Parent extends Actor<Job> {
      override supervisorStrategy = new OneForOneStrategy((error) => {
        escalated.push(error);
        return "stop";
      });
      #supervisor!: ActorRef<unknown>;
      override preStart(): void {
        this.#supervisor = this.context.actorOf(
          BackoffSupervisor.props({
            childProps: script.props(),
            minBackoff: 200,
            maxBackoff: 10_000,
            triggerOn: "stop",
          }),
          "supervisor",
        );
      }
      onReceive(job: Job): void {
        this.#supervisor.tell(job);
      }
    }
    const parent = system.actorOf(Props.create(() => new Parent()), "parent");
    await scheduler.timePasses(100);
    parent.tell(new Job(1, "stop"));
    await scheduler.timePasses(1_000);
    assert.equal(script.spawns.length, 2, "respawned after a clean stop");
    parent.tell(new Job(2, "crash"));
    await scheduler.timePasses(1_000);
    assert.equal(script.spawns.length, 2, "no respawn after a crash");
    assert.equal(escalated.length, 1);
    assert.match(String(escalated[0]), /crash on job 2/);
  });
});

describe("BackoffSupervisor lifecycle", () => {
  it("stopped during a backoff, it spawns nothing later and leaves no timer", async () => {
    script.failStarts = 1;
    const supervisor = supervise();
    await settle();
    assert.equal(script.spawns.length, 1);
    await system.terminate();
    assert.equal(scheduler.pendingTimers, 0, "no pending timer");
    await scheduler.timePasses(60_000);
    assert.equal(script.spawns.length, 1);
    void supervisor;
  });

  it("a restarted supervisor ignores the respawn timer of its earlier incarnation", async () => {
    script.failStarts = 1;
    class Parent extends Actor<string> {
      override preStart(): void {
        this.context.actorOf(
          BackoffSupervisor.props({
            childProps: script.props(),
            minBackoff: 200,
            maxBackoff: 10_000,
            randomFactor: 0,
          }),
          "supervisor",
        );
      }
      onReceive(): void {
        throw new Error("restart me and my children");
      }
    }
    const parent = system.actorOf(Props.create(() => new Parent()), "parent");
    await settle(); // child-1 failed: a respawn is due at 200
    parent.tell("fail");
    await settle(); // the parent restarts: a new supervisor spawns its child-1
    assert.equal(script.spawns.length, 2);
    await scheduler.timePasses(10_000);
    assert.equal(
      script.spawns.length,
      2,
      "the old incarnation's timer did not fire",
    );
  });

  it("RespawnNow ends a pending backoff wait at once, keeping the count; ignored while a child runs", async () => {
    script.failStarts = 3;
    const supervisor = supervise();
    await scheduler.timePasses(600); // children at 0, 200, 600 failed: next due at 1400
    assert.equal(script.spawns.length, 3);
    supervisor.tell(BackoffSupervisor.RespawnNow);
    await settle();
    assert.deepEqual(script.spawns.map((s) => s.at), [0, 200, 600, 600]);
    assert.equal(await restartCount(supervisor), 3);
    await scheduler.timePasses(10_000);
    assert.equal(
      script.spawns.length,
      4,
      "the cancelled wait spawns nothing later",
    );
    supervisor.tell(BackoffSupervisor.RespawnNow); // a child runs: nothing happens
    await settle();
    assert.equal(script.spawns.length, 4);
    assert.deepEqual(script.handled, [], "never forwarded");
  });

  it("answers GetCurrentChild and GetRestartCount itself, never forwarding them", async () => {
    script.failStarts = 1;
    const supervisor = supervise();
    await settle();
    assert.equal(await currentChild(supervisor), undefined);
    assert.equal(await restartCount(supervisor), 1);
    await scheduler.timePasses(200);
    assert.equal(await currentChild(supervisor), "/user/supervisor/child-2");
    assert.deepEqual(script.handled, []);
  });

  it("publishes an event for every step", async () => {
    script.failStarts = 1;
    const supervisor = supervise({
      maxRestarts: 1,
      maxStashSize: 0,
      resetCounter: "never",
    });
    await settle();
    supervisor.tell(new Job(1));
    await scheduler.timePasses(200 + 200);
    supervisor.tell(new Job(2, "crash"));
    await scheduler.timePasses(1_000);
    const names = events
      .filter((e) =>
        [
          BackoffChildFailed,
          BackoffScheduled,
          BackoffChildStarted,
          BackoffMessageDropped,
          BackoffGaveUp,
        ]
          .some((cls) => e instanceof cls)
      )
      .map((e) => e.constructor.name);
    // BackoffChildStarted is published at each spawn (up-time counts from
    // there), also for child-1, whose preStart then fails.
    assert.deepEqual(names, [
      "BackoffChildStarted",
      "BackoffChildFailed",
      "BackoffScheduled",
      "BackoffMessageDropped",
      "BackoffChildStarted",
      "BackoffChildFailed",
      "BackoffGaveUp",
    ]);
    const failed = eventsOf(events, BackoffChildFailed);
    assert.match(String(failed[0].error), /upstream not ready/);
    assert.equal(failed[0].child.path, "/user/supervisor/child-1");
    assert.ok(
      eventsOf(events, DeadLetter).some((d) =>
        d.message instanceof Job && d.message.id === 1
      ),
    );
  });
});

describe("BackoffSupervisor up-time and grace count from the spawn", () => {
  /** A child whose preStart takes 300 ms, then fails while the script says so. */
  class SlowStart extends Actor<Job> {
    override async preStart(): Promise<void> {
      script.spawns.push({ at: scheduler.now(), path: this.self.path });
      await new Promise<void>((resolve) =>
        this.context.system.scheduler.setTimeout(resolve, 300)
      );
      if (script.failStarts > 0) {
        script.failStarts--;
        throw new Error("upstream not ready");
      }
    }
    onReceive(job: Job): void {
      script.handled.push({ id: job.id, path: this.self.path, from: 0 });
    }
  }

  function superviseSlow(
    options: Partial<BackoffOptions<Job>>,
  ): ActorRef<unknown> {
    return system.actorOf(
      BackoffSupervisor.props({
        childProps: Props.create(() => new SlowStart()),
        minBackoff: 200,
        maxBackoff: 10_000,
        randomFactor: 0,
        ...options,
      }),
      "supervisor",
    );
  }

  it("counts a slow preStart in the up-time: the count resets after-time ms from the spawn", async () => {
    script.failStarts = 1;
    const supervisor = superviseSlow({
      resetCounter: { kind: "after-time", ms: 1_000 },
    });
    await scheduler.timePasses(500); // child-1 failed at 300; child-2 spawned at 500
    assert.deepEqual(script.spawns.map((s) => s.at), [0, 500]);
    assert.deepEqual(
      eventsOf(events, BackoffChildStarted).map((e) => e.child.path),
      ["/user/supervisor/child-1", "/user/supervisor/child-2"],
      "published at each spawn",
    );
    await scheduler.timePasses(999);
    assert.equal(await restartCount(supervisor), 1, "not yet: up 999 ms");
    await scheduler.timePasses(1);
    assert.equal(
      await restartCount(supervisor),
      0,
      "1500: up 1000 ms since the spawn (preStart ended at 800)",
    );
  });

  it("delivers the stash drainGraceMs after the spawn; it waits in the child's mailbox until preStart is done", async () => {
    script.failStarts = 1;
    const supervisor = superviseSlow({ resetCounter: "never" });
    await settle();
    supervisor.tell(new Job(1)); // child-1 is in its grace window: straight to its mailbox
    supervisor.tell(new Job(2));
    await scheduler.timePasses(400); // child-1 failed at 300: 1 and 2 came back
    supervisor.tell(new Job(3)); // stashed behind them
    await scheduler.timePasses(150); // child-2 spawned at 500; the stash went to it at 550
    assert.deepEqual(script.handledIds(), [], "child-2 is still in preStart");
    assert.equal(await currentChild(supervisor), "/user/supervisor/child-2");
    await scheduler.timePasses(249);
    assert.deepEqual(script.handledIds(), []);
    await scheduler.timePasses(1); // 800: preStart done
    assert.deepEqual(script.handledIds(), [1, 2, 3]);
    assert.ok(
      script.handled.every((h) => h.path === "/user/supervisor/child-2"),
    );
    assert.deepEqual(deadJobs(events), []);
  });
});

describe("BackoffSupervisor while the child is dying", () => {
  it("stashes a message sent after the crash, before Terminated reached the supervisor", async () => {
    const supervisor = supervise();
    await scheduler.timePasses(100);
    // Sent the moment the failure is known, while the child is still there.
    system.eventStream.subscribe(BackoffChildFailed, () => {
      supervisor.tell(new Job(2));
    });
    supervisor.tell(new Job(1, "crash"));
    await scheduler.timePasses(1_000);
    assert.deepEqual(script.handled.map((h) => [h.id, h.path]), [
      [2, "/user/supervisor/child-2"],
    ]);
    assert.deepEqual(deadJobs(events).map((d) => d.id), [1]);
  });

  it("answers GetCurrentChild with undefined once the child failed", async () => {
    const supervisor = supervise();
    await scheduler.timePasses(100);
    let reply: Promise<CurrentChild> | undefined;
    system.eventStream.subscribe(BackoffChildFailed, () => {
      reply = supervisor.ask<CurrentChild>(BackoffSupervisor.GetCurrentChild);
    });
    supervisor.tell(new Job(1, "crash"));
    await settle();
    assert.equal((await reply!).ref, undefined);
  });
});

describe("BackoffSupervisor types", () => {
  it("types its ref by the child's messages plus the protocol", () => {
    class DoIt extends Actor<{ kind: "do-it" }> {
      onReceive(): void {}
    }
    const props: Props<{ kind: "do-it" } | BackoffProtocol> = BackoffSupervisor
      .props({
        childProps: Props.create(() => new DoIt()),
        minBackoff: 200,
        maxBackoff: 1_000,
      });
    const supervisor = system.actorOf(props);
    // Type-checked (deno check runs on tests/), never called.
    const typeChecks = (): void => {
      supervisor.tell({ kind: "do-it" });
      supervisor.tell(BackoffSupervisor.Reset);
      supervisor.tell(BackoffSupervisor.RespawnNow);
      const count: Promise<RestartCount> = supervisor.ask<RestartCount>(
        BackoffSupervisor.GetRestartCount,
      );
      void count;
      // @ts-expect-error: the child takes { kind: "do-it" }, not numbers
      supervisor.tell(42);
      // @ts-expect-error: nor other kinds
      supervisor.tell({ kind: "do-that" });
      // @ts-expect-error: nor any object (the protocol classes are branded)
      supervisor.tell({});
    };
    void typeChecks;
    assert.ok(props instanceof Props);
  });
});

describe("BackoffSupervisor.props validation", () => {
  const childProps = Props.create(() =>
    new (class extends Actor<string> {
      onReceive(): void {}
    })()
  );
  const valid = { childProps, minBackoff: 200, maxBackoff: 10_000 };
  const cases: [string, Record<string, unknown>, RegExp][] = [
    [
      "childProps",
      { childProps: () => 1 },
      /"childProps" must be Props.*got function/,
    ],
    [
      "minBackoff",
      { minBackoff: -1 },
      /"minBackoff" must be a finite number of milliseconds from 0.*\(got -1\)/,
    ],
    [
      "minBackoff type",
      { minBackoff: "200" },
      /"minBackoff" must be .*\(got "200"\)/,
    ],
    [
      "maxBackoff",
      { maxBackoff: 100 },
      /"maxBackoff" must be .*from minBackoff \(200\).*\(got 100\)/,
    ],
    [
      "maxBackoff overflow",
      { maxBackoff: 2 ** 31 },
      /"maxBackoff" must be .*to 2147483647 \(got 2147483648\)/,
    ],
    [
      "randomFactor",
      { randomFactor: 2 },
      /"randomFactor" must be a number in \[0, 1\] \(got 2\)/,
    ],
    [
      "policy",
      { policy: {} },
      /"policy" must be a BackoffPolicy \(an object with a delayFor\(restartCount\) method\) \(got an object \(Object\)\)/,
    ],
    [
      "resetCounter",
      { resetCounter: "sometimes" },
      /"resetCounter" must be.*got "sometimes"/,
    ],
    [
      "resetCounter ms",
      { resetCounter: { kind: "after-time", ms: -5 } },
      /"resetCounter\.ms" must be .*\(got -5\)/,
    ],
    [
      "forward",
      { forward: "keep" },
      /"forward" must be "stash" or "drop" \(got "keep"\)/,
    ],
    [
      "triggerOn",
      { triggerOn: "crash" },
      /"triggerOn" must be "any", "failure" or "stop" \(got "crash"\)/,
    ],
    [
      "maxStashSize",
      { maxStashSize: -1 },
      /"maxStashSize" must be a whole number >= 0.*\(got -1\)/,
    ],
    [
      "maxRestarts",
      { maxRestarts: 1.5 },
      /"maxRestarts" must be a whole number >= 0.*\(got 1.5\)/,
    ],
    [
      "drainGraceMs",
      { drainGraceMs: Infinity },
      /"drainGraceMs" must be a finite number.*\(got Infinity\)/,
    ],
    [
      "forwardDuringGrace",
      { forwardDuringGrace: "yes" },
      /"forwardDuringGrace" must be true or false/,
    ],
    ["clock", { clock: 5 }, /"clock" must be a function/],
    ["childName", { childName: "a/b" }, /"childName" must be .*got "a\/b"/],
  ];
  for (const [option, override, message] of cases) {
    it(`rejects a bad ${option} at the call`, () => {
      assert.throws(
        () =>
          BackoffSupervisor.props(
            { ...valid, ...override } as BackoffOptions<string>,
          ),
        (error: unknown) =>
          (error instanceof RangeError || error instanceof TypeError) &&
          message.test((error as Error).message),
      );
    });
  }

  it("accepts zero delays (respawn at once)", () => {
    assert.ok(
      BackoffSupervisor.props({
        childProps,
        minBackoff: 0,
        maxBackoff: 0,
      }) instanceof Props,
    );
  });
});
