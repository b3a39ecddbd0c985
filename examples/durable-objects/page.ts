// Copyright 2026 the understudy authors. MIT license.
/// <reference lib="dom" />

/**
 * The room page's script, bundled by build.mjs and served by the Worker:
 * one supervised socket to the room's object in acknowledged mode. A word
 * is grey until the room's actor has handled it (its `Sent` is
 * acknowledged), then shows its definition once the room's lookup got
 * one from the flaky upstream. What is written while the object is being
 * evicted, or the network is down, is sent again until handled, once.
 *
 * @module
 */

import { ActorSystem } from "../../mod.ts";
import {
  durableSocketAck,
  Reconnect,
  Send,
  type Sent,
  WebSocketClosed,
  WebSocketConnecting,
  type WebSocketEvent,
  WebSocketGaveUp,
  WebSocketMessage,
  WebSocketOpened,
  websocketProps,
  WebSocketReconnectScheduled,
} from "../../src/websocket/mod.ts";
import type { Command, Item, RoomFrame } from "./room.ts";

const $ = <E extends HTMLElement>(id: string) =>
  document.getElementById(id) as E;
const room = new URLSearchParams(location.search).get("room") ?? "lobby";
const me = `guest-${Math.floor(Math.random() * 900 + 100)}`;
/**
 * This tab's client id: the room's socket server counts what it handled
 * per client, and says so as each connection opens, so one tab keeps one
 * id across reconnects and reloads (two tabs must not share one).
 */
const client = sessionStorage.getItem("room-client") ?? crypto.randomUUID();
sessionStorage.setItem("room-client", client);

const counts = { sent: 0, acknowledged: 0, failed: 0, opened: 0 };
const rows = new Map<number, HTMLLIElement>();

function showCounts(): void {
  for (const [key, value] of Object.entries(counts)) {
    $(key).textContent = String(value);
  }
  // For tests and the curious: the same figures, machine-readable.
  document.body.dataset.counts = JSON.stringify(counts);
}

function log(text: string): void {
  const item = document.createElement("li");
  item.textContent = `${new Date().toLocaleTimeString()}  ${text}`;
  $("log").prepend(item);
}

function showItem(item: Item): void {
  let row = rows.get(item.n);
  if (row === undefined) {
    row = document.createElement("li");
    rows.set(item.n, row);
    const after = [...rows.keys()].filter((n) =>
      n > item.n
    ).sort((a, b) => a - b)[0];
    $("items").insertBefore(row, after === undefined ? null : rows.get(after)!);
  }
  row.dataset.n = String(item.n);
  row.dataset.word = item.word;
  row.className = item.definition === undefined ? "looking" : "defined";
  row.textContent = `${item.n}. ${item.word} (${item.by}) — ${
    item.definition ?? "looking it up…"
  }`;
}

function show(event: WebSocketEvent): void {
  if (event instanceof WebSocketConnecting) {
    $("state").textContent = `connecting (attempt ${event.attempt})`;
  } else if (event instanceof WebSocketOpened) {
    $("state").textContent = "open";
    counts.opened++;
    showCounts();
    log("open");
  } else if (event instanceof WebSocketClosed) {
    log(`closed: ${event.code}${event.reason ? ` (${event.reason})` : ""}`);
  } else if (event instanceof WebSocketReconnectScheduled) {
    $("state").textContent = `retry in ${Math.round(event.delayMs)} ms`;
  } else if (event instanceof WebSocketGaveUp) {
    $("state").textContent = `gave up: ${event.reason}`;
  } else if (
    event instanceof WebSocketMessage && typeof event.data === "string"
  ) {
    const frame = JSON.parse(event.data) as RoomFrame;
    if (frame.type === "items") frame.items.forEach(showItem);
    else showItem(frame.item);
  }
}

const system = ActorSystem.create("room-page", { logLevel: "warn" });
const url = new URL(`/rooms/${room}/ws`, location.href);
url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
url.searchParams.set("client", client);
const socket = system.actorOf(
  websocketProps({
    url: url.href,
    // Frames the room's SocketServer speaks: ids, acknowledgements, and
    // its word on what it handled as each connection opens. A Sent that
    // is acknowledged means the room's actor has handled the command.
    ack: durableSocketAck({ maxAttempts: Infinity }),
    // "ping" is answered by the platform, without waking the object.
    heartbeat: { intervalMs: 15_000, timeoutMs: 5_000, message: "ping" },
    subscriber: show,
  }),
  "room",
);

$<HTMLFormElement>("form").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = $<HTMLInputElement>("word");
  const word = input.value.trim();
  if (!word) return;
  input.value = "";
  const command: Command = { op: "add", word, by: me };
  counts.sent++;
  showCounts();
  socket.ask<Sent>(new Send(JSON.stringify(command)), 3_600_000).then(
    (sent) => {
      if (sent.acknowledged) counts.acknowledged++;
    },
    (error) => {
      counts.failed++;
      log(`not handled: ${word}: ${error}`);
    },
  ).finally(showCounts);
});

$("reconnect").addEventListener("click", () => socket.tell(new Reconnect()));
$("evict").addEventListener("click", () => {
  fetch(`/rooms/${room}/evict`, { method: "POST" }).then(
    () => log("evicted the room's object"),
    (error) => log(`eviction failed: ${error}`),
  );
});
$("room").textContent = room;
$("me").textContent = me;
showCounts();
