// Copyright 2026 the understudy authors. MIT license.

/**
 * Effect v3's side of the workloads: an "actor" is a fiber looping over its
 * own `Queue` (the mailbox), the usual way to write one in Effect. v3, not
 * v4: v4 is a rewrite with a new runtime and renamed modules, and v3 is the
 * line whose API the documentation describes. Runs under Node (bundled).
 *
 * Messages sent from plain code (fan-in, fan-out) use `Queue.unsafeOffer`,
 * the synchronous offer Effect provides for callers outside a fiber, as our
 * `tell` is called from plain code.
 *
 * @module
 */

import { Chunk, Deferred, Effect, Fiber, Queue, Schedule } from "effect";
import {
  gc,
  handles,
  heapUsed,
  main,
  now,
  type Sample,
  signal,
} from "../lib/harness.ts";

/** Two fibers, one number in flight: the pinger offers to the ponger's queue and takes the reply from its own. */
async function pingpong(rounds: number): Promise<Sample> {
  const program = Effect.gen(function* () {
    const toPonger = yield* Queue.unbounded<number>();
    const toPinger = yield* Queue.unbounded<number>();
    const ponger = yield* Effect.fork(
      Effect.forever(
        Effect.flatMap(Queue.take(toPonger), (n) => Queue.offer(toPinger, n)),
      ),
    );
    const pinger = yield* Effect.fork(
      Effect.iterate(0, {
        while: (n) => n < rounds,
        body: (n) =>
          Effect.zipRight(Queue.offer(toPonger, n + 1), Queue.take(toPinger)),
      }),
    );
    yield* Fiber.join(pinger);
    yield* Fiber.interrupt(ponger);
  });
  const t0 = now();
  await Effect.runPromise(program);
  return { ms: now() - t0, ops: 2 * rounds };
}

/** One consumer fiber draining its queue in batches (`takeBetween`), handling each message in turn. */
async function fanin(n: number): Promise<Sample> {
  const finished = signal();
  const mailbox = Effect.runSync(Queue.unbounded<number>());
  let count = 0;
  const consumer = Effect.runFork(
    Effect.forever(
      Effect.map(Queue.takeBetween(mailbox, 1, 4096), (batch) => {
        for (const _message of batch) if (++count === n) finished.resolve();
      }),
    ),
  );
  await new Promise((resolve) => setTimeout(resolve, 0)); // the consumer is waiting
  const t0 = now();
  for (let i = 0; i < n; i++) Queue.unsafeOffer(mailbox, i);
  await finished.promise;
  const ms = now() - t0;
  await Effect.runPromise(Fiber.interrupt(consumer));
  return { ms, ops: n };
}

const shared = {
  started: 0,
  handled: 0,
  target: 0,
  allStarted: (): void => {},
  allHandled: (): void => {},
};

/** The smallest useful actor: a fiber that says it started, then counts what its queue delivers. */
const idleActor = (mailbox: Queue.Queue<string>) =>
  Effect.zipRight(
    Effect.sync(() => {
      if (++shared.started === shared.target) shared.allStarted();
    }),
    Effect.forever(
      Effect.map(Queue.take(mailbox), () => {
        if (++shared.handled === shared.target) shared.allHandled();
      }),
    ),
  );

/**
 * Forks `n` idle actor fibers (each queue kept in `refs`, each fiber in
 * `fibers`, both allocated by the caller) and waits until all have started.
 */
async function spawnIdle(
  refs: unknown[],
  fibers: unknown[],
  n: number,
): Promise<{ ms: number; handled: Promise<void> }> {
  const started = signal();
  const handled = signal();
  shared.started = 0;
  shared.handled = 0;
  shared.target = n;
  shared.allStarted = started.resolve;
  shared.allHandled = handled.resolve;
  const t0 = now();
  Effect.runSync(
    Effect.forEach(
      Chunk.range(0, n - 1),
      (i) =>
        Effect.flatMap(Queue.unbounded<string>(), (mailbox) => {
          refs[i] = mailbox;
          return Effect.map(Effect.forkDaemon(idleActor(mailbox)), (fiber) => {
            fibers[i] = fiber;
          });
        }),
      { discard: true },
    ),
  );
  await started.promise;
  return { ms: now() - t0, handled: handled.promise };
}

function interruptAll(fibers: unknown[]): Promise<void> {
  return Effect.runPromise(
    Fiber.interruptAll(fibers as Fiber.RuntimeFiber<unknown, unknown>[]),
  );
}

async function spawn(n: number): Promise<Sample> {
  const refs = handles(n);
  const fibers = handles(n);
  gc();
  const before = heapUsed();
  const { ms } = await spawnIdle(refs, fibers, n);
  gc();
  const bytesPerActor = (heapUsed() - before) / n;
  await interruptAll(fibers);
  return { ms, bytesPerActor };
}

async function fanout(n: number): Promise<Sample> {
  const refs = handles(n) as Queue.Queue<string>[];
  const fibers = handles(n);
  const { handled } = await spawnIdle(refs, fibers, n);
  const t0 = now();
  for (let i = 0; i < n; i++) Queue.unsafeOffer(refs[i], "go");
  await handled;
  const ms = now() - t0;
  await interruptAll(fibers);
  return { ms, ops: n };
}

/** Request/reply: the request carries a `Deferred` that the echo fiber completes; the asker awaits it. */
async function ask(n: number): Promise<Sample> {
  const program = Effect.gen(function* () {
    const mailbox = yield* Queue.unbounded<
      readonly [number, Deferred.Deferred<number>]
    >();
    const echo = yield* Effect.fork(
      Effect.forever(
        Effect.flatMap(
          Queue.take(mailbox),
          ([value, reply]) => Deferred.succeed(reply, value),
        ),
      ),
    );
    yield* Effect.iterate(0, {
      while: (i) => i < n,
      body: (i) =>
        Effect.flatMap(Deferred.make<number>(), (reply) =>
          Effect.zipRight(
            Queue.offer(mailbox, [i, reply] as const),
            Effect.as(Deferred.await(reply), i + 1),
          )),
    });
    yield* Fiber.interrupt(echo);
  });
  const t0 = now();
  await Effect.runPromise(program);
  return { ms: now() - t0, ops: n };
}

/**
 * Crash and respawn with `Effect.retry(actor, Schedule.forever)`: the actor
 * fails on "crash" and is run again at once; each run first tells itself
 * "crash".
 */
async function crash(cycles: number): Promise<Sample> {
  const finished = signal();
  const mailbox = Effect.runSync(Queue.unbounded<string>());
  let starts = 0;
  const actor = Effect.suspend(() => {
    if (++starts > cycles) finished.resolve();
    else Queue.unsafeOffer(mailbox, "crash");
    return Effect.forever(
      Effect.flatMap(
        Queue.take(mailbox),
        (message) =>
          message === "crash" ? Effect.fail(new Error("crash")) : Effect.void,
      ),
    );
  });
  const t0 = now();
  const fiber = Effect.runFork(Effect.retry(actor, Schedule.forever));
  await finished.promise;
  const ms = now() - t0;
  await Effect.runPromise(Fiber.interrupt(fiber));
  return { ms, ops: cycles };
}

main({ pingpong, fanin, fanout, spawn, ask, crash });
