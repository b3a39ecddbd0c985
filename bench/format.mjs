// Copyright 2026 the understudy authors. MIT license.

/** Number formatting and result look-ups shared by the report and the chart. */

/** 12.35 M, 456.7 k, 789. */
export function fmtCount(x) {
  if (!Number.isFinite(x)) return "–";
  if (x >= 1e6) return `${(x / 1e6).toFixed(2)} M`;
  if (x >= 1e4) return `${(x / 1e3).toFixed(0)} k`;
  if (x >= 1e3) return `${(x / 1e3).toFixed(1)} k`;
  return x.toFixed(0);
}

/** Milliseconds with three significant figures or so. */
export function fmtMs(x) {
  if (!Number.isFinite(x)) return "–";
  if (x >= 100) return x.toFixed(0);
  if (x >= 10) return x.toFixed(1);
  return x.toFixed(2);
}

/** Whole bytes with thousands separators. */
export function fmtBytes(x) {
  if (!Number.isFinite(x)) return "–";
  return Math.round(x).toLocaleString("en-US");
}

export function fmtRatio(x) {
  if (!Number.isFinite(x)) return "–";
  return `${x >= 10 ? x.toFixed(1) : x.toFixed(2)}×`;
}

/** `n` with thousands separators. */
export function fmtN(n) {
  return n.toLocaleString("en-US");
}

export const RUNTIME_LABELS = {
  node: "Node",
  deno: "Deno",
  bun: "Bun",
  browser: "Chromium",
};

/** The jobs matching every given field. */
export function select(results, query) {
  return results.jobs.filter((job) =>
    Object.entries(query).every(([k, v]) => job[k] === v)
  );
}

/** The one job matching `query`, or undefined. */
export function pick(results, query) {
  return select(results, query)[0];
}

/** `stats[metric].median` of an ok job, else NaN. */
export function median(job, metric) {
  return job?.status === "ok"
    ? job.stats[metric]?.median ?? Number.NaN
    : Number.NaN;
}

/** The sizes our library's spawn ran at (the peers may run at fewer). */
export function spawnSizes(results) {
  const jobs = select(results, { workload: "spawn" });
  const ours = jobs.filter((j) => j.impl === "understudy");
  return [...new Set((ours.length > 0 ? ours : jobs).map((j) => j.n))].sort((
    a,
    b,
  ) => a - b);
}
