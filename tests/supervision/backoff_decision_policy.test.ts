// Copyright 2026 the understudy authors. MIT license.
// A custom policy that gives no usable delay (it throws, or returns NaN, a
// negative number or a non-number) is contained alike by both supervisor
// styles, which ask it the one way (BackoffDecision, through askPolicy): the
// wait is maxBackoff, the problem is logged as an error once, the restart
// still happens, and the next delay is asked again. In virtual time.
import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  ActorFailed,
  ActorRestarted,
  type ActorSystem,
  BackoffChildStarted,
  type BackoffPolicy,
  BackoffScheduled,
  BackoffSupervisor,
  type LogRecord,
  Props,
  supervise,
  SupervisorStrategy,
} from "../../mod.ts";
import { ManualScheduler } from "../../src/testing/manual_scheduler.ts";
import { createSystem } from "../runtime/_helpers.ts";

let scheduler: ManualScheduler;
let system: ActorSystem;
let events: object[];
let logs: LogRecord[];

beforeEach(() => {
  scheduler = new ManualScheduler();
  logs = [];
  system = createSystem({
    scheduler,
    logLevel: "error",
    logger: (record) => logs.push(record),
  });
  events = [];
  system.eventStream.subscribe((event) => events.push(event));
});

afterEach(async () => {
  await system.terminate();
});

const policyError = new Error("policy bug");

/**
 * Policies whose first delay (restartCount 0) is unusable and whose second
 * is 300 ms, with the text the log names the problem by.
 */
const broken: [what: string, policy: BackoffPolicy, problem: RegExp][] = [
  ["returns NaN", badFirst(NaN), /returned NaN, not a delay/],
  ["returns a negative number", badFirst(-1), /returned -1, not a delay/],
  ["returns a string", badFirst("100"), /returned "100", not a delay/],
  ["returns undefined", badFirst(undefined), /returned undefined, not a delay/],
  ["throws", {
    delayFor(restartCount: number): number {
      if (restartCount === 0) throw policyError;
      return 300;
    },
  }, /threw/],
];

function badFirst(value: unknown): BackoffPolicy {
  return {
    delayFor: (restartCount) => restartCount === 0 ? value as number : 300,
  };
}

/** Error records logged in the name of the actor at `path`. */
function errorsAt(path: string): LogRecord[] {
  return logs.filter((r) => r.level === "error" && r.path === path);
}

/** Fails in `preStart` the first `failures` times it is created. */
function failingStarts(failures: number): Props<string> {
  class Child extends Actor<string> {
    override preStart(): void {
      if (failures > 0) {
        failures--;
        throw new Error("not yet");
      }
    }
    onReceive(): void {}
  }
  return Props.create(() => new Child());
}

describe("a broken policy under the BackoffSupervisor", () => {
  for (const [what, policy, problem] of broken) {
    it(`that ${what} waits maxBackoff once, logged once, and is asked again`, async () => {
      const spawns: number[] = [];
      system.eventStream.subscribe(
        BackoffChildStarted,
        () => spawns.push(scheduler.now()),
      );
      system.actorOf(
        BackoffSupervisor.props({
          childProps: failingStarts(2),
          minBackoff: 200,
          maxBackoff: 10_000,
          resetCounter: "never",
          policy,
        }),
        "supervisor",
      );
      await scheduler.timePasses(9_999);
      assert.deepEqual(spawns, [0], "not respawned before maxBackoff");
      await scheduler.timePasses(1);
      assert.deepEqual(spawns, [0, 10_000]);
      await scheduler.timePasses(300); // child-2 failed too: 300 ms, as asked
      assert.deepEqual(spawns, [0, 10_000, 10_300]);
      assert.deepEqual(
        events
          .filter((e) => e instanceof BackoffScheduled)
          .map((e) => [e.restartCount, e.delayMs]),
        [[0, 10_000], [1, 300]],
      );
      const errors = errorsAt("/user/supervisor");
      assert.equal(errors.length, 1, JSON.stringify(logs));
      assert.match(errors[0].message, /^policy\.delayFor\(0\) /);
      assert.match(errors[0].message, problem);
      assert.match(
        errors[0].message,
        /; waiting maxBackoff \(10000 ms\) instead$/,
      );
      if (what === "throws") assert.equal(errors[0].data[0], policyError);
      else assert.deepEqual(errors[0].data, []);
    });
  }
});

describe("a broken policy under the typed restartWithBackoff", () => {
  /** Throws on "fail". */
  class Flaky extends Actor<string> {
    onReceive(message: string): void {
      if (message === "fail") throw new Error("flaky");
    }
  }

  for (const [what, policy] of broken) {
    it(`that ${what} waits maxBackoff once, logged once, and is asked again`, async () => {
      const restarts: number[] = [];
      system.eventStream.subscribe(
        ActorRestarted,
        () => restarts.push(scheduler.now()),
      );
      const ref = system.actorOf(
        supervise(Props.create(() => new Flaky())).onFailure(
          Error,
          SupervisorStrategy.restartWithBackoff({
            minBackoff: 100,
            maxBackoff: 5_000,
            resetBackoffAfter: 60_000,
            policy,
          }),
        ),
        "flaky",
      );
      ref.tell("fail");
      await scheduler.timePasses(4_999);
      assert.deepEqual(restarts, [], "not restarted before maxBackoff");
      await scheduler.timePasses(1);
      assert.deepEqual(restarts, [5_000]);
      ref.tell("fail");
      await scheduler.timePasses(300); // the second delay, as asked
      assert.deepEqual(restarts, [5_000, 5_300]);
      assert.deepEqual(
        events
          .filter((e) => e instanceof ActorFailed)
          .map((e) => e.directive),
        ["backoff", "backoff"],
      );
      // Besides the runtime's "failed (backoff)" for each failure.
      const errors = errorsAt("/user/flaky").filter((r) =>
        /maxBackoff/.test(r.message)
      );
      assert.equal(errors.length, 1, JSON.stringify(logs));
      assert.match(errors[0].message, /waiting maxBackoff \(5000 ms\)/);
      if (what === "throws") assert.equal(errors[0].data[0], policyError);
    });
  }
});
