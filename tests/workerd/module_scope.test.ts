// @runtimes node
// Copyright 2026 the understudy authors. MIT license.
// An actor system made in a Worker's global scope
// (tests/workerd/_module_scope_worker.ts), served by Cloudflare's workerd,
// which allows no timer there. Node only: it starts the workerd process from
// outside, which the workerd run of the suite (inside workerd) cannot do.

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { findRepoRoot } from "../meta/_repo.ts";
import { serveWorker, type Workerd } from "../durable/_bundle.ts";

// By path from the repository root: the Node run executes a bundled copy.
const WORKER = join(
  findRepoRoot(),
  "tests",
  "workerd",
  "_module_scope_worker.ts",
);

interface Outcome {
  edgeError?: { name: string; message: string };
  plainError?: { name: string; message: string };
  failures: { name: string; message: string }[];
}

describe("edge: an actor system in a Worker's global scope, in workerd", () => {
  let worker: Workerd;
  let outcome: Outcome;

  before(async () => {
    worker = await serveWorker(WORKER, {});
    const res = await fetch(worker.url, {
      signal: AbortSignal.timeout(20_000),
    });
    outcome = await res.json();
  });

  after(async () => {
    await worker?.stop();
  });

  it("edgeSystem() throws at the call, a TypeError that says where to make the system", () => {
    assert.equal(outcome.edgeError?.name, "TypeError", worker.output());
    assert.match(
      outcome.edgeError!.message,
      /global scope.*inside the fetch handler.*Durable Object/s,
    );
  });

  it("ActorSystem.create throws at the call too, with the platform's word to do it within a handler (not ten restart failures later)", () => {
    assert.ok(outcome.plainError, worker.output());
    assert.match(outcome.plainError.message, /global scope.*within a handler/s);
  });

  it("a system given an IdleScheduler: the first timer's refusal names the fix too", () => {
    assert.ok(outcome.failures.length > 0, "a failure was logged");
    for (const failure of outcome.failures) {
      assert.equal(failure.name, "TypeError");
      assert.match(failure.message, /inside the fetch handler/);
    }
  });
});
