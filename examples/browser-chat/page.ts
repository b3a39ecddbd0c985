// Copyright 2026 the understudy authors. MIT license.
/// <reference lib="dom" />

/**
 * The chat page's script, bundled by server.ts with esbuild: one supervised
 * WebSocket connection, its state and retries shown live, and messages
 * written while the server is down kept and sent in order once it is back.
 *
 * @module
 */

import { ActorSystem, UndeliveredError } from "../../mod.ts";
import {
  Reconnect,
  Send,
  WebSocketClosed,
  WebSocketConnecting,
  type WebSocketEvent,
  WebSocketGaveUp,
  WebSocketMessage,
  WebSocketMessageDropped,
  WebSocketOpened,
  WebSocketPaused,
  websocketProps,
  WebSocketReconnectScheduled,
} from "../../src/websocket/mod.ts";

interface ChatLine {
  type: "chat";
  /** Set by the server. */
  id?: number;
  from: string;
  text: string;
}

const $ = <E extends HTMLElement>(id: string) =>
  document.getElementById(id) as E;
const me = `guest-${Math.floor(Math.random() * 900 + 100)}`;
let retryAt = 0;
let queued = 0;
/** Lines shown already: after a reconnect the server sends its history again. */
const seen = new Set<number>();

/** What the status bar shows. */
type State =
  | "connecting"
  | "open"
  | "waiting"
  | "offline"
  | "hidden"
  | "frozen"
  | "gave-up";

function setState(state: State): void {
  $("status").dataset.state = state;
  $("state").textContent = state;
}

function log(text: string): void {
  const item = document.createElement("li");
  item.textContent = `${new Date().toLocaleTimeString()}  ${text}`;
  $("log").prepend(item);
}

function addLine(line: ChatLine, className = ""): HTMLLIElement {
  const item = document.createElement("li");
  item.className = className;
  const from = document.createElement("span");
  from.className = "from";
  from.textContent = line.from === me ? `${line.from} (you)` : line.from;
  item.append(from, line.text);
  $("messages").append(item);
  item.scrollIntoView({ block: "nearest" });
  return item;
}

/** Everything the connection reports, shown as it happens. */
function show(event: WebSocketEvent): void {
  if (event instanceof WebSocketConnecting) {
    setState("connecting");
    $("attempt").textContent = String(event.attempt);
    retryAt = 0;
    log(
      `connecting: attempt ${event.attempt}, after ${
        Math.round(event.delayMs)
      } ms`,
    );
  } else if (event instanceof WebSocketOpened) {
    setState("open");
    log("open");
  } else if (event instanceof WebSocketClosed) {
    log(`closed: ${event.code}${event.reason ? ` (${event.reason})` : ""}`);
  } else if (event instanceof WebSocketReconnectScheduled) {
    setState("waiting");
    retryAt = performance.now() + event.delayMs;
    log(`retry ${event.attempt} in ${Math.round(event.delayMs)} ms`);
  } else if (event instanceof WebSocketPaused) {
    setState(event.reason);
    log(`paused: ${event.reason}`);
  } else if (event instanceof WebSocketGaveUp) {
    setState("gave-up");
    log(`gave up: ${event.reason}`);
  } else if (event instanceof WebSocketMessageDropped) {
    $("dropped").textContent = String(event.droppedTotal);
    log(`dropped a message: ${event.reason}`);
  } else if (
    event instanceof WebSocketMessage && typeof event.data === "string"
  ) {
    const message = JSON.parse(event.data) as ChatLine | { type: "pong" };
    if (message.type !== "chat" || seen.has(message.id!)) return;
    seen.add(message.id!);
    if (message.from !== me) addLine(message);
  }
}

const system = ActorSystem.create("chat", { logLevel: "warn" });
const url = new URL("/ws", location.href);
url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
const chat = system.actorOf(
  websocketProps({
    url: url.href,
    // A silent server (a laptop that slept, a NAT that forgot us) is noticed within 20 s.
    heartbeat: {
      intervalMs: 15_000,
      timeoutMs: 5_000,
      message: '{"type":"ping"}',
    },
    hiddenCloseMs: 5 * 60_000,
    subscriber: show,
  }),
  "chat",
);

$<HTMLFormElement>("form").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = $<HTMLInputElement>("text");
  if (!input.value.trim()) return;
  const line: ChatLine = { type: "chat", from: me, text: input.value };
  input.value = "";
  // Shown at once, grey until handed to an open socket.
  const item = addLine(line, "queued");
  $("queued").textContent = String(++queued);
  chat.ask(new Send(JSON.stringify(line)), 3_600_000).then(
    () => item.classList.remove("queued"),
    (error) => {
      if (error instanceof UndeliveredError) item.className = "dropped";
    },
  ).finally(() => $("queued").textContent = String(--queued));
});

$("reconnect").addEventListener("click", () => chat.tell(new Reconnect()));
$("restart").addEventListener("click", () => {
  fetch("/restart", { method: "POST" }).catch(() =>
    log("the server is already down")
  );
});

setInterval(() => {
  const left = retryAt - performance.now();
  $("next").textContent = retryAt && left > 0
    ? `${(left / 1_000).toFixed(1)} s`
    : "–";
}, 100);
