// Property: under any interleaving of sends (several before the receivers
// get a turn, so some messages wait handed over with the turn and some in
// mailboxes), crashes handled by any classic strategy (resume, restart,
// stop, escalate; one-for-one or all-for-one), self-stops and stops by the
// parent, every message told to a child is handled exactly once or published
// as a dead letter exactly once, a crashing message always being a dead
// letter; each sender's messages to one child are handled in the order sent;
// and no timer is left once the system has terminated.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  Actor,
  type ActorRef,
  AllForOneStrategy,
  DeadLetter,
  type Directive,
  type FaultHandlingStrategy,
  OneForOneStrategy,
  Props,
} from "../../mod.ts";
import { createSystem, installClock } from "./_helpers.ts";

const CHILDREN = 3;

class Job {
  constructor(
    readonly id: number,
    readonly action: "work" | "crash" | "stop",
    readonly from: number,
  ) {}
}

type Command =
  | { kind: "send"; to: number; from: number; action: Job["action"] }
  | { kind: "parent-stops"; child: number }
  | { kind: "turn" };

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant("send" as const),
      to: fc.integer({ min: 0, max: CHILDREN - 1 }),
      from: fc.integer({ min: 0, max: 1 }),
      action: fc.constantFrom(
        "work" as const,
        "work" as const,
        "work" as const,
        "crash" as const,
        "stop" as const,
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("parent-stops" as const),
      child: fc.integer({ min: 0, max: CHILDREN - 1 }),
    }),
  },
  // Commands between two turns run in one synchronous burst.
  { weight: 3, arbitrary: fc.constant({ kind: "turn" as const }) },
);

const strategy: fc.Arbitrary<{ allForOne: boolean; directive: Directive }> = fc
  .record({
    allForOne: fc.boolean(),
    directive: fc.constantFrom<Directive>(
      "resume",
      "restart",
      "stop",
      "escalate",
    ),
  });

interface Handled {
  readonly id: number;
  readonly child: number;
  readonly from: number;
}

class Child extends Actor<Job> {
  constructor(readonly index: number, readonly handled: Handled[]) {
    super();
  }
  onReceive(job: Job): void {
    if (job.action === "crash") throw new Error(`job ${job.id} crashes`);
    this.handled.push({ id: job.id, child: this.index, from: job.from });
    if (job.action === "stop") this.context.stopSelf();
  }
}

class Parent extends Actor<{ stop: number }> {
  override readonly supervisorStrategy: FaultHandlingStrategy;
  constructor(
    allForOne: boolean,
    directive: Directive,
    readonly handled: Handled[],
    readonly expose: (children: ActorRef<Job>[]) => void,
  ) {
    super();
    const decider = () => directive;
    // Unlimited retries: the limit has tests of its own.
    const options = { maxRetries: Infinity, withinTimeRangeMs: 60_000 };
    this.supervisorStrategy = allForOne
      ? new AllForOneStrategy(decider, options)
      : new OneForOneStrategy(decider, options);
  }
  override preStart(): void {
    const children: ActorRef<Job>[] = [];
    for (let i = 0; i < CHILDREN; i++) {
      children.push(
        this.context.actorOf(
          Props.create(() => new Child(i, this.handled)),
          `child-${i}`,
        ),
      );
    }
    this.expose(children);
  }
  onReceive(message: { stop: number }): void {
    const child = this.context.child(`child-${message.stop}`);
    if (child !== undefined) this.context.stop(child as ActorRef<never>);
  }
}

async function run(
  setup: { allForOne: boolean; directive: Directive },
  commands: Command[],
): Promise<void> {
  const clock = installClock();
  const system = createSystem();
  const deadIds: number[] = [];
  system.eventStream.subscribe(DeadLetter, (dead) => {
    if (dead.message instanceof Job) deadIds.push(dead.message.id);
  });
  const handled: Handled[] = [];
  try {
    let children: ActorRef<Job>[] = [];
    const parent = system.actorOf(
      Props.create(() =>
        new Parent(setup.allForOne, setup.directive, handled, (refs) => {
          children = refs;
        })
      ),
      "parent",
    );
    await clock.tickAsync(0);
    const sent: Job[] = [];
    let nextId = 1;
    for (const c of commands) {
      if (c.kind === "send") {
        const job = new Job(nextId++, c.action, c.from);
        sent.push(job);
        // The refs of the first incarnation: after an escalation restarts
        // the parent, its new children are other actors, and messages to
        // the old ones are dead letters.
        children[c.to].tell(job);
      } else if (c.kind === "parent-stops") {
        parent.tell({ stop: c.child });
      } else {
        await clock.tickAsync(0);
      }
    }
    await clock.tickAsync(0);
    await system.terminate();
    assert.equal(clock.countTimers(), 0, "no timer left after terminate");

    const handledIds = handled.map((h) => h.id);
    for (const job of sent) {
      const times = handledIds.filter((id) => id === job.id).length +
        deadIds.filter((id) => id === job.id).length;
      assert.equal(
        times,
        1,
        `job ${job.id} (${job.action}) accounted for ${times} times`,
      );
      if (job.action === "crash") {
        assert.ok(deadIds.includes(job.id), `crash job ${job.id} is dead`);
      }
    }
    assert.equal(handledIds.length + deadIds.length, sent.length);
    for (let child = 0; child < CHILDREN; child++) {
      for (const from of [0, 1]) {
        const ids = handled
          .filter((h) => h.child === child && h.from === from)
          .map((h) => h.id);
        assert.deepEqual(
          ids,
          [...ids].sort((a, b) => a - b),
          `order from sender ${from} to child ${child}`,
        );
      }
    }
  } finally {
    clock.uninstall();
  }
}

describe("message delivery under supervision (property)", () => {
  it("handles or dead-letters every message exactly once, in order per sender", async () => {
    await fc.assert(
      fc.asyncProperty(
        strategy,
        fc.array(command, { minLength: 1, maxLength: 40 }),
        run,
      ),
      { numRuns: 150 },
    );
  });
});
