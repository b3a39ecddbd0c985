// Copyright 2026 the understudy authors. MIT license.
// Bundling a worker for workerd and serving it: esbuild, with every module
// named `cloudflare_workers.ts` or `_cloudflare_workers.ts` (type-only
// stand-ins, so that `deno check` can read the code) replaced by the real
// `cloudflare:workers`. Not a test file itself.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as esbuild from "esbuild";
import process from "node:process";
import { capnpConfig, startWorkerd } from "../../scripts/lib/workerd.mjs";
import { killAllChildren } from "../../scripts/lib/util.mjs";

/** A running workerd: its URL, its output so far, and how to stop it. */
export interface Workerd {
  readonly url: string;
  output(): string;
  stop(): Promise<void>;
}

// Should the test process end without its `after` hooks (a crash), the
// workerd process group still goes: startWorkerd tracks every child.
process.once("exit", killAllChildren);

/** The bundle of `entry`, an ES module for workerd. */
export async function bundleWorker(entry: string): Promise<string> {
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "silent",
    plugins: [{
      name: "cloudflare-workers",
      setup(build) {
        build.onResolve(
          { filter: /(^|\/)_?cloudflare_workers\.ts$/ },
          () => ({ path: "cloudflare:workers", external: true }),
        );
      },
    }],
  });
  return result.outputFiles[0].text;
}

/**
 * The workerd config of a `worker.js` whose Durable Object classes
 * `objects` are SQLite-backed (`enableSql`) and stored under `disk`, served
 * on `port` (0: any free one). Throws if the template it rewrites changed.
 */
export function diskConfig(
  objects: Record<string, string>,
  disk: string,
  port = 0,
): string {
  const config = capnpConfig({
    modules: [{ name: "worker.js", path: "worker.js" }],
    durableObjects: objects,
  })
    .replace(
      /uniqueKey = ("[^"]*")\)/g,
      "uniqueKey = $1, enableSql = true)",
    )
    .replace(
      "durableObjectStorage = (inMemory = void)",
      'durableObjectStorage = (localDisk = "do-disk")',
    )
    .replace(
      '(name = "main", worker = .worker)',
      `(name = "main", worker = .worker), (name = "do-disk", disk = (path = ${
        JSON.stringify(disk)
      }, writable = true))`,
    )
    .replace('address = "127.0.0.1:0"', `address = "127.0.0.1:${port}"`);
  if (!config.includes("enableSql = true") || !config.includes("localDisk")) {
    throw new Error(`diskConfig: the config was not rewritten:\n${config}`);
  }
  return config;
}

/**
 * Serves `bundle` from workerd with the Durable Object classes `objects`,
 * SQLite-backed (`enableSql`) and stored on disk under `dir/storage`, so
 * that storage and alarms outlive the workerd process: stop it and serve
 * again on the same `dir` to restart workerd. The caller removes `dir`.
 */
export async function serveOnDisk(
  dir: string,
  bundle: string,
  objects: Record<string, string>,
): Promise<Workerd> {
  const disk = join(dir, "storage");
  mkdirSync(disk, { recursive: true });
  writeFileSync(join(dir, "worker.js"), bundle);
  const config = diskConfig(objects, disk);
  return await startWorkerd(join(dir, "config.capnp"), config);
}

/**
 * Serves `entry` from a fresh workerd with the Durable Object classes
 * `objects` (`{ BINDING: "ClassName" }`). The caller must `stop()` it
 * (which kills the process, freeing its port) and may then remove nothing:
 * the temporary directory goes with `stop()`.
 */
export async function serveWorker(
  entry: string,
  objects: Record<string, string>,
): Promise<Workerd> {
  const dir = mkdtempSync(join(tmpdir(), "understudy-durable-"));
  try {
    writeFileSync(join(dir, "worker.js"), await bundleWorker(entry));
    // On disk, not in memory: an object's storage must outlive its
    // eviction (in memory, ctx.abort() takes it too).
    const store = join(dir, "store");
    mkdirSync(store);
    const config = capnpConfig({
      modules: [{ name: "worker.js", path: "worker.js" }],
      durableObjects: objects,
    }).replace(
      `durableObjectStorage = (inMemory = void)`,
      `durableObjectStorage = (localDisk = "store")`,
    ).replace(
      `services = [(name = "main", worker = .worker)`,
      `services = [(name = "main", worker = .worker), (name = "store", disk = (path = ${
        JSON.stringify(store)
      }, writable = true))`,
    );
    const worker = await startWorkerd(join(dir, "config.capnp"), config);
    return {
      url: worker.url,
      output: worker.output,
      stop: async () => {
        try {
          await worker.stop();
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
