// @runtimes deno
// Copyright 2026 the understudy authors. MIT license.
// Runs `deno check` and `deno run`/`deno test` on the guide's blocks, so Deno only.
//
// Every TypeScript block of docs/testing-under-faults.md type-checks and
// runs as pasted, as tests/meta/readme_snippets.test.ts does for the
// README: `@understudy/core` and its entries (and their `jsr:` forms) are
// sent to this checkout, all blocks are checked in one `deno check`, and
// each runs (`deno test` for a block that imports node:test, so its tests
// run with Deno's sanitizers; `deno run` otherwise) and must exit 0 within
// RUN_LIMIT_MS. A block marked ```ts no-run: <reason> is only checked.

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { findRepoRoot, parseJsonc } from "../meta/_repo.ts";
import { type Snippet, typescriptSnippets } from "../meta/_snippets.ts";

const RUN_LIMIT_MS = 20_000;
const CHECK_LIMIT_MS = 120_000;
const PAGE = "docs/testing-under-faults.md";

const root = findRepoRoot();
const snippets = typescriptSnippets(readFileSync(join(root, PAGE), "utf8"));

function importMap(): { imports: Record<string, string> } {
  const deno = parseJsonc(readFileSync(join(root, "deno.json"), "utf8")) as {
    name: string;
    exports: Record<string, string>;
  };
  const imports: Record<string, string> = {};
  for (const [key, target] of Object.entries(deno.exports)) {
    const name = key === "." ? deno.name : `${deno.name}/${key.slice(2)}`;
    const url = pathToFileURL(join(root, target)).href;
    imports[name] = url;
    imports[`jsr:${name}`] = url;
  }
  return { imports };
}

interface Outcome {
  code: number;
  output: string;
  timedOut: boolean;
}

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
  const { code, stdout, stderr } = await child.output();
  clearTimeout(timer);
  const text = new TextDecoder();
  return {
    code,
    output: text.decode(stdout) + text.decode(stderr),
    timedOut,
  };
}

const fileName = (s: Snippet) => `guide_L${s.line}.ts`;

describe(`${PAGE} TypeScript blocks`, () => {
  let dir = "";
  let check: Outcome;
  const common = () => ["--no-config", "--import-map", join(dir, "map.json")];
  /** Tool output with the blocks' locations as lines of the page. */
  const located = (text: string) =>
    text.replace(
      /(?:file:\/\/)?\S*guide_L(\d+)\.ts:(\d+)(?::(\d+))?/g,
      (_, fence, line, col) =>
        `${PAGE}:${Number(fence) + Number(line)}${col ? `:${col}` : ""}`,
    );

  before(async () => {
    dir = await Deno.makeTempDir({ prefix: "understudy-guide-" });
    await Deno.writeTextFile(
      join(dir, "map.json"),
      JSON.stringify(importMap(), null, 2),
    );
    for (const s of snippets) {
      await Deno.writeTextFile(join(dir, fileName(s)), s.code);
    }
    check = await deno(
      ["check", ...common(), ...snippets.map((s) => join(dir, fileName(s)))],
      CHECK_LIMIT_MS,
    );
  });

  after(async () => {
    if (dir) await Deno.remove(dir, { recursive: true });
  });

  it("has the complete example, a test file that imports the testing kit", () => {
    const example = snippets.find((s) =>
      /from\s+["']node:test["']/.test(s.code) &&
      s.code.includes('from "@understudy/core/testing"') &&
      s.code.includes("BackoffSupervisor")
    );
    assert.ok(example, "no runnable BackoffSupervisor test in the guide");
    assert.equal(example.noRun, undefined, "the complete example must run");
  });

  for (const snippet of snippets) {
    const where = `${PAGE}:${snippet.line}`;
    const runs = snippet.noRun === undefined;
    it(`${where} type-checks${runs ? " and runs to completion" : ""}`, async () => {
      assert.ok(
        runs || snippet.noRun !== "",
        `${where}: "no-run" needs a reason`,
      );
      assert.ok(!check.timedOut, `deno check timed out:\n${check.output}`);
      if (check.code !== 0) {
        const chunks = check.output.split("\n")
          .filter((l) => !/^Check /.test(l)).join("\n").split(/\n\s*\n/);
        const mine = chunks.filter((c) => c.includes(fileName(snippet)));
        const anyAttributed = chunks.some((c) => /guide_L\d+\.ts/.test(c));
        assert.ok(
          mine.length === 0 && anyAttributed,
          `${where} does not type-check:\n${
            located((mine.length > 0 ? mine : chunks).join("\n\n"))
          }`,
        );
      }
      if (!runs) return;
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
        `${where} did not end within ${RUN_LIMIT_MS / 1000} s:\n${
          located(run.output)
        }`,
      );
      assert.equal(
        run.code,
        0,
        `${where} exited with code ${run.code}:\n${located(run.output)}`,
      );
    });
  }
});
