#!/usr/bin/env node
// understudy test harness: `npm test` runs `node scripts/test.mjs`.
//
// Tests are `tests/**/*.test.ts`, written once against `node:test`
// (describe/it/before/after/beforeEach/afterEach), `node:assert/strict` and
// `@sinonjs/fake-timers`, importing code under test by relative `.ts` path.
// This script runs, in order:
//
//   1. static checks (offline, pinned Deno from node_modules, with
//      NO_COLOR=1 DENO_NO_UPDATE_CHECK=1): deno check (mod.ts src/ tests/
//      examples/, whichever exist), deno lint, deno fmt --check,
//      deno doc --lint <every export entry of deno.json>,
//      deno publish --dry-run --allow-dirty. Any failure stops the run.
//   2. Deno:    deno test --reporter=tap with --sanitize-ops/--sanitize-resources
//               and an import map sending `node:test` to
//               tests/_shims/node_test_deno.ts (Deno's own node:test polyfill
//               switches the sanitizers off; the adapter registers
//               Deno.test/t.step with them on).
//   3. Bun:     bun test ./tests/<file>... (explicit ./ paths).
//   4. Node 20: esbuild bundles each file into .build/run-<pid>/node/
//               (platform node, esm, packages external), then node --test
//               on the bundles (spec reporter + a per-file count reporter).
//   5. Browser: esbuild bundles each file for the browser with node:test,
//               node:assert/strict and util aliased to tests/_shims/, served
//               from 127.0.0.1, run in headless Chromium through
//               playwright-core. Chromium is found by scripts/lib/chromium.mjs
//               ($UNDERSTUDY_CHROMIUM, /usr/bin/chromium, ...) or, if missing,
//               installed with apt-get when root or passwordless sudo allows
//               (scripts/lib/provision.mjs); otherwise the run fails at once
//               with one line saying what to run. Never skipped.
//   6. workerd: the same bundles, each run by a fresh Cloudflare workerd
//               process (npm package `workerd`) inside a fetch handler, with
//               no MessageChannel (scripts/lib/runners/workerd.mjs).
//               (examples/edge-worker.ts in workerd is a Node test file:
//               tests/workerd/edge_worker.test.ts.)
//   7. Per-runtime "runtime: N passed, N failed, N skipped" lines, then one
//      closing "N passed, N failed, N skipped" line summed over runtimes.
//      Exit code 1 if a static check failed, a runtime failed, a runtime
//      that had test files ran zero tests, or a file registered no tests.
//
// Build output goes to .build/run-<pid>/ (removed at exit) so that several
// runs in one checkout don't clobber each other; logs to .build/logs/.
//
// Conventions (details in tests/README.md):
//   * Runtime opt-out: a first-line comment `// @runtimes deno node bun`
//     lists the runtimes a file runs in (default: all five), next to a
//     comment saying why the others are left out. Files that import node:*
//     modules other than node:test / node:assert/strict (or read files) must
//     leave out `browser` and `workerd`.
//   * fake-timers import form, works in Deno, Node, Bun and the browser:
//         import * as FakeTimers from "@sinonjs/fake-timers";
//         const clock = FakeTimers.install({
//           toNotFake: ["nextTick", "queueMicrotask"],
//         });
//     The namespace form matches the package's types. Leave nextTick native:
//     a faked process.nextTick stalls Node's test reporter, and the file
//     then "passes" having reported nothing (caught here as "reported no
//     tests"). See tests/meta/fake_timers_interop.test.ts.
//   * `.only` is rejected: it would silently skip tests in some runtimes.
//
// Usage: node scripts/test.mjs [options] [filters...]
//   -r, --runtime LIST  run only these steps (comma-separated, repeatable):
//                       static, deno, bun, node, browser, workerd
//       --no-static     skip the static checks
//   -j, --jobs N        run up to N runtimes at once (default 1)
//   -v, --verbose       stream every runner's full output
//   filters             test files, directories, or path substrings
//                       (e.g. tests/backoff, meta/src_purity, backoff)
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { applyFilters, discover, findOnly, RUNTIMES } from "./lib/discover.mjs";
import { offlinePreconditions, runStaticChecks } from "./lib/static_checks.mjs";
import { runDeno } from "./lib/runners/deno.mjs";
import { runBun } from "./lib/runners/bun.mjs";
import { runNode } from "./lib/runners/node.mjs";
import { runBrowser } from "./lib/runners/browser.mjs";
import { runWorkerd } from "./lib/runners/workerd.mjs";
import { ensureChromium } from "./lib/provision.mjs";
import { CHROMIUM_ENV } from "./lib/chromium.mjs";
import {
  BUILD,
  head,
  killAllChildren,
  pool,
  removeRunDir,
  removeStaleRunDirs,
  seconds,
} from "./lib/util.mjs";

const STEPS = ["static", ...RUNTIMES];
const RUNNERS = {
  deno: runDeno,
  bun: runBun,
  node: runNode,
  browser: runBrowser,
  workerd: runWorkerd,
};

const USAGE = `Usage: node scripts/test.mjs [options] [filters...]
  -r, --runtime LIST  only these steps (comma-separated, repeatable):
                      ${STEPS.join(", ")}
      --no-static     skip the static checks
  -j, --jobs N        run up to N runtimes at once (default 1)
  -v, --verbose       stream every runner's full output
  -h, --help          show this help
  filters             test files, directories or path substrings`;

function parseArgs(argv) {
  const opts = {
    steps: new Set(),
    noStatic: false,
    jobs: 1,
    verbose: false,
    filters: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const eq = arg.indexOf("=");
      if (eq >= 0) return arg.slice(eq + 1);
      if (i + 1 >= argv.length) throw new Error(`${arg} needs a value`);
      return argv[++i];
    };
    if (arg === "-h" || arg === "--help") {
      console.log(USAGE);
      process.exit(0);
    } else if (/^(-r|--runtimes?)(=|$)/.test(arg)) {
      for (const name of value().split(",").map((s) => s.trim())) {
        if (!STEPS.includes(name)) {
          throw new Error(
            `unknown runtime "${name}" (choose from ${STEPS.join(", ")})`,
          );
        }
        opts.steps.add(name);
      }
    } else if (arg === "--no-static") {
      opts.noStatic = true;
    } else if (/^(-j|--jobs)(=|$)/.test(arg)) {
      opts.jobs = Math.max(1, Number.parseInt(value(), 10) || 1);
    } else if (arg === "-v" || arg === "--verbose") {
      opts.verbose = true;
    } else if (arg === "--") {
      opts.filters.push(...argv.slice(i + 1));
      break;
    } else if (arg.startsWith("-")) {
      throw new Error(`unknown option ${arg}\n${USAGE}`);
    } else {
      opts.filters.push(arg);
    }
  }
  if (opts.steps.size === 0) { for (const s of STEPS) opts.steps.add(s); }
  if (opts.noStatic) opts.steps.delete("static");
  return opts;
}

const log = (...args) => console.log(...args);
const rule = (title) =>
  log(`\n── ${title} ${"─".repeat(Math.max(3, 60 - title.length))}`);
const countsLine = (c) =>
  `${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`;

function finish(results, extraFailures, started) {
  const total = { passed: 0, failed: extraFailures, skipped: 0 };
  log("");
  for (const r of results) {
    total.passed += r.passed;
    total.failed += r.failed;
    total.skipped += r.skipped;
  }
  const failed = extraFailures > 0 || results.some((r) => !r.ok);
  log(
    `total time ${seconds(Date.now() - started)}${
      results.length
        ? ` (${
          results.map((r) => `${r.runtime} ${seconds(r.durationMs)}`).join(", ")
        })`
        : ""
    }`,
  );
  for (const r of results) log(`${r.runtime}: ${countsLine(r)}`);
  log(countsLine(total));
  process.exitCode = failed ? 1 : 0;
}

async function main() {
  const started = Date.now();
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error(error.message);
    process.exitCode = 2;
    return;
  }
  mkdirSync(join(BUILD, "logs"), { recursive: true });
  removeStaleRunDirs();

  // Preflight: things that make every later result meaningless.
  const problems = [...offlinePreconditions()];
  const { tests, ignored, errors } = discover();
  problems.push(...errors);
  problems.push(
    ...findOnly(tests).map((p) =>
      `.only is not allowed in committed tests: ${p}`
    ),
  );
  for (const file of ignored) {
    log(`note: ${file} is not run (test files must be named *.test.ts)`);
  }
  const selected = applyFilters(tests, opts.filters);
  if (tests.length === 0) {
    problems.push("no test files found (tests/**/*.test.ts)");
  } else if (selected.length === 0) {
    problems.push(`no test files match ${opts.filters.join(" ")}`);
  }
  if (problems.length > 0) {
    rule("preflight");
    for (const p of problems) log(`✖ ${p}`);
    finish([], problems.length, started);
    return;
  }

  // Chromium, for the browser run and for files that drive it themselves
  // (they import playwright-core, e.g. the Deno-only e2e_browser test).
  const needsChromium = selected.some((f) =>
    (opts.steps.has("browser") && f.runtimes.includes("browser")) ||
    (f.drivesBrowser && f.runtimes.some((r) => opts.steps.has(r)))
  );
  if (needsChromium) {
    const chromium = await ensureChromium(log);
    if (chromium.error) {
      log(`✖ ${chromium.error}`);
      finish([], 1, started);
      return;
    }
    // Every runner and test launches this one (scripts/lib/chromium.mjs).
    process.env[CHROMIUM_ENV] = chromium.path;
  }

  if (opts.steps.has("static")) {
    rule("static checks");
    const results = await runStaticChecks(log);
    const failed = results.filter((r) => !r.ok);
    if (failed.length > 0) {
      for (const r of failed) {
        const file = `static-${
          r.name.replace(/\W+/g, "-").replace(/-+$/, "")
        }.log`;
        writeFileSync(join(BUILD, "logs", file), r.output);
        rule(`${r.name} FAILED`);
        if (r.args) log(`$ deno ${r.args.join(" ")}`);
        log(head(r.output, 150, `.build/logs/${file}`));
      }
      log("\nstatic checks failed; tests were not run");
      finish([], failed.length, started);
      return;
    }
  }

  const runtimes = RUNTIMES.filter((r) => opts.steps.has(r));
  const filtered = opts.filters.length > 0;
  log(
    `\n${selected.length} test file(s); runtimes: ${
      runtimes.join(", ") || "none"
    }`,
  );
  const tasks = runtimes.map((runtime) => async () => {
    const files = selected.filter((f) => f.runtimes.includes(runtime));
    const base = { runtime, passed: 0, failed: 0, skipped: 0, durationMs: 0 };
    if (files.length === 0) {
      if (filtered) {
        log(`${runtime}: skipped (no selected file runs in ${runtime})`);
        return null;
      }
      return {
        ...base,
        failed: 1,
        ok: false,
        failureText: `no test file runs in ${runtime}`,
      };
    }
    if (opts.verbose) rule(`${runtime} (${files.length} files)`);
    const res = await RUNNERS[runtime](files, { echo: opts.verbose, log });
    const result = { ...base, ...res, files: files.length };
    writeFileSync(join(BUILD, "logs", `${runtime}.log`), res.output ?? "");
    const notes = [];
    if (result.code !== 0 && result.failed === 0) {
      result.failed = 1;
      notes.push(
        `${runtime} exited with code ${result.code} without reporting a failing test`,
      );
    }
    if (result.passed + result.failed === 0) {
      result.failed = 1;
      notes.push(`${runtime} ran zero tests`);
    }
    result.ok = result.code === 0 && result.failed === 0;
    result.notesText = [...notes, res.notes].filter(Boolean).join("\n");
    if (!opts.verbose || opts.jobs > 1) {
      log(
        `${runtime}: ${countsLine(result)} [${
          seconds(result.durationMs)
        }, ${files.length} files]`,
      );
    }
    return result;
  });
  const results = (await pool(tasks, opts.jobs)).filter(Boolean);
  if (runtimes.length > 0 && results.length === 0) {
    log("\n✖ no runtime ran any test");
    finish([], 1, started);
    return;
  }

  for (const r of results) {
    if (r.notesText) {
      rule(`${r.runtime} notes`);
      log(r.notesText);
    }
    if (r.ok) continue;
    rule(`${r.runtime} FAILED`);
    if (r.command) log(`$ ${r.command}`);
    log(
      head(
        r.failureText ?? r.output ?? "",
        400,
        `.build/logs/${r.runtime}.log`,
      ),
    );
    if (existsSync(join(BUILD, "logs", `${r.runtime}.log`))) {
      log(`(full output: .build/logs/${r.runtime}.log)`);
    }
  }
  finish(results, 0, started);
}

process.on("SIGINT", () => {
  killAllChildren();
  removeRunDir();
  process.exit(130);
});
process.on("SIGTERM", () => {
  killAllChildren();
  removeRunDir();
  process.exit(143);
});

try {
  await main();
} finally {
  removeRunDir();
}
