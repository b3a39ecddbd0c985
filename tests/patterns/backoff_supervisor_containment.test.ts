// The BackoffSupervisor keeps working whatever its child and its options do:
// what the child sends its parent goes up, not back to the child; a timer
// option over 2^31 - 1 ms is refused at the call; a broken policy or clock is
// logged and contained; the supervisor's own restart loses nothing silently.
import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import type * as FakeTimers from "@sinonjs/fake-timers";
import {
  Actor,
  ActorFailed,
  type ActorRef,
  ActorRestarted,
  type ActorSystem,
  AllForOneStrategy,
  type BackoffOptions,
  BackoffScheduled,
  BackoffSupervisor,
  DeadLetter,
  type LogRecord,
  OneForOneStrategy,
  Props,
  type RestartCount,
} from "../../mod.ts";
import { MAX_TIMER_DELAY_MS } from "../../src/backoff/max_timer_delay.ts";
import { createSystem } from "../runtime/_helpers.ts";
import {
  deadJobs,
  eventsOf,
  installClock,
  Job,
  Script,
  settle,
} from "./_helpers.ts";

let clock: FakeTimers.Clock;
let system: ActorSystem;
let events: object[];
let logs: LogRecord[];
let script: Script;

beforeEach(() => {
  clock = installClock();
  logs = [];
  system = createSystem({
    logLevel: "error",
    logger: (record) => logs.push(record),
  });
  events = [];
  system.eventStream.subscribe((event) => events.push(event));
  script = new Script();
});

afterEach(async () => {
  await system.terminate();
  assert.equal(clock.countTimers(), 0, "every timer was cleared");
  clock.uninstall();
});

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

async function restartCount(supervisor: ActorRef<unknown>): Promise<number> {
  const reply = supervisor.ask<RestartCount>(BackoffSupervisor.GetRestartCount);
  await settle(clock);
  return (await reply).count;
}

/** Errors the supervisor logged, as their messages. */
function supervisorErrors(): string[] {
  return logs
    .filter((r) => r.level === "error" && r.path === "/user/supervisor")
    .map((r) => r.message);
}

/** Asserts the supervisor itself never failed (it was neither restarted nor stopped by its parent). */
function assertSupervisorNeverFailed(): void {
  const supervisorEvents = [
    ...eventsOf(events, ActorFailed),
    ...eventsOf(events, ActorRestarted),
  ].filter((e) => e.ref.path === "/user/supervisor");
  assert.deepEqual(supervisorEvents, [], "the supervisor did not fail");
}

// ───────────── what the child sends its parent ─────────────

/** Tells its parent `report N` (as itself) on "report N"; records everything it receives. */
class Reporter extends Actor<string> {
  constructor(private readonly received: string[]) {
    super();
  }
  override preStart(): void {
    if (script.failStarts > 0) {
      script.failStarts--;
      throw new Error("not yet");
    }
  }
  onReceive(message: string): void {
    this.received.push(message);
    if (message.startsWith("report")) {
      this.context.parent.tell(message, this.self as ActorRef<never>);
    }
    if (message === "report then crash") throw new Error("crashed");
  }
}

/** The supervisor's parent: records what reaches it and from whom, and answers "ack". */
class Parent extends Actor<string> {
  supervisor!: ActorRef<unknown>;
  constructor(
    private readonly got: { message: string; from: string | undefined }[],
    private readonly childProps: Props<string>,
  ) {
    super();
  }
  override preStart(): void {
    this.supervisor = this.context.actorOf(
      BackoffSupervisor.props({
        childProps: this.childProps,
        minBackoff: 200,
        maxBackoff: 10_000,
        randomFactor: 0,
      }),
      "supervisor",
    );
  }
  onReceive(message: string): void {
    if (message.startsWith("to child: ")) {
      this.supervisor.tell(message.slice("to child: ".length));
      return;
    }
    this.got.push({ message, from: this.sender?.path });
    this.sender?.tell(`ack ${message}`);
  }
}

describe("BackoffSupervisor: what the child sends its parent", () => {
  it("goes to the supervisor's parent (as from the supervisor), never back to the child, in the grace window and after it", async () => {
    const received: string[] = [];
    const got: { message: string; from: string | undefined }[] = [];
    const parent = system.actorOf(
      Props.create(() =>
        new Parent(got, Props.create(() => new Reporter(received)))
      ),
      "parent",
    );
    await settle(clock);
    parent.tell("to child: report 1"); // in the child's grace window
    await settle(clock);
    await clock.tickAsync(1_000); // past the grace window: the steady state
    parent.tell("to child: report 2");
    await settle(clock);
    assert.deepEqual(got, [
      { message: "report 1", from: "/user/parent/supervisor" },
      { message: "report 2", from: "/user/parent/supervisor" },
    ]);
    // The parent's replies come back through the supervisor to the child.
    assert.deepEqual(received, [
      "report 1",
      "ack report 1",
      "report 2",
      "ack report 2",
    ]);
  });

  it("goes up even when the child crashed right after sending it, not to the next child", async () => {
    const received: string[] = [];
    const got: { message: string; from: string | undefined }[] = [];
    const parent = system.actorOf(
      Props.create(() =>
        new Parent(got, Props.create(() => new Reporter(received)))
      ),
      "parent",
    );
    await clock.tickAsync(1_000);
    parent.tell("to child: report then crash");
    await clock.tickAsync(1_000); // child-2 is up and past its grace window
    assert.deepEqual(got, [
      { message: "report then crash", from: "/user/parent/supervisor" },
    ]);
    // child-1 saw its own command only; the reply to a report from a dead
    // child reaches the current child, through the supervisor.
    assert.deepEqual(received, [
      "report then crash",
      "ack report then crash",
    ]);
  });

  it("from a top-level supervisor, goes to dead letters (the /user guardian), not back to the child", async () => {
    const received: string[] = [];
    const supervisor = system.actorOf(
      BackoffSupervisor.props({
        childProps: Props.create(() => new Reporter(received)),
        minBackoff: 200,
        maxBackoff: 10_000,
      }),
      "supervisor",
    );
    await clock.tickAsync(1_000);
    supervisor.tell("report 1");
    await settle(clock);
    assert.deepEqual(received, ["report 1"]);
    const dead = eventsOf(events, DeadLetter).filter((d) =>
      d.message === "report 1"
    );
    assert.equal(dead.length, 1);
    assert.equal(dead[0].sender?.path, "/user/supervisor");
  });

  it("climbs through nested supervisors to the outer one's parent, once", async () => {
    const received: string[] = [];
    const got: { message: string; from: string | undefined }[] = [];
    const inner = BackoffSupervisor.props({
      childProps: Props.create(() => new Reporter(received)),
      childName: "worker",
      minBackoff: 200,
      maxBackoff: 10_000,
    });
    const parent = system.actorOf(
      Props.create(() => new Parent(got, inner as Props<string>)),
      "parent",
    );
    await clock.tickAsync(1_000);
    parent.tell("to child: report 1");
    await clock.tickAsync(1_000);
    assert.deepEqual(got, [
      { message: "report 1", from: "/user/parent/supervisor" },
    ]);
    assert.deepEqual(received, ["report 1", "ack report 1"]);
  });

  it("still handles the protocol itself when the child sends it", async () => {
    const counts: number[] = [];
    class Asking extends Actor<string> {
      onReceive(message: unknown): void {
        if (message === "how many") {
          this.context.parent.tell(
            BackoffSupervisor.GetRestartCount,
            this.self as ActorRef<never>,
          );
        } else counts.push((message as RestartCount).count);
      }
    }
    const supervisor = system.actorOf(
      BackoffSupervisor.props({
        childProps: Props.create(() => new Asking()),
        minBackoff: 200,
        maxBackoff: 10_000,
      }),
      "supervisor",
    );
    await clock.tickAsync(1_000);
    supervisor.tell("how many");
    await settle(clock);
    assert.deepEqual(counts, [0]);
    assert.equal(eventsOf(events, DeadLetter).length, 0);
  });
});

// ───────────── timer options over 2^31 - 1 ms ─────────────

describe("BackoffSupervisor.props: timer options and the policy", () => {
  const childProps = Props.create(() =>
    new (class extends Actor<string> {
      onReceive(): void {}
    })()
  );
  const valid = { childProps, minBackoff: 200, maxBackoff: 10_000 };
  const over = MAX_TIMER_DELAY_MS + 1;
  const cases: [
    string,
    Record<string, unknown>,
    typeof RangeError | typeof TypeError,
    RegExp,
  ][] = [
    [
      "drainGraceMs over 2^31 - 1",
      { drainGraceMs: over },
      RangeError,
      /"drainGraceMs" must be a finite number of milliseconds from 0 to 2147483647 \(got 2147483648\)/,
    ],
    [
      "drainGraceMs null",
      { drainGraceMs: null },
      TypeError,
      /"drainGraceMs" must be .*\(got null\)/,
    ],
    [
      "resetCounter.ms over 2^31 - 1",
      { resetCounter: { kind: "after-time", ms: over } },
      RangeError,
      /"resetCounter\.ms" must be a finite number of milliseconds from 0 to 2147483647 \(got 2147483648\)/,
    ],
    [
      "resetCounter.ms negative",
      { resetCounter: { kind: "after-time", ms: -5 } },
      RangeError,
      /"resetCounter\.ms" must be .*\(got -5\)/,
    ],
    [
      "resetCounter.ms NaN",
      { resetCounter: { kind: "after-time", ms: NaN } },
      RangeError,
      /"resetCounter\.ms" must be .*\(got NaN\)/,
    ],
    [
      "resetCounter.ms a string",
      { resetCounter: { kind: "after-time", ms: "5000" } },
      TypeError,
      /"resetCounter\.ms" must be .*\(got "5000"\)/,
    ],
    [
      "minBackoff over 2^31 - 1",
      { minBackoff: over, maxBackoff: over },
      RangeError,
      /"minBackoff" must be .*to 2147483647 \(got 2147483648\)/,
    ],
    [
      "maxBackoff over 2^31 - 1",
      { maxBackoff: over },
      RangeError,
      /"maxBackoff" must be .*to 2147483647 \(got 2147483648\)/,
    ],
    [
      "policy null",
      { policy: null },
      TypeError,
      /"policy" must be a BackoffPolicy \(an object with a delayFor\(restartCount\) method\) \(got null\)/,
    ],
    [
      "policy a function",
      { policy: (n: number) => n },
      TypeError,
      /"policy" must be a BackoffPolicy .*\(got function/,
    ],
    [
      "policy.delayFor not a function",
      { policy: { delayFor: 100 } },
      TypeError,
      /"policy" must be a BackoffPolicy .*\(got an object \(Object\)\)/,
    ],
  ];
  for (const [what, override, errorClass, message] of cases) {
    it(`rejects ${what} at the call, with a ${errorClass.name}`, () => {
      assert.throws(
        () =>
          BackoffSupervisor.props(
            { ...valid, ...override } as BackoffOptions<string>,
          ),
        (error: unknown) => {
          assert.ok(
            error instanceof errorClass,
            `a ${errorClass.name}, got ${error}`,
          );
          assert.match((error as Error).message, message);
          return true;
        },
      );
    });
  }

  it("accepts 2^31 - 1 ms for every timer option", () => {
    assert.ok(
      BackoffSupervisor.props({
        ...valid,
        minBackoff: MAX_TIMER_DELAY_MS,
        maxBackoff: MAX_TIMER_DELAY_MS,
        drainGraceMs: MAX_TIMER_DELAY_MS,
        resetCounter: { kind: "after-time", ms: MAX_TIMER_DELAY_MS },
      }) instanceof Props,
    );
  });

  it("with drainGraceMs 2^31 - 1 holds the stash that long, not a moment less", async () => {
    const supervisor = supervise({
      drainGraceMs: MAX_TIMER_DELAY_MS,
      forwardDuringGrace: false,
    });
    await settle(clock);
    supervisor.tell(new Job(1));
    await clock.tickAsync(MAX_TIMER_DELAY_MS - 1);
    assert.deepEqual(script.handledIds(), []);
    await clock.tickAsync(1);
    assert.deepEqual(script.handledIds(), [1]);
  });
});

// ───────────── a broken policy ─────────────

describe("BackoffSupervisor: a policy that throws or returns no usable delay", () => {
  it("a throw waits maxBackoff, is logged, and the supervisor goes on", async () => {
    script.failStarts = 2;
    const policyError = new Error("policy bug");
    const supervisor = supervise({
      resetCounter: "never",
      policy: {
        delayFor(restartCount: number): number {
          if (restartCount === 1) throw policyError;
          return 100;
        },
      },
    });
    supervisor.tell(new Job(1));
    await clock.tickAsync(20_000);
    assert.deepEqual(script.spawns.map((s) => s.at), [0, 100, 10_100]);
    assert.deepEqual(
      eventsOf(events, BackoffScheduled).map((e) => e.delayMs),
      [100, 10_000],
    );
    assert.deepEqual(script.handledIds(), [1], "the stash was delivered");
    const record = logs.find((r) =>
      /policy\.delayFor\(1\) threw/.test(r.message)
    );
    assert.ok(record, `an error was logged: ${JSON.stringify(logs)}`);
    assert.equal(record.data[0], policyError);
    assert.equal(await restartCount(supervisor), 2);
    assertSupervisorNeverFailed();
  });

  for (
    const [what, delay] of [
      ["NaN", NaN],
      ["a negative number", -1],
      ["a string", "100"],
      ["undefined", undefined],
    ] as const
  ) {
    it(`returning ${what} waits maxBackoff, logged`, async () => {
      script.failStarts = 1;
      supervise({
        policy: { delayFor: () => delay as unknown as number },
      });
      await clock.tickAsync(20_000);
      assert.deepEqual(script.spawns.map((s) => s.at), [0, 10_000]);
      assert.equal(supervisorErrors().length, 1);
      assert.match(supervisorErrors()[0], /policy\.delayFor\(0\) returned/);
      assertSupervisorNeverFailed();
    });
  }
});

// ───────────── a broken clock ─────────────

describe("BackoffSupervisor: a clock that throws or returns no usable time", () => {
  for (
    const [what, clockFn] of [
      ["throws", (): number => {
        throw new Error("clock bug");
      }],
      ["returns NaN", (): number => NaN],
      ["returns a string", (): number => "12" as unknown as number],
      ["returns Infinity", (): number => Infinity],
    ] as const
  ) {
    it(`that ${what}: respawns go on, the count never resets by time, Reset still works`, async () => {
      script.failStarts = 2;
      const supervisor = supervise({ clock: clockFn });
      supervisor.tell(new Job(1));
      await clock.tickAsync(600); // children at 0 and 200 fail; child-3 at 600 starts
      assert.equal(script.spawns.length, 3);
      assert.deepEqual(script.handledIds(), [], "not yet: grace window");
      await clock.tickAsync(60_000); // long past any stability time
      assert.deepEqual(script.handledIds(), [1], "the stash was delivered");
      assert.equal(
        await restartCount(supervisor),
        2,
        "up-time unknown: no reset by time",
      );
      supervisor.tell(new Job(2, "crash"));
      await settle(clock);
      assert.equal(
        eventsOf(events, BackoffScheduled).at(-1)!.delayMs,
        800,
        "the next delay grows on",
      );
      await clock.tickAsync(800);
      supervisor.tell(BackoffSupervisor.Reset);
      await settle(clock);
      assert.equal(await restartCount(supervisor), 0, "a manual Reset works");
      assert.ok(supervisorErrors().length > 0, "the broken clock was logged");
      assert.match(supervisorErrors()[0], /^clock /);
      assertSupervisorNeverFailed();
    });
  }
});

// ───────────── the supervisor's own restart ─────────────

describe("BackoffSupervisor: its own restart", () => {
  it("sends its stash to dead letters ('supervisor restarted'), then works as new", async () => {
    const escalated: unknown[] = [];
    class Grandparent extends Actor<Job> {
      override supervisorStrategy = new OneForOneStrategy((error) => {
        escalated.push(error);
        return "restart";
      });
      #supervisor!: ActorRef<unknown>;
      override preStart(): void {
        this.#supervisor = this.context.actorOf(
          BackoffSupervisor.props({
            childProps: script.props(),
            minBackoff: 200,
            maxBackoff: 10_000,
            randomFactor: 0,
            triggerOn: "stop", // a crash escalates: the supervisor itself fails
          }),
          "supervisor",
        );
      }
      onReceive(job: Job): void {
        this.#supervisor.tell(job);
      }
    }
    const parent = system.actorOf(
      Props.create(() => new Grandparent()),
      "parent",
    );
    await clock.tickAsync(100);
    parent.tell(new Job(1, "stop")); // child-1 stops cleanly: a respawn at 300
    await settle(clock);
    parent.tell(new Job(2)); // stashed
    parent.tell(new Job(3)); // stashed
    await settle(clock);
    script.failStarts = 1; // child-2 fails in preStart: escalated, the supervisor restarts
    await clock.tickAsync(200);
    await settle(clock);
    assert.equal(escalated.length, 1, "the supervisor failed once");
    assert.deepEqual(deadJobs(events), [
      { id: 2, reason: "supervisor restarted" },
      { id: 3, reason: "supervisor restarted" },
    ]);
    assert.equal(
      eventsOf(events, ActorRestarted).filter((e) =>
        e.ref.path === "/user/parent/supervisor"
      ).length,
      1,
    );
    parent.tell(new Job(4));
    await clock.tickAsync(1_000);
    assert.deepEqual(script.handled.map((h) => [h.id, h.path]), [
      [1, "/user/parent/supervisor/child-1"],
      [4, "/user/parent/supervisor/child-1"], // the new incarnation's first child
    ]);
  });
});

describe("BackoffSupervisor restarted with its group", () => {
  it("dead-letters once, 'supervisor restarted', what its stopping child never began (chaos seed -1802562229)", async () => {
    class Hanging extends Actor<string> {
      onReceive(message: string): Promise<void> | void {
        if (message === "hang") return new Promise<void>(() => {});
      }
    }
    class Group extends Actor<string> {
      override supervisorStrategy = new AllForOneStrategy(() => "restart");
      readonly supervisor = this.context.actorOf(
        BackoffSupervisor.props({
          childProps: Props.create(() => new Hanging(), {
            shutdownTimeoutMs: 10,
          }),
          minBackoff: 100,
          maxBackoff: 1_000,
          randomFactor: 0,
        }),
        "supervisor",
      );
      readonly crashing = this.context.actorOf(
        Props.create(() =>
          new (class extends Actor<string> {
            onReceive(): void {
              throw new Error("crash");
            }
          })()
        ),
        "crashing",
      );
      onReceive(message: string): void {
        if (message === "crash") this.crashing.tell(message);
        else this.supervisor.tell(message);
      }
    }
    const group = system.actorOf(Props.create(() => new Group()), "group");
    await settle(clock);
    for (const m of ["hang", "a", "b"]) group.tell(m);
    await settle(clock);
    group.tell("crash"); // restarts the BackoffSupervisor with its group
    await clock.tickAsync(50);
    await settle(clock);
    const dead = eventsOf(events, DeadLetter).map((d) => [d.message, d.reason]);
    assert.deepEqual(dead.filter(([m]) => m === "a" || m === "b"), [
      ["a", "supervisor restarted"],
      ["b", "supervisor restarted"],
    ]);
  });
});

describe("BackoffSupervisor: triggerOn 'stop' and its parent's verdict", () => {
  it("when the parent resumes after an escalated crash, the same child goes on getting messages", async () => {
    class Grandparent extends Actor<Job> {
      override supervisorStrategy = new OneForOneStrategy(() => "resume");
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
    const parent = system.actorOf(
      Props.create(() => new Grandparent()),
      "parent",
    );
    await clock.tickAsync(100);
    parent.tell(new Job(1, "crash"));
    await settle(clock);
    parent.tell(new Job(2));
    await clock.tickAsync(1_000);
    assert.deepEqual(script.handled.map((h) => [h.id, h.path]), [
      [2, "/user/parent/supervisor/child-1"],
    ]);
    assert.equal(script.spawns.length, 1);
  });
});
