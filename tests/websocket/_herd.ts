// Copyright 2026 the understudy authors. MIT license.
// The thundering-herd simulation (not a test file itself): many clients lose
// the same server at the same instant; when do they try again? Used by
// herd.test.ts and by docs/herd.ts, which draws docs/herd.svg.

import * as FakeTimers from "@sinonjs/fake-timers";
import {
  ActorSystem,
  type BackoffPolicy,
  exponentialBackoff,
} from "../../mod.ts";
import {
  defaultReconnectPolicy,
  WebSocketConnecting,
  websocketProps,
} from "../../src/websocket/mod.ts";
import { FakeNetwork } from "./_fake_websocket.ts";
import { FAKED, seededRandom } from "./_setup.ts";

export interface HerdOptions {
  /** What the chart and table call it. */
  label: string;
  /** The policy of client `i` (give each its own seeded randomness). */
  policy: (client: number) => BackoffPolicy;
  clients?: number;
  durationMs?: number;
  windowMs?: number;
}

/** The two runs compared in herd.test.ts and drawn in docs/herd.svg. */
export const HERD_RUNS: readonly HerdOptions[] = [
  {
    label: "default (±50% jitter)",
    policy: (client) => defaultReconnectPolicy(seededRandom(1_000 + client)),
  },
  {
    label: "no jitter",
    policy: () =>
      exponentialBackoff({ minMs: 1_000, maxMs: 30_000, randomFactor: 0 }),
  },
];

export interface HerdResult {
  label: string;
  /** Reconnect attempts in each window after the server went away. */
  windows: number[];
  total: number;
  peak: number;
}

/** Lets every actor run (the dispatcher works on microtasks, which are not faked). */
async function settle(): Promise<void> {
  for (let i = 0; i < 8; i++) await Promise.resolve();
}

/**
 * Connects `clients` clients to a fake server, crashes it, keeps it down,
 * and counts reconnect attempts per `windowMs` for `durationMs`. Time is
 * fake, so a run is quick and deterministic.
 */
export async function simulateHerd(options: HerdOptions): Promise<HerdResult> {
  const {
    label,
    policy,
    clients = 1_000,
    durationMs = 60_000,
    windowMs = 100,
  } = options;
  const clock = FakeTimers.install({ toFake: FAKED, now: 0 });
  const system = ActorSystem.create("herd", { logLevel: "off" });
  try {
    const network = new FakeNetwork();
    const windows = new Array<number>(Math.ceil(durationMs / windowMs)).fill(0);
    let crashedAt = -1;
    system.eventStream.subscribe(WebSocketConnecting, () => {
      if (crashedAt < 0) return;
      const window = Math.floor((Date.now() - crashedAt) / windowMs);
      if (window < windows.length) windows[window]++;
    });
    for (let i = 0; i < clients; i++) {
      system.actorOf(websocketProps({
        url: "ws://server.test/",
        WebSocket: network.WebSocket,
        page: false,
        policy: policy(i),
        connectionTimeoutMs: 60_000,
      }));
    }
    // Fire one timer at a time, letting the actors run after each, and skip
    // the quiet stretches between them.
    const runUntil = async (end: number) => {
      for (;;) {
        const next = clock.timerHeap?.peek()?.callAt;
        if (next === undefined || next > end) break;
        clock.next();
        await settle();
      }
      clock.tick(end - clock.now);
    };
    await settle();
    await runUntil(10);
    if (network.live.length !== clients) {
      throw new Error(`only ${network.live.length} clients connected`);
    }
    crashedAt = Date.now();
    network.crash();
    await settle();
    await runUntil(crashedAt + durationMs);
    const total = windows.reduce((a, b) => a + b, 0);
    return { label, windows, total, peak: Math.max(...windows) };
  } finally {
    const terminated = system.terminate();
    await settle();
    clock.tick(1);
    await terminated;
    clock.uninstall();
  }
}

/** One row per second: the busiest 100 ms window of each result in that second. */
export function herdTable(
  results: readonly HerdResult[],
  windowMs = 100,
): string {
  const perSecond = 1_000 / windowMs;
  const header = `second | ${results.map((r) => r.label).join(" | ")}`;
  const rows = [header, header.replace(/[^|]/g, "-")];
  const seconds = Math.ceil(results[0].windows.length / perSecond);
  for (let s = 0; s < seconds; s++) {
    const cells = results.map((r) =>
      Math.max(...r.windows.slice(s * perSecond, (s + 1) * perSecond))
    );
    if (cells.every((c) => c === 0)) continue;
    rows.push(
      `${String(s).padStart(6)} | ${
        cells.map((c, i) => String(c).padStart(results[i].label.length)).join(
          " | ",
        )
      }`,
    );
  }
  rows.push(
    `  peak | ${
      results.map((r) => String(r.peak).padStart(r.label.length)).join(" | ")
    }`,
  );
  rows.push(
    ` total | ${
      results.map((r) => String(r.total).padStart(r.label.length)).join(" | ")
    }`,
  );
  return rows.join("\n");
}

const COLORS = ["#1f77b4", "#d62728", "#2ca02c"];

/** A small line chart of attempts per window, as SVG text. */
export function herdSvg(
  results: readonly HerdResult[],
  windowMs = 100,
): string {
  const width = 640;
  const height = 240;
  const left = 48;
  const right = 12;
  const top = 28;
  const bottom = 36;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const n = results[0].windows.length;
  const max = Math.max(...results.map((r) => r.peak));
  const yMax = Math.pow(10, Math.ceil(Math.log10(max)));
  const x = (i: number) => (left + (i / n) * plotW).toFixed(1);
  const y = (v: number) => (top + plotH - (v / yMax) * plotH).toFixed(1);
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
  );
  out.push(`<rect width="${width}" height="${height}" fill="#fff"/>`);
  for (let k = 0; k <= 4; k++) {
    const v = (yMax / 4) * k;
    out.push(
      `<line x1="${left}" x2="${width - right}" y1="${y(v)}" y2="${
        y(v)
      }" stroke="#eee"/>`,
    );
    out.push(
      `<text x="${left - 6}" y="${
        y(v)
      }" text-anchor="end" dominant-baseline="middle">${v}</text>`,
    );
  }
  const seconds = (n * windowMs) / 1_000;
  for (let s = 0; s <= seconds; s += 10) {
    const xs = x((s * 1_000) / windowMs);
    out.push(
      `<text x="${xs}" y="${
        height - bottom + 16
      }" text-anchor="middle">${s} s</text>`,
    );
  }
  out.push(
    `<text x="${left}" y="16">Reconnect attempts per ${windowMs} ms after ${
      results[0].total > 0 ? "1,000 clients" : "clients"
    } lost the server</text>`,
  );
  results.forEach((r, i) => {
    const points = r.windows.map((v, w) => `${x(w)},${y(v)}`).join(" ");
    out.push(
      `<polyline fill="none" stroke="${
        COLORS[i]
      }" stroke-width="1.2" points="${points}"/>`,
    );
    const ly = top + 14 + i * 14;
    out.push(
      `<line x1="${width - 220}" x2="${
        width - 200
      }" y1="${ly}" y2="${ly}" stroke="${COLORS[i]}" stroke-width="2"/>`,
    );
    out.push(
      `<text x="${
        width - 194
      }" y="${ly}" dominant-baseline="middle">${r.label} (peak ${r.peak})</text>`,
    );
  });
  out.push(`</svg>`);
  return out.join("\n") + "\n";
}
