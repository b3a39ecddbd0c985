// Copyright 2026 the understudy authors. MIT license.

/**
 * The measuring side of the benchmark: one process runs one workload of one
 * implementation, a warm-up then the measured runs, and prints one line
 * `@@BENCH {json}` that `bench/run.mjs` collects.
 *
 * Runs unchanged under Node (bundled by esbuild), Deno, Bun and Chromium
 * (bundled, driven by bench/browser.mjs): it touches the host only through
 * feature detection.
 *
 * Invocation: `<entry> <workload> <n> <warmup> <runs> [<warm-up n>]`; in the
 * browser the same arguments come from `globalThis.__benchArgs`, and the
 * page reports its exit through `globalThis.__benchExit(code)`.
 *
 * @module
 */

/** What one run reports: `ms` (the timed part) plus workload-specific numbers. */
export type Sample = Record<string, number>;

/** One workload: does its own setup, times only what it measures, cleans up. */
export type Workload = (n: number) => Promise<Sample>;

/** Thrown by a workload whose subject does not exist yet (for example, a module being written). */
export class Unavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = "Unavailable";
  }
}

interface Host {
  gc?: () => void;
  __benchArgs?: string[];
  __benchExit?: (code: number) => void;
  Bun?: { gc(force: boolean): void };
  Deno?: { args: string[]; exit(code: number): never };
  process?: {
    argv: string[];
    exit(code: number): never;
    memoryUsage(): { heapUsed: number };
  };
}

const host = globalThis as unknown as Host;
const notes = new Set<string>();

/** Adds a line to the result's notes (shown in BENCHMARKS.md). */
export function note(text: string): void {
  notes.add(text);
}

/** Whether a full garbage collection can be forced (Node/Deno with --expose-gc, Bun always). */
export function canGc(): boolean {
  return typeof host.gc === "function" || host.Bun !== undefined;
}

/** Forces a full garbage collection, if the runtime allows it. */
export function gc(): void {
  if (host.Bun !== undefined) {
    host.Bun.gc(true);
  } else if (typeof host.gc === "function") {
    host.gc();
    host.gc(); // a second pass collects what the first one's finalizers released
  }
}

/** Bytes of JavaScript heap in use (V8 heapUsed; JavaScriptCore heap size under Bun). */
export function heapUsed(): number {
  return host.process?.memoryUsage().heapUsed ?? Number.NaN;
}

/** Waits for the event loop to turn (timers, I/O, and every pending microtask before them). */
export function tick(ms = 0): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Milliseconds, high resolution. */
export function now(): number {
  return performance.now();
}

/** A promise with its resolve function, for "the last message arrived". */
export function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * An array of `n` slots allocated up front (and so before any heap
 * baseline), where a workload keeps the handle of each actor it creates.
 * Every implementation keeps its handles the same way, so the handles'
 * storage is outside every bytes-per-actor figure.
 */
export function handles(n: number): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < n; i++) out.push(undefined);
  return out;
}

function args(): string[] {
  if (host.__benchArgs !== undefined) return host.__benchArgs;
  if (host.Deno !== undefined) return host.Deno.args;
  return host.process?.argv.slice(2) ?? [];
}

/** Ends the process; in a browser page, reports the code and returns. */
function exit(code: number): void {
  if (host.__benchExit !== undefined) host.__benchExit(code);
  else if (host.process !== undefined) host.process.exit(code);
  else host.Deno!.exit(code);
}

function emit(result: unknown): void {
  console.log(`@@BENCH ${JSON.stringify(result)}`);
}

/**
 * Runs the workload named on the command line: `warmup` unrecorded runs
 * (of `warm-up n`, default `n`), then `runs` recorded ones of `n`, a turn
 * of the event loop before each. Exits the process when done (some peers
 * leave timers behind).
 *
 * No forced GC between runs: a full collection frees the previous run's
 * actors, and V8 then throws away the optimised code that embedded them
 * ("weak objects"), Node's own `queueMicrotask` and xstate's mailbox
 * included, so every measured run would re-optimise inside its timed
 * part. On a loaded machine, where the compiler thread waits for a core,
 * that made the bench's Node figures 1.3 to 4 times slower than an
 * unbundled program's (bench/reference/check.mjs shows the two side by
 * side). Workloads that measure the heap force their own collections
 * around what they measure.
 */
export async function main(workloads: Record<string, Workload>): Promise<void> {
  const [name, nText, warmupText, runsText, warmupNText] = args();
  const workload = workloads[name];
  if (workload === undefined) {
    console.error(
      `unknown workload ${name}; known: ${Object.keys(workloads).join(", ")}`,
    );
    return exit(2);
  }
  const n = Number(nText);
  const warmup = Number(warmupText ?? 1);
  const runs = Number(runsText ?? 5);
  const warmupN = warmupNText === undefined ? n : Number(warmupNText);
  const samples: Sample[] = [];
  try {
    for (let i = 0; i < warmup + runs; i++) {
      await tick();
      const sample = await workload(i < warmup ? warmupN : n);
      if (i >= warmup) samples.push(sample);
    }
  } catch (error) {
    if (error instanceof Unavailable) {
      emit({ status: "unavailable", reason: error.message, notes: [...notes] });
      return exit(0);
    }
    emit({
      status: "error",
      reason: error instanceof Error
        ? `${error.name}: ${error.message}`
        : String(error),
      notes: [...notes],
    });
    console.error(error);
    return exit(1);
  }
  if (!canGc()) note("no forced GC available: heap figures are unreliable");
  emit({ status: "ok", samples, notes: [...notes] });
  exit(0);
}
