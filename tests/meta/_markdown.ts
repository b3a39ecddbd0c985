// Copyright 2026 the understudy authors. MIT license.
// Reading the manual: which Markdown files it is made of, their headings as
// GitHub's anchors and their links (not a test file itself; used by the
// readme_* tests).

import { readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * The manual's files, as paths from the repository root: `README.md`, then
 * every `*.md` under `docs/` at any depth, sorted. Found by walking the
 * directory, so a page added later is covered without naming it here.
 */
export function manualFiles(root: string): string[] {
  const pages: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && entry.name.endsWith(".md")) pages.push(path);
    }
  };
  walk("docs");
  return ["README.md", ...pages.sort()];
}

/**
 * The text outside fenced code blocks (``` or ~~~), each fenced line made
 * empty so that line numbers stay right: a heading or a link shown inside
 * code is neither.
 */
export function proseOf(markdown: string): string {
  const lines = markdown.split(/\r?\n/);
  let fence: RegExp | undefined;
  return lines.map((line) => {
    if (fence !== undefined) {
      if (fence.test(line)) fence = undefined;
      return "";
    }
    const open = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (open && !(open[1][0] === "`" && open[2].includes("`"))) {
      fence = new RegExp(`^ {0,3}${open[1][0]}{${open[1].length},}\\s*$`);
      return "";
    }
    return line;
  }).join("\n");
}

/**
 * The anchors GitHub (and JSR) give a file's headings: the text lower-cased,
 * inline code marks and punctuation dropped, each space a hyphen; a repeated
 * slug gets `-1`, `-2`, … in order.
 */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (
    const match of proseOf(markdown).matchAll(
      /^ {0,3}#{1,6} +(.*?)(?: +#+)? *$/gm,
    )
  ) {
    const text = match[1].trim()
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1"); // a link counts by its text
    const slug = text.toLowerCase()
      .replace(/[^\p{L}\p{N}_\- ]/gu, "")
      .replaceAll(" ", "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** A link or an image of a Markdown text. */
export interface MarkdownLink {
  /** 1-based line where it is. */
  line: number;
  /** The target as written, e.g. `docs/testing.md#testprobe`. */
  target: string;
}

/**
 * Every inline link and image `[text](target)` outside code (fenced blocks
 * and `code spans`).
 */
export function markdownLinks(markdown: string): MarkdownLink[] {
  // Code spans blanked, lengths kept (they may wrap, as link texts may).
  const prose = proseOf(markdown).replace(
    /(`+)(?:(?!\1)[^])*?\1/g,
    (code) => code.replace(/[^\n]/g, " "),
  );
  const links: MarkdownLink[] = [];
  for (const match of prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)) {
    const line = prose.slice(0, match.index).split("\n").length;
    links.push({ line, target: match[1] });
  }
  return links;
}

/** Whether a link target is a URL with a scheme (`https:`, `mailto:`). */
export function isExternal(target: string): boolean {
  return /^[a-z][a-z+.-]*:/i.test(target);
}
