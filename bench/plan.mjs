// Copyright 2026 the understudy authors. MIT license.

/**
 * What `npm run bench` runs: every (workload, implementation, runtime, size)
 * is one job, run in its own fresh process.
 */

/** Sizes of the full run and of `--quick`. */
export const SIZES = {
  full: {
    pingpong: 1_000_000,
    fanin: 1_000_000,
    fanout: 100_000,
    spawn: [100_000, 200_000, 400_000], // growth measured 100 k → 400 k (issue 11)
    ask: 100_000,
    tell: 1_000_000,
    crash: 10_000,
    timers: 100_000,
    fairness: 1_000,
  },
  quick: {
    pingpong: 10_000,
    fanin: 10_000,
    fanout: 1_000,
    spawn: [1_000, 2_000, 4_000],
    ask: 1_000,
    tell: 10_000,
    crash: 30,
    timers: 1_000,
    fairness: 150,
  },
};

/**
 * The slowest peers' jobs (effect's fibers with queues, xstate machines)
 * would take minutes each at the full sizes, so they use at most these
 * sizes, keyed by workload or by function. The figures are per message,
 * per actor or per timer, and each size is far past warm-up.
 */
const CAPS = {
  full: {
    effect: {
      pingpong: 100_000,
      fanin: 200_000,
      fanout: 20_000,
      spawn: 20_000,
      ask: 20_000,
    },
    xstate: { "pingpong-machine": 200_000, timers: 20_000 },
  },
  quick: {
    effect: {
      pingpong: 2_000,
      fanin: 5_000,
      fanout: 500,
      spawn: 500,
      ask: 500,
    },
    xstate: { pingpong: 5_000, timers: 300 },
    nact: { pingpong: 5_000, fanin: 5_000 },
  },
};

export const RUNTIMES = ["node", "deno", "bun"];
/** Where the fairness workload runs: the runtimes, and Chromium through bench/browser.mjs. */
export const FAIRNESS_RUNTIMES = [...RUNTIMES, "browser"];

/** Display names of the implementations. */
export const IMPL_LABELS = {
  understudy: "understudy",
  baseline: "baseline",
  xstate: "xstate",
  nact: "nact",
  effect: "effect",
};

/**
 * Builds the job list. A job: `{ id, workload, impl, fn, label, runtime,
 * kind: "library" | "baseline", n, warmupN? }`.
 */
export function plan(mode) {
  const size = SIZES[mode];
  const jobs = [];
  const add = (workload, impl, fn, label, runtimes, fullN, extra = {}) => {
    const caps = CAPS[mode][impl] ?? {};
    const n = Math.min(fullN, caps[fn] ?? caps[workload] ?? Infinity);
    for (const runtime of runtimes) {
      jobs.push({
        id: `${workload}/${impl}/${fn}/${runtime}/${n}`,
        workload,
        impl,
        fn,
        label,
        runtime,
        kind: impl === "baseline" ? "baseline" : "library",
        n,
        ...extra,
      });
    }
  };
  const all = RUNTIMES;
  const node = ["node"];

  // 1. Ping-pong, and the microtask chain it is compared with on each runtime.
  add("pingpong", "understudy", "pingpong", "understudy", all, size.pingpong);
  add(
    "pingpong",
    "xstate",
    "pingpong",
    "xstate (fromTransition)",
    node,
    size.pingpong,
  );
  add(
    "pingpong",
    "xstate",
    "pingpong-machine",
    "xstate (machine)",
    node,
    size.pingpong,
  );
  add("pingpong", "nact", "pingpong", "nact", node, size.pingpong);
  add(
    "pingpong",
    "effect",
    "pingpong",
    "effect (fibers + queues)",
    node,
    size.pingpong,
  );
  add(
    "pingpong",
    "baseline",
    "pingpong-microtask",
    "queueMicrotask chain",
    all,
    size.pingpong,
  );
  add(
    "pingpong",
    "baseline",
    "pingpong-call",
    "function-call loop",
    all,
    size.pingpong,
  );

  // 2. Fan-in.
  add("fanin", "understudy", "fanin", "understudy", all, size.fanin);
  add("fanin", "xstate", "fanin", "xstate (fromTransition)", node, size.fanin);
  add("fanin", "nact", "fanin", "nact", node, size.fanin);
  add("fanin", "effect", "fanin", "effect (fibers + queues)", node, size.fanin);
  add(
    "fanin",
    "baseline",
    "fanin-microtask",
    "queueMicrotask × n",
    all,
    size.fanin,
  );
  add("fanin", "baseline", "fanin-call", "function-call loop", all, size.fanin);

  // 3. Fan-out.
  add("fanout", "understudy", "fanout", "understudy", all, size.fanout);
  add(
    "fanout",
    "xstate",
    "fanout",
    "xstate (fromTransition)",
    node,
    size.fanout,
  );
  add("fanout", "nact", "fanout", "nact", node, size.fanout);
  add(
    "fanout",
    "effect",
    "fanout",
    "effect (fibers + queues)",
    node,
    size.fanout,
  );
  add(
    "fanout",
    "baseline",
    "fanout-call",
    "function-call loop",
    all,
    size.fanout,
  );

  // 4. Spawn, at three sizes, with heap per idle actor. The slowest peers
  //    (xstate machines, effect) only at the middle size, or their cap.
  const [, mid] = size.spawn;
  for (const n of size.spawn) {
    add("spawn", "understudy", "spawn", "understudy", all, n);
    add("spawn", "xstate", "spawn", "xstate (fromTransition)", node, n);
    if (n === mid) {
      add("spawn", "xstate", "spawn-machine", "xstate (machine)", node, n);
    }
    add("spawn", "nact", "spawn", "nact", node, n);
    if (n === mid) {
      add("spawn", "effect", "spawn", "effect (fibers + queues)", node, n);
    }
    add(
      "spawn",
      "baseline",
      "spawn-plain",
      "plain objects, same shape",
      all,
      n,
    );
  }

  // 5. Ask.
  add("ask", "understudy", "ask", "understudy", all, size.ask);
  add("ask", "xstate", "ask", "xstate (fromTransition)", node, size.ask);
  add("ask", "nact", "ask", "nact", node, size.ask);
  add("ask", "effect", "ask", "effect (fibers + queues)", node, size.ask);
  add(
    "ask",
    "baseline",
    "ask-promise",
    "await a microtask-resolved promise",
    all,
    size.ask,
  );

  // 6. Supervision: tells through a BackoffSupervisor against direct tells; crash-and-respawn cycles.
  add(
    "tell",
    "understudy",
    "tell-direct",
    "understudy, direct tell",
    all,
    size.tell,
  );
  add(
    "tell",
    "understudy",
    "tell-backoff",
    "understudy, through BackoffSupervisor",
    all,
    size.tell,
  );
  const crashWarmup = Math.max(10, Math.floor(size.crash / 10));
  add(
    "crash",
    "understudy",
    "crash-backoff",
    "understudy, BackoffSupervisor",
    all,
    size.crash,
    {
      warmupN: crashWarmup,
    },
  );
  add(
    "crash",
    "understudy",
    "crash-classic",
    "understudy, parent's OneForOneStrategy restart",
    all,
    size.crash,
    {
      warmupN: crashWarmup,
    },
  );
  add("crash", "nact", "crash", "nact (onCrash: reset)", node, size.crash, {
    warmupN: crashWarmup,
  });
  add(
    "crash",
    "effect",
    "crash",
    "effect (Effect.retry, Schedule.forever)",
    node,
    size.crash,
    {
      warmupN: crashWarmup,
    },
  );

  // 7. Timers.
  add("timers", "understudy", "timers", "understudy", all, size.timers);
  add(
    "timers",
    "xstate",
    "timers",
    "xstate (machine, `after` delay)",
    node,
    size.timers,
  );
  add(
    "timers",
    "baseline",
    "timers",
    "plain setTimeout / clearTimeout",
    all,
    size.timers,
  );

  // 9. Fairness: timers while one actor floods itself, against the same
  //    timers with nothing else running. n is ms per measurement.
  add(
    "fairness",
    "understudy",
    "fairness",
    "understudy, one actor flooding itself",
    FAIRNESS_RUNTIMES,
    size.fairness,
  );
  add(
    "fairness",
    "baseline",
    "fairness-idle",
    "nothing else running",
    FAIRNESS_RUNTIMES,
    size.fairness,
  );

  return jobs;
}
