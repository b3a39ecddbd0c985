// Copyright 2026 the understudy authors. MIT license.
// Every frame checked, at both ends (src/worker/frame_reader.ts): malformed
// and well-formed batches, generated and one of each malformation, injected
// into serveWorker (as if from the main side) and into the main side (as if
// from the worker) between real messages. Each case runs in a worker of its
// own thread (_frames.worker.ts) and must answer within CASE_MS, so a case
// that hangs its thread fails rather than hangs the test. workerd has no
// Worker: there the cases run in the test's thread (a hang would end the
// file at the harness's time limit instead).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { type FrameCase, type Outcome, runCase } from "./_frames.ts";

/** How long one case may take before it counts as a hang. */
const CASE_MS = 2_000;

// Specifiers in variables, so the browser bundle leaves them alone.
const NODE_MODULES = {
  fs: "node:fs",
  os: "node:os",
  path: "node:path",
  url: "node:url",
  workerThreads: "node:worker_threads",
  esbuild: "esbuild",
};

interface CaseWorker {
  post(message: unknown): void;
  /** Calls `listener` with each message, and `failed` with any error. */
  listen(listener: (data: unknown) => void, failed: (e: unknown) => void): void;
  terminate(): Promise<unknown> | void;
}

const isNode = typeof self === "undefined" && !("Deno" in globalThis) &&
  !("Bun" in globalThis);
const hasWorkers = isNode || typeof Worker !== "undefined";

let nodeScript: string | undefined;

/** Starts a case worker in this runtime. */
async function startWorker(): Promise<CaseWorker> {
  if (!isNode) {
    const script = !("document" in globalThis)
      ? "./_frames.worker.ts" // Deno and Bun run TypeScript
      : "./_frames.worker.js"; // bundled beside the page by the harness
    const worker = new Worker(new URL(script, import.meta.url), {
      type: "module",
    });
    return {
      post: (message) => worker.postMessage(message),
      listen: (listener, failed) => {
        worker.onmessage = (event) => listener(event.data);
        worker.onerror = (event) => {
          event.preventDefault();
          failed(event.message);
        };
      },
      terminate: () => worker.terminate(),
    };
  }
  const threads = await import(NODE_MODULES.workerThreads);
  if (nodeScript === undefined) {
    // Node runs this file bundled; bundle the worker script the same way.
    const fs = await import(NODE_MODULES.fs);
    const os = await import(NODE_MODULES.os);
    const path = await import(NODE_MODULES.path);
    const url = await import(NODE_MODULES.url);
    const esbuild = await import(NODE_MODULES.esbuild);
    let root = path.dirname(url.fileURLToPath(import.meta.url));
    while (!fs.existsSync(path.join(root, "jsr.json"))) {
      root = path.dirname(root);
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "understudy-frames-"));
    nodeScript = path.join(dir, "frames.worker.mjs");
    await esbuild.build({
      entryPoints: [path.join(root, "tests", "worker", "_frames.worker.ts")],
      outfile: nodeScript,
      bundle: true,
      platform: "node",
      format: "esm",
      logLevel: "silent",
    });
  }
  const { port1, port2 } = new threads.MessageChannel();
  const worker = new threads.Worker(nodeScript, {
    workerData: port2,
    transferList: [port2],
  });
  return {
    post: (message) => port1.postMessage(message),
    listen: (listener, failed) => {
      port1.on("message", listener);
      worker.on("error", failed);
    },
    terminate: () => {
      port1.close();
      return worker.terminate();
    },
  };
}

/**
 * Runs cases in a worker, one at a time, each within CASE_MS: one that
 * takes longer hangs its thread (the worker is ended, and the next case
 * gets a new one), one whose worker throws crashed it.
 */
class Runner {
  #worker: CaseWorker | undefined;
  #ready: Promise<void> | undefined;
  #waiting: ((result: Outcome | string) => void) | undefined;
  #id = 0;

  async run(frameCase: FrameCase): Promise<Outcome | string> {
    if (!hasWorkers) return runCase(frameCase);
    await this.#start();
    const id = ++this.#id;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const result = await new Promise<Outcome | string>((resolve) => {
      this.#waiting = resolve;
      timer = setTimeout(() => resolve("hang"), CASE_MS);
      this.#worker!.post({ id, frameCase });
    });
    clearTimeout(timer);
    this.#waiting = undefined;
    if (typeof result === "string") await this.stop(); // a fresh one next
    return result;
  }

  #start(): Promise<void> {
    return this.#ready ??= (async () => {
      const worker = await startWorker();
      this.#worker = worker;
      await new Promise<void>((ready) => {
        worker.listen((data) => {
          const message = data as { ready?: true; outcome?: Outcome };
          if (message.ready) ready();
          else this.#waiting?.(message.outcome!);
        }, (error) => this.#waiting?.(`crash: ${error}`));
      });
    })();
  }

  async stop(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    this.#ready = undefined;
    await worker?.terminate();
  }
}

/** Asserts a case ended in time, without a crash or a broken rule. */
function assertClean(result: Outcome | string): Outcome {
  assert.equal(typeof result, "object", `the case ended: ${result}`);
  const outcome = result as Outcome;
  assert.deepEqual(outcome.violations, []);
  return outcome;
}

/** The malformed-frame lines logged (by the side that read frames `from`). */
function malformed(
  outcome: Outcome,
  from?: "the main side" | "the worker",
): string[] {
  const start = `malformed frame from ${from ?? ""}`;
  return outcome.errors.filter((line) => line.startsWith(start));
}

const DELIVER = 0, SPAWN = 1, PING = 2, ACKS = 3, UNDELIVERED = 4;
const STOPPED = 5, SPAWN_FAILED = 6, PONG = 7, LOST = 8, STOP = 9;
/** A seq the main side never sent, and an id no side handed out. */
const NEVER = 1_000_000;
const forged = (k: number) => ({ forged: k });

/**
 * One of each malformation, as a batch: each fails on the code before
 * frames were checked (a hang, a phantom message, a crash, or nothing
 * logged and the frame acted on), but where said.
 */
const TO_WORKER: Record<string, unknown> = {
  "a negative count (hung)": [DELIVER, NEVER, "rec", 0, -5, forged(0)],
  "a huge count (hung)": [DELIVER, NEVER, "rec", 0, 2 ** 40, forged(0)],
  "a count larger than the frame (phantoms)": [
    DELIVER,
    NEVER,
    "rec",
    0,
    3,
    forged(0),
  ],
  "a fractional count (a phantom)": [DELIVER, NEVER, "rec", 0, 1.5, forged(0)],
  "a NaN count": [DELIVER, NEVER, "rec", 0, NaN, forged(0)],
  "a seq that is a string (crashed the main side)": [
    DELIVER,
    "s",
    "rec",
    0,
    1,
    forged(0),
  ],
  "a negative seq": [DELIVER, -3, "rec", 0, 1, forged(0)],
  "a target of the wrong type": [DELIVER, NEVER, { a: 1 }, 0, 1, forged(0)],
  "a target ref never handed out (an unknown ask)": [
    DELIVER,
    NEVER,
    -NEVER,
    0,
    1,
    forged(0),
  ],
  "a sender of the wrong type": [DELIVER, NEVER, "rec", "me", 1, forged(0)],
  "an unknown kind": [42, 1, 2],
  "a kind only the worker sends": [ACKS, 2, 1, 1],
  "a SPAWN with arguments that are not an array": [
    SPAWN,
    "other",
    "Recorder",
    5,
    7,
  ],
  "a STOP with a name that is no string": [STOP, { a: 1 }, 1],
  "a PING with no number": [PING, "x"],
  "a LOST for an id never handed out": [LOST, -NEVER, "r"],
  "a frame cut short": [STOP, "rec"],
};

const TO_MAIN: Record<string, unknown> = {
  "an ACKS range of 0..2^40 (hung)": [ACKS, 2, 0, 2 ** 40],
  "a negative ACKS count (hung)": [ACKS, -2],
  "a huge ACKS count (hung)": [ACKS, 2 ** 40, 1, 1],
  "a negative DELIVER count (hung)": [DELIVER, 0, 1, 0, -5],
  "a DELIVER count larger than the frame (phantoms)": [
    DELIVER,
    0,
    1,
    0,
    3,
    forged(0),
  ],
  "a fractional DELIVER count (a phantom)": [DELIVER, 0, 1, 0, 1.5, forged(0)],
  "an inverted ACKS range": [ACKS, 2, 5, 3],
  "an ACKS range beyond what was sent": [ACKS, 2, NEVER, NEVER + 5],
  "an odd ACKS count": [ACKS, 1, 1],
  "an UNDELIVERED of a seq never sent": [UNDELIVERED, NEVER, "r"],
  "an UNDELIVERED with a reason that is no string": [UNDELIVERED, 1, 5],
  "a DELIVER with a seq": [DELIVER, 7, 1, 0, 1, forged(0)],
  "a DELIVER to a name": [DELIVER, 0, "rec", 0, 1, forged(0)],
  "a reply to an ask never made": [DELIVER, 0, -NEVER, 0, 1, forged(0)],
  "a LOST with an id that is no number": [LOST, { a: 1 }, "r"],
  "a STOPPED with an id that is no number": [STOPPED, "rec", "x"],
  "a SPAWN_FAILED with a reason that is no string": [SPAWN_FAILED, "rec", 1, 1],
  "a PONG with no number": [PONG, null],
  "a kind only the main side sends": [SPAWN, "a", "Recorder", [], 1],
  "an unknown kind": [42],
  "a frame cut short": [STOPPED, "rec"],
};

/** The batches that the rest of cannot be read past: the main side closes the link. */
const CLOSES_LINK = new Set([
  "a negative ACKS count (hung)",
  "a huge ACKS count (hung)",
  "a negative DELIVER count (hung)",
  "a DELIVER count larger than the frame (phantoms)",
  "a fractional DELIVER count (a phantom)",
  "a kind only the main side sends",
  "an unknown kind",
  "a frame cut short",
]);

describe("a malformed frame reaching serveWorker", () => {
  for (const [name, batch] of Object.entries(TO_WORKER)) {
    it(`${name}: logged once, no phantom, every real message handled once`, async () => {
      const runner = new Runner();
      try {
        const outcome = assertClean(
          await runner.run({ side: "worker", batch, before: 3, after: 3 }),
        );
        // (A message returned with a forged seq is logged by the main side.)
        assert.equal(
          malformed(outcome, "the main side").length,
          1,
          outcome.errors.join("\n"),
        );
        assert.equal(outcome.forged, 0, "nothing of the frame delivered");
        assert.equal(outcome.workers, 1, "the link goes on");
      } finally {
        await runner.stop();
      }
    });
  }
});

describe("a malformed frame reaching the main side", () => {
  for (const [name, batch] of Object.entries(TO_MAIN)) {
    const closes = CLOSES_LINK.has(name);
    it(
      `${name}: logged once, no phantom, ${
        closes ? "the link closed and started again" : "the link goes on"
      }`,
      async () => {
        const runner = new Runner();
        try {
          const outcome = assertClean(
            await runner.run({ side: "main", batch, before: 3, after: 3 }),
          );
          assert.equal(malformed(outcome).length, 1, outcome.errors.join("\n"));
          assert.equal(outcome.forged, 0, "nothing of the frame delivered");
          assert.equal(outcome.workers, closes ? 2 : 1);
          if (Array.isArray(batch) && batch[0] === DELIVER && !closes) {
            assert.ok(
              outcome.reasons.some((r) => r.startsWith("a malformed frame")),
              "its message is a dead letter",
            );
          }
        } finally {
          await runner.stop();
        }
      },
    );
  }

  it("a message that is no array (other code's, on a shared endpoint) is left alone at either end: nothing logged, the link goes on", async () => {
    const runner = new Runner();
    try {
      for (const side of ["worker", "main"] as const) {
        for (const batch of ["ready", 42, { n: 1 }, null]) {
          const outcome = assertClean(
            await runner.run({ side, batch, before: 2, after: 2 }),
          );
          assert.deepEqual(outcome.errors, []);
          assert.equal(outcome.workers, 1);
        }
      }
    } finally {
      await runner.stop();
    }
  });

  it("a flood of bad frames in one link: a few lines logged, not one a frame", async () => {
    const runner = new Runner();
    try {
      const batch: unknown[] = [];
      for (let k = 0; k < 1_000; k++) batch.push(ACKS, 2, 5, 3);
      const outcome = assertClean(
        await runner.run({ side: "main", batch, before: 1, after: 1 }),
      );
      // The 1st, 2nd, 4th, … 512th.
      assert.equal(malformed(outcome).length, 10, outcome.errors.join("\n"));
      assert.match(malformed(outcome)[9], /\(512 so far\)/);
    } finally {
      await runner.stop();
    }
  });
});

// The generated frames: junk for any slot, and per side frames well formed
// and malformed, in batches of a few.

/** Wrong in every slot but a name's: neither a safe integer nor a string. */
const notText = fc.constantFrom<unknown>(
  NaN,
  1.5,
  Infinity,
  -Infinity,
  2 ** 53,
  null,
  undefined,
  true,
  {},
  [],
  [1],
  { forged: -1 },
);
/** Wrong in every slot. */
const junk = fc.oneof(notText, fc.constantFrom<unknown>("1", ""));
/** Wrong as a count: not an integer ≥ 1, or past any batch's end here. */
const badCount = fc.oneof(
  junk,
  fc.constantFrom<unknown>(0, -1, -5, 2 ** 20, 2 ** 40, -(2 ** 40)),
);
const frameOf = (...slots: fc.Arbitrary<unknown>[]) =>
  fc.tuple(...slots) as fc.Arbitrary<unknown[]>;
const k = fc.integer({ min: 0, max: 99 });
const messages = fc.array(k.map(forged), { minLength: 1, maxLength: 3 });
const run = (
  seq: fc.Arbitrary<unknown>,
  target: fc.Arbitrary<unknown>,
  sender: fc.Arbitrary<unknown>,
) =>
  fc.tuple(seq, target, sender, messages).map(([s, t, f, ms]) => [
    DELIVER,
    s,
    t,
    f,
    ms.length,
    ...ms,
  ]);
const anyKind = fc.oneof(junk, fc.integer({ min: 10, max: 99 }));

const good = (frame: unknown[]): [unknown[], boolean] => [frame, false];
const bad = (frame: unknown[]): [unknown[], boolean] => [frame, true];

/** Frames the main side might send, and malformed ones: [frame, bad]. */
const toWorker: fc.Arbitrary<[unknown[], boolean]> = fc.oneof(
  // Well formed.
  run(fc.constant(NEVER), fc.constant("rec"), fc.constant(0)).map(good),
  frameOf(fc.constant(PING), k).map(good),
  frameOf(fc.constant(STOP), fc.constant("nobody"), k).map(good),
  // Malformed.
  run(
    fc.oneof(junk, fc.constantFrom(0, -1, -5, 2 ** 53)),
    fc.constant("rec"),
    fc.constant(0),
  ).map(bad),
  run(fc.constant(NEVER), notText, fc.constant(0)).map(bad),
  run(fc.constant(NEVER), fc.constant("rec"), junk).map(bad),
  run(fc.constant(NEVER), fc.constantFrom(NEVER, -NEVER), fc.constant(0))
    .map(bad),
  fc.tuple(badCount, messages).map((
    [count, ms],
  ) => bad([DELIVER, NEVER, "rec", 0, count, ...ms.slice(0, 1)])),
  frameOf(fc.constant(SPAWN), junk, junk, junk, junk).map(bad),
  frameOf(fc.constant(STOP), junk, junk).map(bad),
  frameOf(fc.constant(PING), junk).map(bad),
  frameOf(fc.constant(LOST), fc.oneof(junk, fc.constant(-NEVER)), junk).map(
    bad,
  ),
  frameOf(anyKind, junk).map(bad),
  frameOf(fc.constantFrom(ACKS, UNDELIVERED, STOPPED, PONG), k, k).map(bad),
);

/** Frames the worker might send, and malformed ones: [frame, bad]. */
const toMain: fc.Arbitrary<[unknown[], boolean]> = fc.oneof(
  // Well formed (the collector is the main side's ref 1).
  run(fc.constant(0), fc.constant(1), fc.constant(0)).map(good),
  frameOf(fc.constant(PONG), k).map(good),
  frameOf(fc.constant(STOPPED), fc.constant("nobody"), k).map(good),
  // Malformed.
  run(
    fc.oneof(junk, fc.constantFrom(7, -1, 2 ** 40)),
    fc.constant(1),
    fc.constant(0),
  ).map(bad),
  run(
    fc.constant(0),
    fc.oneof(junk, fc.constantFrom("rec", NEVER, -NEVER)),
    fc.constant(0),
  ).map(bad),
  run(fc.constant(0), fc.constant(1), junk).map(bad),
  fc.tuple(badCount, messages).map((
    [count, ms],
  ) => bad([DELIVER, 0, 1, 0, count, ...ms.slice(0, 1)])),
  frameOf(fc.constant(ACKS), badCount).map(bad),
  fc.oneof(
    fc.tuple(junk, junk),
    fc.tuple(fc.constant(0), fc.constant(2 ** 40)),
    fc.tuple(fc.constant(5), fc.constant(3)),
    fc.tuple(fc.constant(NEVER), fc.constant(NEVER + 5)),
  ).map(([first, last]) => bad([ACKS, 2, first, last])),
  frameOf(
    fc.constant(UNDELIVERED),
    fc.oneof(junk, fc.constantFrom(NEVER, -1)),
    junk,
  )
    .map(bad),
  frameOf(fc.constant(STOPPED), junk, junk).map(bad),
  frameOf(fc.constant(SPAWN_FAILED), junk, junk, junk).map(bad),
  frameOf(fc.constant(PONG), junk).map(bad),
  frameOf(fc.constant(LOST), fc.oneof(junk, fc.constant(-NEVER)), junk).map(
    bad,
  ),
  frameOf(anyKind, junk).map(bad),
  frameOf(fc.constantFrom(SPAWN, PING, STOP), k, k).map(bad),
);

/** A batch of a few frames, maybe cut short, or no array at all. */
function batches(
  frames: fc.Arbitrary<[unknown[], boolean]>,
): fc.Arbitrary<{ batch: unknown; bad: boolean }> {
  return fc.oneof(
    {
      weight: 9,
      arbitrary: fc.tuple(
        fc.array(frames, { minLength: 1, maxLength: 5 }),
        fc.nat(3), // slots cut off the end
      ).map(([list, cut]) => {
        const whole = list.flatMap(([frame]) => frame);
        const batch = whole.slice(0, Math.max(1, whole.length - cut));
        // Cut inside a frame (not only whole frames off the end)?
        let end = 0;
        const ends = list.map(([frame]) => end += frame.length);
        const bad = list.some(([, bad], n) => bad && ends[n] <= batch.length) ||
          (batch.length < whole.length && !ends.includes(batch.length));
        return { batch, bad };
      }),
    },
    {
      weight: 1,
      arbitrary: junk.map((batch) => ({
        batch,
        // Not an array: no batch, left alone; [] holds no frame.
        bad: Array.isArray(batch) && batch.length > 0,
      })),
    },
  );
}

for (const side of ["worker", "main"] as const) {
  describe(`generated frames reaching the ${side} side`, () => {
    it("never hang, crash or deliver a phantom; each real message is handled once or a dead letter once; bad ones are logged, a few lines at most", async () => {
      const runner = new Runner();
      try {
        await fc.assert(
          fc.asyncProperty(
            batches(side === "worker" ? toWorker : toMain),
            fc.nat(3),
            async ({ batch, bad }, after) => {
              const outcome = assertClean(
                await runner.run({ side, batch, before: 2, after }),
              );
              const lines = malformed(outcome).length;
              if (bad) assert.ok(lines >= 1, "a bad frame is logged");
              assert.ok(lines <= 8, outcome.errors.join("\n"));
            },
          ),
          { numRuns: 60 },
        );
      } finally {
        await runner.stop();
      }
    });
  });
}
