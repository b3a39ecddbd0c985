// @runtimes node
// Copyright 2026 the understudy authors. MIT license.
// A stateless Worker keeping actor systems across requests
// (tests/workerd/_stateless_worker.ts), served by Cloudflare's workerd.
// Node only: it starts the workerd process from outside, which the workerd
// run of the suite (inside workerd) cannot do.

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { findRepoRoot } from "../meta/_repo.ts";
import { serveWorker, type Workerd } from "../durable/_bundle.ts";

// By path from the repository root: the Node run executes a bundled copy.
const WORKER = join(findRepoRoot(), "tests", "workerd", "_stateless_worker.ts");

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("edge: a stateless Worker's actor system across requests, in workerd", () => {
  let worker: Workerd;

  interface Answer {
    answer?: string;
    error?: string;
    ms?: number;
  }

  async function get(path: string): Promise<{ status: number; body: Answer }> {
    const res = await fetch(`${worker.url}${path}`, {
      signal: AbortSignal.timeout(20_000),
    });
    return { status: res.status, body: await res.json() };
  }

  before(async () => {
    worker = await serveWorker(WORKER, {});
  });

  after(async () => {
    await worker?.stop();
  });

  it("with handle(): a respawn timer started by a request that had answered fires, and later requests are served", async () => {
    assert.equal((await get("/kept/ask")).status, 200);
    assert.equal((await get("/kept/crash")).status, 200);
    await sleep(300); // the 50 ms backoff is long over
    for (let i = 0; i < 3; i++) {
      const { status, body } = await get("/kept/ask");
      assert.equal(status, 200, `${JSON.stringify(body)}\n${worker.output()}`);
      assert.match(body.answer ?? "", /pong from incarnation \d+/);
    }
  });

  it("without it (ActorSystem.create, no waitUntil): the respawn never happens and every later request times out", async () => {
    assert.equal((await get("/plain/ask")).status, 200);
    assert.equal((await get("/plain/crash")).status, 200);
    await sleep(300);
    const { status, body } = await get("/plain/ask");
    assert.equal(status, 503);
    assert.match(body.error ?? "", /timed out|timeout/i);
  });

  it("per request: perRequestBackoff answers a stashed request after the backoff alone, not the backoff plus the 50 ms grace window", async () => {
    const runs = 5;
    const median = async (grace: string) => {
      const times: number[] = [];
      for (let i = 0; i < runs; i++) {
        const { status, body } = await get(`/per-request?grace=${grace}`);
        assert.equal(status, 200, JSON.stringify(body));
        times.push(body.ms ?? NaN);
      }
      return times.sort((a, b) => a - b)[Math.floor(runs / 2)];
    };
    const withGrace = await median("default");
    const withHelper = await median("helper");
    console.log(
      `stashed request after one failure, 50 ms backoff: default ${
        withGrace.toFixed(1)
      } ms, perRequestBackoff ${withHelper.toFixed(1)} ms (median of ${runs})`,
    );
    assert.ok(withGrace >= 100, `default: ${withGrace} ms`);
    assert.ok(withHelper >= 50, `helper: ${withHelper} ms`);
    assert.ok(withHelper < 100, `helper: ${withHelper} ms`); // no grace window
  });
});
