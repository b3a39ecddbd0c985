// Copyright 2026 the understudy authors. MIT license.
// Helpers shared by the tests that read the repository's own files (not a
// test file itself).

import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { cwd } from "node:process";
import { fileURLToPath } from "node:url";

// The harness's own parser, so the tests read deno.json exactly as it does.
export { parseJsonc } from "../../scripts/lib/jsonc.mjs";

/** Walks up from this file (or the cwd) to the directory with jsr.json. */
export function findRepoRoot(): string {
  const starts = [dirname(fileURLToPath(import.meta.url)), cwd()];
  for (const start of starts) {
    let dir = start;
    while (true) {
      if (
        existsSync(join(dir, "deno.json")) && existsSync(join(dir, "jsr.json"))
      ) {
        return dir;
      }
      const parent = dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  }
  throw new Error("could not find the repository root (deno.json + jsr.json)");
}
