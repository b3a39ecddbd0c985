// @runtimes deno node bun
// Not in the browser or workerd: it reads the repository (node:fs).
// Copyright 2026 the understudy authors. MIT license.
/**
 * The README is the package's page on JSR and the guide's pages (docs/) are
 * published beside it: every relative link or image in the README, in every
 * Markdown file under docs/ and in the Markdown they link must lead to a
 * file that exists and is published (deno.json `publish.include`), and
 * every `#anchor` to a heading of its target, or a reader meets a broken
 * link or image.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join, normalize } from "node:path";
import { findRepoRoot, parseJsonc } from "./_repo.ts";
import {
  headingAnchors,
  isExternal,
  manualFiles,
  markdownLinks,
} from "./_markdown.ts";

const root = findRepoRoot();
const read = (path: string) => readFileSync(join(root, path), "utf8");

/** A `publish.include` pattern as a test of a path (a glob, a folder, a file). */
function includes(pattern: string): (path: string) => boolean {
  const pat = pattern.replace(/^\.\//, "");
  if (!/[*?[]/.test(pat)) {
    return (path) =>
      path === pat || (pat.endsWith("/") && path.startsWith(pat)) ||
      path.startsWith(`${pat}/`);
  }
  const source = pat.replace(/[.+^${}()|\\]/g, "\\$&")
    .replace(
      /\*\*\/|\*\*|\*|\?/g,
      (glob) =>
        glob === "**/"
          ? "(?:.*/)?"
          : glob === "**"
          ? ".*"
          : glob === "*"
          ? "[^/]*"
          : "[^/]",
    );
  const regex = new RegExp(`^${source}$`);
  return (path) => regex.test(path);
}

describe("the manual's links (README.md, docs/ and the Markdown they link)", () => {
  const deno = parseJsonc(read("deno.json")) as {
    publish?: { include?: string[] };
  };
  const include = deno.publish?.include?.map(includes);
  const published = (path: string): boolean =>
    include === undefined || include.some((test) => test(path));

  /** Every Markdown file reached from the manual, and each link in it. */
  function crawl(): {
    seen: Set<string>;
    links: { from: string; line: number; path: string; anchor?: string }[];
  } {
    const seen = new Set<string>();
    const links: {
      from: string;
      line: number;
      path: string;
      anchor?: string;
    }[] = [];
    const queue = manualFiles(root);
    while (queue.length > 0) {
      const file = queue.shift()!;
      if (seen.has(file)) continue;
      seen.add(file);
      const dir = file.includes("/") ? file.replace(/\/[^/]*$/, "/") : "";
      for (const { line, target } of markdownLinks(read(file))) {
        if (isExternal(target)) continue;
        const [relative, anchor] = target.split("#", 2) as [string, string?];
        const path = relative === ""
          ? file
          : normalize(dir + relative).replace(/\\/g, "/");
        links.push({ from: file, line, path, anchor });
        if (path.endsWith(".md") && existsSync(join(root, path))) {
          queue.push(path);
        }
      }
    }
    return { seen, links };
  }

  it("covers README.md and every page under docs/", () => {
    const { seen } = crawl();
    const pages = manualFiles(root);
    assert.ok(pages.length > 1, `no page under docs/: ${pages.join(", ")}`);
    for (const page of pages) assert.ok(seen.has(page), page);
    // The README links the changelog and the benchmarks, and both are checked.
    assert.ok(
      seen.has("CHANGELOG.md") && seen.has("BENCHMARKS.md"),
      [...seen].join(", "),
    );
  });

  it("links only files that exist and are published", () => {
    const broken: string[] = [];
    for (const { from, line, path } of crawl().links) {
      if (!existsSync(join(root, path))) {
        broken.push(`${from}:${line} links ${path}, missing`);
      } else if (!published(path)) {
        broken.push(
          `${from}:${line} links ${path}, which deno.json publish.include leaves out`,
        );
      }
    }
    assert.deepEqual(broken, []);
  });

  it("links only sections that exist (#anchors, GitHub's slugs)", () => {
    const anchors = new Map<string, Set<string>>();
    const broken: string[] = [];
    for (const { from, line, path, anchor } of crawl().links) {
      if (anchor === undefined || !existsSync(join(root, path))) continue;
      if (!path.endsWith(".md")) {
        broken.push(`${from}:${line}: #${anchor} into ${path}, not Markdown`);
        continue;
      }
      if (!anchors.has(path)) anchors.set(path, headingAnchors(read(path)));
      if (!anchors.get(path)!.has(anchor)) {
        broken.push(`${from}:${line}: ${path} has no heading #${anchor}`);
      }
    }
    assert.deepEqual(broken, []);
  });

  it("links the API reference on JSR", () => {
    assert.ok(
      read("README.md").includes("(https://jsr.io/@understudy/core/doc)"),
    );
  });
});

describe("GitHub's heading anchors, as the link check computes them", () => {
  it("lower-cases, drops punctuation and code marks, numbers repeats", () => {
    const anchors = headingAnchors(
      [
        "# The guide",
        "## Backoff policies (`@understudy/core/backoff`, importable alone)",
        "### 9. Fairness",
        "```md",
        "## Not a heading: inside code",
        "```",
        "## Proof",
        "## Proof",
        "## Closing hashes ##",
      ].join("\n"),
    );
    assert.deepEqual([...anchors], [
      "the-guide",
      "backoff-policies-understudycorebackoff-importable-alone",
      "9-fairness",
      "proof",
      "proof-1",
      "closing-hashes",
    ]);
  });

  it("finds links outside code, wrapped ones included, with their lines", () => {
    const links = markdownLinks(
      [
        "See [the guide](docs/README.md) and",
        "[a link whose text",
        "wraps](docs/testing.md#testprobe).",
        "`[not a link](nowhere.md)`",
        "```ts",
        "const x = [a](b);",
        "```",
        "![chart](bench/results/chart.svg)",
      ].join("\n"),
    );
    assert.deepEqual(links, [
      { line: 1, target: "docs/README.md" },
      { line: 2, target: "docs/testing.md#testprobe" },
      { line: 8, target: "bench/results/chart.svg" },
    ]);
  });
});
