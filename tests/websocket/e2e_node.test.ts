// @runtimes node bun
// Copyright 2026 the understudy authors. MIT license.
// End to end in Node (and Bun): the `ws` package on both sides, its client
// class injected through the `WebSocket` option, as Node 20 has no global
// WebSocket (see _e2e_scenario.ts).

import { describe, it } from "node:test";
import { createServer, type Server } from "node:http";
import { WebSocket, WebSocketServer } from "ws";
import { InProcessClient } from "./_e2e_client.ts";
import { type E2eServer, runScenario } from "./_e2e_scenario.ts";
import { runStream } from "./_e2e_stream.ts";

class WsServer implements E2eServer {
  port = 0;
  readonly received: string[] = [];
  #http: Server | undefined;
  #wss: WebSocketServer | undefined;

  async start(): Promise<void> {
    if (this.#http) return;
    const http = this.#http = createServer((_, response) =>
      response.writeHead(404).end()
    );
    const wss = this.#wss = new WebSocketServer({ server: http });
    wss.on("connection", (socket) => {
      socket.on("message", (data, isBinary) => {
        if (isBinary) return;
        const text = data.toString();
        this.received.push(text);
        if (text.startsWith("echo:")) socket.send(text.slice(5));
      });
    });
    await new Promise<void>((resolve, reject) => {
      http.once("error", reject);
      http.listen(this.port, "127.0.0.1", () => resolve());
    });
    this.port = (http.address() as { port: number }).port;
  }

  async kill(): Promise<void> {
    const wss = this.#wss;
    const http = this.#http;
    this.#wss = this.#http = undefined;
    if (!wss || !http) return;
    const closed = [...wss.clients].map((socket) =>
      new Promise<void>((resolve) => {
        socket.once("close", () => resolve());
        socket.close(1012, "restarting");
      })
    );
    await Promise.all(closed);
    await new Promise<void>((resolve) => wss.close(() => resolve()));
    http.closeAllConnections?.();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  }
}

describe("end to end in Node with the ws package", () => {
  it("delivers 50 messages written while the server was down, in order, after spaced retries", async () => {
    const server = new WsServer();
    const client = new InProcessClient(WebSocket);
    try {
      await runScenario(server, client);
    } finally {
      await client.close();
      await server.kill();
    }
  });
  const runtime = typeof (globalThis as { Bun?: unknown }).Bun === "undefined"
    ? "Node"
    : "Bun";
  for (const delivery of ["ack", "default"] as const) {
    it(`streams 1,200 messages through 10 kills of a server process (${delivery} mode): nothing lost unreported`, async () => {
      const client = new InProcessClient(WebSocket);
      try {
        await runStream(client, delivery, `${runtime} (ws)`);
      } finally {
        await client.close();
      }
    });
  }
});
