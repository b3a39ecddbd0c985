// Property: under any schedule of sends, crashes (in preStart and in
// onReceive), clean stops, supervisor stops and time, every message sent to a
// BackoffSupervisor is handled exactly once or published as a dead letter
// exactly once; per-sender order holds; restart counts and delays follow the
// policy; and no timer is left once the system has terminated.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  Actor,
  type ActorRef,
  BackoffCounterReset,
  BackoffScheduled,
  BackoffSupervisor,
  Props,
} from "../../mod.ts";
import {
  deadJobs,
  installClock,
  Job,
  recordingSystem,
  Script,
  settle,
} from "./_helpers.ts";

const MIN = 100;
const MAX = 1_000;

type Command =
  | { kind: "send"; from: number; action: "work" | "crash" | "stop" }
  | { kind: "fail-starts"; count: number }
  | { kind: "advance"; ms: number }
  | { kind: "stop-supervisor" };

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("send" as const),
      from: fc.integer({ min: 0, max: 2 }),
      action: fc.constant("work" as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("send" as const),
      from: fc.integer({ min: 0, max: 2 }),
      action: fc.constantFrom("crash" as const, "stop" as const),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("fail-starts" as const),
      count: fc.integer({ min: 1, max: 3 }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("advance" as const),
      ms: fc.integer({ min: 0, max: 1_500 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "stop-supervisor" as const }) },
);

/** Owns the supervisor so the test can stop it, as a parent would. */
class Owner extends Actor<"stop"> {
  supervisor!: ActorRef<unknown>;
  constructor(
    private readonly script: Script,
    private readonly expose: (ref: ActorRef<unknown>) => void,
  ) {
    super();
  }
  override preStart(): void {
    this.supervisor = this.context.actorOf(
      BackoffSupervisor.props({
        childProps: this.script.props(),
        minBackoff: MIN,
        maxBackoff: MAX,
        randomFactor: 0,
      }),
      "supervisor",
    );
    this.expose(this.supervisor);
  }
  onReceive(): void {
    this.context.stop(this.supervisor as ActorRef<never>);
  }
}

async function run(commands: Command[]): Promise<void> {
  const clock = installClock();
  const { system, events } = recordingSystem();
  const script = new Script();
  const scheduledAt: {
    at: number;
    delayMs: number;
    restartCount: number;
    resetsBefore: number;
  }[] = [];
  let resets = 0;
  system.eventStream.subscribe(BackoffCounterReset, () => resets++);
  system.eventStream.subscribe(
    BackoffScheduled,
    (e) =>
      scheduledAt.push({
        at: Date.now(),
        delayMs: e.delayMs,
        restartCount: e.restartCount,
        resetsBefore: resets,
      }),
  );
  try {
    let supervisor!: ActorRef<unknown>;
    const owner = system.actorOf(
      Props.create(() => new Owner(script, (ref) => (supervisor = ref))),
    );
    await settle(clock);
    let nextId = 1;
    const sent: Job[] = [];
    for (const c of commands) {
      switch (c.kind) {
        case "send": {
          const job = new Job(nextId++, c.action, c.from);
          sent.push(job);
          supervisor.tell(job);
          break;
        }
        case "fail-starts":
          script.failStarts += c.count;
          break;
        case "advance":
          await clock.tickAsync(c.ms);
          break;
        case "stop-supervisor":
          owner.tell("stop");
          break;
      }
      await settle(clock);
    }
    await clock.tickAsync(MAX * 4);
    await system.terminate();
    assert.equal(clock.countTimers(), 0, "no timer left after terminate");

    // Each message: handled exactly once, or dead-lettered exactly once.
    const handled = script.handledIds();
    const dead = deadJobs(events).map((d) => d.id);
    for (const job of sent) {
      const times = handled.filter((id) => id === job.id).length +
        dead.filter((id) => id === job.id).length;
      assert.equal(
        times,
        1,
        `job ${job.id} (${job.action}) accounted for ${times} times`,
      );
      if (job.action === "crash") {
        assert.ok(
          dead.includes(job.id),
          `crash job ${job.id} is a dead letter`,
        );
      }
    }
    assert.equal(
      handled.length + dead.length,
      sent.length,
      "nothing else was handled or dead-lettered",
    );

    // Per-sender order among handled messages.
    for (const from of [0, 1, 2]) {
      const ids = script.handled.filter((h) => h.from === from).map((h) =>
        h.id
      );
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => a - b),
        `sender ${from} order`,
      );
    }

    // Restart counts and delays follow the policy; each respawn waits its delay.
    let expectedCount = 0;
    let seenResets = 0;
    for (const s of scheduledAt) {
      if (s.resetsBefore > seenResets) {
        expectedCount = 0;
        seenResets = s.resetsBefore;
      }
      assert.equal(s.restartCount, expectedCount, "restart count");
      assert.equal(
        s.delayMs,
        Math.min(MIN * 2 ** s.restartCount, MAX),
        "delay",
      );
      expectedCount++;
    }
    const spawnTimes = script.spawns.map((s) => s.at);
    for (const s of scheduledAt) {
      const next = spawnTimes.find((t) => t > s.at);
      if (next !== undefined) {
        assert.ok(
          next >= s.at + s.delayMs,
          `respawn at ${next} waited ${s.delayMs} from ${s.at}`,
        );
      }
    }
  } finally {
    await system.terminate();
    clock.uninstall();
  }
}

describe("BackoffSupervisor properties", () => {
  it("accounts for every message exactly once, keeps per-sender order, follows the policy, leaks no timer", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { maxLength: 40 }), run),
      { numRuns: 200 },
    );
  });
});
