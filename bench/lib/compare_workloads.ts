// Copyright 2026 the understudy authors. MIT license.

/**
 * The workloads of `bench/compare.mjs`, written against the public API only,
 * so the same file measures any commit of the library: `bench/compare.mjs`
 * bundles it once per source tree (the import of `LIBRARY` resolved to that
 * tree's `mod.ts`). Prints one `@@COMPARE {json}` line.
 *
 * @module
 */

// Resolved by the bundler to the tree under test.
import { Actor, type ActorRef, ActorSystem, Props } from "LIBRARY";

declare const Bun: { gc(force: boolean): void } | undefined;
declare const Deno: { memoryUsage(): { heapUsed: number } } | undefined;
declare const process: { memoryUsage(): { heapUsed: number } } | undefined;

const g = globalThis as { gc?: () => void };

function gc(): void {
  g.gc?.();
  if (typeof Bun !== "undefined") Bun.gc(true);
}

function heapUsed(): number {
  if (typeof Deno !== "undefined") return Deno.memoryUsage().heapUsed;
  return process!.memoryUsage().heapUsed;
}

function newSystem(): ActorSystem {
  return ActorSystem.create("compare", { logLevel: "off" });
}

function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

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

/** Messages a second, one in flight between two actors. */
async function pingpong(rounds: number): Promise<number> {
  const system = newSystem();
  const done = signal();
  const ponger = system.actorOf(Props.create(() => new Ponger()));
  const pinger = system.actorOf(
    Props.create(() => new Pinger(ponger, rounds, done.resolve)),
  );
  const start = performance.now();
  pinger.tell(0);
  await done.promise;
  const ms = performance.now() - start;
  await system.terminate();
  return (2 * rounds) / (ms / 1000);
}

class Sink extends Actor<number> {
  count = 0;
  constructor(readonly expected: number, readonly done: () => void) {
    super();
  }
  onReceive(): void {
    if (++this.count === this.expected) this.done();
  }
}

class Producer extends Actor<number> {
  constructor(readonly sink: ActorRef<number>) {
    super();
  }
  onReceive(n: number): void {
    for (let i = 0; i < n; i++) this.sink.tell(i);
  }
}

/** Messages a second into one actor from `producers` actors. */
async function fanIn(producers: number, each: number): Promise<number> {
  const system = newSystem();
  const done = signal();
  const total = producers * each;
  const sink = system.actorOf(
    Props.create(() => new Sink(total, done.resolve)),
  );
  const refs = Array.from(
    { length: producers },
    () => system.actorOf(Props.create(() => new Producer(sink))),
  );
  const start = performance.now();
  for (const ref of refs) ref.tell(each);
  await done.promise;
  const ms = performance.now() - start;
  await system.terminate();
  return total / (ms / 1000);
}

/** Messages a second from outside to `workers` actors. */
async function fanOut(workers: number, each: number): Promise<number> {
  const system = newSystem();
  const done = signal();
  let left = workers;
  const finished = () => {
    if (--left === 0) done.resolve();
  };
  const refs = Array.from(
    { length: workers },
    () => system.actorOf(Props.create(() => new Sink(each, finished))),
  );
  const start = performance.now();
  for (let i = 0; i < each; i++) {
    for (const ref of refs) ref.tell(i);
  }
  await done.promise;
  const ms = performance.now() - start;
  await system.terminate();
  return (workers * each) / (ms / 1000);
}

class Idle extends Actor<number> {
  constructor(readonly started: () => void) {
    super();
  }
  override preStart(): void {
    this.started();
  }
  onReceive(): void {}
}

/** Milliseconds to spawn `n` top-level actors until every one has started (collections included). */
async function spawn(n: number): Promise<number> {
  const system = newSystem();
  const done = signal();
  let left = n;
  const props = Props.create(() =>
    new Idle(() => {
      if (--left === 0) done.resolve();
    })
  );
  gc();
  const start = performance.now();
  for (let i = 0; i < n; i++) system.actorOf(props);
  await done.promise;
  const ms = performance.now() - start;
  await system.terminate();
  return ms;
}

/** Bytes of heap per idle, started actor. */
async function heapPerIdleActor(n: number): Promise<number> {
  const system = newSystem();
  const done = signal();
  let left = n;
  const props = Props.create(() =>
    new Idle(() => {
      if (--left === 0) done.resolve();
    })
  );
  gc();
  gc();
  const before = heapUsed();
  const refs: ActorRef<number>[] = [];
  for (let i = 0; i < n; i++) refs.push(system.actorOf(props));
  await done.promise;
  gc();
  gc();
  const bytes = (heapUsed() - before) / refs.length; // refs kept alive until here
  await system.terminate();
  return bytes;
}

const { COMPARE_QUICK: quick, COMPARE_GROUP: group } = globalThis as {
  COMPARE_QUICK?: boolean;
  COMPARE_GROUP?: "messages" | "spawn";
};
const scale = quick ? 0.1 : 1;
// Two groups, each in its own fresh process: a full collection between
// workloads of one process can make V8 drop the code the earlier ones
// optimised (measured: Deno's spawn 100 k moved between 88 and 188 ms with
// nothing but the order of the workloads before it changed), so spawning is
// timed in a process that has done nothing else, as `npm run bench` does.
const results = group === "spawn"
  ? {
    "spawn 100k (ms)": await spawn(100_000 * scale),
    "spawn 400k (ms)": await spawn(400_000 * scale),
    "heap per idle actor (B)": await heapPerIdleActor(100_000 * scale),
  }
  : {
    "ping-pong (msg/s)": await pingpong(200_000 * scale),
    "fan-in (msg/s)": await fanIn(100, 5_000 * scale),
    "fan-out (msg/s)": await fanOut(1_000, 500 * scale),
  };
console.log(`@@COMPARE ${JSON.stringify(results)}`);
