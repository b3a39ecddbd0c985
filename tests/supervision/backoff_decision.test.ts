// The BackoffSupervisor's decision logic, without actors or timers.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  BackoffDecision,
  type BackoffDecisionOptions,
} from "../../src/supervision/backoff_decision.ts";
import { exponentialBackoff } from "../../src/backoff/mod.ts";

function decision(
  overrides: Partial<BackoffDecisionOptions> = {},
): BackoffDecision {
  return new BackoffDecision({
    policy: exponentialBackoff({ minMs: 200, maxMs: 10_000, randomFactor: 0 }),
    minBackoff: 200,
    maxBackoff: 10_000,
    resetCounter: "after-min-stable",
    triggerOn: "any",
    maxRestarts: Infinity,
    ...overrides,
  });
}

describe("BackoffDecision", () => {
  it("asks the policy with a 0-based restart count: 200, 400, 800, 1600", () => {
    const d = decision();
    const delays = [0, 1, 2, 3].map(() => {
      const verdict = d.childTerminated("failure", 0);
      assert.equal(verdict.action, "respawn");
      return verdict.action === "respawn" ? verdict.delayMs : NaN;
    });
    assert.deepEqual(delays, [200, 400, 800, 1600]);
    assert.equal(d.restartCount, 4);
  });

  it("resets after a child stayed up minBackoff, not a millisecond earlier", () => {
    const early = decision();
    early.childTerminated("failure", 0);
    early.childStarted(1_000);
    const verdictEarly = early.childTerminated("failure", 1_199);
    assert.deepEqual(verdictEarly, {
      action: "respawn",
      delayMs: 400,
      restartCount: 1,
    });

    const stable = decision();
    stable.childTerminated("failure", 0);
    stable.childStarted(1_000);
    assert.equal(stable.resetIfStable(1_199), false);
    assert.equal(stable.resetIfStable(1_200), true);
    assert.deepEqual(stable.childTerminated("failure", 5_000), {
      action: "respawn",
      delayMs: 200,
      restartCount: 0,
    });
  });

  it("with a threshold of 0, a child that fails the moment it starts never resets the count: maxRestarts still ends it", () => {
    for (
      const resetCounter of [
        "after-min-stable",
        { kind: "after-time", ms: 0 },
      ] as const
    ) {
      const d = decision({
        policy: exponentialBackoff({ minMs: 0, maxMs: 1_000 }),
        minBackoff: 0,
        maxBackoff: 1_000,
        resetCounter,
        maxRestarts: 3,
      });
      const actions = [];
      for (let i = 0; i < 5; i++) {
        d.childStarted(100);
        actions.push(d.childTerminated("failure", 100).action);
      }
      assert.deepEqual(
        actions,
        ["respawn", "respawn", "respawn", "give-up", "give-up"],
        JSON.stringify(resetCounter),
      );
      // One that lived at all was stable, and resets it.
      d.childStarted(100);
      assert.equal(d.childTerminated("failure", 100.5).action, "respawn");
    }
  });

  it("measures alive time from when the child finished starting", () => {
    const d = decision({ resetCounter: { kind: "after-time", ms: 1_000 } });
    d.childTerminated("failure", 0);
    d.childStarted(500); // started long after the respawn was decided
    assert.deepEqual(d.childTerminated("failure", 1_499), {
      action: "respawn",
      delayMs: 400,
      restartCount: 1,
    });
  });

  it("never resets with 'never' or 'manual' however long a child lives", () => {
    for (const resetCounter of ["never", "manual"] as const) {
      const d = decision({ resetCounter });
      d.childTerminated("failure", 0);
      d.childStarted(0);
      assert.equal(d.resetIfStable(1e9), false, resetCounter);
      assert.equal(d.childTerminated("failure", 1e9).action, "respawn");
      assert.equal(d.restartCount, 2, resetCounter);
      assert.equal(d.stableAfterMs, Infinity);
    }
  });

  it("reset() reports whether there was anything to reset", () => {
    const d = decision({ resetCounter: "manual" });
    assert.equal(d.reset(), false);
    d.childTerminated("failure", 0);
    assert.equal(d.reset(), true);
    assert.equal(d.restartCount, 0);
  });

  for (const maxRestarts of [0, 1, 3]) {
    it(`maxRestarts ${maxRestarts} grants exactly ${maxRestarts} respawns, then gives up`, () => {
      const d = decision({ maxRestarts });
      let respawns = 0;
      for (;;) {
        const verdict = d.childTerminated("failure", 0);
        if (verdict.action !== "respawn") {
          assert.deepEqual(verdict, {
            action: "give-up",
            restartCount: maxRestarts,
          });
          break;
        }
        respawns++;
        assert.ok(respawns <= maxRestarts, "too many respawns");
      }
      assert.equal(respawns, maxRestarts);
    });
  }

  it("triggerOn 'failure' completes on a clean stop and respawns after a crash", () => {
    const d = decision({ triggerOn: "failure" });
    assert.equal(d.childTerminated("failure", 0).action, "respawn");
    assert.deepEqual(d.childTerminated("stop", 0), { action: "complete" });
  });

  it("triggerOn 'any' and 'stop' respawn after a clean stop", () => {
    for (const triggerOn of ["any", "stop"] as const) {
      assert.equal(
        decision({ triggerOn }).childTerminated("stop", 0).action,
        "respawn",
      );
    }
  });

  it("turns a custom policy's unusable delays into safe ones", () => {
    const results = [NaN, -5, Infinity, 3e9, "soon" as unknown as number].map(
      (bad) => {
        const verdict = decision({ policy: { delayFor: () => bad } })
          .childTerminated("failure", 0);
        return verdict.action === "respawn" ? verdict.delayMs : -1;
      },
    );
    // NaN, negative and non-numbers wait maxBackoff; too long is clamped to setTimeout's limit.
    assert.deepEqual(results, [
      10_000,
      10_000,
      2_147_483_647,
      2_147_483_647,
      10_000,
    ]);
  });

  it("reports an unusable delay in the verdict, for the supervisor to log; a clamped one is no failure", () => {
    const failures = [NaN, -5, "soon", Infinity, 3e9, 0].map((bad) => {
      const verdict = decision({
        policy: { delayFor: () => bad as number },
      }).childTerminated("failure", 0);
      assert.equal(verdict.action, "respawn");
      return verdict.action === "respawn" ? verdict.policyFailure : "none";
    });
    assert.deepEqual(failures, [
      {
        message:
          "policy.delayFor(0) returned NaN, not a delay in milliseconds >= 0; waiting maxBackoff (10000 ms) instead",
      },
      {
        message:
          "policy.delayFor(0) returned -5, not a delay in milliseconds >= 0; waiting maxBackoff (10000 ms) instead",
      },
      {
        message:
          'policy.delayFor(0) returned "soon", not a delay in milliseconds >= 0; waiting maxBackoff (10000 ms) instead',
      },
      undefined,
      undefined,
      undefined,
    ]);
  });

  it("contains a throwing policy: maxBackoff, the error in the verdict, and the count still moves on", () => {
    const error = new Error("policy bug");
    const d = decision({
      policy: {
        delayFor(restartCount: number): number {
          if (restartCount === 0) throw error;
          return 300;
        },
      },
    });
    assert.deepEqual(d.childTerminated("failure", 0), {
      action: "respawn",
      delayMs: 10_000,
      restartCount: 0,
      policyFailure: {
        message:
          "policy.delayFor(0) threw; waiting maxBackoff (10000 ms) instead",
        error,
      },
    });
    assert.deepEqual(d.childTerminated("failure", 0), {
      action: "respawn",
      delayMs: 300,
      restartCount: 1,
    });
  });
});
