// Copyright 2026 the understudy authors. MIT license.

/**
 * Bundles each implementation's workload file for Node with esbuild, into
 * .build/bench/node/ (gitignored, and outside deno fmt/lint), and those that
 * also run in Chromium for the browser, into .build/bench/browser/. Deno and
 * Bun run the TypeScript directly.
 */

import { build } from "esbuild";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

export const IMPLS = ["understudy", "baseline", "xstate", "nact", "effect"];

/** Bundles every implementation; returns `{ impl: path }` for those that built, and errors for the rest. */
export async function buildNodeBundles(benchDir, outDir) {
  mkdirSync(outDir, { recursive: true });
  const bundles = {};
  const errors = {};
  for (const impl of IMPLS) {
    const outfile = join(outDir, `${impl}.mjs`);
    try {
      await build({
        entryPoints: [join(benchDir, "impl", `${impl}.ts`)],
        outfile,
        bundle: true,
        format: "esm",
        platform: "node",
        target: "node20",
        // The peers (xstate, nact, effect) stay imports that Node resolves
        // from node_modules, so they run exactly as published and as a user's
        // unbundled Node program runs them (production builds: Node's
        // conditions have no "development"); only our code and the harness
        // are bundled. Unminified, for readable profiles.
        packages: "external",
        minify: false,
        sourcemap: false,
        logLevel: "silent",
        // CommonJS peers (nact) call require() for Node built-ins.
        banner: {
          js:
            'import { createRequire as __benchCreateRequire } from "node:module";\n' +
            "const require = __benchCreateRequire(import.meta.url);",
        },
      });
      bundles[impl] = outfile;
    } catch (error) {
      errors[impl] = error.errors?.map((e) => e.text).join("; ") ??
        String(error);
    }
  }
  return { bundles, errors };
}

/** Bundles `impls` for the browser; returns `{ impl: path }` for those that built, and errors for the rest. */
export async function buildBrowserBundles(benchDir, outDir, impls) {
  mkdirSync(outDir, { recursive: true });
  const bundles = {};
  const errors = {};
  for (const impl of impls) {
    const outfile = join(outDir, `${impl}.js`);
    try {
      await build({
        entryPoints: [join(benchDir, "impl", `${impl}.ts`)],
        outfile,
        bundle: true,
        format: "esm",
        platform: "browser",
        target: "chrome120",
        minify: false,
        sourcemap: false,
        logLevel: "silent",
      });
      bundles[impl] = outfile;
    } catch (error) {
      errors[impl] = error.errors?.map((e) => e.text).join("; ") ??
        String(error);
    }
  }
  return { bundles, errors };
}
