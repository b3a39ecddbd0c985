// Deno: `deno test` with the op/resource/exit sanitizers ON.
//
// Deno's built-in `node:test` polyfill registers every describe/it with the
// sanitizers turned off (even with --sanitize-ops), so a test leaking a
// setTimeout would pass. We generate an import map that sends `node:test` to
// tests/_shims/node_test_deno.ts (Deno.test/t.step with sanitizers on) and
// keeps whatever imports/scopes deno.json already declares.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { BIN, parseJsonc, readDenoJson, ROOT, run, RUN_DIR } from "../util.mjs";

const OUT = join(RUN_DIR, "deno");
const ADAPTER = join(ROOT, "tests", "_shims", "node_test_deno.ts");

function absolutize(map, baseDir) {
  const fix = (target) =>
    /^\.{0,2}\//.test(target)
      ? pathToFileURL(resolve(baseDir, target)).href +
        (target.endsWith("/") ? "/" : "")
      : target;
  const fixAll = (obj = {}) =>
    Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, fix(v)]));
  const scopes = {};
  for (const [scope, entries] of Object.entries(map.scopes ?? {})) {
    scopes[fix(scope)] = fixAll(entries);
  }
  return { imports: fixAll(map.imports), scopes };
}

/** Builds .build/deno/import_map.json; returns its path. */
export function writeImportMap() {
  const denoJson = readDenoJson();
  let base = { imports: denoJson.imports, scopes: denoJson.scopes };
  let baseDir = ROOT;
  if (typeof denoJson.importMap === "string") {
    const file = resolve(ROOT, denoJson.importMap);
    base = parseJsonc(readFileSync(file, "utf8"));
    baseDir = dirname(file);
  }
  const map = absolutize(base, baseDir);
  const adapterUrl = pathToFileURL(ADAPTER).href;
  map.imports["node:test"] = adapterUrl;
  // Inside the adapter, `node:test` is Deno's own polyfill (for `mock`).
  map.scopes[adapterUrl] = { "node:test": "node:test" };
  mkdirSync(OUT, { recursive: true });
  const path = join(OUT, "import_map.json");
  writeFileSync(path, JSON.stringify(map, null, 2) + "\n");
  return path;
}

/**
 * Parses Deno's TAP report. Modules start with "# ./path"; a test with steps
 * is announced by "# Subtest: name" and closed by its own result line at the
 * same indentation. Leaf tests are counted; a container counts as one
 * failure only when it failed while none of its steps did (a sanitizer
 * leak, a failing hook, a describe body that threw).
 */
export function parseDenoTap(tap) {
  const counts = { passed: 0, failed: 0, skipped: 0 };
  const files = new Set(); // files with at least one result
  const failures = [];
  let file = "";
  const stack = []; // open "# Subtest:" frames: { indent, name, childFailed }
  const lines = tap.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const header = /^# (\.\/\S.*)$/.exec(line);
    if (header) {
      file = header[1].replace(/^\.\//, "");
      stack.length = 0;
      continue;
    }
    const sub = /^(\s*)# Subtest: (.*)$/.exec(line);
    if (sub) {
      stack.push({ indent: sub[1].length, name: sub[2], childFailed: false });
      continue;
    }
    const res = /^(\s*)(not ok|ok) \d+ - (.*?)(\s+# (SKIP|TODO)\b.*)?$/.exec(
      line,
    );
    if (!res) continue;
    files.add(file);
    const indent = res[1].length;
    const failed = res[2] === "not ok";
    const skipped = Boolean(res[5]);
    const top = stack[stack.length - 1];
    const isContainer = top !== undefined && top.indent === indent;
    const frame = isContainer ? stack.pop() : undefined;
    const parents = stack.map((f) => f.name);
    const name = [file, ...parents, res[3]].join(" > ");
    const record = () => {
      // The YAML block after a failure: "---", a JSON object, "...".
      let message = "";
      if (lines[i + 1]?.trim() === "---") {
        const body = [];
        let j = i + 2;
        for (; j < lines.length && lines[j].trim() !== "..."; j++) {
          body.push(lines[j].trim());
        }
        try {
          message = JSON.parse(body.join("\n")).message ?? body.join("\n");
        } catch {
          message = body.join("\n");
        }
        i = j;
      }
      failures.push(`✖ ${name}\n${message}`);
    };
    if (failed) {
      for (const f of stack) f.childFailed = true;
    }
    if (!isContainer) {
      if (failed) {
        counts.failed++;
        record();
      } else if (skipped) counts.skipped++;
      else counts.passed++;
    } else if (failed && !frame.childFailed) {
      counts.failed++;
      record();
    }
  }
  return { ...counts, files, failures };
}

export async function runDeno(files, { echo }) {
  rmSync(OUT, { recursive: true, force: true });
  const importMap = writeImportMap();
  const common = [
    "test",
    "--allow-all",
    "--no-check", // `deno check` already ran as a static check
    "--sanitize-ops",
    "--sanitize-resources",
    "--config",
    join(ROOT, "deno.json"),
    "--import-map",
    importMap,
  ];
  const args = [...common, "--reporter=tap", ...files.map((f) => f.rel)];
  const res = await run(BIN.deno, args, { timeoutMs: 10 * 60_000, echo });
  const parsed = parseDenoTap(res.output);
  const { files: seen, failures } = parsed;
  const counts = {
    passed: parsed.passed,
    failed: parsed.failed,
    skipped: parsed.skipped,
  };
  // Files without a "# ./file" section registered nothing, or failed to
  // load (Deno's TAP reporter then only sets the exit code). Re-run those
  // with the pretty reporter to show why.
  const missing = files.filter((f) => !seen.has(f.rel));
  let missingText = "";
  if (missing.length > 0) {
    const again = await run(
      BIN.deno,
      [...common, ...missing.map((f) => f.rel)],
      { timeoutMs: 5 * 60_000 },
    );
    missingText = `no results from ${
      missing.map((f) => f.rel).join(", ")
    } (registered no tests, or failed to load); deno's own output for ${
      missing.length === 1 ? "it" : "them"
    }:\n${again.output}`;
    counts.failed += missing.length;
  }
  const stray = res.output.split("\n").filter((l) =>
    /^error: /.test(l) && !/^error: Test failed/.test(l)
  );
  const failureText = [...failures, missingText, ...stray].filter(Boolean)
    .join("\n\n");
  return {
    ...counts,
    code: res.code !== 0 ? res.code : missing.length > 0 ? 1 : 0,
    output: res.output + (missingText ? `\n${missingText}` : ""),
    failureText,
    durationMs: res.durationMs,
    command: `deno ${
      args.slice(0, -files.length).join(" ")
    } <${files.length} files>`,
  };
}
