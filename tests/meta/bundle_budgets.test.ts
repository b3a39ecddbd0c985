// @runtimes node
// Node only: it runs bench/size.mjs (esbuild, node:zlib) as a child process,
// and the bytes are the same whichever runtime asks.
// Copyright 2026 the understudy authors. MIT license.
/**
 * Size is a budget, like correctness (issue 25, item 2): each program a user
 * would write is bundled the way bench/size.mjs does (esbuild, minified,
 * browser ESM, gzip -9) and may not grow past its ceiling. Bytes are
 * deterministic, unlike time, so this is a test and not a benchmark.
 *
 * `ceiling` is what the program measures today, rounded up: a change that
 * adds bytes must raise it here, in the same commit, and say why. `target`
 * is where the sealed kernel is to bring it (issue 25); a ceiling is lowered
 * whenever a change brings a program down, never raised to make room.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { execPath } from "node:process";
import { findRepoRoot } from "./_repo.ts";

interface Budget {
  /** The row of bench/size.mjs. */
  id: string;
  /** Gzip bytes it may not exceed today. */
  ceiling: number;
  /** Gzip bytes the issue asks for. */
  target: number;
}

const BUDGETS: Budget[] = [
  { id: "core-nothing", ceiling: 20, target: 20 },
  // The seal (private state, the notice protocol) and a pattern's door in
  // the kernel: +248 B over 13,159; watchWith on a remote ref, +13; the
  // BackoffSupervisor's door, +210 more.
  // issue 26: the due-keeper port (receive timeouts and typed restarts keep
  // their due times where a durable host's scheduler has a keeper), +287 B.
  // The cell's and its context's methods are prototype methods, not
  // #private ones (V8 gives each instance of a class with #methods a brand,
  // 16 B an actor): their names are not minified, +65 B here, +66 to +98
  // in the other rows. The mailbox grows by linking segments instead of
  // copying its ring (the fan-out's collector: 0.60 -> 0.85x in Node,
  // 0.28 -> 0.49x in Bun), +115 B here and about as much in each row.
  // The due keeper by the timer's key: an internal timer's key's description
  // is the kind it is kept as, no KeptAs object per arming, -50 B; -38 to
  // -51 B in the other rows. The system's core and the timer ticket
  // `declare` the fields their constructors assign (no second emission as
  // a definition): -45 B here, -37 to -57 B in the other rows. Props, the
  // strategies, the events, the errors and Terminated the same: -86 B here,
  // -79 to -93 B in the other rows.
  // The cell's state and flags in one number, and the dispatcher letting a
  // burst's ready queue go (heap per idle actor 173 -> 155 B in Node and
  // Deno, issue 25's 160 B met): +103 B here, +82 to +100 in the others
  // (the `status` accessor's name is not minified).
  // The dispatcher's `idle`, and dead letters' core public as a cell's, for
  // a durable activation that waits until its actors have started: +8 B
  // here, +6 to +8 in the other rows. The turn loop's one mask: +2 B here,
  // +4 in the BackoffSupervisor program.
  { id: "core-tell", ceiling: 13_805, target: 8_000 },
  { id: "core-backoff-supervisor", ceiling: 17_405, target: 10_000 },
  // issue 27: + durableSocketAck (export *) and the socket actor's wait for
  // a server's word on what it handled (ack.decodeResume), 370 B; the
  // server's refusals (ack.decodeRefusal, and durableSocketAck's), 221 B;
  // refusals heard before the word too (and out of the resend buffer), 29 B.
  { id: "core-backoff-supervisor-websocket", ceiling: 24_785, target: 14_000 },
  // issue 28: a program that uses only the socket's front door (`connect`).
  // issue 27: the socket actor's ack.decodeResume, 143 B; its
  // ack.decodeRefusal, 110 B; refusals heard before the word too, 6 B.
  { id: "websocket-connect", ceiling: 23_470, target: 10_000 },
  // The BackoffSupervisor door's guard against a hostile message moved into
  // validation.ts (instanceOfAny), the boundary for values: +7 B here, +14 B
  // for `connect`.
  // issue 26: the due-keeper port in the kernel, and typed supervision's
  // kept restart (restoreWait, keptWait, EarlierFailure), +533 B.
  { id: "core-all", ceiling: 23_030, target: 18_000 },
  // issue 29, item 3: the worker transport adds at most 4 KB to the kernel
  // program (`core-tell`): its main side (which carries a BackoffSupervisor
  // for `backoff`, ~3.5 KB of what it adds) and the worker's script. Both
  // carry the kernel's growth in the seal (+248 B) and the main side the
  // BackoffSupervisor's door too.
  // `workerBackoff` an import of its own: the main side without backoff no
  // longer bundles the BackoffSupervisor, -3,636 B.
  // The books of messages in flight kept in the outbox's batches (no
  // per-message entry: a stream's main side some 0.6x the cost a tell in
  // Bun and Node), +147 B main side; the outbox's hooks for them, +58 B in
  // the worker's script too.
  { id: "worker-main", ceiling: 20_120, target: 12_000 },
  { id: "worker-serve", ceiling: 17_730, target: 12_000 },
];

interface Row {
  id: string;
  status: string;
  gzip?: number;
  reason?: string;
}

function measureAll(): Map<string, Row> {
  const root = findRepoRoot();
  const out = execFileSync(execPath, [join(root, "bench", "size.mjs")], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const line = out.split("\n").find((l) => l.startsWith("@@BENCH "));
  assert.ok(line, "bench/size.mjs printed no @@BENCH line");
  const { sizes } = JSON.parse(line.slice("@@BENCH ".length)) as {
    sizes: Row[];
  };
  return new Map(sizes.map((row) => [row.id, row]));
}

describe("per-use bundle budgets (esbuild, minified, gzip -9)", () => {
  const rows = measureAll();
  for (const { id, ceiling, target } of BUDGETS) {
    it(`${id} stays within ${ceiling} B (target ${target} B)`, () => {
      const row = rows.get(id);
      assert.ok(row, `bench/size.mjs has no row ${id}`);
      assert.equal(row.status, "ok", `${id}: ${row.reason}`);
      assert.ok(
        row.gzip! <= ceiling,
        `${id} is ${row.gzip} B gzipped, over its ceiling of ${ceiling} B: find what grew (the row's contributors in bench/size.mjs), or raise the ceiling here saying why`,
      );
    });
  }
});
