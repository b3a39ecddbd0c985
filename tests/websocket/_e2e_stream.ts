// Copyright 2026 the understudy authors. MIT license.
// The streaming end-to-end scenario (not a test file itself), run from
// Deno, Node, Bun and Chromium: 1,200 numbered messages streamed while the
// server, in its own process, is killed (SIGKILL) and started again on the
// same port 10 times.
//
// - Acknowledged mode: every message reaches the server at least once, in
//   order of first arrival, and is answered acknowledged exactly once.
// - Default mode: no message reaches the server twice; each is answered
//   once, Sent or (still in the buffer when its connection ended) a dead
//   letter; arrivals are in order, and those answered Sent that the server
//   never read are no more than the WebSocketClosed events'
//   mayNotHaveArrived counts add up to.
// In acknowledged mode nothing goes to dead letters. The counts are printed.

import assert from "node:assert/strict";
import type { Delivery, E2eClient } from "./_e2e_client.ts";
import { waitFor } from "./_e2e_scenario.ts";
import { ServerProcess } from "./_e2e_process.ts";

const MESSAGES = 1_200;
const KILLS = 10;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runStream(
  client: E2eClient,
  delivery: Delivery,
  label: string,
): Promise<void> {
  const server = new ServerProcess();
  try {
    await server.start();
    await client.start(`ws://127.0.0.1:${server.port}/`, delivery);
    const texts = Array.from({ length: MESSAGES }, (_, i) => `m${i}`);
    // 12 messages every 50 ms, about 5 s, while the server dies 10 times.
    const streaming = (async () => {
      for (let i = 0; i < MESSAGES; i += 12) {
        await client.stream(texts.slice(i, i + 12));
        await sleep(50);
      }
    })();
    for (let k = 0; k < KILLS; k++) {
      await sleep(250 + Math.random() * 200);
      await server.kill();
      await sleep(100 + Math.random() * 100);
      await server.start();
    }
    const kills = server.kills;
    await streaming;
    await waitFor(
      "an answer to every message",
      async () => {
        const { answered, failed } = await client.outcomes();
        return answered.length + failed.length >= MESSAGES;
      },
      60_000,
    );
    const { answered, failed } = await client.outcomes();
    const events = await client.events();
    await client.close();
    const received = server.received();

    const firsts = [...new Set(received)];
    const duplicates = received.length - firsts.length;
    const heard = new Set(received);
    const answeredTexts = answered.map(([text]) => text);
    const notReceived = answeredTexts.filter((text) => !heard.has(text));
    const counted = events.reduce((sum, e) => sum + (e.lost ?? 0), 0);
    const closes = events.filter((e) => e.type === "WebSocketClosed").length;
    console.log(
      `${label}, ${delivery} mode: ${kills} kills, ${closes} closes; ` +
        `${MESSAGES} messages, ${firsts.length} reached the server ` +
        `(${duplicates} copies more), ${answered.length} answered ` +
        `(${answered.filter(([, ack]) => ack).length} acknowledged), ` +
        `${failed.length} dead letters; ${notReceived.length} answered but ` +
        `not received, ${counted} counted as may-not-have-arrived`,
    );

    assert.equal(kills, KILLS);
    const settled = [...answeredTexts, ...failed.map(([text]) => text)];
    assert.equal(settled.length, MESSAGES);
    assert.equal(new Set(settled).size, MESSAGES, "each answered once");
    // First arrivals in order (the numbers only go up).
    const numbers = firsts.map((text) => Number(text.slice(1)));
    assert.ok(
      numbers.every((n, i) => i === 0 || n > numbers[i - 1]),
      "first arrivals in order",
    );
    if (delivery === "ack") {
      assert.deepEqual(failed, [], "no dead letters");
      assert.ok(answered.every(([, ack]) => ack), "every answer acknowledged");
      assert.deepEqual(firsts, texts, "every message reached the server");
    } else {
      assert.equal(duplicates, 0, "no message reached the server twice");
      assert.ok(answered.every(([, ack]) => !ack));
      assert.ok(
        failed.every(([, error]) => error.includes("not sent again")),
        "the only dead letters are those in flight at a close",
      );
      assert.ok(
        notReceived.length <= counted,
        `${notReceived.length} answered Sent and never received, only ${counted} counted`,
      );
    }
  } finally {
    await server.dispose();
  }
}
