// @runtimes deno node bun
// Not in the browser or workerd: it reads the repository (node:fs).
/**
 * `src/` must stay runtime-neutral: only relative imports (the package is
 * dependency-free and must run unchanged on Deno, Node, Bun and browsers) and
 * no runtime-specific globals (`Deno`, `Bun`, `process`, `require`, `Buffer`,
 * `__dirname`, `__filename`) or `node:` specifiers.
 *
 * The scanner (`scanSource`) ignores comments and string contents when it
 * looks for globals, so prose like "process the message" in a doc comment or
 * an error string is fine. Object keys / methods named `process` are fine too.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { findRepoRoot } from "./_repo.ts";

/** One problem found by {@linkcode scanSource}. */
interface Violation {
  line: number;
  rule: string;
  text: string;
}

interface Masked {
  /** Comments blanked out; string and template text kept. */
  noComments: string;
  /** Comments, string and template text blanked out. */
  code: string;
  /** Every string / template literal chunk with its start offset. */
  strings: { start: number; value: string }[];
}

const REGEX_PRECEDERS = new Set([
  "",
  "(",
  ",",
  "=",
  ":",
  "[",
  "!",
  "&",
  "|",
  "?",
  "{",
  "}",
  ";",
  "+",
  "-",
  "*",
  "%",
  "<",
  ">",
  "~",
  "^",
]);
const REGEX_KEYWORDS = new Set([
  "return",
  "typeof",
  "instanceof",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "case",
  "do",
  "else",
  "yield",
  "await",
]);

/**
 * Blanks out comments (and, in `code`, literal text) while keeping every
 * offset and newline in place, so matches map back to line numbers.
 */
function maskSource(src: string): Masked {
  const noComments = src.split("");
  const code = src.split("");
  const strings: { start: number; value: string }[] = [];
  const blank = (arr: string[], from: number, to: number) => {
    for (let k = from; k < to; k++) if (arr[k] !== "\n") arr[k] = " ";
  };
  // Template literal nesting: each entry counts open braces inside `${`.
  const templateDepth: number[] = [];
  let lastSignificant = "";
  let i = 0;
  const n = src.length;

  const readTemplateChunk = () => {
    // i points just after "`" or after the "}" closing a substitution.
    const start = i;
    while (i < n) {
      const c = src[i];
      if (c === "\\") {
        i += 2;
        continue;
      }
      if (c === "`") {
        strings.push({ start, value: src.slice(start, i) });
        blank(code, start, i);
        i++;
        templateDepth.pop();
        lastSignificant = "`";
        return;
      }
      if (c === "$" && src[i + 1] === "{") {
        strings.push({ start, value: src.slice(start, i) });
        blank(code, start, i);
        i += 2;
        templateDepth[templateDepth.length - 1] = 0;
        lastSignificant = "{";
        return;
      }
      i++;
    }
    blank(code, start, n);
  };

  while (i < n) {
    const c = src[i];
    const next = src[i + 1];
    if (c === "/" && next === "/") {
      const end = src.indexOf("\n", i);
      const stop = end < 0 ? n : end;
      blank(noComments, i, stop);
      blank(code, i, stop);
      i = stop;
      continue;
    }
    if (c === "/" && next === "*") {
      const end = src.indexOf("*/", i + 2);
      const stop = end < 0 ? n : end + 2;
      blank(noComments, i, stop);
      blank(code, i, stop);
      i = stop;
      continue;
    }
    if (c === "'" || c === '"') {
      const start = i + 1;
      i++;
      while (i < n && src[i] !== c && src[i] !== "\n") {
        i += src[i] === "\\" ? 2 : 1;
      }
      strings.push({ start, value: src.slice(start, i) });
      blank(code, start, i);
      i++;
      lastSignificant = c;
      continue;
    }
    if (c === "`") {
      i++;
      templateDepth.push(0);
      readTemplateChunk();
      continue;
    }
    if (templateDepth.length > 0) {
      if (c === "{") templateDepth[templateDepth.length - 1]++;
      if (c === "}") {
        if (templateDepth[templateDepth.length - 1] === 0) {
          i++;
          readTemplateChunk();
          continue;
        }
        templateDepth[templateDepth.length - 1]--;
      }
    }
    if (c === "/") {
      // Regex literal or division? Decide from the previous token.
      const isRegex = /[\w$]/.test(lastSignificant)
        ? REGEX_KEYWORDS.has(wordBefore(src, i))
        : REGEX_PRECEDERS.has(lastSignificant);
      if (isRegex) {
        const start = i;
        i++;
        let inClass = false;
        while (i < n && src[i] !== "\n") {
          const r = src[i];
          if (r === "\\") {
            i += 2;
            continue;
          }
          if (r === "[") inClass = true;
          else if (r === "]") inClass = false;
          else if (r === "/" && !inClass) break;
          i++;
        }
        i++;
        while (i < n && /[a-z]/i.test(src[i])) i++;
        blank(code, start, i);
        lastSignificant = "/";
        continue;
      }
    }
    if (!/\s/.test(c)) lastSignificant = c;
    i++;
  }
  return { noComments: noComments.join(""), code: code.join(""), strings };
}

/** The identifier that ends right before `offset` (skipping spaces). */
function wordBefore(src: string, offset: number): string {
  let end = offset;
  while (end > 0 && /\s/.test(src[end - 1])) end--;
  let start = end;
  while (start > 0 && /[\w$]/.test(src[start - 1])) start--;
  return src.slice(start, end);
}

function lineAt(src: string, offset: number): number {
  let line = 1;
  for (let k = 0; k < offset && k < src.length; k++) {
    if (src[k] === "\n") line++;
  }
  return line;
}

const isRelative = (spec: string) =>
  spec.startsWith("./") || spec.startsWith("../");

const IMPORT_PATTERNS: { rule: string; re: RegExp }[] = [
  {
    rule: "non-relative import",
    re:
      /\bimport\s+(?:type\s+)?(?:[\w$*{}\s,]+?\s+from\s*)?(["'])([^"'\n]*)\1/g,
  },
  {
    rule: "non-relative export-from",
    re:
      /\bexport\s+(?:type\s+)?(?:\*(?:\s+as\s+[\w$]+)?|\{[^}]*\})\s*from\s*(["'])([^"'\n]*)\1/g,
  },
  {
    rule: "non-relative dynamic import",
    re: /\bimport\s*\(\s*(["'`])([^"'`\n]*)\1/g,
  },
];

const GLOBAL_PATTERNS: { rule: string; re: RegExp }[] = [
  { rule: "Deno global", re: /\bDeno\b/g },
  { rule: "Bun global", re: /\bBun\b/g },
  // `process` as a value; not `x.process`, `process:` keys or
  // `process(...)` methods (the global is not callable).
  {
    rule: "process global",
    re: /(?<![.\w$]|\?\.)\bprocess\b(?!\s*(?:[:(<]|\?:))/g,
  },
  {
    rule: "process global",
    re: /\b(?:globalThis|window|self|global)\s*\??\.\s*process\b/g,
  },
  { rule: "require() call", re: /(?<![.\w$])\brequire\s*\(/g },
  { rule: "Buffer global", re: /(?<![.\w$])\bBuffer\b(?!\s*(?::|\?:))/g },
  { rule: "__dirname / __filename", re: /\b__(?:dirname|filename)\b/g },
];

/** Scans one source text; returns every violation found. */
function scanSource(src: string): Violation[] {
  const { noComments, code, strings } = maskSource(src);
  const out: Violation[] = [];
  const push = (offset: number, rule: string, text: string) =>
    out.push({ line: lineAt(src, offset), rule, text });

  for (const { rule, re } of IMPORT_PATTERNS) {
    for (const m of noComments.matchAll(re)) {
      const at = m.index ?? 0;
      // The keyword itself must be code, not text inside a string.
      if (code.slice(at, at + 6) !== m[0].slice(0, 6)) continue;
      if (!isRelative(m[2])) push(at, rule, JSON.stringify(m[2]));
    }
  }
  for (const m of code.matchAll(/\bimport\s*\(\s*(?![\s"'`])/g)) {
    push(m.index ?? 0, "dynamic import of a computed specifier", m[0]);
  }
  for (const m of code.matchAll(/\brequire\s*\.\s*resolve\b/g)) {
    push(m.index ?? 0, "require() call", m[0]);
  }
  for (const { rule, re } of GLOBAL_PATTERNS) {
    for (const m of code.matchAll(re)) push(m.index ?? 0, rule, m[0]);
  }
  for (const s of strings) {
    if (/^node:/.test(s.value)) {
      push(s.start, "node: specifier", JSON.stringify(s.value));
    }
  }
  for (
    const m of src.matchAll(
      /^\s*\/\/\/\s*<reference\s+(?:types=|lib=["'][^"']*deno).*$/gm,
    )
  ) {
    push(m.index ?? 0, "triple-slash type reference", m[0].trim());
  }
  const seen = new Set<string>();
  return out
    .sort((a, b) => a.line - b.line || a.rule.localeCompare(b.rule))
    .filter((v) => {
      const key = `${v.line}\0${v.rule}\0${v.text}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

const CODE_FILE = /\.(?:[cm]?[jt]s|[jt]sx)$/;

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...listFiles(full));
    else out.push(full);
  }
  return out;
}

describe("src purity scanner", () => {
  const rules = (src: string) => scanSource(src).map((v) => v.rule);

  it("flags npm:, jsr:, node: and bare imports", () => {
    assert.deepEqual(rules(`import x from "npm:foo";`), [
      "non-relative import",
    ]);
    assert.deepEqual(rules(`import { a, b } from 'jsr:@std/assert';`), [
      "non-relative import",
    ]);
    assert.deepEqual(rules(`import * as fs from "node:fs";`), [
      "node: specifier",
      "non-relative import",
    ]);
    assert.deepEqual(rules(`import type { X } from "lodash";`), [
      "non-relative import",
    ]);
    assert.deepEqual(rules(`import "side-effect";`), ["non-relative import"]);
    assert.deepEqual(rules(`import {\n  a,\n  b,\n} from "pkg";`), [
      "non-relative import",
    ]);
    assert.deepEqual(rules(`import x from "https://deno.land/x/y.ts";`), [
      "non-relative import",
    ]);
  });

  it("flags non-relative export-from and dynamic imports", () => {
    assert.deepEqual(rules(`export * from "pkg";`), [
      "non-relative export-from",
    ]);
    assert.deepEqual(rules(`export { a as b } from "pkg/sub";`), [
      "non-relative export-from",
    ]);
    assert.deepEqual(rules(`export type { T } from "pkg";`), [
      "non-relative export-from",
    ]);
    assert.deepEqual(rules(`const m = await import("pkg");`), [
      "non-relative dynamic import",
    ]);
    assert.deepEqual(rules(`const m = await import(name);`), [
      "dynamic import of a computed specifier",
    ]);
  });

  it("accepts relative imports and exports", () => {
    const src = [
      `import { a } from "./a.ts";`,
      `import type { B } from "../b/b.ts";`,
      `import * as c from './c.ts';`,
      `export { d } from "./d.ts";`,
      `export * from "../e.ts";`,
      `export type { F } from "./f.ts";`,
      `const g = await import("./g.ts");`,
      `export const h = 1;`,
    ].join("\n");
    assert.deepEqual(scanSource(src), []);
  });

  it("flags runtime-specific globals in code", () => {
    assert.deepEqual(rules(`const e = Deno.env.get("X");`), ["Deno global"]);
    assert.deepEqual(rules(`if (typeof Bun !== "undefined") {}`), [
      "Bun global",
    ]);
    assert.deepEqual(rules(`const x = process.env.HOME;`), [
      "process global",
    ]);
    assert.deepEqual(rules(`const { env } = process;`), ["process global"]);
    assert.deepEqual(rules(`globalThis.process?.nextTick(f);`), [
      "process global",
    ]);
    assert.deepEqual(rules(`const fs = require("fs");`), ["require() call"]);
    assert.deepEqual(rules(`const b = Buffer.from("x");`), ["Buffer global"]);
    assert.deepEqual(rules(`const d = __dirname;`), [
      "__dirname / __filename",
    ]);
    assert.deepEqual(rules(`const spec = "node:crypto";`), [
      "node: specifier",
    ]);
    assert.deepEqual(rules(`/// <reference types="node" />\nexport {};`), [
      "triple-slash type reference",
    ]);
  });

  it("reports line numbers", () => {
    const found = scanSource(`// header\n\nconst a = 1;\nDeno.exit(1);\n`);
    assert.deepEqual(found, [{ line: 4, rule: "Deno global", text: "Deno" }]);
  });

  it("ignores comments, strings, regexes and look-alike identifiers", () => {
    const src = [
      `// import x from "npm:foo"; Deno.exit(); process.env`,
      `/* require("fs"); Bun.serve() */`,
      `/** Call {@link process} to process the message. */`,
      `const msg = "failed to process: Deno and Bun differ; require(x)";`,
      'const t = `import y from "npm:bar" ${1 + 1} process.exit()`;',
      `const re = /import\\s+"npm:x"|Deno\\.|\\/\\//g;`,
      `const ratio = a / b / c; // not a regex`,
      `class Actor { process(m: string) { return this.process(m); } }`,
      `const handlers = { process: (m: unknown) => m, Buffer: 1 };`,
      `interface Hooks { process?: () => void; Buffer: Uint8Array }`,
      `const sab = new SharedArrayBuffer(8); const ab = new ArrayBuffer(8);`,
      `const isDeno = false; const DenoLike = 1; const myRequire = 2;`,
      `const n = obj.require("x"); const url = "see https://nodejs.org";`,
    ].join("\n");
    assert.deepEqual(scanSource(src), []);
  });

  it("still sees code after tricky literals", () => {
    const src = [
      "const a = `x ${`nested ${'}'}`} y`;",
      `const b = "quote \\" inside"; const c = '\\'';`,
      `const d = /[/"']/.test(a) ? 1 : 2;`,
      `Deno.exit(0);`,
    ].join("\n");
    assert.deepEqual(scanSource(src), [
      { line: 4, rule: "Deno global", text: "Deno" },
    ]);
  });
});

describe("src/ purity", () => {
  it("src/ has only relative imports and no runtime-specific globals", () => {
    const root = findRepoRoot();
    const srcDir = join(root, "src");
    assert.ok(existsSync(srcDir), `missing ${srcDir}`);
    const files = listFiles(srcDir).filter((f) => CODE_FILE.test(f));
    assert.ok(files.length > 0, "src/ contains no source files");
    const problems: string[] = [];
    for (const file of files) {
      const rel = relative(root, file).split(sep).join("/");
      for (const v of scanSource(readFileSync(file, "utf8"))) {
        problems.push(`${rel}:${v.line}: ${v.rule}: ${v.text}`);
      }
    }
    assert.deepEqual(
      problems,
      [],
      `src/ must stay runtime-neutral:\n  ${problems.join("\n  ")}`,
    );
  });
});
