// @runtimes deno node bun
// Copyright 2026 the understudy authors. MIT license.
/**
 * The test files that docs/testing.md shows (its "Testing your actors"
 * example, once the README's, and those of virtual time, the probe and the
 * logs) are files of tests/testing/ with the package's import specifiers, so
 * the suite runs each in every runtime (and the snippet test runs the page's
 * copy under `deno test`): none can drift from the page.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { findRepoRoot } from "./_repo.ts";
import { typescriptSnippets } from "./_snippets.ts";

const root = findRepoRoot();

/** Each file, and the `describe` name that marks its block on the page. */
const SHOWN = [
  [
    "tests/testing/readme_example.test.ts",
    "Repository under a BackoffSupervisor",
  ],
  ["tests/testing/guide_virtual_time.test.ts", "a session in virtual time"],
  [
    "tests/testing/guide_test_probe.test.ts",
    "Prices, with a probe for its backend",
  ],
  ["tests/testing/guide_logs.test.ts", "what an actor system logs"],
] as const;

describe("docs/testing.md shows test files of tests/testing/ as they are", () => {
  const page = readFileSync(join(root, "docs/testing.md"), "utf8");
  const blocks = typescriptSnippets(page);
  for (const [path, name] of SHOWN) {
    it(path, () => {
      const file = readFileSync(join(root, path), "utf8")
        .replaceAll('"../../mod.ts"', '"@understudy/core"')
        .replaceAll('"../../src/testing/mod.ts"', '"@understudy/core/testing"');
      const shown = blocks.filter((s) => s.code.includes(`describe("${name}"`));
      assert.equal(
        shown.length,
        1,
        `one block of docs/testing.md holds ${path}`,
      );
      assert.equal(shown[0].code.trim(), file.trim());
    });
  }
});
