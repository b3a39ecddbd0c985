// @runtimes deno node bun
// Not in the browser or workerd: it reads the repository (node:fs).
// Copyright 2026 the understudy authors. MIT license.
/**
 * The README is the package's page on JSR: every file it (and the documents
 * it links) links or shows by a relative path must exist and be published
 * (deno.json `publish.include`), or the page shows a broken link or image.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join, normalize } from "node:path";
import { findRepoRoot, parseJsonc } from "./_repo.ts";

/** Relative link and image targets of a Markdown text, without their `#fragment`. */
function relativeTargets(markdown: string): string[] {
  const targets: string[] = [];
  for (const match of markdown.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)) {
    const target = match[1];
    if (/^[a-z][a-z+.-]*:/i.test(target) || target.startsWith("#")) continue;
    targets.push(target.replace(/#.*$/, ""));
  }
  return targets;
}

describe("README links on the JSR page", () => {
  const root = findRepoRoot();
  const deno = parseJsonc(readFileSync(join(root, "deno.json"), "utf8")) as {
    publish?: { include?: string[] };
  };
  const include = deno.publish?.include;
  const published = (path: string): boolean =>
    include === undefined || include.some((pattern) => {
      const pat = pattern.replace(/^\.\//, "");
      return pat === path || (pat.endsWith("/") && path.startsWith(pat)) ||
        path.startsWith(`${pat}/`);
    });

  it("links only files that exist and are published (README and the Markdown it links)", () => {
    const seen = new Set<string>();
    const queue = ["README.md"];
    while (queue.length > 0) {
      const file = queue.shift()!;
      if (seen.has(file)) continue;
      seen.add(file);
      const dir = file.includes("/") ? file.replace(/\/[^/]*$/, "/") : "";
      for (
        const target of relativeTargets(
          readFileSync(join(root, file), "utf8"),
        )
      ) {
        const path = normalize(dir + target).replace(/\\/g, "/");
        assert.ok(
          existsSync(join(root, path)),
          `${file} links ${path}, missing`,
        );
        assert.ok(
          published(path),
          `${file} links ${path}, which deno.json publish.include leaves out`,
        );
        if (path.endsWith(".md")) queue.push(path);
      }
    }
    // The README links the changelog and the benchmarks, and both are checked.
    assert.ok(
      seen.has("CHANGELOG.md") && seen.has("BENCHMARKS.md"),
      [...seen].join(", "),
    );
  });

  it("links only sections that exist (README's own #anchors)", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8")
      .replace(/^```[\s\S]*?^```/gm, ""); // headings inside code are no headings
    // GitHub's and JSR's slugs: lower case, punctuation dropped, spaces to "-".
    const slugs = new Set(
      [...readme.matchAll(/^#{1,6} (.*)$/gm)].map((m) =>
        m[1].trim().toLowerCase().replace(/[^\w\- ]/g, "").replaceAll(" ", "-")
      ),
    );
    const missing = [...readme.matchAll(/\]\(#([^)\s]+)\)/g)]
      .map((m) => m[1])
      .filter((anchor) => !slugs.has(anchor));
    assert.deepEqual(missing, []);
  });

  it("links the API reference on JSR", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    assert.ok(readme.includes("(https://jsr.io/@understudy/core/doc)"));
  });
});
