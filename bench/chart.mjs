// Copyright 2026 the understudy authors. MIT license.

/**
 * Draws bench/results/chart.svg from the results: a few panels of horizontal
 * bars (median, with a min–max whisker), our library in blue, peers in grey,
 * baselines hatched. Plain SVG, no dependencies.
 */

import {
  fmtBytes,
  fmtCount,
  fmtMs,
  fmtN,
  RUNTIME_LABELS,
  select,
  spawnSizes,
} from "./format.mjs";

const WIDTH = 860;
const LABEL_W = 290;
const VALUE_W = 90;
const BAR_H = 16;
const ROW_H = 22;
const PANEL_PAD = 14;
const TITLE_H = 26;
const COLORS = { understudy: "#2563eb", peer: "#8b95a1", baseline: "#c7cdd4" };

function escape(text) {
  return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(
    />/g,
    "&gt;",
  );
}

function rowLabel(job, panelN) {
  const rt = RUNTIME_LABELS[job.runtime];
  const base = job.impl === "understudy"
    ? `understudy (${rt})`
    : job.kind === "baseline" || job.runtime !== "node"
    ? `${job.label} (${rt})`
    : job.label;
  return job.n === panelN ? base : `${base}, n=${fmtN(job.n)}`;
}

/** Panels: which jobs, which metric. */
function panels(results) {
  const sizes = spawnSizes(results);
  const mid = sizes[Math.floor(sizes.length / 2)];
  const jobsOf = (workload, filter = () => true) =>
    select(results, { workload }).filter((j) => filter(j) && j.status === "ok");
  const first = (workload) => select(results, { workload })[0];
  const out = [];
  const pp = first("pingpong");
  if (pp) {
    out.push({
      title: `Ping-pong, ${
        fmtN(pp.n)
      } round trips: messages per second (higher is better)`,
      n: pp.n,
      metric: "rate",
      format: fmtCount,
      jobs: jobsOf("pingpong", (j) => j.fn !== "pingpong-call"),
    });
  }
  const fi = first("fanin");
  if (fi) {
    out.push({
      title: `Fan-in, ${
        fmtN(fi.n)
      } tells into one actor: messages per second (higher is better)`,
      n: fi.n,
      metric: "rate",
      format: fmtCount,
      jobs: jobsOf("fanin", (j) => j.fn !== "fanin-call"),
    });
  }
  /** Spawn jobs at the middle size, or a row's largest size when it did not run at the middle one. */
  const spawnRows = () => {
    const rows = new Map();
    for (const job of jobsOf("spawn")) {
      const key = `${job.fn}/${job.impl}/${job.runtime}`;
      const held = rows.get(key);
      if (
        held === undefined ||
        (held.n !== mid && (job.n === mid || job.n > held.n))
      ) rows.set(key, job);
    }
    return [...rows.values()];
  };
  if (mid !== undefined) {
    out.push({
      title: `Heap bytes per idle actor, ${fmtN(mid)} actors (lower is better)`,
      n: mid,
      metric: "bytesPerActor",
      format: fmtBytes,
      jobs: spawnRows(),
    });
    out.push({
      title: `Spawn ${
        fmtN(mid)
      } actors until all started: ms (lower is better)`,
      n: mid,
      metric: "ms",
      format: fmtMs,
      jobs: jobsOf("spawn", (j) => j.n === mid),
    });
  }
  const ask = first("ask");
  if (ask) {
    out.push({
      title: `Ask, ${
        fmtN(ask.n)
      } sequential round trips: asks per second (higher is better)`,
      n: ask.n,
      metric: "rate",
      format: fmtCount,
      jobs: jobsOf("ask"),
    });
  }
  // Ours first, then the peers, then the baselines; plan order within each.
  const rank = (j) =>
    j.impl === "understudy" ? 0 : j.kind === "baseline" ? 2 : 1;
  for (const p of out) {
    p.jobs = p.jobs.map((j, i) => [j, i])
      .sort((a, b) => rank(a[0]) - rank(b[0]) || a[1] - b[1])
      .map(([j]) => j);
  }
  return out.filter((p) => p.jobs.length > 0);
}

function panelSvg(panel, y) {
  const parts = [];
  const plotW = WIDTH - LABEL_W - VALUE_W - 2 * PANEL_PAD;
  const max = Math.max(...panel.jobs.map((j) => j.stats[panel.metric].max));
  const x = (v) => LABEL_W + PANEL_PAD + (v / max) * plotW;
  parts.push(
    `<text x="${PANEL_PAD}" y="${y + 17}" class="title">${
      escape(panel.title)
    }</text>`,
  );
  panel.jobs.forEach((job, i) => {
    const s = job.stats[panel.metric];
    const rowY = y + TITLE_H + i * ROW_H;
    const kind = job.impl === "understudy"
      ? "understudy"
      : job.kind === "baseline"
      ? "baseline"
      : "peer";
    const x0 = LABEL_W + PANEL_PAD;
    parts.push(
      `<text x="${LABEL_W + PANEL_PAD - 8}" y="${rowY + 12}" class="label${
        kind === "understudy" ? " ours" : ""
      }">${escape(rowLabel(job, panel.n))}</text>`,
      `<rect x="${x0}" y="${rowY}" width="${
        Math.max(1, x(s.median) - x0).toFixed(1)
      }" height="${BAR_H}" fill="${
        kind === "baseline" ? "url(#hatch)" : COLORS[kind]
      }"/>`,
      `<line x1="${x(s.min).toFixed(1)}" x2="${x(s.max).toFixed(1)}" y1="${
        rowY + BAR_H / 2
      }" y2="${rowY + BAR_H / 2}" class="whisker"/>`,
      `<line x1="${x(s.min).toFixed(1)}" x2="${x(s.min).toFixed(1)}" y1="${
        rowY + 4
      }" y2="${rowY + BAR_H - 4}" class="whisker"/>`,
      `<line x1="${x(s.max).toFixed(1)}" x2="${x(s.max).toFixed(1)}" y1="${
        rowY + 4
      }" y2="${rowY + BAR_H - 4}" class="whisker"/>`,
      `<text x="${(x(s.max) + 6).toFixed(1)}" y="${rowY + 12}" class="value">${
        escape(panel.format(s.median))
      }</text>`,
    );
  });
  return {
    svg: parts.join("\n"),
    height: TITLE_H + panel.jobs.length * ROW_H + PANEL_PAD,
  };
}

/** The chart as an SVG document. */
export function renderChart(results) {
  const body = [];
  let y = PANEL_PAD;
  for (const panel of panels(results)) {
    const { svg, height } = panelSvg(panel, y);
    body.push(svg);
    y += height;
  }
  const { meta } = results;
  const footer = [
    `Medians of ${meta.runs} runs, whiskers min–max; one ${meta.mode} run on ${meta.machine.cores} shared cores, ${
      meta.date.slice(0, 10)
    }; understudy at ${meta.revision ?? "unknown"}.`,
    "Blue: understudy; grey: peers (Node); hatched: baselines. Drawn by bench/chart.mjs; details in BENCHMARKS.md.",
  ];
  footer.forEach((line, i) =>
    body.push(
      `<text x="${PANEL_PAD}" y="${y + 12 + 16 * i}" class="footer">${
        escape(line)
      }</text>`,
    )
  );
  const height = y + 12 + 16 * footer.length;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="understudy benchmark chart">
<defs>
<pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
<rect width="6" height="6" fill="${COLORS.baseline}"/><line x1="0" y1="0" x2="0" y2="6" stroke="#9aa3ad" stroke-width="2"/>
</pattern>
<style>
text { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 12px; fill: #1f2328; }
.title { font-weight: 600; font-size: 13px; }
.label { text-anchor: end; }
.ours { font-weight: 600; fill: #1d4ed8; }
.value { fill: #424a53; }
.footer { font-size: 11px; fill: #59636e; }
.whisker { stroke: #1f2328; stroke-width: 1; }
</style>
</defs>
<rect width="100%" height="100%" fill="#ffffff"/>
${body.join("\n")}
</svg>
`;
}
