// @runtimes node
// Copyright 2026 the understudy authors. MIT license.
// examples/edge-worker.ts served by Cloudflare's workerd (the npm package),
// as on Workers: its default export handles requests and forwards them to
// the EdgeGateway Durable Object, which keeps one supervised connection to an
// upstream (a `ws` server here). Node only: it drives workerd from outside,
// starting its process and the upstream server, which the workerd run of
// the suite (inside workerd) cannot do.

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as esbuild from "esbuild";
import { type WebSocket, WebSocketServer } from "ws";
import { capnpConfig, startWorkerd } from "../../scripts/lib/workerd.mjs";
import { findRepoRoot } from "../meta/_repo.ts";

// By path from the repository root: the Node run executes a bundled copy.
const EXAMPLE = join(findRepoRoot(), "examples", "edge-worker.ts");

/** An upstream that answers `{"id", "q"}` with `{"id", "answer": Q}`. */
class Upstream {
  readonly server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  readonly sockets = new Set<WebSocket>();
  connections = 0;
  constructor() {
    this.server.on("connection", (socket) => {
      this.connections++;
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
      socket.on("message", (data) => {
        const { id, q } = JSON.parse(String(data));
        if (id !== undefined) {
          socket.send(JSON.stringify({ id, answer: String(q).toUpperCase() }));
        }
      });
    });
  }
  listening(): Promise<number> {
    return new Promise((resolve) =>
      this.server.once(
        "listening",
        () => resolve((this.server.address() as { port: number }).port),
      )
    );
  }
  /** Drops every connection, as a restarting server does. */
  restart(): void {
    for (const socket of this.sockets) socket.close(1012, "restarting");
  }
  close(): Promise<void> {
    for (const socket of this.sockets) socket.terminate();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe("examples/edge-worker.ts in workerd", () => {
  const upstream = new Upstream();
  const dir = mkdtempSync(join(tmpdir(), "understudy-edge-"));
  let worker: { url: string; output(): string; stop(): Promise<void> };

  const ask = async (q: string) => {
    const res = await fetch(`${worker.url}/?q=${encodeURIComponent(q)}`, {
      signal: AbortSignal.timeout(20_000),
    });
    const body = await res.json();
    assert.equal(
      res.status,
      200,
      `${JSON.stringify(body)}\n${worker.output()}`,
    );
    return body as { answer: string; ms: number };
  };

  before(async () => {
    const port = await upstream.listening();
    const bundle = await esbuild.build({
      entryPoints: [EXAMPLE],
      bundle: true,
      format: "esm",
      platform: "browser",
      target: "es2022",
      write: false,
      logLevel: "silent",
    });
    writeFileSync(join(dir, "worker.js"), bundle.outputFiles[0].text);
    worker = await startWorkerd(
      join(dir, "config.capnp"),
      capnpConfig({
        modules: [{ name: "worker.js", path: "worker.js" }],
        bindings: { UPSTREAM: `ws://127.0.0.1:${port}/` },
        durableObjects: { GATEWAY: "EdgeGateway" },
        outbound: ["local"],
      }),
    );
  });

  after(async () => {
    await worker?.stop();
    await upstream.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers a request through the upstream", async () => {
    assert.equal((await ask("hello")).answer, "HELLO");
  });

  it("serves later requests over the same connection", async () => {
    for (const q of ["again", "and again", "once more"]) {
      assert.equal((await ask(q)).answer, q.toUpperCase());
    }
    assert.equal(upstream.connections, 1);
  });

  it("rides through an upstream restart: the connection is retried and the request answered", async () => {
    upstream.restart();
    assert.equal((await ask("back")).answer, "BACK");
    assert.equal(upstream.connections, 2);
    assert.match(worker.output(), /upstream down: retry \d+ in \d+ ms/);
  });
});
