// @runtimes deno
// Copyright 2026 the understudy authors. MIT license.
// Every TypeScript block of the manual (README.md and every Markdown file
// under docs/, found by walking it) type-checks and runs as pasted, with
// `@understudy/core` and each of its entries resolved to this checkout, so a
// snippet cannot drift from the API. A run must end by itself within
// RUN_LIMIT_MS and exit 0. A block that must not run says why in its info
// string: ```ts no-run: <reason> (it is still type-checked).
// Deno only: it runs `deno check` and `deno run` on the blocks.

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { findRepoRoot, parseJsonc } from "./_repo.ts";
import { manualFiles } from "./_markdown.ts";
import { type Snippet, typescriptSnippets } from "./_snippets.ts";

const RUN_LIMIT_MS = 10_000;
const CHECK_LIMIT_MS = 120_000;

const root = findRepoRoot();
const files = manualFiles(root);
/** Each block, with the index of its file in `files`. */
const snippets = files.flatMap((file, index) =>
  typescriptSnippets(readFileSync(join(root, file), "utf8")).map((
    snippet,
  ) => ({ ...snippet, file, index }))
);
type Located = Snippet & { file: string; index: number };

/** `@understudy/core`, its subpaths and `jsr:` forms, to local files. */
function importMap(): { imports: Record<string, string> } {
  const deno = parseJsonc(readFileSync(join(root, "deno.json"), "utf8")) as {
    name: string;
    exports: string | Record<string, string>;
  };
  const exports = typeof deno.exports === "string"
    ? { ".": deno.exports }
    : deno.exports;
  const imports: Record<string, string> = {};
  for (const [key, target] of Object.entries(exports)) {
    const name = key === "." ? deno.name : `${deno.name}/${key.slice(2)}`;
    const url = pathToFileURL(join(root, target)).href;
    imports[name] = url;
    imports[`jsr:${name}`] = url;
  }
  // The platform module the Durable Objects section imports: its types.
  imports["cloudflare:workers"] = pathToFileURL(
    join(root, "examples/durable-objects/cloudflare_workers.ts"),
  ).href;
  return { imports };
}

interface Outcome {
  code: number;
  signal: string | null;
  output: string;
  timedOut: boolean;
}

/** Runs Deno (the one running this test), killing it after `limitMs`. */
async function deno(args: string[], limitMs: number): Promise<Outcome> {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
  }).spawn();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, limitMs);
  const { code, signal, stdout, stderr } = await child.output();
  clearTimeout(timer);
  const text = new TextDecoder();
  return {
    code,
    signal,
    output: text.decode(stdout) + text.decode(stderr),
    timedOut,
  };
}

/** A block's file in the temporary directory: its Markdown file's index and line. */
const fileName = (s: Located) => `md${s.index}_L${s.line}.ts`;

describe("TypeScript snippets of README.md and docs/", () => {
  let dir = "";
  let check: Outcome;
  const common = () => ["--no-config", "--import-map", join(dir, "map.json")];

  /** Tool output with the snippet files' locations as Markdown lines. */
  const located = (text: string) =>
    text.replace(
      /(?:file:\/\/)?\S*md(\d+)_L(\d+)\.ts:(\d+)(?::(\d+))?/g,
      (_, index, fence, line, col) =>
        `${files[Number(index)]}:${Number(fence) + Number(line)}${
          col ? `:${col}` : ""
        }`,
    );

  before(async () => {
    dir = await Deno.makeTempDir({ prefix: "understudy-snippets-" });
    await Deno.writeTextFile(
      join(dir, "map.json"),
      JSON.stringify(importMap(), null, 2),
    );
    for (const s of snippets) {
      await Deno.writeTextFile(join(dir, fileName(s)), s.code);
    }
    // One check for all of them (loading the library once), read per file.
    check = await deno(
      ["check", ...common(), ...snippets.map((s) => join(dir, fileName(s)))],
      CHECK_LIMIT_MS,
    );
  });

  after(async () => {
    if (dir) await Deno.remove(dir, { recursive: true });
  });

  it("has TypeScript snippets to check, in README.md and in docs/", () => {
    assert.ok(
      snippets.some((s) => s.file === "README.md"),
      "no ```ts block found in README.md",
    );
    assert.ok(
      snippets.some((s) => s.file.startsWith("docs/")),
      `no \`\`\`ts block found in docs/ (${files.join(", ")})`,
    );
  });

  for (const snippet of snippets) {
    const where = `${snippet.file}:${snippet.line}`;
    const runs = snippet.noRun === undefined;
    it(`${where} type-checks${runs ? " and runs to completion" : ""}`, async () => {
      assert.ok(
        runs || snippet.noRun !== "",
        `${where}: "no-run" needs a reason: \`\`\`ts no-run: <why it cannot run>`,
      );
      assert.ok(!check.timedOut, `deno check timed out:\n${check.output}`);
      if (check.code !== 0) {
        const chunks = check.output.split("\n")
          .filter((l) => !/^Check /.test(l)).join("\n").split(/\n\s*\n/);
        const mine = chunks.filter((c) => c.includes(fileName(snippet)));
        const anyAttributed = chunks.some((c) => /md\d+_L\d+\.ts/.test(c));
        assert.ok(
          mine.length === 0 && anyAttributed,
          `${where} does not type-check:\n${
            located((mine.length > 0 ? mine : chunks).join("\n\n"))
          }`,
        );
      }
      if (!runs) return;
      // A block written as a test file runs as one (with Deno's sanitizers);
      // under `deno run` its tests would only be registered, never run.
      const isTest = /from\s+["']node:test["']/.test(snippet.code);
      const run = await deno(
        [
          isTest ? "test" : "run",
          ...common(),
          "--no-check",
          ...(isTest ? [] : ["--no-prompt"]),
          join(dir, fileName(snippet)),
        ],
        RUN_LIMIT_MS,
      );
      if (isTest && run.code === 0) {
        const passed = /ok \| (\d+) passed/.exec(run.output);
        assert.ok(
          passed !== null && Number(passed[1]) > 0,
          `${where} is a test file but ran no test:\n${located(run.output)}`,
        );
      }
      assert.ok(
        !run.timedOut,
        `${where} did not end within ${
          RUN_LIMIT_MS / 1000
        } s: a snippet must ` +
          `finish by itself (stop what it starts, e.g. await ` +
          `system.terminate()). Its output:\n${located(run.output)}`,
      );
      assert.equal(
        run.code,
        0,
        `${where} exited with code ${run.code}${
          run.signal ? ` (${run.signal})` : ""
        }:\n${located(run.output)}`,
      );
    });
  }
});
