// Copyright 2026 the understudy authors. MIT license.
// Helpers shared by the tests that read the repository's own files (not a
// test file itself).

import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { cwd } from "node:process";
import { fileURLToPath } from "node:url";

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

/** Parses JSON with comments and trailing commas (deno.json allows both). */
export function parseJsonc(text: string): unknown {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      out += "\n";
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 1;
    } else {
      out += c;
    }
  }
  return JSON.parse(out.replace(/,(\s*[}\]])/g, "$1"));
}
