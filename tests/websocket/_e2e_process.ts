// Copyright 2026 the understudy authors. MIT license.
// The streaming end-to-end tests' server, in its own process (not a test
// file itself): `_e2e_server_process.mjs` under Node, started, killed with
// SIGKILL (nothing flushed, nothing closed: the connections just die) and
// started again on the same port. What it read is in its log file.

import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findRepoRoot } from "../meta/_repo.ts";

const SCRIPT = join(
  findRepoRoot(),
  "tests",
  "websocket",
  "_e2e_server_process.mjs",
);

export class ServerProcess {
  port = 0;
  kills = 0;
  readonly log: string = join(
    tmpdir(),
    `understudy-e2e-${Date.now()}-${Math.random().toString(36).slice(2)}.log`,
  );
  #child: ChildProcess | undefined;

  /** Starts the server (on the same port after the first time); resolves once it listens. */
  start(): Promise<void> {
    const child = this.#child = spawn(
      "node",
      [SCRIPT, String(this.port), this.log],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    return new Promise<void>((resolve, reject) => {
      child.stdout!.once("data", (chunk) => {
        this.port = Number(String(chunk).trim());
        resolve();
      });
      child.once(
        "exit",
        (code) => reject(new Error(`server exited (${code})`)),
      );
    });
  }

  /** Kills it with SIGKILL; resolves once it is gone. */
  kill(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      return Promise.resolve();
    }
    this.kills++;
    return new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.kill("SIGKILL");
    });
  }

  /** Every text the server read, in order, across its lives. */
  received(): string[] {
    if (!existsSync(this.log)) return [];
    return readFileSync(this.log, "utf8").split("\n").filter(Boolean);
  }

  /** Kills it, and removes its log. */
  async dispose(): Promise<void> {
    await this.kill();
    rmSync(this.log, { force: true });
  }
}
