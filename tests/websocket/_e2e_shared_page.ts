// Copyright 2026 the understudy authors. MIT license.
// The page script of e2e_browser_shared.test.ts (not a test file itself),
// bundled with esbuild: a shared connection, and what the tab saw of it,
// on `globalThis.e2e`.

import { connectShared, type SharedSocket } from "../../src/websocket/mod.ts";

export interface SharedPage {
  start(url: string): void;
  leader(): boolean;
  status(): string;
  messages: unknown[];
  send(text: string): Promise<string>;
}

let socket: SharedSocket | undefined;
const page: SharedPage = {
  messages: [],
  start(url) {
    socket = connectShared("e2e", url, { policy: { delayFor: () => 100 } });
    socket.addEventListener("message", (data) => page.messages.push(data));
  },
  leader: () => socket!.leader,
  status: () => socket!.status,
  send: (text) =>
    socket!.send(text).then(() => "sent", (error) => `failed: ${error.kind}`),
};
(globalThis as unknown as { e2e: SharedPage }).e2e = page;
