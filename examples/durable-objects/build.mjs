// Copyright 2026 the understudy authors. MIT license.
// Bundles the room app for workerd with the esbuild that `npm ci` installed:
// dist/worker.js (the Worker and its Durable Object class, with the
// cloudflare_workers.ts stand-in replaced by the real `cloudflare:workers`)
// and dist/page.js (the page's script, which the Worker serves).
//
//   node examples/durable-objects/build.mjs [outDir]
//   cd examples/durable-objects && npx workerd serve config.capnp
//
// tests/durable/example.test.ts builds the same way into a temporary
// directory.

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));

/** `cloudflare_workers.ts` is types only: the bundle imports the platform's module. */
const cloudflareWorkers = {
  name: "cloudflare-workers",
  setup(build) {
    build.onResolve(
      { filter: /(^|\/)cloudflare_workers\.ts$/ },
      () => ({ path: "cloudflare:workers", external: true }),
    );
  },
};

/**
 * Writes `worker.js` and `page.js` to `outDir` (default `dist/` next to
 * this file) and returns their paths; makes `.storage/`, the rooms'
 * storage the config names, next to `dist/`.
 *
 * @param {string} [outDir]
 * @param {string} [exampleDir] Where the sources are (default: this file's directory).
 * @returns {Promise<{ worker: string, page: string }>}
 */
export async function build(outDir = join(here, "dist"), exampleDir = here) {
  mkdirSync(outDir, { recursive: true });
  mkdirSync(join(outDir, "..", ".storage"), { recursive: true });
  const common = {
    bundle: true,
    format: "esm",
    write: false,
    logLevel: "warning",
  };
  const [worker, page] = await Promise.all([
    esbuild.build({
      ...common,
      entryPoints: [join(exampleDir, "worker.ts")],
      platform: "browser",
      target: "es2022",
      plugins: [cloudflareWorkers],
    }),
    esbuild.build({
      ...common,
      entryPoints: [join(exampleDir, "page.ts")],
      platform: "browser",
      target: "es2022",
      minify: true,
    }),
  ]);
  const paths = {
    worker: join(outDir, "worker.js"),
    page: join(outDir, "page.js"),
  };
  writeFileSync(paths.worker, worker.outputFiles[0].text);
  writeFileSync(paths.page, page.outputFiles[0].text);
  return paths;
}

// Run as a script (not imported, nor bundled into a test).
const script = fileURLToPath(import.meta.url);
if (
  script.endsWith("build.mjs") && process.argv[1] &&
  resolve(process.argv[1]) === script
) {
  const { worker, page } = await build(process.argv[2]);
  console.log(`wrote ${worker} and ${page}`);
  console.log(
    "serve: cd examples/durable-objects && npx workerd serve config.capnp",
  );
}
