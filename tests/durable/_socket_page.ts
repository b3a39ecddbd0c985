// Copyright 2026 the understudy authors. MIT license.
// The page script of socket_workerd_browser.test.ts (not a test file
// itself), bundled with esbuild: the supervised socket with
// durableSocketAck(), in a Chromium page, driven through `globalThis.e2e`.

import { ActorSystem, DeadLetter } from "../../mod.ts";
import {
  connect,
  durableSocketAck,
  type SupervisedSocket,
  WebSocketClosed,
  WebSocketOpened,
} from "../../src/websocket/mod.ts";

/** What the test drives and reads in the page. */
export interface SocketPage {
  start(url: string): void;
  send(texts: string[]): void;
  /** How the sends settled so far. */
  outcome(): {
    acknowledged: string[];
    failed: string[];
    pending: number;
    deadLetters: string[];
    connections: number;
    closes: number;
  };
  close(): Promise<void>;
}

let socket: SupervisedSocket | undefined;
const system = ActorSystem.create("page", { logLevel: "off" });
const acknowledged: string[] = [];
const failed: string[] = [];
const deadLetters: string[] = [];
let sent = 0;
let connections = 0;
let closes = 0;
system.eventStream.subscribe(
  DeadLetter,
  (dead) => deadLetters.push(`${String(dead.message)}: ${dead.reason}`),
);
system.eventStream.subscribe(WebSocketOpened, () => connections++);
system.eventStream.subscribe(WebSocketClosed, () => closes++);

const page: SocketPage = {
  start(url) {
    socket = connect(url, {
      system,
      ack: durableSocketAck(),
      heartbeat: { intervalMs: 1_000, timeoutMs: 3_000 },
      policy: { delayFor: () => 50 + Math.random() * 100 },
      connectionTimeoutMs: 5_000,
    });
  },
  send(texts) {
    for (const text of texts) {
      sent++;
      socket!.sendConfirmed(text).then(
        (s) =>
          s.acknowledged
            ? acknowledged.push(text)
            : failed.push(`${text}: not acknowledged`),
        (error) => failed.push(`${text}: ${error}`),
      );
    }
  },
  outcome: () => ({
    acknowledged,
    failed,
    pending: sent - acknowledged.length - failed.length,
    deadLetters,
    connections,
    closes,
  }),
  async close() {
    await socket?.close();
    await system.terminate();
  },
};
(globalThis as unknown as { e2e: SocketPage }).e2e = page;
