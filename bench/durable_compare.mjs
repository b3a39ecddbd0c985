// Copyright 2026 the understudy authors. MIT license.

/**
 * Cross-object tells in this checkout against another commit, side by side
 * in one workerd:
 *
 *     node bench/durable_compare.mjs [--base=COMMIT] [--rounds=r] [--kinds=kind,kind…]
 *
 * bench/durable/worker.ts (this checkout's) is bundled twice into one
 * worker: once on this checkout's library and once on the base commit's
 * (`git archive`: mod.ts and src/), the second copy's Durable Object
 * bindings renamed (`SENDER_B`, `RECEIVER_B`…), so that both run in the
 * same isolate on the same machine state. Each round runs every kind
 * (default `understudy`, `understudy-unnumbered`, `rpc-batched`) for both
 * trees, alternating which goes first; a run of the bench's own
 * `node bench/durable.mjs` starts a workerd per tree, and a busy machine
 * moves two such runs further apart than the change being measured.
 * Prints, per tree, medians with quartiles of wall and workerd CPU time,
 * and each kind's ratio to `rpc-batched` of the same round (its median
 * and quartiles); writes .build/bench/durable_compare.json. Never
 * asserts on speed.
 */

import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { capnpConfig, startWorkerd } from "../scripts/lib/workerd.mjs";
import { bundleWorker, cpuMs as workerCpuMs } from "./durable.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, "").split(/=(.*)/s);
    return [k, v ?? true];
  }),
);
const base = String(args.base ?? "main");
const rounds = Number(args.rounds ?? 31);
const kinds = String(
  args.kinds ?? "understudy,understudy-unnumbered,rpc-batched",
).split(",");
if (!kinds.includes("rpc-batched")) kinds.push("rpc-batched");
const n = 20_000;
const BINDINGS = ["SENDER", "ANON_SENDER", "RAW_SENDER", "RECEIVER"];

const out = join(root, ".build", "durable_compare");
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, "base"), { recursive: true });
execFileSync("tar", ["-x", "-C", join(out, "base")], {
  input: execFileSync("git", ["archive", base, "mod.ts", "src"], {
    cwd: root,
    maxBuffer: 1 << 28,
  }),
});

// The bench worker on a given library tree; the base's bindings renamed.
const worker = readFileSync(join(root, "bench", "durable", "worker.ts"), "utf8")
  .replace(
    "./cloudflare_workers.ts",
    join(root, "bench", "durable", "cloudflare_workers.ts"),
  );
const onTree = (tree) =>
  worker.replace('"../../mod.ts"', JSON.stringify(join(tree, "mod.ts")))
    .replace(
      '"../../src/durable/mod.ts"',
      JSON.stringify(join(tree, "src", "durable", "mod.ts")),
    );
writeFileSync(join(out, "current.ts"), onTree(root));
writeFileSync(
  join(out, "base.ts"),
  onTree(join(out, "base")).replace(
    new RegExp(`\\b(${BINDINGS.join("|")})\\b`, "g"),
    "$1_B",
  ),
);
writeFileSync(
  join(out, "entry.ts"),
  `import current from "./current.ts";
import base from "./base.ts";
export { AnonSender, RawSender, Receiver, Sender } from "./current.ts";
export {
  AnonSender as AnonSenderB,
  RawSender as RawSenderB,
  Receiver as ReceiverB,
  Sender as SenderB,
} from "./base.ts";
export default {
  fetch(request, env) {
    return new URL(request.url).searchParams.get("tree") === "base"
      ? base.fetch(request, env)
      : current.fetch(request, env);
  },
};
`,
);
writeFileSync(
  join(out, "worker.js"),
  await bundleWorker(join(out, "entry.ts")),
);
const classes = {
  SENDER: "Sender",
  ANON_SENDER: "AnonSender",
  RAW_SENDER: "RawSender",
  RECEIVER: "Receiver",
};
const workerd = await startWorkerd(
  join(out, "config.capnp"),
  capnpConfig({
    modules: [{ name: "worker.js", path: "worker.js" }],
    durableObjects: Object.fromEntries(
      Object.entries(classes).flatMap((
        [binding, name],
      ) => [[binding, name], [`${binding}_B`, `${name}B`]]),
    ),
  }),
);

const cpuMs = () => workerCpuMs(workerd.pid);

const wall = {};
const cpu = {};
try {
  // Two warm-up rounds, left out.
  for (let round = -2; round < rounds; round++) {
    for (const kind of kinds) {
      const trees = round % 2 === 0 ? ["current", "base"] : ["base", "current"];
      for (const tree of trees) {
        const cpuBefore = cpuMs();
        const started = performance.now();
        const res = await fetch(
          `${workerd.url}/?kind=${kind}&n=${n}&tree=${tree}`,
          { signal: AbortSignal.timeout(120_000) },
        );
        const body = await res.json();
        const ms = performance.now() - started;
        const cpuUsed = cpuMs() - cpuBefore;
        if (res.status !== 200 || body.count !== n) {
          throw new Error(
            `${tree} ${kind}: expected ${n} delivered, got ${
              JSON.stringify(body)
            }\n${workerd.output()}`,
          );
        }
        if (round >= 0) {
          (wall[`${tree} ${kind}`] ??= []).push(ms);
          (cpu[`${tree} ${kind}`] ??= []).push(cpuUsed);
        }
      }
    }
  }
} finally {
  await workerd.stop();
}

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const at = (xs, p) => sorted(xs)[Math.round(p * (xs.length - 1))];
const summary = (xs) => ({
  median: Math.round(at(xs, 0.5) * 1000) / 1000,
  quartiles: [
    Math.round(at(xs, 0.25) * 1000) / 1000,
    Math.round(at(xs, 0.75) * 1000) / 1000,
  ],
});
const rows = [];
for (const tree of ["current", "base"]) {
  for (const kind of kinds) {
    const key = `${tree} ${kind}`;
    const perRound = (of) =>
      of[key].map((x, i) => of[`${tree} rpc-batched`][i] / x);
    rows.push({
      tree,
      kind,
      wallMs: summary(wall[key]),
      cpuMs: summary(cpu[key]),
      ratioToBatchedRpc: summary(perRound(wall)),
      cpuRatioToBatchedRpc: summary(perRound(cpu)),
    });
  }
}
const fmt = (s, digits) =>
  `${s.median.toFixed(digits)} (${s.quartiles[0].toFixed(digits)}–${
    s.quartiles[1].toFixed(digits)
  })`;
console.log(
  `${
    execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root })
      .toString().trim()
  } (current, with any changes not committed) against ${base} (base): ${n} messages a run, ${rounds} rounds, medians (quartiles)\n`,
);
console.log(
  "| tree | kind | wall ms | workerd CPU ms | × rpc-batched | × rpc-batched, by CPU |",
);
console.log("| --- | --- | ---: | ---: | ---: | ---: |");
for (const r of rows) {
  console.log(
    `| ${r.tree} | ${r.kind} | ${fmt(r.wallMs, 1)} | ${fmt(r.cpuMs, 1)} | ${
      fmt(r.ratioToBatchedRpc, 2)
    } | ${fmt(r.cpuRatioToBatchedRpc, 2)} |`,
  );
}
mkdirSync(join(root, ".build", "bench"), { recursive: true });
writeFileSync(
  join(root, ".build", "bench", "durable_compare.json"),
  JSON.stringify(
    {
      meta: {
        date: new Date().toISOString(),
        command: ["node bench/durable_compare.mjs", ...process.argv.slice(2)]
          .join(" "),
        base,
        rounds,
        messages: n,
      },
      rows,
    },
    null,
    2,
  ) + "\n",
);
