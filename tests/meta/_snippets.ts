// Copyright 2026 the understudy authors. MIT license.
// Finding the TypeScript code blocks of a Markdown file (not a test file
// itself; used by readme_snippets.test.ts).

/** A fenced TypeScript block. */
export interface Snippet {
  /** 1-based line of the opening fence. */
  line: number;
  /** The info string after the fence, e.g. `ts no-run: needs a server`. */
  info: string;
  /** The code between the fences. */
  code: string;
  /**
   * Why it is only type-checked, from an info string `ts no-run: reason`;
   * `""` when `no-run` gives no reason, `undefined` when it is to be run.
   */
  noRun?: string;
}

const TS = /^(?:ts|typescript)$/i;

/**
 * Every fenced code block (``` or ~~~, indented at most 3 spaces) whose
 * language is `ts` or `typescript`. An unclosed block runs to the end of the
 * file, as CommonMark has it.
 */
export function typescriptSnippets(markdown: string): Snippet[] {
  const lines = markdown.split(/\r?\n/);
  const snippets: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,}|~{3,})\s*(.*)$/.exec(lines[i]);
    if (!open) continue;
    const [, fence, rest] = open;
    if (fence[0] === "`" && rest.includes("`")) continue; // not a fence
    const info = rest.trim();
    const body: string[] = [];
    let j = i + 1;
    const close = new RegExp(`^ {0,3}${fence[0]}{${fence.length},}\\s*$`);
    for (; j < lines.length && !close.test(lines[j]); j++) body.push(lines[j]);
    const [lang = "", ...words] = info.split(/\s+/);
    if (TS.test(lang)) {
      const flags = words.join(" ");
      const noRun = /^no-run\b:?\s*(.*)$/.exec(flags);
      snippets.push({
        line: i + 1,
        info,
        code: body.join("\n") + "\n",
        noRun: noRun ? noRun[1].trim() : undefined,
      });
    }
    i = j;
  }
  return snippets;
}
