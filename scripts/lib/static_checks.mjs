// Step 1 of `npm test`: type check, lint, format, doc lint and a publish dry
// run, all through the pinned Deno from node_modules, offline.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { BIN, pool, readDenoJson, ROOT, run, walk } from "./util.mjs";

const CHECK_TARGETS = ["mod.ts", "src/", "tests/", "examples/"];
const TS = /\.(?:[cm]?ts|tsx)$/;

function hasTypeScript(target) {
  const full = join(ROOT, target);
  if (!existsSync(full)) return false;
  return target.endsWith("/") ? walk(full).some((f) => TS.test(f)) : true;
}

/** Export entry paths from deno.json ("exports" may be a string or a map). */
export function exportEntries(denoJson) {
  const exp = denoJson.exports;
  if (typeof exp === "string") return [exp];
  return exp && typeof exp === "object" ? Object.values(exp) : [];
}

/**
 * Preconditions that keep every Deno call offline: deno.json must say
 * `"nodeModulesDir": "manual"` so bare specifiers ("@sinonjs/fake-timers")
 * and `npm:`-less imports resolve from node_modules/ and package.json, and
 * Deno never tries to download packages.
 */
export function offlinePreconditions() {
  const problems = [];
  const denoJson = readDenoJson();
  if (denoJson.nodeModulesDir !== "manual") {
    problems.push(
      `deno.json must contain "nodeModulesDir": "manual" (found ${
        JSON.stringify(denoJson.nodeModulesDir)
      }); otherwise Deno may try to reach the npm registry`,
    );
  }
  if (!existsSync(BIN.deno)) {
    problems.push(`${BIN.deno} is missing: run "npm ci"`);
  }
  return problems;
}

/** The list of static checks, as `{ name, cmd, args }`. */
export function staticChecks() {
  const denoJson = readDenoJson();
  const targets = CHECK_TARGETS.filter(hasTypeScript);
  const entries = exportEntries(denoJson);
  const checks = [];
  if (targets.length > 0) {
    checks.push({ name: "deno check", args: ["check", ...targets] });
  }
  checks.push({ name: "deno lint", args: ["lint"] });
  checks.push({ name: "deno fmt --check", args: ["fmt", "--check"] });
  const missing = entries.filter((e) => !existsSync(join(ROOT, e)));
  if (missing.length > 0) {
    checks.push({
      name: "deno doc --lint",
      error: `export entries in deno.json do not exist: ${missing.join(", ")}`,
    });
  } else if (entries.length > 0) {
    checks.push({
      name: "deno doc --lint",
      args: ["doc", "--lint", ...entries],
    });
  }
  checks.push({
    name: "deno publish --dry-run",
    args: ["publish", "--dry-run", "--allow-dirty"],
  });
  return checks;
}

/**
 * Runs every static check (two at a time) and returns their results. The
 * caller stops before the test runs if any failed.
 */
export async function runStaticChecks(log) {
  const checks = staticChecks();
  const results = await pool(
    checks.map((check) => async () => {
      if (check.error) {
        return { ...check, ok: false, output: check.error, durationMs: 0 };
      }
      const res = await run(BIN.deno, check.args, { timeoutMs: 5 * 60_000 });
      return { ...check, ok: res.code === 0, ...res };
    }),
    2,
  );
  for (const r of results) {
    log(
      `  ${r.ok ? "ok  " : "FAIL"} ${r.name} (${
        (r.durationMs / 1000).toFixed(1)
      }s)`,
    );
  }
  return results;
}
