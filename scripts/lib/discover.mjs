// Test discovery, file filters and the per-file `// @runtimes` directive.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import process from "node:process";
import { rel, ROOT, walk } from "./util.mjs";

export const RUNTIMES = ["deno", "bun", "node", "browser", "workerd"];
export const TESTS_DIR = join(ROOT, "tests");
const TEST_FILE = /\.test\.ts$/;
// Names other runners would pick up but this harness does not run.
const LOOKALIKE = /(?:[._]test|[._]spec)\.(?:[cm]?[jt]sx?)$/;

/**
 * Reads the opt-in/opt-out directive from a test file's leading comments:
 *
 *     // @runtimes deno node bun
 *
 * lists the runtimes the file runs in (default: all of them). Only comment
 * and blank lines may precede it.
 */
export function parseDirective(source, file = "<input>") {
  const lines = source.split("\n");
  for (const line of lines) {
    const trimmed = line.trim();
    if (trimmed === "") continue;
    if (!/^(\/\/|\/\*|\*)/.test(trimmed)) break;
    const m = /@runtimes\b(.*)$/.exec(trimmed);
    if (!m) continue;
    const names = m[1].replace(/\*\/.*$/, "").split(/[\s,]+/).filter(Boolean);
    const unknown = names.filter((n) => !RUNTIMES.includes(n));
    if (names.length === 0 || unknown.length > 0) {
      throw new Error(
        `${file}: bad "@runtimes" directive ${
          JSON.stringify(trimmed)
        }; use runtime names from: ${RUNTIMES.join(" ")}`,
      );
    }
    return names;
  }
  return [...RUNTIMES];
}

/**
 * The leading comments' text other than the directive and copyright or
 * license lines: where a file that leaves runtimes out says why.
 */
export function directiveReason(source) {
  const text = [];
  for (const line of source.split("\n")) {
    const trimmed = line.trim();
    if (trimmed === "") continue;
    if (!/^(\/\/|\/\*|\*)/.test(trimmed)) break;
    const words = trimmed.replace(/^(\/\/+|\/\*+|\*+\/?)/, "")
      .replace(/\*\/\s*$/, "").trim();
    if (/@runtimes\b|^copyright\b|\blicen[cs]e\b/i.test(words)) continue;
    if (words) text.push(words);
  }
  return text.join(" ");
}

/** Does the file drive a browser itself (it imports playwright-core)? */
export function drivesBrowser(source) {
  return /(?:from|import)\s*\(?\s*["']playwright-core["']/.test(source);
}

/** Every `tests/**\/*.test.ts`, with its runtimes. */
export function discover() {
  const all = walk(TESTS_DIR);
  const files = all.filter((f) => TEST_FILE.test(f));
  const ignored = all.filter((f) => !TEST_FILE.test(f) && LOOKALIKE.test(f));
  const errors = [];
  const tests = files.map((path) => {
    const source = readFileSync(path, "utf8");
    let runtimes = [...RUNTIMES];
    try {
      runtimes = parseDirective(source, rel(path));
    } catch (error) {
      errors.push(error.message);
    }
    const left = RUNTIMES.filter((r) => !runtimes.includes(r));
    if (left.length > 0 && directiveReason(source) === "") {
      errors.push(
        `${rel(path)}: its "@runtimes" directive leaves out ${
          left.join(", ")
        }; say why in a comment next to it`,
      );
    }
    return {
      path,
      rel: rel(path),
      runtimes,
      drivesBrowser: drivesBrowser(source),
    };
  });
  return { tests, ignored: ignored.map(rel), errors };
}

/**
 * Keeps the tests matching any filter. A filter naming an existing file or
 * directory selects it (or everything under it); any other filter is a
 * substring of the repo-relative path (e.g. `backoff`, `meta/src_`).
 */
export function applyFilters(tests, filters) {
  if (filters.length === 0) return tests;
  return tests.filter((t) =>
    filters.some((f) => {
      const abs = resolve(process.cwd(), f);
      if (existsSync(abs)) {
        if (statSync(abs).isDirectory()) {
          return t.path === abs || t.path.startsWith(abs + "/");
        }
        return t.path === abs;
      }
      return t.rel.includes(f);
    })
  );
}

/** Finds committed `.only` markers, which would silently skip other tests. */
export function findOnly(tests) {
  const problems = [];
  for (const t of tests) {
    const lines = readFileSync(t.path, "utf8").split("\n");
    lines.forEach((line, i) => {
      if (/^\s*(\/\/|\*)/.test(line)) return;
      if (
        /\b(?:it|test|describe|suite)\s*\.\s*only\s*\(/.test(line) ||
        /\bonly\s*:\s*true\b/.test(line)
      ) {
        problems.push(`${t.rel}:${i + 1}: ${line.trim()}`);
      }
    });
  }
  return problems;
}
