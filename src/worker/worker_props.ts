// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * `workerProps`: an actor standing for a worker on the main side (the
 * gate), under which the worker's own owner runs, supervised as a child
 * that can crash, and one local stand-in per actor spawned in the worker.
 *
 * ```
 *   /user/compute               the gate: spawns, keeps the list of actors to spawn
 *   /user/compute/~link         a BackoffSupervisor (with `backoff`), or the owner
 *   /user/compute/~link/worker-N  the owner of worker N (starts it, batches, heartbeats)
 *   /user/compute/counter       the stand-in for /user/counter in the worker
 * ```
 *
 * A stand-in is an ordinary local actor, so its ref is watched, asked and
 * told like any other; it passes each message, with its sender, to the
 * link. A `tell` skips it while it has nothing waiting and the worker is
 * up (see `standInDoor`). Under a BackoffSupervisor, messages sent while the
 * worker is down wait in the supervisor's stash and reach the next worker,
 * in which the gate's actors are spawned again before anything else.
 *
 * @module
 */

import { Actor, Terminated } from "../runtime/actor.ts";
import { actorOfWithHook, type DeliveryHook } from "../runtime/ports/remote.ts";
import type { ActorRef } from "../runtime/actor_ref.ts";
import { PoisonPill } from "../runtime/poison_pill.ts";
import { Props } from "../runtime/props.ts";
import type { BackoffOptions } from "../patterns/backoff_options.ts";
import {
  checkStrategy,
  type FaultHandlingStrategy,
  stoppingStrategy,
} from "../supervision/strategy.ts";
import { checkDelay, describeValue, fail } from "../validation.ts";
import {
  LINK_NAME,
  RemoteStopped,
  SpawnCommand,
  SpawnInWorker,
  StopCommand,
} from "./messages.ts";
import { Conduit, type HostSettings, WorkerHost } from "./worker_host.ts";
import type { Transfer } from "./transfer.ts";

/**
 * Options of {@linkcode workerProps}.
 *
 * @example Usage
 * ```ts no-run: needs a worker script
 * import { type WorkerOptions, workerBackoff } from "@understudy/core/worker";
 *
 * const options: WorkerOptions = {
 *   create: () => new Worker(new URL("./worker.ts", import.meta.url), { type: "module" }),
 *   backoff: workerBackoff({ minBackoff: 100, maxBackoff: 5_000 }),
 *   heartbeat: { intervalMs: 1_000, timeoutMs: 5_000 },
 * };
 * ```
 */
export interface WorkerOptions {
  /**
   * Starts a worker: returns a `Worker` (or anything with `postMessage`,
   * `addEventListener`, `removeEventListener` and `terminate`), or a
   * `{ endpoint, terminate }` ({@linkcode WorkerHandle}). Called for each
   * new worker. Call `died(reason)` when the worker dies in a way its
   * endpoint does not report (Node's `exit` and `error` events); a `Worker`'s
   * `error` event is heard without it.
   */
  readonly create: (died: (reason: unknown) => void) => unknown;
  /**
   * Supervise the worker with a BackoffSupervisor, as made by
   * `workerBackoff(options)` (`worker_backoff.ts`): a worker that dies is
   * terminated and a new one started after a growing delay, and messages
   * wait meanwhile. An import of its own, so that a program that does not
   * use it does not bundle the supervisor.
   */
  readonly backoff?: WorkerBackoff;
  /**
   * Without `backoff`: the strategy for the worker's owner, which fails
   * with a `WorkerDiedError` when the worker dies. Default: stop (the gate
   * then stops, and every watcher of a remote actor gets `Terminated`). A
   * restart starts a new worker at once, messages kept.
   */
  readonly strategy?: FaultHandlingStrategy;
  /**
   * Ping the worker every `intervalMs`; a worker that sends nothing for
   * `timeoutMs` is dead. Off by default. The worker answers from its event
   * loop, so a handler that blocks it longer than `timeoutMs` counts as a
   * hang.
   */
  readonly heartbeat?: {
    readonly intervalMs: number;
    readonly timeoutMs: number;
  };
}

/**
 * A worker's BackoffSupervisor, made by `workerBackoff(options)`, for
 * {@linkcode WorkerOptions.backoff}; `options` are what it was given.
 *
 * @example Usage
 * ```ts
 * import { type WorkerBackoff, workerBackoff } from "@understudy/core/worker";
 *
 * const backoff: WorkerBackoff = workerBackoff({ minBackoff: 100, maxBackoff: 5_000 });
 * console.log(backoff.options.maxBackoff); // 5000
 * ```
 */
export interface WorkerBackoff {
  /** The BackoffSupervisor's options, without its child. */
  readonly options: Readonly<
    Omit<BackoffOptions<unknown>, "childProps" | "childName">
  >;
}

/** How each `workerBackoff` value supervises the worker's host (`worker_backoff.ts`). Internal. */
export const workerBackoffs: WeakMap<
  WorkerBackoff,
  (childProps: Props<unknown>) => Props<unknown>
> = new WeakMap();

/**
 * Messages the gate of {@linkcode workerProps} accepts: spawn requests.
 *
 * @example Usage
 * ```ts
 * import { SpawnInWorker, type WorkerCommand } from "@understudy/core/worker";
 *
 * const command: WorkerCommand = new SpawnInWorker("counter", "Counter");
 * ```
 */
export type WorkerCommand = SpawnInWorker;

/**
 * A ref to an actor in a worker: it takes the actor's messages, or any of
 * them wrapped in a {@linkcode Transfer}.
 *
 * @example Usage
 * ```ts
 * import type { ActorRef } from "@understudy/core";
 * import type { RemoteRef } from "@understudy/core/worker";
 *
 * function send(ref: RemoteRef<string>): void {
 *   ref.tell("hello");
 * }
 * ```
 *
 * @typeParam T The messages of the actor in the worker.
 */
export type RemoteRef<T> = ActorRef<T | Transfer<T>>;

/**
 * What a stand-in's ref and its actor share: how many messages sent to the
 * ref are in its mailbox (or being handled), and whether the stand-in
 * stopped.
 */
class StandInState {
  queued = 0;
  stopped = false;
}

/**
 * The local stand-in of an actor in the worker: it passes each message,
 * with its sender, on to the worker. Most messages skip it: see
 * {@linkcode standInDoor}.
 */
class RemoteStandIn extends Actor<unknown> {
  readonly #conduit: Conduit;
  readonly #name: string;
  readonly #state: StandInState;
  /** Takes its spawn off the gate's list and returns it, if still there (see postStop). */
  readonly #forget: () => SpawnCommand | undefined;

  constructor(
    conduit: Conduit,
    name: string,
    state: StandInState,
    forget: () => SpawnCommand | undefined,
  ) {
    super();
    this.#conduit = conduit;
    this.#name = name;
    this.#state = state;
    this.#forget = forget;
    // A fresh instance after a restart (whose preRestart ran postStop) may
    // take the short cut again.
    state.stopped = false;
  }

  onReceive(message: unknown): void {
    if (this.#state.queued > 0) this.#state.queued--;
    this.#conduit.send(
      this.#name,
      message,
      this.self as ActorRef<never>,
      0,
      this.sender as ActorRef<never> | undefined,
    );
  }

  override postStop(): void {
    this.#state.stopped = true;
    // Still on the gate's list: this stand-in stopped by itself (a
    // PoisonPill, a stop), not because its actor in the worker ended (the
    // gate unlists it first then). So does that actor, after the messages
    // sent before, and no later worker spawns it again.
    const spawn = this.#forget();
    if (spawn === undefined) return;
    const conduit = this.#conduit;
    conduit.throughLink(
      new StopCommand(spawn, this.context.parent as ActorRef<never>, conduit),
    );
  }
}

/**
 * Lets `tell` on a stand-in's ref hand the message to the worker's owner
 * at once, in the sender's turn, when that is what the stand-in would do
 * next anyway: the stand-in is running with nothing in its mailbox, and
 * the {@linkcode Conduit} is open (an owner is up, nothing is on its way
 * through the link). The message then crosses in this turn's batch
 * without a turn of the stand-in: a local hop saved a message, which was
 * most of the main side's cost in a stream. Otherwise (the worker is
 * down, a message waits in the mailbox, the stand-in stopped, a
 * PoisonPill), `tell` queues it in the stand-in's mailbox as any ref does,
 * and counts it as queued until handled, so no later message overtakes it.
 * `ask` sends with `tell`, so an ask takes the same way, and so does a
 * tracked message. The runtime's remote port calls it (`remote.ts`).
 */
function standInDoor(
  ref: ActorRef<unknown>,
  state: StandInState,
  conduit: Conduit,
  name: string,
): DeliveryHook {
  // The owner to hand a message to at once, if the short cut is open.
  const host = (): WorkerHost | undefined =>
    state.queued === 0 && !state.stopped && conduit.open
      ? conduit.host
      : undefined;
  return {
    tell(message, sender) {
      // (A sender that is no ref is the owner's to refuse: a dead letter.)
      const owner = host();
      if (owner !== undefined && message !== PoisonPill) {
        owner.send(name, message, ref as ActorRef<never>, 0, sender);
        return true;
      }
      state.queued++;
      return false;
    },
    // A message from the main side of the worker this one runs in, to this
    // ref: taken here, as the stand-in's turn would take it.
    tracked(message, sender) {
      const owner = host();
      if (owner !== undefined) {
        message.taken();
        owner.send(
          name,
          message.message,
          ref as ActorRef<never>,
          0,
          sender as ActorRef<never> | undefined,
        );
        return true;
      }
      state.queued++;
      return false;
    },
  };
}

/** The checked options. */
interface GateSettings {
  readonly create: WorkerOptions["create"];
  readonly backoff:
    | ((childProps: Props<unknown>) => Props<unknown>)
    | undefined;
  readonly strategy: FaultHandlingStrategy;
  readonly heartbeat: HostSettings["heartbeat"];
}

/** Stands for the worker: spawns, and stops when the worker is gone for good. */
class WorkerGate extends Actor<unknown> {
  override readonly supervisorStrategy: FaultHandlingStrategy;
  readonly #settings: GateSettings;
  /** The actors to spawn in each new worker, by name. */
  readonly #spawns = new Map<string, SpawnCommand>();
  /** Made with the link, in preStart (one per incarnation of the gate). */
  #conduit!: Conduit;

  constructor(settings: GateSettings) {
    super();
    this.#settings = settings;
    this.supervisorStrategy = settings.strategy;
  }

  override preStart(): void {
    const settings = this.#settings;
    const spawns = this.#spawns;
    const conduit = this.#conduit = new Conduit();
    const hostProps = Props.create(() =>
      new WorkerHost({
        create: settings.create,
        heartbeat: settings.heartbeat,
        spawns: () => spawns.values(),
        conduit,
      })
    );
    const linkProps = settings.backoff?.(hostProps as Props<unknown>) ??
      hostProps;
    const link = this.context.actorOf(
      linkProps as Props<unknown>,
      LINK_NAME,
    );
    // A cell: asks go through it on behalf of remote refs (askFor).
    conduit.link = link as unknown as Conduit["link"];
    this.context.watch(link);
  }

  onReceive(message: unknown): void {
    if (message instanceof SpawnInWorker) return this.#spawnInWorker(message);
    if (message instanceof RemoteStopped) {
      // An earlier actor under the name (its stand-in stopped already, and
      // the name may have been spawned again since): nothing to do.
      if (this.#spawns.get(message.name)?.id !== message.id) return;
      this.#spawns.delete(message.name);
      this.log.info(`${message.name} in the worker ended: ${message.reason}`);
      const standIn = this.context.child(message.name);
      if (standIn !== undefined) this.context.stop(standIn as ActorRef<never>);
      return;
    }
    if (message instanceof Terminated && message.ref === this.#conduit.link) {
      // The worker is gone for good: so are the stand-ins, and every
      // watcher of one hears of it.
      this.context.stopSelf();
      return;
    }
    this.context.system.publishDeadLetter(
      message,
      this.sender as ActorRef<never> | undefined,
      this.self as ActorRef<never>,
      "not a message for a worker (send it to a ref from SpawnInWorker)",
    );
  }

  #spawnInWorker(request: SpawnInWorker): void {
    const existing = this.#spawns.get(request.name);
    const standIn = this.context.child(request.name);
    if (existing !== undefined && standIn !== undefined) {
      this.sender?.tell(
        existing.factory === request.factory ? standIn : new TypeError(
          `Cannot spawn in worker: "${request.name}" already runs factory ${
            describeValue(existing.factory)
          }, not ${describeValue(request.factory)}`,
        ),
      );
      return;
    }
    if (standIn !== undefined) {
      // Its actor in the worker ended (RemoteStopped), and its stand-in is
      // still stopping: the name is taken until it has stopped.
      this.sender?.tell(
        new TypeError(
          `Cannot spawn in worker: "${request.name}" is still stopping (its actor in the worker ended); spawn it again once its ref is terminated (watch it for Terminated)`,
        ),
      );
      return;
    }
    const conduit = this.#conduit;
    const command = new SpawnCommand(
      request,
      this.self as ActorRef<never>,
      conduit,
    );
    this.#spawns.set(request.name, command);
    const state = new StandInState();
    const spawns = this.#spawns;
    const forget = () => {
      if (spawns.get(request.name) !== command) return undefined;
      spawns.delete(request.name);
      return command;
    };
    const ref = actorOfWithHook(
      this.context,
      Props.create(() =>
        new RemoteStandIn(conduit, request.name, state, forget)
      ),
      request.name,
      (standIn) => standInDoor(standIn, state, conduit, request.name),
    );
    // Counted as on its way, so no tell takes the short cut to the worker
    // before the actor it is for was spawned there.
    conduit.throughLink(command, this.self as ActorRef<never>);
    this.sender?.tell(ref);
  }
}

/**
 * Props of an actor that stands for a worker: it starts the worker (with
 * `options.create`), spawns actors in it on request (ask it a
 * {@linkcode SpawnInWorker}, or use {@linkcode spawnInWorker}), and gives
 * refs to them that behave like local ones: `tell`, `ask`, a sender that
 * can be answered across the boundary, `watch`. Messages cross by
 * structured clone, batched; one that cannot be cloned goes to dead
 * letters with the clone error as the reason.
 *
 * When the worker dies (it throws at top level, exits, or misses the
 * heartbeat), its owner fails with a `WorkerDiedError`: under `backoff`, a
 * new worker is started after a delay, its actors are spawned again and
 * the messages sent meanwhile are delivered to them; messages the dead
 * worker had received but not handled go to dead letters. Without
 * `backoff` (and with the default `strategy`), the actor stops and every
 * watcher of a remote actor gets `Terminated`. Stopping the actor
 * terminates the worker and removes every listener.
 *
 * @example Usage
 * ```ts no-run: needs a worker script
 * import { type ActorRef, ActorSystem } from "@understudy/core";
 * import { spawnInWorker, workerBackoff, workerProps } from "@understudy/core/worker";
 *
 * const system = ActorSystem.create("app");
 * const worker = system.actorOf(
 *   workerProps({
 *     create: () => new Worker(new URL("./worker.ts", import.meta.url), { type: "module" }),
 *     backoff: workerBackoff({ minBackoff: 100, maxBackoff: 5_000 }),
 *   }),
 *   "compute",
 * );
 * const primes = await spawnInWorker<number>(worker, "primes", "Primes");
 * console.log(await primes.ask(1_000_000)); // answered in the worker
 * await system.terminate(); // the worker is terminated too
 * ```
 *
 * @param options How to start the worker, and how to supervise it.
 * @returns Props for the actor standing for the worker.
 */
export function workerProps(options: WorkerOptions): Props<WorkerCommand> {
  const action = "create worker props";
  if (typeof options !== "object" || options === null) {
    fail(action, "options", "an object", options);
  }
  if (typeof options.create !== "function") {
    fail(action, "create", "a function starting a worker", options.create);
  }
  if (options.backoff !== undefined && options.strategy !== undefined) {
    fail(
      action,
      "strategy",
      "absent when backoff is given (the BackoffSupervisor decides)",
      options.strategy,
    );
  }
  if (options.strategy !== undefined) {
    checkStrategy(action, "strategy", options.strategy);
  }
  const backoff = options.backoff === undefined
    ? undefined
    : workerBackoffs.get(options.backoff);
  if (options.backoff !== undefined && backoff === undefined) {
    fail(
      action,
      "backoff",
      "a value made by workerBackoff({ minBackoff, maxBackoff, … })",
      options.backoff,
    );
  }
  let heartbeat: HostSettings["heartbeat"] = undefined;
  if (options.heartbeat !== undefined) {
    const { intervalMs, timeoutMs } = options.heartbeat ?? {};
    heartbeat = {
      intervalMs: checkDelay(action, "heartbeat.intervalMs", intervalMs),
      timeoutMs: checkDelay(action, "heartbeat.timeoutMs", timeoutMs),
    };
    if (heartbeat.intervalMs === 0) {
      fail(action, "heartbeat.intervalMs", "above 0", 0, true);
    }
  }
  const settings: GateSettings = {
    create: options.create,
    backoff,
    strategy: options.strategy ?? stoppingStrategy,
    heartbeat,
  };
  return Props.create(() => new WorkerGate(settings)) as Props<WorkerCommand>;
}

/**
 * Spawns an actor in a worker and returns a ref to it: asks the actor made
 * by {@linkcode workerProps} a {@linkcode SpawnInWorker}, and throws the
 * `TypeError` it answers if the name is taken by another factory. A
 * factory the worker does not know, or that throws, makes the actor stop
 * (its watchers get `Terminated`, its messages go to dead letters).
 *
 * @example Usage
 * ```ts no-run: needs a worker script
 * import { ActorSystem } from "@understudy/core";
 * import { spawnInWorker, workerBackoff, workerProps } from "@understudy/core/worker";
 *
 * const system = ActorSystem.create("app");
 * const worker = system.actorOf(workerProps({ create: () => new Worker("./worker.js", { type: "module" }) }));
 * const counter = await spawnInWorker<"inc" | "get">(worker, "counter", "Counter");
 * counter.tell("inc");
 * console.log(await counter.ask<number>("get")); // 1
 * await system.terminate();
 * ```
 *
 * @typeParam T The messages of the actor in the worker.
 * @param worker The actor made by `workerProps`.
 * @param name The actor's name in the worker.
 * @param factory The name of the worker's factory.
 * @param args Arguments for the factory (structured-cloned).
 * @param timeoutMs How long to wait for the gate's answer (default 5000).
 * @returns A ref to the actor in the worker.
 */
export async function spawnInWorker<T>(
  worker: ActorRef<WorkerCommand>,
  name: string,
  factory: string,
  args: readonly unknown[] = [],
  timeoutMs: number = 5_000,
): Promise<RemoteRef<T>> {
  const answer = await worker.ask<unknown>(
    new SpawnInWorker(name, factory, args),
    timeoutMs,
  );
  if (answer instanceof Error) throw answer;
  return answer as RemoteRef<T>;
}
