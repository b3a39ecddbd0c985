// Copyright 2026 the understudy authors. MIT license.

/**
 * The random specs of the fault kit, over many more seeds than the suite
 * runs (issue 30; docs/testing-under-faults.md):
 *
 * - `backoff-sender`: tests/patterns/_backoff_sender_random.ts
 * - `backoff-supervisor`: tests/patterns/_backoff_supervisor_random.ts
 * - `websocket`: tests/websocket/_delivery_random.ts
 * - `worker`: tests/worker/_delivery_random.ts
 *
 * `node bench/soak.mjs [--seeds 1000] [--from <seed>] [--only <name>]`
 * bundles the four runs with esbuild (into .build/bench/soak/) and runs
 * each seed in this Node process, on virtual time; each seed is independent
 * and replayable. By default it starts where the suite's 100 seeds end.
 * Prints, per spec, the seeds run, the failures (each with its seed and
 * message, and how to replay it: `UNDERSTUDY_SEED=<seed> node
 * scripts/test.mjs -r deno <test file>`) and the time taken; exits 1 if any
 * seed failed.
 *
 * @module
 */

import { build } from "esbuild";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

const SPECS = {
  "backoff-sender": {
    module: "tests/patterns/_backoff_sender_random.ts",
    run: "backoffSenderRandomRun",
    test: "tests/patterns/backoff_sender_random.test.ts",
  },
  websocket: {
    module: "tests/websocket/_delivery_random.ts",
    run: "websocketRandomRun",
    test: "tests/websocket/delivery_random.test.ts",
  },
  "backoff-supervisor": {
    module: "tests/patterns/_backoff_supervisor_random.ts",
    run: "backoffSupervisorRandomRun",
    test: "tests/patterns/backoff_supervisor_random.test.ts",
  },
  worker: {
    module: "tests/worker/_delivery_random.ts",
    run: "workerRandomRun",
    test: "tests/worker/delivery_random.test.ts",
  },
};

function parseArgs(argv) {
  const options = { seeds: 1_000, from: undefined, only: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = argv[i + 1];
    if (arg === "--seeds") options.seeds = Number(value), i++;
    else if (arg === "--from") options.from = Number(value), i++;
    else if (arg === "--only") options.only = value, i++;
    else if (arg === "--help" || arg === "-h") {
      console.log(
        "node bench/soak.mjs [--seeds N] [--from SEED] [--only " +
          Object.keys(SPECS).join("|") + "]",
      );
      process.exit(0);
    } else throw new Error(`unknown argument ${arg}`);
  }
  if (!Number.isInteger(options.seeds) || options.seeds < 1) {
    throw new RangeError(`--seeds must be a whole number >= 1`);
  }
  if (options.from !== undefined && !Number.isInteger(options.from)) {
    throw new RangeError(`--from must be a whole number`);
  }
  if (options.only !== undefined && !(options.only in SPECS)) {
    throw new RangeError(
      `--only must be one of ${Object.keys(SPECS).join(", ")}`,
    );
  }
  return options;
}

async function bundle() {
  const dir = join(root, ".build", "bench", "soak");
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, "soak.mjs");
  const contents = Object.values(SPECS)
    .map((s) =>
      `export { ${s.run}, BASE_SEED as ${s.run}Base } from "./${s.module}";`
    )
    .join("\n");
  await build({
    stdin: { contents, loader: "ts", resolveDir: root, sourcefile: "soak.ts" },
    outfile,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "es2022",
    logLevel: "silent",
  });
  return import(pathToFileURL(outfile).href);
}

const options = parseArgs(process.argv.slice(2));
const runs = await bundle();
let failed = 0;
for (const [name, spec] of Object.entries(SPECS)) {
  if (options.only !== undefined && options.only !== name) continue;
  const from = options.from ?? runs[`${spec.run}Base`] + 100;
  const started = performance.now();
  const failures = [];
  for (let seed = from; seed < from + options.seeds; seed++) {
    try {
      await runs[spec.run](seed);
    } catch (error) {
      failures.push({ seed, message: String(error?.message ?? error) });
    }
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `${name}: seeds ${from}..${from + options.seeds - 1}, ` +
      `${failures.length} failed, ${seconds} s`,
  );
  for (const { seed, message } of failures) {
    console.log(`  seed ${seed}: ${message.split("\n")[0]}`);
    console.log(
      `    replay: UNDERSTUDY_SEED=${seed} node scripts/test.mjs --no-static -r deno ${spec.test}`,
    );
  }
  failed += failures.length;
}
process.exit(failed === 0 ? 0 : 1);
