// Copyright 2026 the understudy authors. MIT license.

/**
 * nact's side of the workloads, through its public API (`start`, `spawn`,
 * `dispatch`, `query`, `stop`), as its docs write actors: a function
 * `(state, msg, ctx) => nextState`, the sender carried in the message
 * (`{ ..., sender: ctx.self }`), replies by `dispatch(msg.sender, ...)`.
 * Every actor gets an explicit name (nact's generated names are random and
 * can collide in large numbers) and shares one function, so no closure is
 * made per actor. Runs under Node (bundled).
 *
 * nact processes each message in its own `setImmediate` callback.
 *
 * @module
 */

import { dispatch, query, type Ref, spawn, start, stop } from "nact";
import {
  gc,
  handles,
  heapUsed,
  main,
  now,
  type Sample,
  signal,
} from "../lib/harness.ts";

type Ball = { n: number; sender: Ref<Ball> };

async function pingpong(rounds: number): Promise<Sample> {
  const system = start();
  const finished = signal();
  const ponger = spawn(system, (state: null, msg: Ball, ctx) => {
    dispatch(msg.sender, { n: msg.n, sender: ctx.self });
    return state;
  }, "ponger");
  const pinger = spawn(system, (state: null, msg: Ball, ctx) => {
    if (msg.n === rounds) finished.resolve();
    else dispatch(ponger, { n: msg.n + 1, sender: ctx.self });
    return state;
  }, "pinger");
  const t0 = now();
  dispatch(pinger, { n: 0, sender: ponger });
  await finished.promise;
  const ms = now() - t0;
  stop(system);
  return { ms, ops: 2 * rounds };
}

async function fanin(n: number): Promise<Sample> {
  const system = start();
  const finished = signal();
  const counter = spawn(
    system,
    (count: number, _msg: number) => {
      if (count + 1 === n) finished.resolve();
      return count + 1;
    },
    "counter",
    { initialState: 0 },
  );
  const t0 = now();
  for (let i = 0; i < n; i++) dispatch(counter, i);
  await finished.promise;
  const ms = now() - t0;
  stop(system);
  return { ms, ops: n };
}

const shared = { handled: 0, target: 0, allHandled: (): void => {} };

/** The smallest useful actor: counts the messages it gets. */
const idle = (state: null, _msg: string): null => {
  if (++shared.handled === shared.target) shared.allHandled();
  return state;
};

function spawnIdle(n: number): Promise<Sample> {
  const refs = handles(n);
  const names = Array.from({ length: n }, (_, i) => `a${i}`);
  const system = start();
  gc();
  const before = heapUsed();
  const t0 = now();
  for (let i = 0; i < n; i++) refs[i] = spawn(system, idle, names[i]);
  const ms = now() - t0; // nact actors are ready when spawn returns
  gc();
  const bytesPerActor = (heapUsed() - before) / n;
  stop(system);
  return Promise.resolve({ ms, bytesPerActor });
}

async function fanout(n: number): Promise<Sample> {
  const refs = handles(n) as Ref<string>[];
  const system = start();
  for (let i = 0; i < n; i++) refs[i] = spawn(system, idle, `a${i}`);
  const handled = signal();
  shared.handled = 0;
  shared.target = n;
  shared.allHandled = handled.resolve;
  const t0 = now();
  for (let i = 0; i < n; i++) dispatch(refs[i], "go");
  await handled.promise;
  const ms = now() - t0;
  stop(system);
  return { ms, ops: n };
}

type Request = { n: number; sender: Ref<number> };

async function ask(n: number): Promise<Sample> {
  const system = start();
  const echo = spawn(system, (state: null, msg: Request) => {
    dispatch(msg.sender, msg.n);
    return state;
  }, "echo");
  const t0 = now();
  for (let i = 0; i < n; i++) {
    await query(echo, (sender: Ref<number>) => ({ n: i, sender }), 5_000);
  }
  const ms = now() - t0;
  stop(system);
  return { ms, ops: n };
}

/**
 * Crash and respawn with nact's supervision: the actor throws on "crash";
 * its `onCrash` policy answers `reset` (a fresh state from
 * `initialStateFunc`, which tells the new incarnation "crash" again).
 */
async function crash(cycles: number): Promise<Sample> {
  const system = start();
  const finished = signal();
  let starts = 0;
  const t0 = now();
  spawn(
    system,
    (state: number, msg: string) => {
      if (msg === "crash") throw new Error("crash");
      return state;
    },
    "crashy",
    {
      initialStateFunc: (ctx) => {
        if (++starts > cycles) finished.resolve();
        else dispatch(ctx.self, "crash");
        return 0;
      },
      onCrash: (_msg, _error, ctx) => ctx.reset,
    },
  );
  await finished.promise;
  const ms = now() - t0;
  stop(system);
  return { ms, ops: cycles };
}

main({
  pingpong,
  fanin,
  fanout,
  spawn: spawnIdle,
  ask,
  crash,
});
