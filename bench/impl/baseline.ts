// Copyright 2026 the understudy authors. MIT license.

/**
 * Baselines measured in the same run as the libraries: what the same work
 * costs with no actor runtime at all. Runs under Node, Deno and Bun.
 *
 * @module
 */

import {
  gc,
  handles,
  heapUsed,
  main,
  now,
  type Sample,
  signal,
} from "../lib/harness.ts";
import { timerPromptness } from "../lib/fairness.ts";

/** Something the optimiser cannot prove unused. */
let sink = 0;

class Endpoint {
  count = 0;
  receive(n: number): number {
    this.count++;
    return n + 1;
  }
}

/** Ping-pong as plain method calls: 2 calls per round trip, in a loop. */
function pingpongCall(rounds: number): Promise<Sample> {
  const ping = new Endpoint();
  const pong = new Endpoint();
  const t0 = now();
  let n = 0;
  for (let i = 0; i < rounds; i++) n = pong.receive(ping.receive(n));
  const ms = now() - t0;
  sink += n + ping.count + pong.count;
  return Promise.resolve({ ms, ops: 2 * rounds });
}

/** A chain of `n` `queueMicrotask` callbacks, each queueing the next. */
async function microtaskChain(n: number): Promise<Sample> {
  const finished = signal();
  let left = n;
  const step = (): void => {
    if (--left === 0) finished.resolve();
    else queueMicrotask(step);
  };
  const t0 = now();
  queueMicrotask(step);
  await finished.promise;
  return { ms: now() - t0, ops: n };
}

/** Fan-in as plain calls: `n` calls of one object's method. */
function faninCall(n: number): Promise<Sample> {
  const target = new Endpoint();
  const t0 = now();
  for (let i = 0; i < n; i++) target.receive(i);
  const ms = now() - t0;
  sink += target.count;
  return Promise.resolve({ ms, ops: n });
}

/** Fan-in as `n` microtasks queued at once into one handler. */
async function faninMicrotask(n: number): Promise<Sample> {
  const finished = signal();
  let count = 0;
  const handle = (): void => {
    if (++count === n) finished.resolve();
  };
  const t0 = now();
  for (let i = 0; i < n; i++) queueMicrotask(handle);
  await finished.promise;
  return { ms: now() - t0, ops: n };
}

/** Fan-out as plain calls: one method call on each of `n` objects. */
function fanoutCall(n: number): Promise<Sample> {
  const targets: Endpoint[] = [];
  for (let i = 0; i < n; i++) targets.push(new Endpoint());
  const t0 = now();
  for (let i = 0; i < n; i++) targets[i].receive(i);
  const ms = now() - t0;
  sink += targets[n - 1].count;
  return Promise.resolve({ ms, ops: n });
}

/**
 * The memory floor of an idle actor: plain objects of the same shape as an
 * understudy actor (a cell with the same 12 fields, keyed by its sequence
 * number, and an instance holding its context), registered in an array as
 * children are.
 */
function spawnPlain(n: number): Promise<Sample> {
  const refs = handles(n);
  gc();
  const before = heapUsed();
  const t0 = now();
  const parent = { children: [] as unknown[] };
  for (let i = 0; i < n; i++) {
    const cell = {
      core: parent,
      parentCell: parent,
      childKey: i,
      childSlot: parent.children.length,
      props: parent,
      actor: undefined as unknown,
      status: 2,
      flags: 0,
      mailbox: undefined,
      currentMessage: undefined,
      currentSender: undefined,
      extras: undefined,
    };
    cell.actor = { context: cell };
    parent.children.push(cell);
    refs[i] = cell;
  }
  const ms = now() - t0;
  gc();
  const bytesPerActor = (heapUsed() - before) / n;
  sink += parent.children.length;
  return Promise.resolve({ ms, bytesPerActor });
}

/** `n` sequential awaits of a promise resolved from a microtask: the floor of an async request/reply. */
async function askPromise(n: number): Promise<Sample> {
  const t0 = now();
  for (let i = 0; i < n; i++) {
    sink += await new Promise<number>((resolve) =>
      queueMicrotask(() => resolve(i))
    );
  }
  return { ms: now() - t0, ops: n };
}

/** `n` pending `setTimeout`s (one hour): heap per handle, and the time to `clearTimeout` them all. */
function timersPlain(n: number): Promise<Sample> {
  const ids = handles(n) as ReturnType<typeof setTimeout>[];
  const noop = (): void => {};
  gc();
  const before = heapUsed();
  for (let i = 0; i < n; i++) ids[i] = setTimeout(noop, 3_600_000);
  gc();
  const bytesPerTimer = (heapUsed() - before) / n;
  const t0 = now();
  for (let i = 0; i < n; i++) clearTimeout(ids[i]);
  const ms = now() - t0;
  return Promise.resolve({ ms, bytesPerTimer, ops: n });
}

/** The fairness measurement with nothing else running: the host's own timer promptness. */
async function fairnessIdle(durationMs: number): Promise<Sample> {
  const t0 = now();
  const promptness = await timerPromptness(durationMs);
  return { ms: now() - t0, ...promptness };
}

main({
  "fairness-idle": fairnessIdle,
  "pingpong-call": pingpongCall,
  "pingpong-microtask": microtaskChain,
  "fanin-call": faninCall,
  "fanin-microtask": faninMicrotask,
  "fanout-call": fanoutCall,
  "spawn-plain": spawnPlain,
  "ask-promise": askPromise,
  timers: timersPlain,
}).finally(() => {
  if (sink === -1) console.log(sink);
});
