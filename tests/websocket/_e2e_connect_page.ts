// Copyright 2026 the understudy authors. MIT license.
// The page script of e2e_browser_connect.test.ts (not a test file itself),
// bundled with esbuild: the front door, and what the page saw of it, on
// `globalThis.e2e`.

import {
  connect,
  type SocketSnapshot,
  type SupervisedSocket,
} from "../../src/websocket/mod.ts";

/** What the test drives and reads in the page. */
export interface ConnectPage {
  start(url: string): void;
  /** Every status the store reported, in order (repeats removed). */
  statuses: string[];
  /** Every message event's data. */
  messages: unknown[];
  /** The document's lifecycle events, as the page heard them. */
  lifecycle: string[];
  sendConfirmed(text: string): Promise<string>;
  close(): Promise<string>;
}

let socket: SupervisedSocket | undefined;
const page: ConnectPage = {
  statuses: [],
  messages: [],
  lifecycle: [],
  start(url) {
    socket = connect(url, {
      // The server echoes "echo:x" as "x": the heartbeat's round trip.
      heartbeat: { intervalMs: 500, timeoutMs: 2_000, message: "echo:pong" },
      policy: { delayFor: () => 100 },
    });
    socket.subscribe((snapshot: SocketSnapshot) => {
      if (page.statuses.at(-1) !== snapshot.status) {
        page.statuses.push(snapshot.status);
      }
    });
    socket.addEventListener("message", (event) => {
      if (event.data !== "pong") page.messages.push(event.data);
    });
  },
  async sendConfirmed(text) {
    const sent = await socket!.sendConfirmed(text);
    return String(sent.send.data);
  },
  async close() {
    await socket!.close();
    return socket!.status;
  },
};
for (const type of ["freeze", "resume"]) {
  document.addEventListener(type, () => page.lifecycle.push(type));
}
for (const type of ["pagehide", "pageshow"]) {
  addEventListener(type, (event) => {
    const { persisted } = event as Event & { persisted: boolean };
    page.lifecycle.push(`${type}${persisted ? " (persisted)" : ""}`);
  });
}
(globalThis as unknown as { e2e: ConnectPage }).e2e = page;
