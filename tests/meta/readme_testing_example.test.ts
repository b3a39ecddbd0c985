// @runtimes deno node bun
// Copyright 2026 the understudy authors. MIT license.
/**
 * The guide's "Testing your actors" test (docs/testing.md, once the
 * README's) is `tests/testing/readme_example.test.ts` with the package's
 * import specifiers, so the suite runs it under `deno test`, `bun test` and
 * `node --test` (and the snippet test runs the page's copy under
 * `deno test`): it cannot drift.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { findRepoRoot } from "./_repo.ts";
import { typescriptSnippets } from "./_snippets.ts";

const root = findRepoRoot();

describe("docs/testing.md: Testing your actors", () => {
  it("shows tests/testing/readme_example.test.ts as it is", () => {
    const file = readFileSync(
      join(root, "tests/testing/readme_example.test.ts"),
      "utf8",
    )
      .replaceAll('"../../mod.ts"', '"@understudy/core"')
      .replaceAll('"../../src/testing/mod.ts"', '"@understudy/core/testing"');
    const page = readFileSync(join(root, "docs/testing.md"), "utf8");
    const blocks = typescriptSnippets(page).filter((s) =>
      s.code.includes("Repository under a BackoffSupervisor")
    );
    assert.equal(blocks.length, 1, "one block of docs/testing.md holds it");
    assert.equal(blocks[0].code.trim(), file.trim());
  });
});
