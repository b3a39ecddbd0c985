// @runtimes node
// Copyright 2026 the understudy authors. MIT license.
// examples/durable-objects/worker.ts served by Cloudflare's workerd (the
// npm package, on a generated Cap'n Proto config): an order object and a
// payment object talking through understudy refs. Node only: it starts the
// workerd process from outside.

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { findRepoRoot } from "../meta/_repo.ts";
import { serveWorker, type Workerd } from "./_bundle.ts";

// By path from the repository root: the Node run executes a bundled copy.
const EXAMPLE = join(
  findRepoRoot(),
  "examples",
  "durable-objects",
  "worker.ts",
);

describe("examples/durable-objects in workerd", () => {
  let worker: Workerd;

  async function request(method: string, path: string) {
    const res = await fetch(`${worker.url}${path}`, {
      method,
      signal: AbortSignal.timeout(20_000),
    });
    const text = await res.text();
    assert.equal(
      res.status,
      200,
      `${method} ${path}: ${text}\n${worker.output()}`,
    );
    return JSON.parse(text) as {
      status: string;
      total: number;
      payment?: string;
    };
  }

  /** The order's state once it is no longer "paying". */
  async function settled(id: string) {
    for (let i = 0; i < 100; i++) {
      const state = await request("GET", `/orders/${id}`);
      if (state.status !== "paying") return state;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`order ${id} still paying\n${worker.output()}`);
  }

  before(async () => {
    worker = await serveWorker(EXAMPLE, {
      ORDER: "OrderObject",
      PAYMENT: "PaymentObject",
    });
  });

  after(async () => {
    await worker?.stop();
  });

  it("an order is paid by its payment object, the reply coming back to the order's actor", async () => {
    assert.deepEqual(await request("POST", "/orders/42/items?amount=30"), {
      status: "open",
      total: 30,
    });
    await request("POST", "/orders/42/items?amount=12");
    await request("POST", "/orders/42/pay");
    assert.deepEqual(await settled("42"), {
      status: "paid",
      total: 42,
      payment: "42-1:42",
    });
  });

  it("orders are separate objects; a payment above the limit is declined", async () => {
    await request("POST", "/orders/big/items?amount=5000");
    await request("POST", "/orders/big/pay");
    assert.deepEqual(await settled("big"), {
      status: "declined",
      total: 5000,
      payment: "amount above limit",
    });
    assert.equal((await request("GET", "/orders/42")).status, "paid");
  });
});
