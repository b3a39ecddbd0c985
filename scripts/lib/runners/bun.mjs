// Bun: `bun test` on the selected files (each given as ./tests/..., which
// makes Bun treat it as a path rather than a name filter that would also
// match built copies under .build/).
import { BIN, run } from "../util.mjs";

/** Bun's default 5s per-test timeout is far below Node's (none); align. */
const PER_TEST_TIMEOUT_MS = 60_000;

/** Reads Bun's closing summary (" 12 pass", " 1 fail", " 2 skip", ...). */
export function countBun(output) {
  const last = (word) => {
    const all = [
      ...output.matchAll(new RegExp(`^\\s*(\\d+) ${word}\\b`, "gm")),
    ];
    return all.length ? Number(all[all.length - 1][1]) : 0;
  };
  return {
    passed: last("pass"),
    // Bun counts an unhandled error between tests both in " N fail" and in
    // " N error"; the latter alone only matters when nothing else failed.
    failed: last("fail") || last("errors?"),
    skipped: last("skip") + last("todo"),
  };
}

/**
 * Files whose section in Bun's output lists no result, split by whether
 * Bun reported an error for them (already counted in " N error").
 */
export function emptyBunFiles(output, files) {
  const perFile = new Map();
  let current;
  for (const line of output.split("\n")) {
    const header = /^(\S.*\.test\.ts):$/.exec(line);
    if (header) {
      current = header[1].replace(/^\.\//, "");
      if (!perFile.has(current)) perFile.set(current, { n: 0, error: false });
    } else if (current && /^\((pass|fail|skip|todo)\) /.test(line)) {
      perFile.get(current).n++;
    } else if (current && /^# Unhandled error|^error: /.test(line)) {
      perFile.get(current).error = true;
    }
  }
  const empty = files.filter((f) => (perFile.get(f.rel)?.n ?? 0) === 0);
  return {
    empty,
    uncounted: empty.filter((f) => !perFile.get(f.rel)?.error),
  };
}

/** Bun's output without passing results and without now-empty file headers. */
function failureText(output) {
  const lines = output.split("\n").filter((l) => !/^\(pass\) /.test(l));
  const isHeader = (l) => /^\S.*\.test\.ts:$/.test(l);
  return lines.filter((l, i) => {
    if (!isHeader(l)) return true;
    const next = lines.slice(i + 1).find((n) => n.trim() !== "");
    return next !== undefined && !isHeader(next) && !/^\s*\d+ pass/.test(next);
  }).join("\n").replace(/\n{3,}/g, "\n\n");
}

export async function runBun(files, { echo }) {
  const args = [
    "test",
    "--timeout",
    String(PER_TEST_TIMEOUT_MS),
    ...files.map((f) => `./${f.rel}`),
  ];
  const res = await run(BIN.bun, args, { timeoutMs: 10 * 60_000, echo });
  const counts = countBun(res.output);
  const { empty, uncounted } = emptyBunFiles(res.output, files);
  counts.failed += uncounted.length;
  return {
    ...counts,
    notes: empty.map((f) => `${f.rel}: registered no tests under Bun`).join(
      "\n",
    ),
    code: res.code,
    output: res.output,
    failureText: failureText(res.output),
    durationMs: res.durationMs,
    command: `bun ${
      args.slice(0, -files.length).join(" ")
    } <${files.length} files>`,
  };
}
