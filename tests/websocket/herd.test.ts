// @runtimes deno node bun
// Copyright 2026 the understudy authors. MIT license.
// The thundering herd: 1,000 clients lose the same server at the same
// instant. With the default policy their retries spread out, the capped ones
// included; without jitter they all come back in the same 100 ms, every time.
// (Not in the browser run: it also checks docs/herd.svg, drawn from the same
// seeded simulation by `deno run -A docs/herd.ts`.)

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { HERD_RUNS, herdSvg, herdTable, simulateHerd } from "./_herd.ts";

describe("1,000 clients losing the same server", () => {
  it("retry spread out with the default policy, in lock-step without jitter", async () => {
    const ours = await simulateHerd(HERD_RUNS[0]);
    const noJitter = await simulateHerd(HERD_RUNS[1]);
    console.log(herdTable([ours, noJitter]));
    // Without jitter every client retries in the same window: 1, 3, 7, 15, 31 s.
    assert.equal(noJitter.peak, 1_000);
    assert.deepEqual(
      noJitter.windows.flatMap((count, w) => count > 0 ? [w] : []),
      [10, 30, 70, 150, 310],
    );
    // With the default, the busiest 100 ms sees a small fraction of them.
    assert.ok(ours.peak <= noJitter.peak / 5, `peak ${ours.peak}`);
    // ...and the clients that reached the 30 s cap do not line up again.
    const capped = ours.windows.slice(450);
    assert.ok(
      Math.max(...capped) <= 60,
      `peak after 45 s: ${Math.max(...capped)}`,
    );
    // Same work: every client still retries about as often.
    assert.ok(Math.abs(ours.total - noJitter.total) <= noJitter.total * 0.25);

    // docs/herd.svg is this chart (formatted by deno fmt, so up to whitespace).
    // Relative to this file, or to the repository root when run from a bundle.
    const chart = [
      new URL("../../docs/herd.svg", import.meta.url),
      "docs/herd.svg",
    ]
      .find((path) => existsSync(path))!;
    const normalize = (svg: string) =>
      svg.replace(/\s+/g, " ").replace(/ ?\/>/g, "/>").replace(/> </g, "><")
        .trim();
    assert.ok(
      normalize(readFileSync(chart, "utf8")) ===
        normalize(herdSvg([ours, noJitter])),
      "docs/herd.svg is stale: run `deno run -A docs/herd.ts`",
    );
  });
});
