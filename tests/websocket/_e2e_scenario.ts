// Copyright 2026 the understudy authors. MIT license.
// The end-to-end scenario (not a test file itself), run against a real
// server from Deno, Node, Bun and Chromium: exchange messages, lose the
// server, send 50 messages while it is down, bring it back on the same port,
// and check that all 50 arrive once, in order, after retries spaced by the
// policy.

import assert from "node:assert/strict";
import { E2E_POLICY, type E2eClient, type EventRecord } from "./_e2e_client.ts";

/** A WebSocket server that can be killed and started again on the same port. */
export interface E2eServer {
  /** Listens (on a free port the first time, on the same port after). */
  start(): Promise<void>;
  /** Closes every connection and stops listening. */
  kill(): Promise<void>;
  readonly port: number;
  /** Every text frame received, in order, across connections. Frames "echo:x" are answered "x". */
  readonly received: string[];
}

/** Polls `check` until it returns true; fails after `timeoutMs`. */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const count = (events: EventRecord[], type: string) =>
  events.filter((e) => e.type === type).length;

export async function runScenario(
  server: E2eServer,
  client: E2eClient,
): Promise<EventRecord[]> {
  await server.start();
  await client.start(`ws://127.0.0.1:${server.port}/`);
  await waitFor(
    "the first open",
    async () => count(await client.events(), "WebSocketOpened") === 1,
  );

  // A round trip while connected.
  await client.send(["echo:hello"]);
  await waitFor(
    "the echo",
    async () =>
      (await client.events()).some((e) =>
        e.type === "WebSocketMessage" && e.data === "hello"
      ),
  );
  await new Promise((resolve) => setTimeout(resolve, 60)); // past minUptimeMs: the retry count resets

  // The server goes away; 50 messages are written while it is down.
  await server.kill();
  // At least one: on a loaded machine the first retry (100 ms) may already
  // have failed too by the time the client is polled.
  await waitFor(
    "the close",
    async () => count(await client.events(), "WebSocketClosed") >= 1,
  );
  const messages = Array.from({ length: 50 }, (_, i) => `m${i}`);
  await client.send(messages);
  // Let at least three retries fail before the server comes back.
  await waitFor(
    "three failed retries",
    async () => count(await client.events(), "WebSocketClosed") >= 4,
  );
  await server.start();

  await waitFor(
    "all 50 messages",
    () => server.received.filter((m) => m.startsWith("m")).length >= 50,
  );
  await waitFor(
    "the reopen",
    async () => count(await client.events(), "WebSocketOpened") === 2,
  );
  const events = await client.events();
  await client.close();

  assert.deepEqual(
    server.received,
    ["echo:hello", ...messages],
    "every message once, in order",
  );

  // Retries were spaced by the policy: each waited the delay it announced,
  // and the delays doubled from 100 ms, within ±20%.
  const killedAt = events.find((e) => e.type === "WebSocketClosed")!.t;
  const after = events.filter((e) => e.t >= killedAt);
  const scheduled = after.filter((e) =>
    e.type === "WebSocketReconnectScheduled"
  );
  assert.ok(scheduled.length >= 3, `${scheduled.length} retries scheduled`);
  scheduled.forEach((e, i) => {
    const nominal = Math.min(E2E_POLICY.minMs * 2 ** i, E2E_POLICY.maxMs);
    assert.ok(
      e.delayMs! >= nominal * 0.8 && e.delayMs! <= nominal * 1.2,
      `retry ${i + 1}: delay ${e.delayMs} outside ${nominal} ± 20%`,
    );
    const connecting = after.find((c) =>
      c.type === "WebSocketConnecting" && c.t >= e.t && c.attempt === e.attempt
    );
    assert.ok(connecting, `no attempt ${e.attempt} after it was scheduled`);
    const waited = connecting.t - e.t;
    assert.ok(
      waited >= e.delayMs! - 2 && waited <= e.delayMs! + 1_000,
      `attempt ${e.attempt} waited ${waited.toFixed(1)} ms for a ${
        e.delayMs!.toFixed(1)
      } ms delay`,
    );
  });
  console.log(
    `retries after the server went away: ${
      scheduled.map((e) => `${Math.round(e.delayMs!)} ms`).join(", ")
    }; all 50 messages arrived in order`,
  );
  return events;
}
