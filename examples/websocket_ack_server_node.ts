// Copyright 2026 the understudy authors. MIT license.

/**
 * The server side of acknowledged mode in Node, with the `ws` package:
 * acknowledge every copy of a message, handle each id once (see
 * `websocket_ack_server_deno.ts` for what a real server keeps).
 *
 *     node examples/websocket_ack_server_node.ts   (Node 22.6+ strips the types)
 *
 * @module
 */

import { WebSocketServer } from "ws";

const seen = new Map<string, number>();
const server = new WebSocketServer({ host: "127.0.0.1", port: 8790 });
server.on("connection", (socket, request) => {
  const client = request.url ?? "";
  socket.on("message", (frame) => {
    const { id, data } = JSON.parse(frame.toString());
    if (typeof id !== "number") return;
    if (id > (seen.get(client) ?? 0)) {
      console.log(data); // handle it, once
      seen.set(client, id);
    }
    socket.send(JSON.stringify({ ack: id }));
  });
});
