// @runtimes deno
// Copyright 2026 the understudy authors. MIT license.
// Every TypeScript block of docs/edge-lifetimes.md type-checks and runs as
// pasted (`@understudy/core` and its entries resolved to this checkout,
// `cloudflare:workers` to the examples' type-only stand-in), and a block
// that must not run says why (```ts no-run: <reason>). Deno only: it runs
// `deno check` and `deno run` on the blocks, as readme_snippets.test.ts does
// for README.md.

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { findRepoRoot, parseJsonc } from "../meta/_repo.ts";
import { type Snippet, typescriptSnippets } from "../meta/_snippets.ts";

const DOC = "docs/edge-lifetimes.md";
const RUN_LIMIT_MS = 10_000;
const CHECK_LIMIT_MS = 120_000;

const root = findRepoRoot();
const snippets = typescriptSnippets(readFileSync(join(root, DOC), "utf8"));

function importMap(): { imports: Record<string, string> } {
  const deno = parseJsonc(readFileSync(join(root, "deno.json"), "utf8")) as {
    name: string;
    exports: Record<string, string>;
  };
  const imports: Record<string, string> = {};
  for (const [key, target] of Object.entries(deno.exports)) {
    const name = key === "." ? deno.name : `${deno.name}/${key.slice(2)}`;
    imports[name] = pathToFileURL(join(root, target)).href;
  }
  imports["cloudflare:workers"] = pathToFileURL(
    join(root, "examples/durable-objects/cloudflare_workers.ts"),
  ).href;
  return { imports };
}

async function deno(
  args: string[],
  limitMs: number,
): Promise<{ code: number; output: string; timedOut: boolean }> {
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

const fileName = (s: Snippet) => `doc_L${s.line}.ts`;

describe(`${DOC} TypeScript snippets`, () => {
  let dir = "";
  let check: { code: number; output: string; timedOut: boolean };
  const common = () => ["--no-config", "--import-map", join(dir, "map.json")];

  before(async () => {
    dir = await Deno.makeTempDir({ prefix: "understudy-edge-doc-" });
    await Deno.writeTextFile(
      join(dir, "map.json"),
      JSON.stringify(importMap()),
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

  it("has TypeScript snippets, and they type-check", () => {
    assert.ok(snippets.length > 0, `no \`\`\`ts block in ${DOC}`);
    assert.ok(!check.timedOut, `deno check timed out:\n${check.output}`);
    assert.equal(check.code, 0, check.output);
  });

  for (const snippet of snippets) {
    const where = `${DOC}:${snippet.line}`;
    const runs = snippet.noRun === undefined;
    it(`${where} ${runs ? "runs to completion" : "says why it does not run"}`, async () => {
      if (!runs) {
        assert.notEqual(snippet.noRun, "", `${where}: no-run needs a reason`);
        return;
      }
      const run = await deno(
        [
          "run",
          ...common(),
          "--no-check",
          "--no-prompt",
          join(dir, fileName(snippet)),
        ],
        RUN_LIMIT_MS,
      );
      assert.ok(!run.timedOut, `${where} did not end:\n${run.output}`);
      assert.equal(run.code, 0, `${where}:\n${run.output}`);
    });
  }
});
