// Copyright 2026 the understudy authors. MIT license.
// The server of the streaming end-to-end tests (not a test file itself),
// run in its own Node process so that a test can kill it (SIGKILL) and
// start it again on the same port: `node _e2e_server_process.mjs PORT LOG`.
// It prints its port once listening, and appends every text frame it reads
// to LOG, one a line, before answering. A frame "ID:TEXT" (acknowledged
// mode) is logged as TEXT and answered "ack:ID", every copy of it.

import { appendFileSync } from "node:fs";
import { WebSocketServer } from "ws";

const [port, log] = process.argv.slice(2);
const server = new WebSocketServer({ host: "127.0.0.1", port: Number(port) });
server.on("listening", () => {
  process.stdout.write(`${server.address().port}\n`);
});
server.on("connection", (socket) => {
  socket.on("message", (data) => {
    const text = data.toString();
    const framed = /^(\d+):(.*)$/s.exec(text);
    appendFileSync(log, `${framed ? framed[2] : text}\n`);
    if (framed) socket.send(`ack:${framed[1]}`);
  });
});
