// Copyright 2026 the understudy authors. MIT license.
// flakyWebSockets: the socket adapter of the flaky link, over the fake
// network of the websocket tests, on the ManualScheduler.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  flakyWebSockets,
  ManualScheduler,
  seededRandom,
} from "../../src/testing/mod.ts";
import { FakeNetwork } from "../websocket/_fake_websocket.ts";

function setup(faults = {}, seed = 1) {
  const scheduler = new ManualScheduler();
  const network = new FakeNetwork(scheduler);
  const flaky = flakyWebSockets(network.WebSocket, {
    random: seededRandom(seed),
    scheduler,
    faults,
  });
  const events: string[] = [];
  const socket = new flaky.WebSocket("ws://example.test/");
  socket.onopen = () => events.push("open");
  socket.onmessage = (e: unknown) =>
    events.push(`message ${(e as { data: string }).data}`);
  socket.onclose = (e: unknown) => {
    const { code, reason } = e as { code: number; reason: string };
    events.push(`close ${code} ${reason}`);
  };
  return { scheduler, network, flaky, socket, events };
}

describe("flakyWebSockets", () => {
  it("passes frames both ways, events and state through, with no faults", async () => {
    const { scheduler, network, flaky, socket, events } = setup();
    assert.equal(socket.readyState, 0);
    await scheduler.timePasses(0);
    assert.equal(socket.readyState, 1);
    socket.send("up");
    assert.deepEqual(network.last.sent, [], "not yet: on a later timer");
    await scheduler.timePasses(0);
    assert.deepEqual(network.last.sent, ["up"]);
    network.last.message("down");
    await scheduler.timePasses(0);
    socket.binaryType = "arraybuffer";
    assert.equal(network.last.binaryType, "arraybuffer");
    network.last.bufferedAmount = 7;
    assert.equal(socket.bufferedAmount, 7);
    socket.close(1000, "bye");
    await scheduler.timePasses(0);
    assert.deepEqual(events, ["open", "message down", "close 1000 bye"]);
    assert.equal(flaky.links.length, 1);
    assert.equal(flaky.links[0].socket, network.last as never);
    assert.equal(scheduler.pendingTimers, 0);
  });

  it("drops and delays frames each way at the given rates", async () => {
    const { scheduler, network, flaky, socket, events } = setup({
      toServer: { drop: 0.5, delayMs: [0, 40] },
      toClient: { drop: 0.5 },
    });
    await scheduler.timePasses(0);
    for (let i = 0; i < 200; i++) socket.send(`u${i}`);
    for (let i = 0; i < 200; i++) network.last.message(`d${i}`);
    await scheduler.timePasses(40);
    const link = flaky.links[0];
    const up = network.last.sent.length;
    const down = events.filter((e) => e.startsWith("message")).length;
    assert.equal(up, 200 - link.toServer.stats.dropped);
    assert.equal(down, 200 - link.toClient.stats.dropped);
    assert.ok(up > 70 && up < 130 && down > 70 && down < 130, `${up} ${down}`);
  });

  it("breaks the connection at the disconnect rate: an abnormal close, later, and the server's socket closed", async () => {
    const { scheduler, network, flaky, socket, events } = setup({
      disconnect: 1,
    });
    await scheduler.timePasses(0);
    socket.send("lost");
    assert.equal(socket.readyState, 2, "closing until the close is reported");
    assert.deepEqual(events, ["open"], "never inside send()");
    socket.send("discarded, as by a closing socket");
    await scheduler.timePasses(0);
    assert.equal(socket.readyState, 3);
    assert.deepEqual(events, [
      "open",
      "close 1006 flaky link: connection broken",
    ]);
    assert.deepEqual(network.last.sent, []);
    assert.equal(network.last.readyState, 3);
    assert.equal(flaky.links[0].broken, true);
    assert.equal(scheduler.pendingTimers, 0);
  });

  it("close() leaves no timer, a break's pending close report included", async () => {
    const { scheduler, flaky, socket, events } = setup({ disconnect: 1 });
    await scheduler.timePasses(0);
    socket.send("breaks it");
    // The report of the break, and the fake server's side of the close.
    assert.equal(scheduler.pendingTimers, 2);
    flaky.close();
    assert.equal(scheduler.pendingTimers, 1, "the report cancelled");
    await scheduler.timePasses(10);
    assert.deepEqual(events, ["open"]);
    assert.equal(scheduler.pendingTimers, 0);
  });

  it("heals every socket, live ones included", async () => {
    const { scheduler, network, flaky, socket } = setup({
      toServer: { drop: 1 },
    });
    await scheduler.timePasses(0);
    socket.send("lost");
    flaky.heal();
    assert.deepEqual(flaky.faults, {});
    socket.send("kept");
    await scheduler.timePasses(0);
    assert.deepEqual(network.last.sent, ["kept"]);
  });

  it("replays a seed exactly: the same frames at the same times", async () => {
    async function run(seed: number) {
      const { scheduler, network, flaky, socket } = setup({
        toServer: { drop: 0.3, duplicate: 0.2, reorder: 0.3, delayMs: [0, 40] },
      }, seed);
      await scheduler.timePasses(0);
      for (let i = 0; i < 50; i++) {
        socket.send(`m${i}`);
        await scheduler.timePasses(3);
      }
      await scheduler.timePasses(100);
      return { sent: network.last.sent, trace: flaky.links[0].toServer.trace };
    }
    const a = await run(77);
    assert.deepEqual(await run(77), a);
    assert.notDeepEqual((await run(78)).sent, a.sent);
  });

  it("refuses bad input at the call, naming it", () => {
    const scheduler = new ManualScheduler();
    const network = new FakeNetwork(scheduler);
    const random = seededRandom(1);
    assert.throws(
      () => flakyWebSockets(undefined as never, { random, scheduler }),
      /Cannot make flaky WebSockets: "WebSocket" must be a WebSocket class/,
    );
    assert.throws(
      () =>
        flakyWebSockets(network.WebSocket, {
          random: Math.random as never,
          scheduler,
        }),
      /"random" must be a SeededRandom/,
    );
    assert.throws(
      () =>
        flakyWebSockets(network.WebSocket, {
          random,
          scheduler,
          faults: { disconnect: 2 },
        }),
      /"faults.disconnect" must be a probability in \[0, 1\] \(got 2\)/,
    );
    assert.throws(
      () =>
        flakyWebSockets(network.WebSocket, {
          random,
          scheduler,
          faults: { toClient: { drop: -1 } },
        }),
      /"faults.toClient.drop" must be a probability/,
    );
  });
});
