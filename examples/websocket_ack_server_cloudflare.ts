// Copyright 2026 the understudy authors. MIT license.

/**
 * The server side of acknowledged mode on Cloudflare Workers: acknowledge
 * every copy of a message, handle each id once. What a client has seen must
 * outlive the isolate: keep it in a Durable Object's storage in a real
 * deployment (here, in memory, per client). Workers close a socket whose
 * message is over 1 MiB (1009): the client's default `maxMessageBytes`.
 *
 * @module
 */

/** The parts of the Workers runtime this example uses. */
declare const WebSocketPair: {
  new (): { 0: WorkerSocket; 1: WorkerSocket };
};
interface WorkerSocket {
  accept(): void;
  send(data: string): void;
  addEventListener(
    type: "message",
    listener: (event: { data: unknown }) => void,
  ): void;
}

const seen = new Map<string, number>();

export default {
  fetch(request: Request): Response {
    if (request.headers.get("upgrade") !== "websocket") {
      return new Response("expected a WebSocket", { status: 426 });
    }
    const client = new URL(request.url).search;
    const pair = new WebSocketPair();
    const server = pair[1];
    server.accept();
    server.addEventListener("message", ({ data }) => {
      const { id, data: payload } = JSON.parse(String(data));
      if (typeof id !== "number") return;
      if (id > (seen.get(client) ?? 0)) {
        console.log(payload); // handle it, once
        seen.set(client, id);
      }
      server.send(JSON.stringify({ ack: id }));
    });
    return new Response(null, {
      status: 101,
      webSocket: pair[0],
    } as ResponseInit);
  },
};
