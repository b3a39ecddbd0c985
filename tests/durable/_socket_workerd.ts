// Copyright 2026 the understudy authors. MIT license.
// workerd serving tests/durable/_socket_worker.ts for the socket server's
// end-to-end tests and bench: SQLite-backed objects on a local disk (so
// that storage outlives an eviction and the workerd process), and a
// restart that kills the process and starts it again on the same port, as
// a machine restart would. Node only. Not a test file itself.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findRepoRoot } from "../meta/_repo.ts";
import { bundleWorker, diskConfig } from "./_bundle.ts";
import { startWorkerd } from "../../scripts/lib/workerd.mjs";

const WORKER = join(findRepoRoot(), "tests", "durable", "_socket_worker.ts");

/** A workerd that can be restarted on its port. */
export interface SocketWorkerd {
  /** `http://127.0.0.1:<port>`, the same across restarts. */
  readonly url: string;
  /** Its output so far (this process's). */
  output(): string;
  /** Kills workerd (SIGKILL) and starts it again on the same port and disk. */
  restart(): Promise<void>;
  /** Calls `method` of room `name` over RPC. */
  call<R>(name: string, method: string, ...args: unknown[]): Promise<R>;
  stop(): Promise<void>;
}

export async function serveSockets(): Promise<SocketWorkerd> {
  const dir = mkdtempSync(join(tmpdir(), "understudy-socket-"));
  const disk = join(dir, "storage");
  mkdirSync(disk, { recursive: true });
  writeFileSync(join(dir, "worker.js"), await bundleWorker(WORKER));
  const config = (port: number) =>
    diskConfig({ ROOM: "Room", ECHO: "Echo" }, disk, port);
  let worker: Awaited<ReturnType<typeof startWorkerd>>;
  try {
    worker = await startWorkerd(join(dir, "config.capnp"), config(0));
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const url = worker.url;
  const port = Number(new URL(url).port);
  return {
    url,
    output: () => worker.output(),
    async restart() {
      await worker.stop();
      worker = await startWorkerd(join(dir, "config.capnp"), config(port));
    },
    async call<R>(name: string, method: string, ...args: unknown[]) {
      const res = await fetch(`${url}/call`, {
        method: "POST",
        body: JSON.stringify({ name, method, args }),
        signal: AbortSignal.timeout(20_000),
      });
      const body = await res.json() as { result?: R; error?: unknown };
      if (res.status !== 200) {
        throw new Error(`${name}.${method}: ${JSON.stringify(body.error)}`);
      }
      return body.result as R;
    },
    async stop() {
      try {
        await worker.stop();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
