// Copyright 2026 the understudy authors. MIT license.

/**
 * Turns bench results (bench/results/latest.json) into Markdown: the
 * summary `npm run bench` prints, and BENCHMARKS.md.
 *
 * Run alone to regenerate BENCHMARKS.md and the chart from the last results
 * without measuring again: `npm run bench:report`.
 */

import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { renderChart } from "./chart.mjs";
import {
  fmtBytes,
  fmtCount,
  fmtMs,
  fmtN,
  fmtRatio,
  median,
  pick,
  RUNTIME_LABELS,
  select,
  spawnSizes,
} from "./format.mjs";

const MET = "✅";
const MISSED = "❌";

// ───────────── generic tables ─────────────

function statusCell(job) {
  return job.status === "unavailable"
    ? job.reason
    : `${job.status}: ${job.reason}`;
}

function notesOf(job) {
  return (job.notes ?? []).join("; ");
}

/**
 * Cost (ms, or 1 / rate) relative to the fastest library under Node, where
 * every peer runs: 1.00× is that row, 3.00× costs three times as much, and
 * a Deno or Bun row (ours only) says how that runtime compares with it.
 */
function costRatios(jobs, metric, higherIsBetter) {
  const cost = (job) => {
    const m = median(job, metric);
    return higherIsBetter ? 1 / m : m;
  };
  const libraries = jobs.filter((j) =>
    j.kind === "library" && j.status === "ok" && j.runtime === "node"
  );
  const best = Math.min(...libraries.map(cost));
  return new Map(jobs.map((j) => [j, cost(j) / best]));
}

function ratioCell(job, ratios) {
  const r = ratios.get(job);
  if (!Number.isFinite(r)) return "–";
  if (job.kind === "baseline") return `${fmtRatio(r)} (baseline)`;
  return Math.abs(r - 1) < 1e-9 ? "1.00× (fastest on Node)" : fmtRatio(r);
}

/**
 * One row per job: median, min, max of `metric`, and cost × the fastest
 * library's.
 */
function metricTable(jobs, { metric, unit, higherIsBetter, format }) {
  const ratios = costRatios(jobs, metric, higherIsBetter);
  const lines = [
    `| Implementation | Runtime | N | ${unit} (median) | min | max | cost × fastest library on Node | Notes |`,
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |",
  ];
  for (const job of jobs) {
    const who = `${job.label}`;
    const rt = RUNTIME_LABELS[job.runtime];
    if (job.status !== "ok") {
      lines.push(
        `| ${who} | ${rt} | ${fmtN(job.n)} | – | – | – | – | ${
          statusCell(job)
        } |`,
      );
      continue;
    }
    const s = job.stats[metric];
    lines.push(
      `| ${job.impl === "understudy" ? `**${who}**` : who} | ${rt} | ${
        fmtN(job.n)
      } | ${format(s.median)} | ${format(s.min)} | ${format(s.max)} | ${
        ratioCell(job, ratios)
      } | ${notesOf(job)} |`,
    );
  }
  return lines.join("\n");
}

function medianRange(job, metric, format) {
  if (job?.status !== "ok") return job === undefined ? "–" : "n/a";
  const s = job.stats[metric];
  if (s === undefined) return "–";
  return `${format(s.median)} (${format(s.min)}–${format(s.max)})`;
}

// ───────────── sections ─────────────

const SECTIONS = [
  {
    workload: "pingpong",
    title: "1. Ping-pong",
    metric: "rate",
    unit: "msg/s",
    higherIsBetter: true,
    format: fmtCount,
    text: (n) =>
      `Two actors with one message in flight, ${
        fmtN(n)
      } round trips; msg/s counts **2 messages per round trip** ` +
      "(ping and pong). The `queueMicrotask` chain row is callbacks/s of a chain of the same number of callbacks " +
      "(each queues the next); the function-call row is 2 plain method calls per round trip in a loop.",
  },
  {
    workload: "fanin",
    title: "2. Fan-in",
    metric: "rate",
    unit: "msg/s",
    higherIsBetter: true,
    format: fmtCount,
    text: (n) =>
      `${
        fmtN(n)
      } \`tell\`s from plain code, in one synchronous loop, into one actor; timed until the actor has ` +
      "handled the last. Baselines: the same number of `queueMicrotask` callbacks queued at once, and of plain method calls.",
  },
  {
    workload: "fanout",
    title: "3. Fan-out",
    metric: "ms",
    unit: "ms until all handled",
    higherIsBetter: false,
    format: fmtMs,
    text: (n) =>
      `One message to each of ${
        fmtN(n)
      } idle actors, spawned and started beforehand (not timed); ` +
      "timed from the first send until every actor has handled its message.",
  },
  { workload: "spawn", custom: "spawn", title: "4. Spawn" },
  {
    workload: "ask",
    title: "5. Ask",
    metric: "rate",
    unit: "asks/s",
    higherIsBetter: true,
    format: fmtCount,
    text: (n) =>
      `${
        fmtN(n)
      } sequential request/reply round trips (\`await ref.ask(i)\` in a loop; the actor replies to ` +
      "its sender). Baseline: awaiting a promise resolved from a microtask.",
  },
  {
    workload: "tell",
    custom: "tell",
    title: "6a. Supervision: tell through a BackoffSupervisor",
  },
  {
    workload: "crash",
    title: "6b. Supervision: crash and respawn",
    metric: "rate",
    unit: "cycles/s",
    higherIsBetter: true,
    format: fmtCount,
    text: (n) =>
      `${
        fmtN(n)
      } crash-and-respawn cycles with zero backoff: each fresh instance is told "crash" in its ` +
      "start hook, throws on it, and is replaced; timed until the last respawned instance has started. " +
      "The BackoffSupervisor row uses `minBackoff: 0, maxBackoff: 0, randomFactor: 0` unless its notes say otherwise. " +
      "xstate is absent: a throwing XState actor stays in an error state and nothing restarts it.",
  },
  { workload: "timers", custom: "timers", title: "7. Timers" },
];

function genericSection(results, section) {
  const jobs = select(results, { workload: section.workload });
  if (jobs.length === 0) return "";
  return `## ${section.title}\n\n${section.text(jobs[0].n)}\n\n${
    metricTable(jobs, section)
  }\n`;
}

function spawnSection(results, { withText }) {
  const jobs = select(results, { workload: "spawn" });
  if (jobs.length === 0) return "";
  const sizes = spawnSizes(results);
  const heapN = sizes[Math.floor(sizes.length / 2)];
  const [small, , large] = sizes;
  const who = [
    ...new Map(jobs.map((j) => [`${j.fn}/${j.impl}/${j.runtime}`, j])).values(),
  ];
  const lines = [];
  if (withText) {
    lines.push(
      `Spawning N idle top-level actors, timed until every one has started (its start hook ran; for nact and ` +
        "xstate, `spawn`/`start()` returns a running actor). Heap per idle actor: `heapUsed` after a forced full GC " +
        "with the actors alive, minus the same before spawning, divided by N; every implementation keeps one handle " +
        "per actor in an array allocated before the first reading, so that array is not counted. " +
        `Growth is the median time at ${fmtN(large)} over the median at ${
          fmtN(small)
        } (linear is ${fmtRatio(large / small)}; collections included). ` +
        "xstate machines and effect run at one size only (their runs are slow).",
      "",
    );
  }
  lines.push(
    `| Implementation | Runtime | ${
      sizes.map((n) => `${fmtN(n)}: ms`).join(" | ")
    } | growth ${fmtN(large)}/${fmtN(small)} | heap bytes per idle actor (at ${
      fmtN(heapN)
    }) |`,
    `| --- | --- | ${sizes.map(() => "---:").join(" | ")} | ---: | ---: |`,
  );
  for (const first of who) {
    const at = (n) =>
      pick(results, {
        workload: "spawn",
        fn: first.fn,
        impl: first.impl,
        runtime: first.runtime,
        n,
      });
    const cells = sizes.map((n) =>
      at(n) === undefined ? "not run" : medianRange(at(n), "ms", fmtMs)
    );
    const growth = median(at(large), "ms") / median(at(small), "ms");
    const heapJob = at(heapN) ??
      select(results, {
        workload: "spawn",
        fn: first.fn,
        impl: first.impl,
        runtime: first.runtime,
      })
        .sort((a, b) => b.n - a.n)[0];
    const heap = medianRange(heapJob, "bytesPerActor", fmtBytes) +
      (heapJob.n === heapN
        ? ""
        : ` (at ${fmtN(heapJob.n)}, spawned in ${
          medianRange(heapJob, "ms", fmtMs)
        } ms)`);
    const failed = sizes.map(at).find((j) =>
      j !== undefined && j.status !== "ok"
    );
    const name = first.impl === "understudy"
      ? `**${first.label}**`
      : first.label;
    lines.push(
      `| ${name} | ${RUNTIME_LABELS[first.runtime]} | ${cells.join(" | ")} | ${
        fmtRatio(growth)
      } | ${heap}${failed ? ` (${statusCell(failed)})` : ""} |`,
    );
  }
  void small;
  const note = withText && jobs.some((j) => j.runtime === "bun")
    ? "\n\nUnder Bun the heap figure is JavaScriptCore's heap size after `Bun.gc(true)`, not V8's `heapUsed`: " +
      "compare Bun's rows with Bun's plain-object row, not with Node's."
    : "";
  return `## 4. Spawn\n\n${lines.join("\n")}${note}\n`;
}

function tellSection(results, { withText }) {
  const jobs = select(results, { workload: "tell" });
  if (jobs.length === 0) return "";
  const lines = [];
  if (withText) {
    lines.push(
      `${
        fmtN(jobs[0].n)
      } \`tell\`s from plain code into a running child, timed until the child has handled the ` +
        "last: once through its BackoffSupervisor (which forwards every message with the original sender), once " +
        "directly to the same child props spawned as a top-level actor. Both start 200 ms after the child started, so the " +
        "supervisor is in its steady state (past its grace window after a spawn, `drainGraceMs`, by default " +
        "min(50 ms, `minBackoff`); the supervisor runs with `minBackoff: 100, maxBackoff: 10000, randomFactor: 0`). " +
        "Ratio: the supervisor's median time over the direct one's.",
      "",
    );
  }
  lines.push(
    "| Runtime | direct: msg/s | through BackoffSupervisor: msg/s | time ratio (supervisor / direct) |",
    "| --- | ---: | ---: | ---: |",
  );
  for (const runtime of Object.keys(RUNTIME_LABELS)) {
    const direct = pick(results, {
      workload: "tell",
      fn: "tell-direct",
      runtime,
    });
    const backoff = pick(results, {
      workload: "tell",
      fn: "tell-backoff",
      runtime,
    });
    if (direct === undefined && backoff === undefined) continue;
    const ratio = median(backoff, "ms") / median(direct, "ms");
    lines.push(
      `| ${RUNTIME_LABELS[runtime]} | ${
        medianRange(direct, "rate", fmtCount)
      } | ${
        backoff?.status === "ok"
          ? medianRange(backoff, "rate", fmtCount)
          : backoff
          ? statusCell(backoff)
          : "–"
      } | ${fmtRatio(ratio)} |`,
    );
  }
  return `## 6a. Supervision: tell through a BackoffSupervisor\n\n${
    lines.join("\n")
  }\n`;
}

function timersSection(results, { withText }) {
  const jobs = select(results, { workload: "timers" });
  if (jobs.length === 0) return "";
  const lines = [];
  if (withText) {
    lines.push(
      `${
        fmtN(jobs[0].n)
      } actors, each holding one pending single timer (one hour), started in its start hook ` +
        "(`this.context.timers.startSingleTimer`). Heap per timer: the heap of N such actors minus the heap of N " +
        "idle actors, measured in the same process, divided by N. Cancel: one message to each actor, whose handler " +
        "cancels its timer; timed until all are handled. xstate: machines waiting in a state with a one-hour `after` " +
        "transition, against the same machines without it; an event leaves the state, which cancels the timer. " +
        "Baseline: plain `setTimeout` handles, cancelled with `clearTimeout` in a loop.",
      "",
    );
  }
  const ratios = costRatios(jobs, "ms", false);
  lines.push(
    "| Implementation | Runtime | heap bytes per timer | cancel all: ms | cancel cost × fastest library on Node |",
    "| --- | --- | ---: | ---: | ---: |",
  );
  for (const job of jobs) {
    const name = job.impl === "understudy" ? `**${job.label}**` : job.label;
    if (job.status !== "ok") {
      lines.push(
        `| ${name} | ${RUNTIME_LABELS[job.runtime]} | ${
          statusCell(job)
        } | – | – |`,
      );
      continue;
    }
    lines.push(
      `| ${name} | ${RUNTIME_LABELS[job.runtime]} | ${
        medianRange(job, "bytesPerTimer", fmtBytes)
      } | ${medianRange(job, "ms", fmtMs)} | ${ratioCell(job, ratios)} |`,
    );
  }
  return `## 7. Timers\n\n${lines.join("\n")}\n`;
}

function sizeSection(results, { withText }) {
  if (!results.sizes?.length) return "";
  const lines = [];
  if (withText) {
    lines.push(
      "esbuild bundle of each entry (ESM, minified, tree-shaken, browser platform, nothing external); gzip at level 9 " +
        "and brotli at quality 11 from `node:zlib`.",
      "",
    );
  }
  lines.push(
    "| Bundle | minified bytes | gzip bytes | brotli bytes |",
    "| --- | ---: | ---: | ---: |",
  );
  for (const s of results.sizes) {
    if (s.status !== "ok") lines.push(`| ${s.label} | ${s.reason} | – | – |`);
    else {lines.push(
        `| ${s.label} | ${fmtBytes(s.bytes)} | ${fmtBytes(s.gzip)} | ${
          fmtBytes(s.brotli)
        } |`,
      );}
  }
  if (withText) {
    lines.push(
      "",
      "Minified bytes each source file contributes (before compression), largest first:",
      "",
    );
    for (const s of results.sizes) {
      if (s.status !== "ok" || s.impl !== "understudy") continue;
      const top = s.contributors.slice(0, 8).map((c) =>
        `\`${c.file}\` ${fmtBytes(c.bytes)}`
      ).join(", ");
      lines.push(`- ${s.label}: ${top}`);
    }
  }
  return `## 8. Size\n\n${lines.join("\n")}\n`;
}

// ───────────── fairness ─────────────

/** The issue's target for a timer's lateness while an actor floods itself. */
export const FAIRNESS_TARGET = { medianMs: 5, p95Ms: 10 };
/** The period of the interval the fairness workload times (bench/lib/fairness.ts). */
const INTERVAL_MS = 10;

/** The runtimes with fairness jobs, in label order. */
function fairnessRuntimes(results) {
  return Object.keys(RUNTIME_LABELS).filter((runtime) =>
    select(results, { workload: "fairness", runtime }).length > 0
  );
}

/**
 * A runtime's fairness figures: the flooded run and the idle baseline, and
 * whether the flooded run meets the target (setTimeout(0) late, and the
 * interval's ticks late beyond its period, both within it).
 */
function fairnessOf(results, runtime) {
  const flooded = pick(results, {
    workload: "fairness",
    fn: "fairness",
    runtime,
  });
  const idle = pick(results, {
    workload: "fairness",
    fn: "fairness-idle",
    runtime,
  });
  const m = (job, key) => median(job, key);
  const late = {
    timeoutMedian: m(flooded, "timeoutMedian"),
    timeoutP95: m(flooded, "timeoutP95"),
    intervalMedian: m(flooded, "intervalMedian") - INTERVAL_MS,
    intervalP95: m(flooded, "intervalP95") - INTERVAL_MS,
  };
  const within = (median, p95) =>
    median < FAIRNESS_TARGET.medianMs && p95 < FAIRNESS_TARGET.p95Ms;
  const ok = [late.timeoutMedian, late.timeoutP95, late.intervalMedian]
    .every(Number.isFinite);
  return {
    flooded,
    idle,
    late,
    met: ok
      ? within(late.timeoutMedian, late.timeoutP95) &&
        within(late.intervalMedian, late.intervalP95)
      : undefined,
  };
}

function pair(job, a, b) {
  if (job?.status !== "ok") return job === undefined ? "–" : statusCell(job);
  return `${fmtMs(median(job, a))} / ${fmtMs(median(job, b))}`;
}

/**
 * The fairness table, the same in BENCHMARKS.md and in docs/benchmarks.md: per
 * runtime, setTimeout(0) lateness and setInterval(10) gaps while one actor
 * floods itself, median / p95, the target beside them, and the same with
 * nothing else running.
 */
export function fairnessTable(results) {
  const { medianMs, p95Ms } = FAIRNESS_TARGET;
  const lines = [
    "| Runtime | `setTimeout(0)` late, ms: median / p95 | `setInterval(10)` gap, ms: median / p95 | " +
    `target: late < ${medianMs} ms median, < ${p95Ms} ms p95 | flood, msg/s | ` +
    "nothing else running: `setTimeout(0)` late / `setInterval(10)` gap, ms (median / p95) |",
    "| --- | ---: | ---: | :---: | ---: | ---: |",
  ];
  for (const runtime of fairnessRuntimes(results)) {
    const { flooded, idle, met } = fairnessOf(results, runtime);
    lines.push(
      `| ${RUNTIME_LABELS[runtime]} | ${
        pair(flooded, "timeoutMedian", "timeoutP95")
      } | ${pair(flooded, "intervalMedian", "intervalP95")} | ${
        met === undefined ? "–" : met ? MET : MISSED
      } | ${
        flooded?.status === "ok" ? fmtCount(median(flooded, "rate")) : "–"
      } | ${pair(idle, "timeoutMedian", "timeoutP95")}; ${
        pair(idle, "intervalMedian", "intervalP95")
      } |`,
    );
  }
  return lines.join("\n");
}

function fairnessSection(results, { withText }) {
  const jobs = select(results, { workload: "fairness" });
  if (jobs.length === 0) return "";
  const seconds = (jobs[0].n / 1000).toLocaleString("en-US");
  const text = withText
    ? `While one actor floods itself (each message tells itself the next, one in flight), for ${seconds} s each: ` +
      "how late a `setTimeout(fn, 0)` fires (from arming to running; armed again and again, each time from a fresh " +
      "`MessageChannel` task so that no runtime adds its nested-timer clamp), then the gaps between the ticks of a " +
      "`setInterval(fn, 10)`. Each run reports the median and the 95th percentile of its timers; the table gives the " +
      `median of those over ${
        jobs[0].samples?.length ?? results.meta.runs
      } runs. An interval tick counts as late by its gap minus 10 ms. ` +
      "Flood: messages the actor handled meanwhile. The last column is the same measurement with nothing else " +
      "running: the host's own promptness (Node and Bun clamp `setTimeout(0)` to 1 ms). Chromium runs headless " +
      "(playwright-core), in one fresh page per job.\n\n"
    : "";
  return `## 9. Fairness\n\n${text}${fairnessTable(results)}\n`;
}

/** The guide's page that shows the fairness table (it was the README's). */
const FAIRNESS_PAGE = join("docs", "benchmarks.md");
const FAIRNESS_BEGIN =
  "<!-- fairness: generated by `npm run bench` (bench/report.mjs); edit the generator -->";
const FAIRNESS_END = "<!-- /fairness -->";

/**
 * Replaces the fairness block of docs/benchmarks.md (between its two
 * markers) with the table of `results`, and formats the page. Does nothing
 * if the markers are missing or the run had no fairness jobs
 * (tests/meta/readme_shape.test.ts checks the markers are there).
 */
export function updateFairnessPage(root, results) {
  const path = join(root, FAIRNESS_PAGE);
  const text = readFileSync(path, "utf8");
  const begin = text.indexOf(FAIRNESS_BEGIN);
  const end = text.indexOf(FAIRNESS_END);
  if (begin < 0 || end < begin || fairnessRuntimes(results).length === 0) {
    return false;
  }
  const job = select(results, { workload: "fairness", status: "ok" })[0];
  const date = (job?.date ?? results.meta.date).slice(0, 10);
  const revision = job?.revision ?? results.meta.revision;
  const runs = job?.samples?.length ?? results.meta.runs;
  const block = `${FAIRNESS_BEGIN}\n\n${fairnessTable(results)}\n\n` +
    `Measured ${date} at \`${revision}\`, ${runs} runs per runtime ` +
    `([method](../BENCHMARKS.md#9-fairness)).\n\n`;
  writeFileSync(
    path,
    text.slice(0, begin) + block + text.slice(end),
  );
  formatMarkdown(path, root);
  return true;
}

// ───────────── targets ─────────────

function size(results, id) {
  return results.sizes?.find((s) => s.id === id);
}

/** Each target: what, the measured value, the limit, and whether it is met. */
/** Issue 11's bundle targets: [size entry id, what, limit in gzip bytes]. */
const SIZE_TARGETS = [
  ["core-nothing", "Import anything from `mod.ts`, use nothing", 100],
  ["core-tell", "`ActorSystem` + `Props` + `Actor` + `tell`", 7_000],
  ["core-one-policy", "One policy through `./backoff`", 700],
  ["core-all", "Everything `mod.ts` exports", 11_500],
  [
    "core-backoff-supervisor-websocket",
    "A frontend: core + BackoffSupervisor + `./websocket`",
    12_000,
  ],
];

export function targets(results) {
  const rows = [];
  const add = (what, value, display, limit, ok, note = "") =>
    rows.push({
      what,
      value,
      display,
      limit,
      met: Number.isFinite(value) ? ok(value) : undefined,
      note,
    });
  const runtimes = [...new Set(results.jobs.map((j) => j.runtime))];
  const ours = (workload, fn, runtime, n) =>
    pick(results, {
      workload,
      fn,
      impl: "understudy",
      runtime,
      ...(n === undefined ? {} : { n }),
    });

  const pp = ours("pingpong", "pingpong", "node");
  const xs = pick(results, {
    workload: "pingpong",
    fn: "pingpong",
    impl: "xstate",
  });
  if (pp && xs) {
    const r = median(pp, "rate") / median(xs, "rate");
    add(
      "Ping-pong ≥ 2× xstate `fromTransition` actors (Node)",
      r,
      fmtRatio(r),
      "≥ 2×",
      (v) => v >= 2,
      `${fmtCount(median(pp, "rate"))} vs ${
        fmtCount(median(xs, "rate"))
      } msg/s`,
    );
  }
  for (const runtime of runtimes) {
    const ping = ours("pingpong", "pingpong", runtime);
    const chain = pick(results, {
      workload: "pingpong",
      fn: "pingpong-microtask",
      runtime,
    });
    if (!ping || !chain) continue;
    const r = median(ping, "rate") / median(chain, "rate");
    add(
      `Ping-pong ≥ the bare \`queueMicrotask\` chain (${
        RUNTIME_LABELS[runtime]
      })`,
      r,
      fmtRatio(r),
      "≥ 1×",
      (v) => v >= 1,
      `${fmtCount(median(ping, "rate"))} msg/s vs ${
        fmtCount(median(chain, "rate"))
      } callbacks/s`,
    );
  }
  const sizes = spawnSizes(results);
  if (sizes.length === 3) {
    const [, mid, large] = sizes;
    const peer = (impl) =>
      median(
        pick(results, { workload: "spawn", fn: "spawn", impl, n: mid }),
        "bytesPerActor",
      );
    for (const runtime of runtimes) {
      const job = ours("spawn", "spawn", runtime, mid);
      if (!job) continue;
      const b = median(job, "bytesPerActor");
      add(
        `Heap per idle actor ≤ 300 bytes (${RUNTIME_LABELS[runtime]}, ${
          fmtN(mid)
        } actors)`,
        b,
        `${fmtBytes(b)} B`,
        "≤ 300 B",
        (v) => v <= 300,
        runtime === "node"
          ? `xstate ${fmtBytes(peer("xstate"))} B, nact ${
            fmtBytes(peer("nact"))
          } B`
          : "",
      );
    }
    // Issue 11: growth from the smallest size to 4× it, collections
    // included (100 k → 200 k measured the young generation, not our code).
    const small = sizes[0];
    for (const runtime of runtimes) {
      const a = ours("spawn", "spawn", runtime, small);
      const b = ours("spawn", "spawn", runtime, large);
      if (!a || !b) continue;
      const r = median(b, "ms") / median(a, "ms");
      const limit = 1.1 * (large / small);
      add(
        `Spawn grows linearly: ${fmtN(large)} ≤ ${fmtRatio(limit)} ${
          fmtN(small)
        } (${RUNTIME_LABELS[runtime]})`,
        r,
        fmtRatio(r),
        `≤ ${fmtRatio(limit)}`,
        (v) => v <= limit,
        `${fmtMs(median(a, "ms"))} ms → ${fmtMs(median(b, "ms"))} ms`,
      );
    }
  }
  for (const runtime of runtimes) {
    const direct = ours("tell", "tell-direct", runtime);
    const backoff = ours("tell", "tell-backoff", runtime);
    if (!direct || !backoff) continue;
    const r = median(backoff, "ms") / median(direct, "ms");
    add(
      `A \`tell\` through a BackoffSupervisor ≤ 1.25× a direct \`tell\` (${
        RUNTIME_LABELS[runtime]
      })`,
      r,
      Number.isFinite(r)
        ? fmtRatio(r)
        : backoff.status === "ok"
        ? "–"
        : "not available yet",
      "≤ 1.25×",
      (v) => v <= 1.25,
    );
  }
  for (const runtime of fairnessRuntimes(results)) {
    const { flooded, late, met } = fairnessOf(results, runtime);
    const { medianMs, p95Ms } = FAIRNESS_TARGET;
    add(
      `Timers while an actor floods itself: \`setTimeout(0)\` and \`setInterval(10)\` ticks late < ${medianMs} ms median, < ${p95Ms} ms p95 (${
        RUNTIME_LABELS[runtime]
      })`,
      met === undefined ? Number.NaN : late.timeoutMedian,
      met === undefined
        ? "–"
        : `${fmtMs(late.timeoutMedian)} / ${
          fmtMs(late.timeoutP95)
        } ms late; gaps ${pair(flooded, "intervalMedian", "intervalP95")} ms`,
      `< ${medianMs} / < ${p95Ms} ms late (gaps < ${
        INTERVAL_MS + medianMs
      } / < ${INTERVAL_MS + p95Ms} ms)`,
      () => met === true,
      "median / p95",
    );
  }
  // Issue 11: bytes counted per use (minified + gzip, esbuild).
  for (const [id, what, limit] of SIZE_TARGETS) {
    const entry = size(results, id);
    if (!entry) continue;
    add(
      `${what}, minified + gzip ≤ ${fmtBytes(limit)} B`,
      entry.gzip ?? Number.NaN,
      entry.status === "ok" ? `${fmtBytes(entry.gzip)} B` : "not available yet",
      `≤ ${fmtBytes(limit)} B`,
      (v) => v <= limit,
    );
  }
  return rows;
}

function targetsTable(results) {
  const rows = targets(results);
  const lines = [
    "| Target | Measured | Limit | Met | Detail |",
    "| --- | ---: | ---: | :---: | --- |",
  ];
  for (const r of rows) {
    const met = r.met === undefined ? "–" : r.met ? MET : MISSED;
    lines.push(
      `| ${r.what} | ${r.display} | ${r.limit} | ${met} | ${r.note} |`,
    );
  }
  return lines.join("\n");
}

function runtimeIssueTable(results) {
  const lines = [
    "| Runtime | understudy ping-pong: msg/s | `queueMicrotask` chain: callbacks/s | ratio (msg/s ÷ callbacks/s) |",
    "| --- | ---: | ---: | ---: |",
  ];
  for (const runtime of Object.keys(RUNTIME_LABELS)) {
    const ping = pick(results, {
      workload: "pingpong",
      fn: "pingpong",
      impl: "understudy",
      runtime,
    });
    const chain = pick(results, {
      workload: "pingpong",
      fn: "pingpong-microtask",
      runtime,
    });
    if (!ping && !chain) continue;
    lines.push(
      `| ${RUNTIME_LABELS[runtime]} | ${
        medianRange(ping, "rate", fmtCount)
      } | ${medianRange(chain, "rate", fmtCount)} | ${
        fmtRatio(median(ping, "rate") / median(chain, "rate"))
      } |`,
    );
  }
  return lines.join("\n");
}

// ───────────── documents ─────────────

function sections(results, withText) {
  const out = [];
  for (const section of SECTIONS) {
    if (section.custom === "spawn") {
      out.push(spawnSection(results, { withText }));
    } else if (section.custom === "tell") {
      out.push(tellSection(results, { withText }));
    } else if (section.custom === "timers") {
      out.push(timersSection(results, { withText }));
    } else if (withText) out.push(genericSection(results, section));
    else {
      const jobs = select(results, { workload: section.workload });
      if (jobs.length > 0) {
        out.push(`## ${section.title}\n\n${metricTable(jobs, section)}\n`);
      }
    }
  }
  out.push(sizeSection(results, { withText }));
  out.push(fairnessSection(results, { withText }));
  return out.filter(Boolean).join("\n");
}

/** What `npm run bench` prints: targets, the runtime comparison, and every table. */
export function renderSummary(results) {
  return [
    `# Bench results (${results.meta.mode}, ${results.meta.warmup} warm-up + ${results.meta.runs} runs, medians with min and max)`,
    "",
    "## Targets",
    "",
    targetsTable(results),
    "",
    "## understudy ping-pong against a bare `queueMicrotask` chain",
    "",
    runtimeIssueTable(results),
    "",
    sections(results, false),
    extrasSections(results),
  ].join("\n");
}

function methods(results) {
  const { meta } = results;
  const v = meta.versions;
  const m = meta.machine;
  const gib = (m.memoryBytes / 2 ** 30).toFixed(0);
  const date = meta.date.slice(0, 10);
  const quick = meta.mode === "quick"
    ? " **These are `--quick` figures (small sizes), only to check that the harness works: do not quote them.**"
    : "";
  return [
    `**What is measured.** Nine workloads (below), each described with what exactly every implementation does. ` +
    `Every figure is the **median of ${meta.runs} measured runs, with the min and max beside it**, taken after ` +
    `${meta.warmup} unrecorded warm-up run${
      meta.warmup === 1 ? "" : "s"
    } of the same workload in the same process. ` +
    "**Each workload of each implementation on each runtime runs in its own fresh process**, one process at a time, " +
    "so heaps, JIT state and leftover timers never mix. Times are `performance.now()` around the measured part only " +
    "(setup such as spawning the fan-out targets is not timed). No GC is forced between runs: a full collection " +
    "frees the previous run's objects, V8 then discards the optimised code that referred to them (Node's own " +
    "`queueMicrotask` and xstate's mailbox included), and every run would re-optimise inside its timed part. " +
    "Heap figures are the change in `heapUsed` across the " +
    "measured part with forced full GCs before both readings (`--expose-gc` under Node, `--v8-flags=--expose-gc` " +
    "under Deno, `Bun.gc(true)` under Bun, where the figure is JavaScriptCore's heap size), divided by the count. " +
    `Our library runs under Node ${v.node} (bundled by esbuild ${v.esbuild}), Deno ${v.deno} (V8 ${v.denoV8}) and ` +
    `Bun ${v.bun} (TypeScript run directly), and the fairness workload also in headless Chromium ${
      v.chromium ?? "(version not recorded)"
    } (bundled by esbuild, driven by playwright-core ${
      v.playwright ?? ""
    }); the peers, xstate ${v.xstate}, nact ${v.nact} and effect ${v.effect} ` +
    "(v3: v4 is a rewrite with a new runtime and renamed modules; v3 is the line its documentation describes), " +
    "run under Node only, loaded by Node from `node_modules` as published (not re-bundled: the Node bundle leaves " +
    "packages external), through their public APIs, written the way their docs write them and given every " +
    "advantage we know of (below). Baselines in the same run: plain function calls, `queueMicrotask` chains, " +
    "plain objects of an actor's shape. " +
    "`node bench/reference/check.mjs` checks the Node ping-pong figures against an independent, unbundled " +
    "harness (`bench/reference/pingpong.mjs`: plain JavaScript, xstate from `node_modules`, understudy built " +
    "once), alternating the two process by process, and prints both side by side with their ratios. " +
    "On a shared machine the speed of every job moves with the load of the others: compare ratios taken close " +
    "together, and re-run before trusting one far from the rest. " +
    "In each table, the cost column is a row's time (or 1/throughput) over the fastest library's under Node, where " +
    "every peer runs. The slowest peers' jobs (effect, xstate machines, xstate timers) use a smaller N, shown in the " +
    "tables, because at the full size one job would take minutes; their figures are per message, actor or timer. " +
    "The code measured is a snapshot of `mod.ts` and `src/` taken when the run starts, the same for every runtime. " +
    `Machine: ${m.cores} cores (${m.model}), ${gib} GiB of memory, ${m.os}. ` +
    `Measured: understudy at \`${meta.revision ?? "unknown"}\`. ` +
    `**All figures come from one run (${date}, ${
      Math.round(meta.durationSeconds / 60)
    } minutes), side by side on a ` +
    "shared, noisy 2-core machine: absolute numbers move by tens of percent from run to run, so read the ratios, " +
    "which hold much better than the absolutes.** " +
    "Reproduce with `npm ci && npm run bench` (several minutes; results in `bench/results/latest.json`, this file and " +
    "the chart regenerated); `npm run bench -- --quick` is the small version CI runs to check the harness still " +
    "works (it never asserts on speed)." + quick + merged(meta),
  ].join("\n");
}

/** A sentence per later partial run merged into these results (`npm run bench -- --only=… --merge`). */
function merged(meta) {
  return (meta.merged ?? []).map((m) => {
    const workloads = [...new Set(m.jobs.map((id) => id.split("/")[0]))];
    // A run of only the size step or the transports' own benches has no job.
    if (workloads.length === 0) {
      workloads.push(m.command.match(/--only=(\S+)/)?.[1] ?? "none");
    }
    return ` **Re-measured later, in a run of their own (\`${m.command}\`, ${
      m.date.slice(0, 10)
    }, at \`${m.revision}\`, ${m.warmup} warm-up + ${m.runs} runs): ${
      workloads.join(", ")
    }.**`;
  }).join("");
}

const PEERS = `## What each implementation does

- **understudy**: classes extending \`Actor\`, created with \`system.actorOf(Props.create(() => new X()))\` in a
  system with \`logLevel: "off"\`; messages are plain numbers or strings sent with \`tell(message, this.self)\`;
  replies go to \`this.sender\`. One \`Props\` is shared by all actors of a run.
- **xstate** (v5, production build): \`fromTransition\` reducers (the lightest XState actor) and, where marked,
  machines from \`setup(...).createMachine(...)\`; every actor is a root actor from \`createActor(logic).start()\`
  (spawning many children into one parent grows quadratically in XState). Events are objects \`{ type, ... }\`. In
  ping-pong each reducer replies with \`event.from.send(...)\` (machines: the \`sendTo\` action, and a guard ends the
  game); XState processes \`send\` synchronously, so its whole ping-pong runs inside the first \`send\`. XState has
  no ask: the event carries a resolver that the reducer calls. Reducers ignore XState's own \`xstate.stop\` event.
- **nact**: \`spawn(parent, (state, msg, ctx) => nextState, name)\` with one shared function per workload and an
  explicit name for every actor (its generated names are random and can collide at these counts); the sender travels
  in the message (\`{ n, sender: ctx.self }\`) and replies use \`dispatch(msg.sender, ...)\`, as its docs show; ask is
  \`query(actor, (tempRef) => msg, 5000)\`; crash-and-respawn uses \`onCrash: (msg, err, ctx) => ctx.reset\`. nact
  runs each message in its own \`setImmediate\` callback.
- **effect** (v3): an actor is a fiber looping over its own \`Queue.unbounded\` (ping-pong: \`Queue.take\` then
  \`Queue.offer\` to the other fiber's queue; fan-in: the consumer drains up to 4,096 messages per
  \`Queue.takeBetween\` and handles each; fan-out and spawn: one daemon fiber and one queue per actor, forked in one
  \`Effect.forEach\`); sends from plain code use \`Queue.unsafeOffer\`; ask offers \`[value, Deferred]\` and awaits
  the \`Deferred\`, all inside one fiber; crash-and-respawn is \`Effect.retry(actor, Schedule.forever)\`.
- **Baselines**: a plain method-call loop; a chain of \`queueMicrotask\` callbacks, each queueing the next
  (ping-pong) or all queued at once (fan-in); \`await\` of a promise resolved in a microtask (ask); plain objects
  with the same fields as an understudy actor cell plus an instance holding its context, registered in a \`Map\` by a
  generated name (spawn); plain \`setTimeout\`/\`clearTimeout\` (timers).

The code is in \`bench/impl/\`: one file per implementation, every workload a function.
`;

/** The whole of BENCHMARKS.md. */
export function renderBenchmarksMd(results, { chartPath }) {
  return [
    "# Benchmarks",
    "",
    "<!-- Generated by `npm run bench` (bench/report.mjs) from bench/results/latest.json; edit the generator, not this file. -->",
    "",
    "## Method",
    "",
    methods(results),
    "",
    `![Benchmark chart: medians with min–max whiskers](${chartPath})`,
    "",
    "## Targets",
    "",
    targetsTable(results),
    "",
    "## understudy ping-pong against a bare `queueMicrotask` chain",
    "",
    "The same run's ping-pong (2 messages per round trip) over a chain of as many `queueMicrotask` callbacks as round " +
    "trips, per runtime: above 1× means a message costs less than a bare microtask hop.",
    "",
    runtimeIssueTable(results),
    "",
    sections(results, true),
    extrasSections(results),
    PEERS,
  ].join("\n");
}

const EXTRA_TITLES = {
  "backoff-sender":
    "BackoffSender: acknowledged messages per second beside a plain `tell`",
  worker: "Across a Web Worker boundary",
  durable: "Between two Durable Objects (workerd)",
};

/** The patterns' and transports' own tables (bench/run.mjs, step 9). */
function extrasSections(results) {
  return (results.extras ?? []).map((extra) =>
    [
      `## ${EXTRA_TITLES[extra.id] ?? extra.id}`,
      "",
      extra.status === "ok"
        ? extra.markdown.trim()
        : `Not measured in this run: ${extra.reason}`,
      "",
    ].join("\n")
  ).join("\n");
}

/**
 * Formats a generated Markdown file with the repository's pinned `deno fmt`
 * (deno.json's settings), so `deno fmt --check` stays clean. Best effort.
 */
export function formatMarkdown(path, root) {
  try {
    execFileSync(join(root, "node_modules", ".bin", "deno"), [
      "fmt",
      "--quiet",
      path,
    ], {
      cwd: root,
      env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
      stdio: ["ignore", "ignore", "pipe"],
    });
  } catch (error) {
    console.error(
      `bench: could not run deno fmt on ${path}: ${
        String(error.stderr ?? error).trim()
      }`,
    );
  }
}

// ───────────── CLI: regenerate from saved results ─────────────

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const benchDir = dirname(fileURLToPath(import.meta.url));
  const root = join(benchDir, "..");
  const file = process.argv[2] ?? join(benchDir, "results", "latest.json");
  const results = JSON.parse(readFileSync(file, "utf8"));
  const chartPath = join(dirname(file), "chart.svg");
  writeFileSync(chartPath, renderChart(results));
  const mdPath = results.meta.mode === "quick"
    ? join(dirname(file), "BENCHMARKS.md")
    : join(root, "BENCHMARKS.md");
  writeFileSync(
    mdPath,
    renderBenchmarksMd(results, {
      chartPath: relative(dirname(mdPath), chartPath),
    }),
  );
  if (mdPath === join(root, "BENCHMARKS.md")) {
    formatMarkdown(mdPath, root);
    updateFairnessPage(root, results);
  }
  console.log(renderSummary(results));
  console.error(
    `bench: regenerated ${relative(root, mdPath)} and ${
      relative(root, chartPath)
    } from ${relative(root, file)}`,
  );
}
