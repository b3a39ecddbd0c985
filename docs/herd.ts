// Copyright 2026 the understudy authors. MIT license.
// Draws docs/herd.svg (and prints its table) from the seeded herd simulation
// in tests/websocket/_herd.ts: 1,000 clients lose the same server at the same
// instant; reconnect attempts per 100 ms, default policy against no jitter.
//
//   deno run -A docs/herd.ts
//
// tests/websocket/herd.test.ts fails when the committed chart is stale.
// Run it again after changing the default policy or the simulation.

import {
  HERD_RUNS,
  herdSvg,
  herdTable,
  simulateHerd,
} from "../tests/websocket/_herd.ts";

const results = [];
for (const run of HERD_RUNS) results.push(await simulateHerd(run));
console.log(herdTable(results));
const out = new URL("./herd.svg", import.meta.url);
await Deno.writeTextFile(out, herdSvg(results));
// Formatted like every other file, so that `deno fmt --check` passes; the
// test compares it with the simulation up to whitespace.
const fmt = new Deno.Command(Deno.execPath(), {
  args: ["fmt", "-q", out.pathname],
});
if (!(await fmt.output()).success) {
  throw new Error("deno fmt failed on herd.svg");
}
console.log(`wrote ${out.pathname}`);
