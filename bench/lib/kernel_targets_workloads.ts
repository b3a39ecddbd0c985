// Copyright 2026 the understudy authors. MIT license.

/**
 * The workloads of `bench/kernel_targets.mjs`: issue 25's speed targets, each
 * as a ratio of two figures measured in the same process, the two halves run
 * alternately so that neither always runs warm. Public API only (`LIBRARY`
 * is the tree under test, resolved by the bundler). Prints one
 * `@@TARGETS {json}` line: each target's ratio (higher is better).
 *
 * @module
 */

import {
  Actor,
  type ActorRef,
  ActorSystem,
  BackoffSupervisor,
  Props,
} from "LIBRARY";

const now = () => performance.now();
const newSystem = () => ActorSystem.create("targets", { logLevel: "off" });

function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

// ───────────── ping-pong against a queueMicrotask chain ─────────────

class Ponger extends Actor<number> {
  onReceive(n: number): void {
    this.sender!.tell(n, this.self);
  }
}

class Pinger extends Actor<number> {
  constructor(
    readonly ponger: ActorRef<number>,
    readonly rounds: number,
    readonly done: () => void,
  ) {
    super();
  }
  onReceive(n: number): void {
    if (n === this.rounds) this.done();
    else this.ponger.tell(n + 1, this.self);
  }
}

/** Messages a second over `pairs` concurrent ping-pong pairs, `rounds` round trips each. */
async function pingpong(pairs: number, rounds: number): Promise<number> {
  const system = newSystem();
  let left = pairs;
  const finished = signal();
  const pingers: ActorRef<number>[] = [];
  for (let i = 0; i < pairs; i++) {
    const ponger = system.actorOf(Props.create(() => new Ponger()));
    pingers.push(system.actorOf(
      Props.create(() =>
        new Pinger(ponger, rounds, () => {
          if (--left === 0) finished.resolve();
        })
      ),
    ));
  }
  await new Promise((r) => setTimeout(r, 0));
  const t0 = now();
  for (const pinger of pingers) pinger.tell(0);
  await finished.promise;
  const ms = now() - t0;
  await system.terminate();
  return (2 * pairs * rounds) / ms * 1000;
}

/** Steps a second of a chain of queueMicrotask callbacks. */
async function microtaskChain(steps: number): Promise<number> {
  const finished = signal();
  let left = steps;
  const step = (): void => {
    if (--left === 0) finished.resolve();
    else queueMicrotask(step);
  };
  const t0 = now();
  queueMicrotask(step);
  await finished.promise;
  return steps / (now() - t0) * 1000;
}

// ───────────── 1 → 1,000 → 1 against a 15-line mailbox actor ─────────────

/** The 15-line mailbox actor: a queue, a flag, a microtask drain. */
class Tiny<T> {
  #queue: T[] = [];
  #scheduled = false;
  constructor(readonly receive: (message: T) => void) {}
  tell(message: T): void {
    this.#queue.push(message);
    if (this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      const queue = this.#queue;
      this.#queue = [];
      for (const m of queue) this.receive(m);
    });
  }
}

class Worker extends Actor<number> {
  constructor(readonly collector: ActorRef<number>) {
    super();
  }
  onReceive(n: number): void {
    this.collector.tell(n);
  }
}

class Collector extends Actor<number> {
  count = 0;
  constructor(readonly expected: number, readonly done: () => void) {
    super();
  }
  onReceive(): void {
    if (++this.count === this.expected) this.done();
  }
}

/** Messages a second: `rounds` times, one sender tells 1,000 workers, each tells one collector. */
async function fanout(rounds: number): Promise<number> {
  const system = newSystem();
  const finished = signal();
  const collector = system.actorOf(
    Props.create(() => new Collector(1_000 * rounds, finished.resolve)),
  );
  const workers: ActorRef<number>[] = [];
  for (let i = 0; i < 1_000; i++) {
    workers.push(system.actorOf(Props.create(() => new Worker(collector))));
  }
  await new Promise((r) => setTimeout(r, 0));
  const t0 = now();
  for (let r = 0; r < rounds; r++) {
    for (const worker of workers) worker.tell(r);
  }
  await finished.promise;
  const ms = now() - t0;
  await system.terminate();
  return (2_000 * rounds) / ms * 1000;
}

async function fanoutTiny(rounds: number): Promise<number> {
  const finished = signal();
  let count = 0;
  const collector = new Tiny<number>(() => {
    if (++count === 1_000 * rounds) finished.resolve();
  });
  const workers: Tiny<number>[] = [];
  for (let i = 0; i < 1_000; i++) {
    workers.push(new Tiny<number>((n) => collector.tell(n)));
  }
  const t0 = now();
  for (let r = 0; r < rounds; r++) {
    for (const worker of workers) worker.tell(r);
  }
  await finished.promise;
  return (2_000 * rounds) / (now() - t0) * 1000;
}

/**
 * Messages a second over `pairs` concurrent ping-pong pairs of 15-line
 * actors: the reference for the 10,000-pair row, since the slowdown a wide
 * working set brings (cache misses over 20,000 actors) is any actor's, not
 * only ours.
 */
async function pingpongTiny(pairs: number, rounds: number): Promise<number> {
  const finished = signal();
  let left = pairs;
  const pingers: Tiny<number>[] = [];
  for (let i = 0; i < pairs; i++) {
    const pinger: Tiny<number> = new Tiny<number>((n) => {
      if (n === rounds) {
        if (--left === 0) finished.resolve();
      } else ponger.tell(n + 1);
    });
    const ponger: Tiny<number> = new Tiny<number>((n) => pinger.tell(n));
    pingers.push(pinger);
  }
  const t0 = now();
  for (const pinger of pingers) pinger.tell(0);
  await finished.promise;
  return (2 * pairs * rounds) / (now() - t0) * 1000;
}

// ───────────── a tell through a BackoffSupervisor against a direct one ─────────────

class Counter extends Actor<number> {
  count = 0;
  constructor(readonly expected: number, readonly done: () => void) {
    super();
  }
  onReceive(): void {
    if (++this.count === this.expected) this.done();
  }
}

/** Messages a second told from a loop to a Counter, directly or through a BackoffSupervisor. */
async function tells(n: number, supervised: boolean): Promise<number> {
  const system = newSystem();
  const finished = signal();
  const child = Props.create(() => new Counter(n, finished.resolve));
  const ref = supervised
    ? system.actorOf(
      BackoffSupervisor.props({
        childProps: child,
        minBackoff: 100,
        maxBackoff: 1_000,
      }),
    )
    : system.actorOf(child);
  await new Promise((r) => setTimeout(r, 10));
  const t0 = now();
  for (let i = 0; i < n; i++) ref.tell(i as never);
  await finished.promise;
  const ms = now() - t0;
  await system.terminate();
  return n / ms * 1000;
}

// ───────────── the run ─────────────

const quick = (globalThis as { TARGETS_QUICK?: boolean }).TARGETS_QUICK;
const scale = quick ? 0.1 : 1;

/** The ratio a/b of two measures, run alternately `reps` times; median of each. */
async function ratio(
  a: () => Promise<number>,
  b: () => Promise<number>,
  reps = 5,
): Promise<number> {
  const as: number[] = [];
  const bs: number[] = [];
  for (let i = 0; i < reps; i++) {
    if (i % 2 === 0) {
      as.push(await a());
      bs.push(await b());
    } else {
      bs.push(await b());
      as.push(await a());
    }
  }
  const median = (xs: number[]) => xs.sort((x, y) => x - y)[xs.length >> 1];
  return median(as) / median(bs);
}

const round = Math.round;
const result = {
  "ping-pong / queueMicrotask chain": await ratio(
    () => pingpong(1, round(200_000 * scale)),
    () => microtaskChain(round(400_000 * scale)),
  ),
  "fan-out 1→1,000→1 / 15-line mailbox actor": await ratio(
    () => fanout(round(100 * scale)),
    () => fanoutTiny(round(100 * scale)),
  ),
  "direct tell / tell through a BackoffSupervisor": await ratio(
    () => tells(round(500_000 * scale), false),
    () => tells(round(500_000 * scale), true),
  ),
  "msg/s at 1 pair / msg/s at 10,000 pairs": await ratio(
    () => pingpong(1, round(200_000 * scale)),
    () => pingpong(10_000, round(20 * scale) || 2),
  ),
  // Not a target: the same ratio for the 15-line actor, for comparison.
  "15-line actor: 1 pair / 10,000 pairs": await ratio(
    () => pingpongTiny(1, round(200_000 * scale)),
    () => pingpongTiny(10_000, round(20 * scale) || 2),
  ),
};
console.log(`@@TARGETS ${JSON.stringify(result)}`);
