// Copyright 2026 the understudy authors. MIT license.
// JSON with comments, for the harness and for the tests that read the
// repository's own deno.json and jsr.json (no side effects, no imports, so
// a test can import it in any runtime).

/**
 * Parses JSON with comments and trailing commas (deno.json allows both).
 *
 * @param {string} text
 * @returns {unknown}
 */
export function parseJsonc(text) {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      out += "\n";
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 1;
    } else {
      out += c;
    }
  }
  return JSON.parse(out.replace(/,(\s*[}\]])/g, "$1"));
}
