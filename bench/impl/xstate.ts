// Copyright 2026 the understudy authors. MIT license.

/**
 * XState v5's side of the workloads, through its public API, as its docs
 * write actors: `fromTransition` logic (a reducer; the cheapest XState actor)
 * and state machines built with `setup(...).createMachine(...)`, each run by
 * `createActor(...).start()` as a root actor. (Root actors, not children
 * spawned into one parent: spawning many children into one parent grows
 * quadratically in XState.) Runs under Node (bundled, production build).
 *
 * A reducer also receives XState's own `xstate.stop` event when its actor
 * stops, so each one checks `event.type`, as reducers do.
 *
 * XState delivers `send` synchronously: an idle actor processes the event
 * inside the `send` call, and an event sent to a busy actor waits in its
 * mailbox until the current one is done.
 *
 * @module
 */

import {
  type ActorRefFrom,
  type AnyActorRef,
  createActor,
  fromTransition,
  sendTo,
  setup,
} from "xstate";
import {
  gc,
  handles,
  heapUsed,
  main,
  now,
  type Sample,
  signal,
} from "../lib/harness.ts";

// ───────────── ping-pong ─────────────

type Ball = { type: "ball"; n: number; from: AnyActorRef };

/** fromTransition: each actor's transition sends the ball back with `from.send(...)`. */
async function pingpongTransition(rounds: number): Promise<Sample> {
  const finished = signal();
  const ponger = createActor(
    fromTransition((state: null, event: Ball, { self }) => {
      if (event.type === "ball") {
        event.from.send({ type: "ball", n: event.n, from: self });
      }
      return state;
    }, null),
  ).start();
  const pinger = createActor(
    fromTransition((state: null, event: Ball, { self }) => {
      if (event.type !== "ball") return state;
      if (event.n === rounds) finished.resolve();
      else ponger.send({ type: "ball", n: event.n + 1, from: self });
      return state;
    }, null),
  ).start();
  const t0 = now();
  pinger.send({ type: "ball", n: 0, from: ponger });
  await finished.promise;
  const ms = now() - t0;
  pinger.stop();
  ponger.stop();
  return { ms, ops: 2 * rounds };
}

/** Machines: the ball is returned with the `sendTo` action; a guard ends the game. */
async function pingpongMachine(rounds: number): Promise<Sample> {
  const finished = signal();
  const pongMachine = setup({ types: { events: {} as Ball } }).createMachine({
    on: {
      ball: {
        actions: sendTo(
          ({ event }) => event.from,
          ({ event, self }) => ({ type: "ball", n: event.n, from: self }),
        ),
      },
    },
  });
  const ponger = createActor(pongMachine).start();
  const pingMachine = setup({
    types: { events: {} as Ball },
    guards: { over: ({ event }) => event.n === rounds },
    actions: { finish: () => finished.resolve() },
  }).createMachine({
    on: {
      ball: [
        { guard: "over", actions: "finish" },
        {
          actions: sendTo(
            () => ponger,
            ({ event, self }) => ({ type: "ball", n: event.n + 1, from: self }),
          ),
        },
      ],
    },
  });
  const pinger = createActor(pingMachine).start();
  const t0 = now();
  pinger.send({ type: "ball", n: 0, from: ponger });
  await finished.promise;
  const ms = now() - t0;
  pinger.stop();
  ponger.stop();
  return { ms, ops: 2 * rounds };
}

// ───────────── fan-in ─────────────

type Msg = { type: "msg"; n: number };

async function fanin(n: number): Promise<Sample> {
  const finished = signal();
  const counter = createActor(
    fromTransition((count: number, event: Msg) => {
      if (event.type !== "msg") return count;
      if (count + 1 === n) finished.resolve();
      return count + 1;
    }, 0),
  ).start();
  const t0 = now();
  for (let i = 0; i < n; i++) counter.send({ type: "msg", n: i });
  await finished.promise;
  const ms = now() - t0;
  counter.stop();
  return { ms, ops: n };
}

// ───────────── idle actors ─────────────

const shared = { handled: 0, target: 0, allHandled: (): void => {} };

/** The smallest useful actor: a reducer that counts the events it gets. */
const idleLogic = fromTransition((state: null, event: Msg) => {
  if (event.type === "msg" && ++shared.handled === shared.target) {
    shared.allHandled();
  }
  return state;
}, null);

const idleMachine = setup({
  types: { events: {} as Msg },
  actions: {
    count: () => {
      if (++shared.handled === shared.target) shared.allHandled();
    },
  },
}).createMachine({ on: { msg: { actions: "count" } } });

function spawnWith(n: number, machine: boolean): Promise<Sample> {
  const refs = handles(n);
  gc();
  const before = heapUsed();
  const t0 = now();
  if (machine) {
    for (let i = 0; i < n; i++) refs[i] = createActor(idleMachine).start();
  } else for (let i = 0; i < n; i++) refs[i] = createActor(idleLogic).start();
  const ms = now() - t0; // start() is synchronous: every actor is running
  gc();
  const bytesPerActor = (heapUsed() - before) / n;
  for (const ref of refs) (ref as AnyActorRef).stop();
  return Promise.resolve({ ms, bytesPerActor });
}

async function fanout(n: number): Promise<Sample> {
  const refs = handles(n) as ActorRefFrom<typeof idleLogic>[];
  for (let i = 0; i < n; i++) refs[i] = createActor(idleLogic).start();
  const handled = signal();
  shared.handled = 0;
  shared.target = n;
  shared.allHandled = handled.resolve;
  const t0 = now();
  for (let i = 0; i < n; i++) refs[i].send({ type: "msg", n: i });
  await handled.promise;
  const ms = now() - t0;
  for (const ref of refs) ref.stop();
  return { ms, ops: n };
}

// ───────────── ask ─────────────

type Request = { type: "request"; n: number; reply: (n: number) => void };

/** XState has no ask: the event carries a resolver that the transition calls (the usual idiom). */
async function ask(n: number): Promise<Sample> {
  const echo = createActor(
    fromTransition((state: null, event: Request) => {
      if (event.type === "request") event.reply(event.n);
      return state;
    }, null),
  ).start();
  const t0 = now();
  for (let i = 0; i < n; i++) {
    await new Promise<number>((reply) =>
      echo.send({ type: "request", n: i, reply })
    );
  }
  const ms = now() - t0;
  echo.stop();
  return { ms, ops: n };
}

// ───────────── timers ─────────────

type Cancel = { type: "cancel" };

const waitingMachine = (withTimer: boolean) =>
  setup({
    types: { events: {} as Cancel },
    actions: {
      count: () => {
        if (++shared.handled === shared.target) shared.allHandled();
      },
    },
  }).createMachine({
    initial: "waiting",
    states: {
      waiting: {
        ...(withTimer ? { after: { 3_600_000: "fired" } } : {}),
        on: { cancel: { target: "cancelled", actions: "count" } },
      },
      fired: {},
      cancelled: {},
    },
  });

/**
 * Machines waiting in a state with a one-hour delayed transition (`after`),
 * against the same machines without it; leaving the state cancels the timer.
 */
async function timers(n: number): Promise<Sample> {
  const refs = handles(n) as AnyActorRef[];
  const plain = waitingMachine(false);
  gc();
  let before = heapUsed();
  for (let i = 0; i < n; i++) refs[i] = createActor(plain).start();
  gc();
  const idleBytes = heapUsed() - before;
  for (const ref of refs) ref.stop();
  refs.fill(undefined as unknown as AnyActorRef);
  const timed = waitingMachine(true);
  gc();
  before = heapUsed();
  for (let i = 0; i < n; i++) refs[i] = createActor(timed).start();
  gc();
  const timerBytes = heapUsed() - before;
  const handled = signal();
  shared.handled = 0;
  shared.target = n;
  shared.allHandled = handled.resolve;
  const t0 = now();
  for (let i = 0; i < n; i++) refs[i].send({ type: "cancel" });
  await handled.promise;
  const ms = now() - t0;
  for (const ref of refs) ref.stop();
  return { ms, bytesPerTimer: (timerBytes - idleBytes) / n, ops: n };
}

main({
  pingpong: pingpongTransition,
  "pingpong-machine": pingpongMachine,
  fanin,
  fanout,
  spawn: (n) => spawnWith(n, false),
  "spawn-machine": (n) => spawnWith(n, true),
  ask,
  timers,
});
