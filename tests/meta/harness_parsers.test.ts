// @runtimes deno node bun
// Not in the browser or workerd: it imports the harness, which uses node:fs.
/**
 * The harness (scripts/test.mjs) decides pass/fail from what each runner
 * prints. These tests pin its parsers to real output shapes, so a format
 * change in a runner shows up here instead of as a silently green run.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  directiveReason,
  drivesBrowser,
  parseDirective,
  RUNTIMES,
} from "../../scripts/lib/discover.mjs";
import { workerModule } from "../../scripts/lib/runners/workerd.mjs";
import { capnpConfig } from "../../scripts/lib/workerd.mjs";
import { aptPlan } from "../../scripts/lib/provision.mjs";
import { CHROMIUM_ENV, locateChromium } from "../../scripts/lib/chromium.mjs";
import { typescriptSnippets } from "./_snippets.ts";
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

  it("knows workerd", () => {
    assert.ok(RUNTIMES.includes("workerd"));
    assert.deepEqual(parseDirective(`// @runtimes workerd deno\n`), [
      "workerd",
      "deno",
    ]);
  });

  it("finds the reason next to it, not in copyright lines", () => {
    assert.equal(
      directiveReason(
        `// @runtimes deno\n// Copyright 2026 x. MIT license.\nimport "x";\n`,
      ),
      "",
    );
    assert.equal(
      directiveReason(
        `// @runtimes deno\n/**\n * Starts a server.\n */\nimport "x";\n// not this\n`,
      ),
      "Starts a server.",
    );
  });

  it("tells files that drive a browser themselves", () => {
    assert.ok(drivesBrowser(`import { chromium } from "playwright-core";`));
    assert.ok(drivesBrowser(`await import("playwright-core")`));
    assert.ok(!drivesBrowser(`import { it } from "node:test";`));
  });
});

describe("Chromium discovery and provisioning", () => {
  it("obeys the override alone, and says where it looked", () => {
    const missing = locateChromium({ [CHROMIUM_ENV]: "/nonexistent/chrome" });
    assert.equal(missing.path, undefined);
    assert.deepEqual(missing.looked, [`${CHROMIUM_ENV}=/nonexistent/chrome`]);
  });

  it("installs with apt-get as root or with passwordless sudo, else says why not", () => {
    assert.deepEqual(aptPlan({ uid: 0, aptGet: true, sudo: false }), {
      prefix: [],
    });
    assert.deepEqual(aptPlan({ uid: 1000, aptGet: true, sudo: true }), {
      prefix: ["sudo", "-n"],
    });
    assert.match(
      aptPlan({ uid: 1000, aptGet: true, sudo: false }).reason ?? "",
      /not root/,
    );
    assert.match(
      aptPlan({ uid: 0, aptGet: false, sudo: false }).reason ?? "",
      /apt-get/,
    );
  });
});

describe("workerd", () => {
  it("wraps a bundle so that its top level runs inside the first request", () => {
    const module = workerModule("var x = 1;\nawait 0;\n");
    assert.match(module, /^async function load\(\) \{\nvar x = 1;\nawait 0;\n/);
    assert.match(module, /export default \{/);
    assert.throws(() => workerModule(`export { x };\n`), /cannot be wrapped/);
    assert.throws(() => workerModule(`import "y";\n`), /cannot be wrapped/);
  });

  it("writes a config with bindings, Durable Objects and outbound access", () => {
    const config = capnpConfig({
      modules: [{ name: "worker.js", path: "worker.js" }],
      bindings: { UPSTREAM: "ws://127.0.0.1:1/" },
      durableObjects: { GATEWAY: "EdgeGateway" },
      outbound: ["local"],
    });
    assert.match(config, /esModule = embed "worker\.js"/);
    assert.match(
      config,
      /\(name = "UPSTREAM", text = "ws:\/\/127\.0\.0\.1:1\/"\)/,
    );
    assert.match(config, /durableObjectNamespace = "EdgeGateway"/);
    assert.match(config, /durableObjectStorage = \(inMemory = void\)/);
    assert.match(config, /allow = \["local"\]/);
    assert.match(config, /address = "127\.0\.0\.1:0"/);
    assert.doesNotMatch(
      capnpConfig({ modules: [{ name: "a.js", path: "a.js" }] }),
      /globalOutbound|durableObject/,
    );
  });
});

describe("README snippets", () => {
  it("finds ts blocks, their lines and no-run reasons", () => {
    const md = [
      "# x", //                         1
      "```ts", //                       2
      "const a = 1;", //                3
      "```", //                         4
      "```sh", //                       5
      "npm test", //                    6
      "```", //                         7
      "````typescript no-run: needs a server", // 8
      "```ts", //                       9  (inside the 4-backtick block)
      "````", //                        10
      "~~~ts no-run", //                11
      "x", //                           12
      "~~~", //                         13
    ].join("\n");
    const found = typescriptSnippets(md);
    assert.deepEqual(found.map((s) => [s.line, s.noRun]), [
      [2, undefined],
      [8, "needs a server"],
      [11, ""],
    ]);
    assert.equal(found[0].code, "const a = 1;\n");
    assert.equal(found[1].code, "```ts\n");
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
