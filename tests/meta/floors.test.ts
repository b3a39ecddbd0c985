// @runtimes deno node bun
// Copyright 2026 the understudy authors. MIT license.
/**
 * The floors of the house (docs/architecture.md, "How it is built"): each module imports
 * only its own floor and the floors below, so a reader can learn the library
 * from the ground up and a bundler can drop what a program does not use.
 *
 *   0  src/validation.ts   argument checks, safe descriptions; imports nothing
 *   1  src/backoff/        policies and jitter
 *   2  src/supervision/    strategies and their decisions, the failure port
 *   3  src/runtime/        the kernel and its ports
 *   4  src/patterns/       the BackoffSupervisor
 *   5  src/websocket/      the supervised WebSocket; and beside it the
 *      src/worker/, src/durable/ transports, src/edge/ (stateless Workers)
 *      and the src/testing/ kit
 *
 * Patterns reach the runtime only through its public modules and the one
 * documented port (`undelivered.ts`), never the cell or the mailbox.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { findRepoRoot } from "./_repo.ts";

const root = findRepoRoot();
const src = join(root, "src");

/** The floor of a file under src/, by its first path segment. */
function floorOf(file: string): number {
  const rel = relative(src, file).split(sep);
  if (rel.length === 1) return rel[0] === "validation.ts" ? 0 : -1;
  const floors: Record<string, number> = {
    backoff: 1,
    supervision: 2,
    runtime: 3,
    patterns: 4,
    websocket: 5,
    worker: 5,
    durable: 5,
    edge: 5,
    testing: 5,
  };
  return floors[rel[0]] ?? -1;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/** Every relative import and re-export of `file`, resolved to a path. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const found: string[] = [];
  for (
    const m of text.matchAll(
      /^(?:import|export)\s[^;]*?from\s*["'](\.[^"']+)["']/gm,
    )
  ) {
    found.push(resolve(dirname(file), m[1]));
  }
  return found;
}

/** The targets of `file`'s type-only imports (`import type …`), erased from its code. */
function typeImportsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/^import\s+type\s[^;]*?from\s*["'](\.[^"']+)["']/gm)]
    .map((m) => resolve(dirname(file), m[1]));
}

/** Runtime modules the patterns floor may use: the public API and the one port. */
const OPEN_TO_PATTERNS = new Set([
  "actor.ts",
  "actor_ref.ts",
  "actor_system.ts",
  "event_stream.ts",
  "logging.ts",
  "props.ts",
  "ports/scheduler.ts",
  "features/timers.ts",
  "ports/undelivered.ts",
]);

describe("the floors of src/", () => {
  const files = sourceFiles(src);

  it("every file sits on a known floor", () => {
    const lost = files.filter((f) => floorOf(f) < 0).map((f) =>
      relative(root, f)
    );
    assert.deepEqual(lost, []);
  });

  it("no module imports a floor above its own", () => {
    const upward: string[] = [];
    for (const file of files) {
      for (const target of importsOf(file)) {
        if (floorOf(target) > floorOf(file)) {
          upward.push(`${relative(root, file)} -> ${relative(root, target)}`);
        }
      }
    }
    assert.deepEqual(upward, []);
  });

  it("the wings of floor 5 do not import one another (the testkit may name their types)", () => {
    const across: string[] = [];
    const wing = (file: string) => relative(src, file).split(sep)[0];
    for (const file of files.filter((f) => floorOf(f) === 5)) {
      const types = wing(file) === "testing" ? typeImportsOf(file) : [];
      for (const target of importsOf(file)) {
        if (types.includes(target)) continue; // erased: no code crosses
        if (floorOf(target) === 5 && wing(target) !== wing(file)) {
          across.push(`${relative(root, file)} -> ${relative(root, target)}`);
        }
      }
    }
    assert.deepEqual(across, []);
  });

  it("nothing assigns to a ref's or a cell's methods (transports use the remote port, runtime/ports/remote.ts)", () => {
    const assigned: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      for (
        const m of text.matchAll(/\.(tell|ask|askFor|enqueue\w*)\s*=[^=]/g)
      ) {
        assigned.push(`${relative(root, file)}: ${m[0].trim()}`);
      }
    }
    assert.deepEqual(assigned, []);
  });

  it("outside the runtime, only these files still reach into its kernel/ (the seal shrinks this list)", () => {
    const kernel = join(src, "runtime", "kernel") + sep;
    const reaching = files
      .filter((f) => !relative(src, f).startsWith(`runtime${sep}`))
      .filter((f) => importsOf(f).some((t) => t.startsWith(kernel)))
      .map((f) => relative(src, f).split(sep).join("/"))
      .sort();
    assert.deepEqual(reaching, [
      "worker/serve_worker.ts",
      "worker/worker_host.ts",
    ]);
  });

  it("the kernel has no try outside its one boundary with user code, kernel/user_code.ts", () => {
    const kernel = join(src, "runtime", "kernel");
    const tries = sourceFiles(kernel)
      .filter((f) => !f.endsWith(`${sep}user_code.ts`))
      .flatMap((f) => {
        // Code only: comments may say "try".
        const code = readFileSync(f, "utf8")
          .replace(/\/\*[\s\S]*?\*\//g, "")
          .replace(/\/\/.*$/gm, "");
        return /\btry\s*\{/.test(code) ? [relative(root, f)] : [];
      });
    assert.deepEqual(tries, []);
  });

  it("no import cycle among the runtime's files (code imports; types are erased)", () => {
    const runtime = join(src, "runtime") + sep;
    const inRuntime = files.filter((f) => f.startsWith(runtime));
    const edges = new Map(inRuntime.map((f) => [
      f,
      importsOf(f).filter((t) =>
        t.startsWith(runtime) && !typeImportsOf(f).includes(t)
      ),
    ]));
    const cycles: string[] = [];
    const done = new Set<string>();
    const walk = (file: string, trail: string[]): void => {
      if (trail.includes(file)) {
        const loop = trail.slice(trail.indexOf(file)).concat(file);
        cycles.push(loop.map((f) => relative(runtime, f)).join(" -> "));
        return;
      }
      if (done.has(file)) return;
      for (const next of edges.get(file) ?? []) walk(next, [...trail, file]);
      done.add(file);
    };
    for (const file of inRuntime) walk(file, []);
    assert.deepEqual(cycles, []);
  });

  it("features reach the cell through its port (kernel/cell_port.ts), not cell.ts", () => {
    const runtime = join(src, "runtime");
    const cell = join(runtime, "kernel", "cell.ts");
    const reaching = files
      .filter((f) => f !== cell && importsOf(f).includes(cell))
      .map((f) => relative(src, f).split(sep).join("/"))
      .sort();
    // The system makes the guardian's cell; the remote port subclasses it;
    // the worker's two ends still hold cells (the seal shrinks this list).
    assert.deepEqual(reaching, [
      "runtime/actor_system.ts",
      "runtime/ports/remote.ts",
      "worker/serve_worker.ts",
      "worker/worker_host.ts",
    ]);
  });

  it("the kernel knows nothing of a transport's books: no kernel/ file names tracked messages", () => {
    const kernel = join(src, "runtime", "kernel");
    const naming = sourceFiles(kernel)
      .filter((f) =>
        /tracked_message\.ts|TrackedMessage/.test(readFileSync(f, "utf8"))
      )
      .map((f) => relative(root, f));
    assert.deepEqual(naming, []);
  });

  it("the cell keeps its state private: ActorCell's only public fields are its readonly identity", () => {
    const text = readFileSync(
      join(src, "runtime", "kernel", "cell.ts"),
      "utf8",
    );
    const body = text.slice(text.indexOf("export class ActorCell"));
    const fields = [
      ...body.matchAll(/^ {2}(?:readonly )?([A-Za-z_]\w*)\s*[:=?!][^(\n]*$/gm),
    ]
      .map((m) => m[0].trim());
    assert.deepEqual(fields, [
      "readonly core: SystemCore;",
      "readonly parentCell: CellPort | undefined;",
      "readonly childKey: string | number;",
    ]);
  });

  it("the cell and its context have no #private methods (V8 gives each instance a brand: +8 B an actor)", () => {
    const branded = ["kernel/cell.ts", "context.ts"].flatMap((file) =>
      [
        ...readFileSync(join(src, "runtime", file), "utf8")
          .matchAll(/^ {2}(?:static )?#\w+\s*[(<]/gm),
      ].map((m) => `${file}: ${m[0].trim()}`)
    );
    assert.deepEqual(branded, []);
  });

  it("the cell stays within its line budget (ratchet; the target is 600)", () => {
    const lines =
      readFileSync(join(src, "runtime", "kernel", "cell.ts"), "utf8")
        .split("\n").length;
    assert.ok(lines <= 1_020, `kernel/cell.ts is ${lines} lines, over 1,020`);
  });

  it("patterns use the runtime's public modules and its one port only", () => {
    const inside: string[] = [];
    for (const file of files.filter((f) => floorOf(f) === 4)) {
      for (const target of importsOf(file)) {
        const rel = relative(join(src, "runtime"), target);
        if (!rel.startsWith("..") && !OPEN_TO_PATTERNS.has(rel)) {
          inside.push(`${relative(root, file)} -> ${relative(root, target)}`);
        }
      }
    }
    assert.deepEqual(inside, []);
  });
});
