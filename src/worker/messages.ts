// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The messages of the worker transport: the public `SpawnInWorker` command,
 * the error a dead worker's actor fails with, and the internal messages
 * between the gate, the remote refs and the actor that owns the worker.
 *
 * @module
 */

import type { ActorRef } from "../runtime/actor_ref.ts";
import { ForwardedMessage } from "../runtime/ports/tracked_message.ts";
import { ACTOR_NAME_PATTERN, describeValue, fail } from "../validation.ts";

/** The gate's name for the child that carries messages to the worker. */
export const LINK_NAME = "~link";

/**
 * Spawns an actor in the worker from a factory the worker registered with
 * `serveWorker`, and answers with a ref to it (ask it of the ref that
 * `workerProps` made). The actor is spawned again in every new worker after
 * a crash, until it stops by itself. Spawning a name that exists with the
 * same factory answers the same ref; with another factory, a `TypeError`.
 *
 * @example Usage
 * ```ts no-run: needs a worker script
 * import { type ActorRef, ActorSystem } from "@understudy/core";
 * import { SpawnInWorker, workerProps } from "@understudy/core/worker";
 *
 * const system = ActorSystem.create("app");
 * const worker = system.actorOf(
 *   workerProps({ create: () => new Worker(new URL("./worker.ts", import.meta.url), { type: "module" }) }),
 *   "worker",
 * );
 * const counter = await worker.ask<ActorRef<"inc">>(new SpawnInWorker("counter", "Counter"));
 * counter.tell("inc");
 * ```
 */
export class SpawnInWorker {
  /** The arguments given to the factory (structured-cloned). */
  readonly args: readonly unknown[];

  /**
   * Creates a `SpawnInWorker`.
   *
   * @param name The actor's name in the worker (`/user/${name}` there).
   * @param factory The name the worker registered its factory under.
   * @param args Arguments for the factory.
   */
  constructor(
    readonly name: string,
    readonly factory: string,
    args: readonly unknown[] = [],
  ) {
    const action = "spawn in worker";
    if (
      typeof name !== "string" || !ACTOR_NAME_PATTERN.test(name) ||
      name === LINK_NAME
    ) {
      fail(
        action,
        "name",
        `an actor name (no "/" or whitespace, not starting with "$", not "${LINK_NAME}")`,
        name,
      );
    }
    if (typeof factory !== "string" || factory === "") {
      fail(action, "factory", "the name of a registered factory", factory);
    }
    if (!Array.isArray(args)) {
      fail(action, "args", "an array of arguments", args);
    }
    this.args = [...args];
  }
}

/**
 * The error the actor that owns a worker fails with when the worker dies:
 * it threw at top level, exited, stopped answering the heartbeat, or sent
 * something that could not be read. Its supervisor decides what happens
 * next (a BackoffSupervisor starts a new worker after a delay).
 *
 * @example Usage
 * ```ts
 * import { WorkerDiedError } from "@understudy/core/worker";
 *
 * const error = new WorkerDiedError("no answer to the heartbeat within 5000 ms");
 * error.message; // "Worker died: no answer to the heartbeat within 5000 ms"
 * ```
 */
export class WorkerDiedError extends Error {
  /**
   * Creates a `WorkerDiedError`.
   *
   * @param reason What happened to the worker.
   */
  constructor(readonly reason: string) {
    super(`Worker died: ${reason}`);
    this.name = "WorkerDiedError";
  }
}

/**
 * Why an `ask` across a worker boundary fails when its question was
 * handled but its reply was lost on the way back (it could not be
 * cloned): not a timeout, and not an undelivered question, so a caller
 * does not take a handled question for one never sent.
 *
 * @example Usage
 * ```ts
 * import { ReplyLostError } from "@understudy/core/worker";
 *
 * const error = new ReplyLostError("/user/compute/parser", "message could not be cloned (DataCloneError)");
 * error.message; // "Ask to /user/compute/parser was answered, but the reply was lost: message could not be cloned (DataCloneError)"
 * ```
 */
export class ReplyLostError extends Error {
  /**
   * Creates a `ReplyLostError`.
   *
   * @param path The path of the ref asked.
   * @param reason Why the reply was lost.
   */
  constructor(readonly path: string, readonly reason: string) {
    super(`Ask to ${path} was answered, but the reply was lost: ${reason}`);
    this.name = "ReplyLostError";
  }
}

/** The count of messages on their way through the link (the conduit's). */
interface Queue {
  /** One of them will reach no owner. */
  taken(): void;
}

/**
 * A message for the worker, on its way through the link to the actor that
 * owns it. Dropped on the way, it is a dead letter as itself, to the ref it
 * was sent to. Internal.
 */
export class Outgoing extends ForwardedMessage {
  constructor(
    /** A served actor's name, or a worker ref's number. */
    readonly target: string | number,
    readonly message: unknown,
    /** The ref it was sent to, for dead letters. */
    readonly recipient: ActorRef<never>,
    /** The worker a numbered target belongs to; 0 for a name (any worker). */
    readonly epoch: number,
    /** Counts it as on its way until an owner takes it. */
    readonly queue: Queue,
  ) {
    super();
  }

  undelivered(): boolean {
    this.queue.taken(); // it will never reach an owner
    return true;
  }
}

/**
 * Spawn `name` in the worker (the gate turns a SpawnInWorker into this, and
 * keeps it to spawn again in each new worker). Dropped on its way through
 * the link, it is no dead letter: the next worker spawns it. Internal.
 */
export class SpawnCommand extends ForwardedMessage {
  /** This spawn of `name`, told apart from earlier and later ones. */
  readonly id: number = ++spawnIds;

  constructor(
    /** The request it came from. */
    readonly message: SpawnInWorker,
    /** The gate. */
    readonly recipient: ActorRef<never>,
    /** Counts it as on its way until an owner takes it. */
    readonly queue: Queue,
  ) {
    super();
  }

  get name(): string {
    return this.message.name;
  }

  get factory(): string {
    return this.message.factory;
  }

  get args(): readonly unknown[] {
    return this.message.args;
  }

  undelivered(): boolean {
    this.queue.taken(); // it will never reach an owner
    return false; // kept by the gate, for the next worker
  }
}

/** Numbers the spawns of a page or worker (a `SpawnCommand`'s id). */
let spawnIds = 0;

/**
 * Stop the actor of one spawn in the worker: its stand-in stopped by itself
 * (a `PoisonPill`, a `stop`), not because the actor in the worker ended.
 * Until an owner sends it, it is also in the conduit's `stops`, which the
 * next owner sends first (a server may outlive an owner). Dropped on its
 * way through the link, it loses nothing. Internal.
 */
export class StopCommand extends ForwardedMessage {
  constructor(
    /** The spawn whose actor is to stop. */
    readonly message: SpawnCommand,
    /** The gate. */
    readonly recipient: ActorRef<never>,
    /** Counts it as on its way until an owner takes it. */
    readonly queue: Queue,
  ) {
    super();
  }

  undelivered(): boolean {
    this.queue.taken(); // it will never reach an owner
    return false;
  }
}

/**
 * The worker says the actor of spawn `id` of `name` stopped, or could not be
 * spawned. Internal.
 */
export class RemoteStopped {
  constructor(
    readonly name: string,
    readonly reason: string,
    readonly id: number,
  ) {}
}

/**
 * The worker died (told by a listener, or by the heartbeat): the owner
 * fails in the turn that handles it, which is how its supervisor hears.
 * A failed turn's message is a dead letter, but this one is the owner's
 * word to itself, nobody's lost message: sent as a forwarded message whose
 * loss loses nothing, so none is published. Internal.
 */
export class WorkerDown extends ForwardedMessage {
  constructor(
    readonly reason: string,
    readonly recipient: ActorRef<never>,
    /** The owner instance whose worker died (no other's to act on). */
    readonly owner: object,
  ) {
    super();
  }

  get message(): unknown {
    return this;
  }

  undelivered(): boolean {
    return false;
  }
}

/** The heartbeat timer's message. Internal. */
export class HeartbeatTick {}

/** Describes a spawn for errors. */
export function describeSpawn(name: string, factory: string): string {
  return `"${name}" from factory ${describeValue(factory)}`;
}
