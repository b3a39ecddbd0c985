// Copyright 2026 the understudy authors. MIT license.

/**
 * understudy's side of every workload, through the public API of `mod.ts`
 * only. Runs under Node (bundled), Deno and Bun.
 *
 * @module
 */

import * as understudy from "../../mod.ts";
import {
  Actor,
  type ActorRef,
  ActorSystem,
  OneForOneStrategy,
  Props,
} from "../../mod.ts";
import {
  gc,
  handles,
  heapUsed,
  main,
  note,
  now,
  type Sample,
  signal,
  tick,
  Unavailable,
} from "../lib/harness.ts";
import { timerPromptness } from "../lib/fairness.ts";

function newSystem(): ActorSystem {
  return ActorSystem.create("bench", { logLevel: "off" });
}

// ───────────── ping-pong ─────────────

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

async function pingpong(rounds: number): Promise<Sample> {
  const system = newSystem();
  const finished = signal();
  const ponger = system.actorOf(Props.create(() => new Ponger()), "ponger");
  const pinger = system.actorOf(
    Props.create(() => new Pinger(ponger, rounds, finished.resolve)),
    "pinger",
  );
  await tick(); // both started
  const t0 = now();
  pinger.tell(0);
  await finished.promise;
  const ms = now() - t0;
  await system.terminate();
  return { ms, ops: 2 * rounds };
}

// ───────────── fan-in ─────────────

class Counter extends Actor<number> {
  #count = 0;
  constructor(readonly target: number, readonly done: () => void) {
    super();
  }
  onReceive(_n: number): void {
    if (++this.#count === this.target) this.done();
  }
}

async function fanin(n: number): Promise<Sample> {
  const system = newSystem();
  const finished = signal();
  const counter = system.actorOf(
    Props.create(() => new Counter(n, finished.resolve)),
    "counter",
  );
  await tick();
  const t0 = now();
  for (let i = 0; i < n; i++) counter.tell(i);
  await finished.promise;
  const ms = now() - t0;
  await system.terminate();
  return { ms, ops: n };
}

// ───────────── idle actors: spawn, fan-out, timers ─────────────

/** Shared by every actor of a run, so the actors themselves carry no fields. */
const shared = {
  started: 0,
  handled: 0,
  target: 0,
  allStarted: (): void => {},
  allHandled: (): void => {},
};

function resetShared(
  target: number,
): { started: Promise<void>; handled: Promise<void> } {
  const started = signal();
  const handled = signal();
  shared.started = 0;
  shared.handled = 0;
  shared.target = target;
  shared.allStarted = started.resolve;
  shared.allHandled = handled.resolve;
  return { started: started.promise, handled: handled.promise };
}

class Idle extends Actor<string> {
  override preStart(): void {
    if (++shared.started === shared.target) shared.allStarted();
  }
  onReceive(_message: string): void {
    if (++shared.handled === shared.target) shared.allHandled();
  }
}

const idleProps = Props.create(() => new Idle());

/** Spawns `n` idle top-level actors and waits until every one has started. */
async function spawnIdle(
  system: ActorSystem,
  refs: unknown[],
  n: number,
  props: Props<string> = idleProps,
): Promise<{ ms: number; handled: Promise<void> }> {
  const { started, handled } = resetShared(n);
  const t0 = now();
  for (let i = 0; i < n; i++) refs[i] = system.actorOf(props);
  await started;
  return { ms: now() - t0, handled };
}

async function spawn(n: number): Promise<Sample> {
  const refs = handles(n);
  const system = newSystem();
  await tick();
  gc();
  const before = heapUsed();
  const { ms } = await spawnIdle(system, refs, n);
  gc();
  const bytesPerActor = (heapUsed() - before) / n;
  await system.terminate();
  return { ms, bytesPerActor };
}

async function fanout(n: number): Promise<Sample> {
  const refs = handles(n) as ActorRef<string>[];
  const system = newSystem();
  const { handled } = await spawnIdle(system, refs, n);
  await tick();
  const t0 = now();
  for (let i = 0; i < n; i++) refs[i].tell("go");
  await handled;
  const ms = now() - t0;
  await system.terminate();
  return { ms, ops: n };
}

class TimerHolder extends Actor<string> {
  override preStart(): void {
    this.context.timers.startSingleTimer("t", "fire", 3_600_000);
    if (++shared.started === shared.target) shared.allStarted();
  }
  onReceive(_message: string): void {
    this.context.timers.cancel("t");
    if (++shared.handled === shared.target) shared.allHandled();
  }
}

const timerProps = Props.create(() => new TimerHolder());

async function timers(n: number): Promise<Sample> {
  const refs = handles(n) as ActorRef<string>[];
  // The same number of idle actors first: the difference is the timers' cost.
  let system = newSystem();
  await tick();
  gc();
  let before = heapUsed();
  await spawnIdle(system, refs, n);
  gc();
  const idleBytes = heapUsed() - before;
  await system.terminate();
  refs.fill(undefined as unknown as ActorRef<string>);
  system = newSystem();
  await tick();
  gc();
  before = heapUsed();
  const { handled } = await spawnIdle(system, refs, n, timerProps);
  gc();
  const timerBytes = heapUsed() - before;
  const t0 = now();
  for (let i = 0; i < n; i++) refs[i].tell("cancel");
  await handled;
  const ms = now() - t0;
  await system.terminate();
  return { ms, bytesPerTimer: (timerBytes - idleBytes) / n, ops: n };
}

// ───────────── ask ─────────────

class Echo extends Actor<number> {
  onReceive(n: number): void {
    this.sender?.tell(n);
  }
}

async function ask(n: number): Promise<Sample> {
  const system = newSystem();
  const echo = system.actorOf(Props.create(() => new Echo()), "echo");
  await tick();
  const t0 = now();
  for (let i = 0; i < n; i++) await echo.ask<number>(i);
  const ms = now() - t0;
  await system.terminate();
  return { ms, ops: n };
}

// ───────────── supervision ─────────────

interface BackoffSupervisorLike {
  props(options: Record<string, unknown>): Props<unknown>;
}

function backoffSupervisor(): BackoffSupervisorLike {
  const candidate =
    (understudy as Record<string, unknown>)["BackoffSupervisor"];
  if (candidate === undefined || candidate === null) {
    throw new Unavailable("BackoffSupervisor is not exported by mod.ts yet");
  }
  return candidate as BackoffSupervisorLike;
}

/**
 * `BackoffSupervisor.props(options)`, trying the smallest backoffs first:
 * `minBackoff: 0` if accepted, otherwise the smallest value that is.
 */
function supervisorProps(
  childProps: Props<unknown>,
  backoffs: { minBackoff: number; maxBackoff: number }[],
): Props<unknown> {
  const supervisor = backoffSupervisor();
  const errors: string[] = [];
  for (const { minBackoff, maxBackoff } of backoffs) {
    try {
      const props = supervisor.props({
        childProps,
        minBackoff,
        maxBackoff,
        randomFactor: 0,
      });
      if (errors.length > 0) {
        note(
          `minBackoff ${backoffs[0].minBackoff} was rejected (${
            errors[0]
          }); used ${minBackoff}`,
        );
      }
      return props;
    } catch (error) {
      errors.push(error instanceof Error ? error.message : String(error));
    }
  }
  throw new Error(
    `BackoffSupervisor.props rejected every option set: ${errors.join("; ")}`,
  );
}

/** How long after the child started the tells begin. */
const STEADY_AFTER_MS = 200;

/** What the supervision workloads' actors report to; reset by each run. */
const run = {
  target: 0,
  count: 0,
  started: (): void => {},
  finished: (): void => {},
  /** Where a fresh crashy instance sends "crash" (the supervisor, or the child itself). */
  crashTo: undefined as ActorRef<string> | undefined,
};

/** Resets `run` for a run of `target`; resolves `finished` (and `started`) when it says so. */
function resetRun(
  target: number,
): { finished: Promise<void>; started: Promise<void> } {
  const finished = signal();
  const started = signal();
  Object.assign(run, {
    target,
    count: 0,
    started: started.resolve,
    finished: finished.resolve,
    crashTo: undefined,
  });
  return { finished: finished.promise, started: started.promise };
}

/** Counts to `run.target`; classes live at module level so every run uses the same ones. */
class Worker extends Actor<number> {
  override preStart(): void {
    run.started();
  }
  onReceive(_n: number): void {
    if (++run.count === run.target) run.finished();
  }
}

const workerProps = Props.create(() => new Worker()) as Props<unknown>;

async function tellThrough(n: number, viaSupervisor: boolean): Promise<Sample> {
  const system = newSystem();
  const { finished, started: childStarted } = resetRun(n);
  const ref: ActorRef<unknown> = viaSupervisor
    ? system.actorOf(
      supervisorProps(workerProps, [{ minBackoff: 100, maxBackoff: 10_000 }]),
      "supervisor",
    )
    : system.actorOf(workerProps, "worker");
  await childStarted;
  // Steady state: past the supervisor's grace window after a (re)spawn
  // (`drainGraceMs`, by default min(50 ms, minBackoff)), both ways alike.
  await tick(STEADY_AFTER_MS);
  const t0 = now();
  for (let i = 0; i < n; i++) ref.tell(i);
  await finished;
  const ms = now() - t0;
  await system.terminate();
  return { ms, ops: n };
}

/**
 * Crash-and-respawn cycles: every fresh instance, in `preStart`, tells
 * `run.crashTo` "crash", which reaches it and makes it throw; its supervisor
 * respawns it. Ends at the (cycles + 1)th start.
 */
class Crashy extends Actor<string> {
  override preStart(): void {
    if (++run.count > run.target) run.finished();
    else run.crashTo!.tell("crash");
  }
  onReceive(message: string): void {
    if (message === "crash") throw new Error("crash");
  }
}

const crashyProps = Props.create(() => new Crashy());

async function crashBackoff(cycles: number): Promise<Sample> {
  const system = newSystem();
  const { finished } = resetRun(cycles);
  const props = supervisorProps(crashyProps as Props<unknown>, [
    { minBackoff: 0, maxBackoff: 0 },
    { minBackoff: 0, maxBackoff: 1 },
    { minBackoff: 1, maxBackoff: 1 },
  ]);
  const t0 = now();
  run.crashTo = system.actorOf(props, "supervisor") as ActorRef<string>;
  await finished;
  const ms = now() - t0;
  await system.terminate();
  return { ms, ops: cycles };
}

/** The classic way: a parent whose OneForOneStrategy restarts the child in place. */
class Parent extends Actor<string> {
  override supervisorStrategy = new OneForOneStrategy(() => "restart");
  override preStart(): void {
    run.crashTo = this.context.actorOf(crashyProps, "child");
  }
  onReceive(_message: string): void {}
}

const parentProps = Props.create(() => new Parent());

async function crashClassic(cycles: number): Promise<Sample> {
  const system = newSystem();
  const { finished } = resetRun(cycles);
  const t0 = now();
  system.actorOf(parentProps, "parent");
  await finished;
  const ms = now() - t0;
  await system.terminate();
  return { ms, ops: cycles };
}

// ───────────── fairness ─────────────

const flood = { count: 0, stopping: false };

/** Tells itself the next number, one message in flight, until told to stop. */
class Flooder extends Actor<number> {
  onReceive(n: number): void {
    flood.count++;
    if (!flood.stopping) this.self.tell(n + 1);
  }
}

const flooderProps = Props.create(() => new Flooder());

/**
 * While one actor floods itself, how late `setTimeout(0)` fires and how far
 * apart the ticks of a `setInterval(10)` are, for `durationMs` each; `ops`
 * is the messages the flood got through meanwhile.
 */
async function fairness(durationMs: number): Promise<Sample> {
  const system = newSystem();
  const flooder = system.actorOf(flooderProps, "flooder");
  await tick();
  flood.count = 0;
  flood.stopping = false;
  const t0 = now();
  flooder.tell(0);
  const promptness = await timerPromptness(durationMs);
  const ms = now() - t0;
  const ops = flood.count;
  flood.stopping = true;
  await system.terminate();
  return { ms, ops, ...promptness };
}

main({
  pingpong,
  fairness,
  fanin,
  fanout,
  spawn,
  ask,
  timers,
  "tell-direct": (n) => tellThrough(n, false),
  "tell-backoff": (n) => tellThrough(n, true),
  "crash-backoff": crashBackoff,
  "crash-classic": crashClassic,
});
