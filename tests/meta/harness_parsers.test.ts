// @runtimes deno node bun
/**
 * The harness (scripts/test.mjs) decides pass/fail from what each runner
 * prints. These tests pin its parsers to real output shapes, so a format
 * change in a runner shows up here instead of as a silently green run.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseDirective, RUNTIMES } from "../../scripts/lib/discover.mjs";
import { parseDenoTap } from "../../scripts/lib/runners/deno.mjs";
import { countBun, emptyBunFiles } from "../../scripts/lib/runners/bun.mjs";
import { countNodeSummary } from "../../scripts/lib/runners/node.mjs";

describe("@runtimes directive", () => {
  it("defaults to every runtime", () => {
    assert.deepEqual(
      parseDirective(`import { it } from "node:test";\n`),
      RUNTIMES,
    );
  });

  it("reads the list from the leading comments", () => {
    assert.deepEqual(
      parseDirective(`// @runtimes deno node bun\nimport "x";\n`),
      ["deno", "node", "bun"],
    );
    assert.deepEqual(
      parseDirective(`// Copyright\n\n/* @runtimes browser, deno */\n`),
      ["browser", "deno"],
    );
  });

  it("ignores the directive after the first line of code", () => {
    assert.deepEqual(
      parseDirective(`import "x";\n// @runtimes deno\n`),
      RUNTIMES,
    );
  });

  it("rejects unknown runtimes and empty lists", () => {
    assert.throws(() => parseDirective(`// @runtimes deno nodejs\n`), /nodejs/);
    assert.throws(() => parseDirective(`// @runtimes\n`), /@runtimes/);
  });
});

describe("Deno TAP report", () => {
  const tap = [
    "TAP version 14",
    "# ./tests/a.test.ts",
    "# Subtest: suite",
    "    ok 1 - passes",
    "    not ok 2 - inner > fails",
    "      ---",
    '      {"message":"AssertionError: boom","severity":"fail"}',
    "      ...",
    "    ok 3 - skipped one # SKIP",
    "    1..3",
    "not ok 1 - suite",
    "  ---",
    '  {"message":"1 test step failed.","severity":"fail"}',
    "  ...",
    "# ./tests/b.test.ts",
    "# Subtest: leaky",
    "    ok 1 - leaks a timer",
    "    1..1",
    "not ok 2 - leaky",
    "  ---",
    '  {"message":"Leaks detected:\\n  - A timer was started","severity":"fail"}',
    "  ...",
    "ok 3 - top-level test",
    "ok 4 - ignored top-level # SKIP",
    "# ./tests/empty.test.ts",
    "1..4",
  ].join("\n");

  it("counts leaf tests, not suites", () => {
    const r = parseDenoTap(tap);
    assert.equal(r.passed, 3);
    assert.equal(r.skipped, 2);
    // "inner > fails", and the leak on a suite whose steps all passed;
    // "suite" itself failed only because of its step.
    assert.equal(r.failed, 2);
  });

  it("knows which files reported results", () => {
    const r = parseDenoTap(tap);
    assert.deepEqual([...r.files].sort(), [
      "tests/a.test.ts",
      "tests/b.test.ts",
    ]);
  });

  it("keeps the failure messages with their full names", () => {
    const r = parseDenoTap(tap);
    assert.equal(r.failures.length, 2);
    assert.match(r.failures[0], /tests\/a\.test\.ts > suite > inner > fails/);
    assert.match(r.failures[0], /AssertionError: boom/);
    assert.match(r.failures[1], /tests\/b\.test\.ts > leaky\nLeaks detected/);
  });
});

describe("Bun summary", () => {
  const output = [
    "bun test v1.4.5",
    "",
    "tests/a.test.ts:",
    "(pass) s > a [1.00ms]",
    "(fail) s > b [2.00ms]",
    "(skip) s > c",
    "(todo) s > d",
    "",
    "tests/empty.test.ts:",
    "",
    "tests/broken.test.ts:",
    "# Unhandled error between tests",
    "error: boom",
    "",
    " 1 pass",
    " 1 skip",
    " 1 todo",
    " 2 fail",
    " 1 error",
    "Ran 4 tests across 3 files. [50.00ms]",
  ].join("\n");

  it("reads pass/fail/skip/todo without double-counting errors", () => {
    assert.deepEqual(countBun(output), { passed: 1, failed: 2, skipped: 2 });
  });

  it("falls back to the error count when nothing else failed", () => {
    assert.deepEqual(countBun(" 3 pass\n 0 fail\n 1 error\n"), {
      passed: 3,
      failed: 1,
      skipped: 0,
    });
  });

  it("finds files without results, and which of them Bun already counted", () => {
    const files = [
      "tests/a.test.ts",
      "tests/empty.test.ts",
      "tests/broken.test.ts",
    ]
      .map((rel) => ({ rel }));
    const { empty, uncounted } = emptyBunFiles(output, files);
    assert.deepEqual(empty.map((f: { rel: string }) => f.rel), [
      "tests/empty.test.ts",
      "tests/broken.test.ts",
    ]);
    assert.deepEqual(uncounted.map((f: { rel: string }) => f.rel), [
      "tests/empty.test.ts",
    ]);
  });
});

describe("node --test summary", () => {
  it("reads the spec reporter's closing lines", () => {
    const spec = [
      "✔ a (1ms)",
      "ℹ tests 7",
      "ℹ suites 2",
      "ℹ pass 4",
      "ℹ fail 1",
      "ℹ cancelled 1",
      "ℹ skipped 1",
      "ℹ todo 1",
      "ℹ duration_ms 12.5",
    ].join("\n");
    assert.deepEqual(countNodeSummary(spec), {
      passed: 4,
      failed: 2,
      skipped: 2,
    });
  });

  it("reads TAP's closing lines", () => {
    const tap = "# tests 3\n# pass 3\n# fail 0\n# skipped 0\n# todo 0\n";
    assert.deepEqual(countNodeSummary(tap), {
      passed: 3,
      failed: 0,
      skipped: 0,
    });
  });
});
