// Copyright 2026 the understudy authors. MIT license.
// The Deno side of the end-to-end tests (not a test file itself): a
// Deno.serve WebSocket server on 127.0.0.1 that can be killed and started
// again on the same port.

import type { E2eServer } from "./_e2e_scenario.ts";

/** A Deno.serve WebSocket server; `files` are served over plain HTTP too. */
export class DenoServer implements E2eServer {
  port = 0;
  readonly received: string[] = [];
  readonly #sockets = new Set<WebSocket>();
  #server: Deno.HttpServer | undefined;

  constructor(
    readonly files: Record<string, { type: string; body: string }> = {},
  ) {}

  /** WebSocket connections open now. */
  get openSockets(): number {
    return this.#sockets.size;
  }

  start(): Promise<void> {
    if (this.#server) return Promise.resolve(); // already listening
    this.#server = Deno.serve({
      hostname: "127.0.0.1",
      port: this.port,
      onListen: () => {},
    }, (request) => {
      if (request.headers.get("upgrade") !== "websocket") {
        const file = this.files[new URL(request.url).pathname];
        return file
          ? new Response(file.body, { headers: { "content-type": file.type } })
          : new Response("not found", { status: 404 });
      }
      const { socket, response } = Deno.upgradeWebSocket(request);
      this.#sockets.add(socket);
      socket.onclose = () => this.#sockets.delete(socket);
      socket.onmessage = (event) => {
        const text = String(event.data);
        this.received.push(text);
        if (text.startsWith("echo:")) socket.send(text.slice(5));
      };
      return response;
    });
    this.port = (this.#server.addr as Deno.NetAddr).port;
    return Promise.resolve();
  }

  async kill(): Promise<void> {
    const closed = [...this.#sockets].map((socket) =>
      new Promise<void>((resolve) => {
        socket.addEventListener("close", () => resolve());
        socket.close(1012, "restarting");
      })
    );
    await Promise.all(closed);
    await this.#server?.shutdown();
    this.#server = undefined;
  }
}
