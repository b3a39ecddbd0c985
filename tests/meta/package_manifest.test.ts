// @runtimes deno node bun
// Not in the browser or workerd: it reads the repository (node:fs).
/**
 * deno.json and jsr.json describe the same package: `@understudy/core` 0.1.0
 * with identical exports, every one of which exists and is published.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { findRepoRoot, parseJsonc } from "./_repo.ts";

interface Manifest {
  name?: unknown;
  version?: unknown;
  exports?: unknown;
  publish?: { include?: unknown; exclude?: unknown };
}

function normalizeExports(exports: unknown): Record<string, string> {
  if (typeof exports === "string") return { ".": exports };
  assert.ok(
    exports !== null && typeof exports === "object" && !Array.isArray(exports),
    `"exports" must be a string or an object, got ${JSON.stringify(exports)}`,
  );
  for (const [key, value] of Object.entries(exports)) {
    assert.equal(typeof value, "string", `exports[${key}] must be a string`);
  }
  return exports as Record<string, string>;
}

describe("package manifests", () => {
  const root = findRepoRoot();
  const read = (file: string) =>
    parseJsonc(readFileSync(join(root, file), "utf8")) as Manifest;
  const deno = read("deno.json");
  const jsr = read("jsr.json");

  it("is @understudy/core 0.1.0 in both deno.json and jsr.json", () => {
    assert.equal(deno.name, "@understudy/core");
    assert.equal(jsr.name, "@understudy/core");
    assert.equal(deno.version, "0.1.0");
    assert.equal(jsr.version, "0.1.0");
  });

  it("has identical exports in deno.json and jsr.json", () => {
    assert.deepEqual(
      normalizeExports(jsr.exports),
      normalizeExports(deno.exports),
    );
  });

  it("exports ./mod.ts as the main entry point", () => {
    assert.equal(normalizeExports(deno.exports)["."], "./mod.ts");
  });

  it("points every export at an existing file", () => {
    for (const manifest of [deno, jsr]) {
      for (
        const [key, path] of Object.entries(normalizeExports(manifest.exports))
      ) {
        assert.ok(
          key === "." || key.startsWith("./"),
          `export key ${JSON.stringify(key)} must be "." or start with "./"`,
        );
        assert.ok(
          path.startsWith("./"),
          `export ${key} -> ${path} must start with "./"`,
        );
        const full = join(root, path);
        assert.ok(
          existsSync(full) && statSync(full).isFile(),
          `export ${key} -> ${path} does not exist`,
        );
      }
    }
  });

  it("publishes every exported file (deno.json publish.include)", () => {
    const include = deno.publish?.include;
    if (include === undefined) return; // everything is published
    assert.ok(Array.isArray(include), "publish.include must be an array");
    const patterns = include as string[];
    for (const path of Object.values(normalizeExports(deno.exports))) {
      const rel = path.replace(/^\.\//, "");
      const covered = patterns.some((p) => {
        const pat = p.replace(/^\.\//, "");
        return pat === rel || (pat.endsWith("/") && rel.startsWith(pat)) ||
          rel.startsWith(`${pat}/`);
      });
      assert.ok(covered, `${path} is exported but not in publish.include`);
    }
  });
});
