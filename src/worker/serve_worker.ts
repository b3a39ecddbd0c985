// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * `serveWorker`: the worker's side of the boundary. It serves an actor
 * system over an endpoint (the worker's `self`, or a port): it spawns
 * actors from registered factories when the main side asks, delivers the
 * main side's messages to them with senders that answer across the
 * boundary, acknowledges each message when its actor's turn for it ends,
 * returns those it cannot deliver, and reports actors that stop.
 *
 * @module
 */

import { Actor, Terminated } from "../runtime/actor.ts";
import { ActorCell } from "../runtime/kernel/cell.ts";
import { ActorRef } from "../runtime/actor_ref.ts";
import { ActorSystem } from "../runtime/actor_system.ts";
import { PoisonPill } from "../runtime/poison_pill.ts";
import { Props } from "../runtime/props.ts";
import { TrackedMessage } from "../runtime/ports/tracked_message.ts";
import { describeError, describeValue, fail } from "../validation.ts";
import {
  checkEndpoint,
  type Endpoint,
  type EndpointEvent,
} from "./endpoint.ts";
import { ASK_COMPLETED, AskRef } from "../runtime/features/ask.ts";
import {
  cloneFailure,
  DELIVER,
  Exports,
  Imports,
  LOST,
  Outbox,
  PING,
  PONG,
  refusedSender,
  replyLost,
  SPAWN,
  SPAWN_FAILED,
  STOP,
  STOPPED,
  UNDELIVERED,
} from "./wire.ts";
import { END, FrameReader } from "./frame_reader.ts";

/**
 * A factory the main side can spawn actors from, by name: called with the
 * arguments of the `SpawnInWorker`, inside `Props.create`.
 *
 * @example Usage
 * ```ts
 * import { Actor } from "@understudy/core";
 * import type { ActorFactory } from "@understudy/core/worker";
 *
 * class Adder extends Actor<number> {
 *   constructor(readonly base: number) {
 *     super();
 *   }
 *   onReceive(n: number): void {
 *     this.sender?.tell(this.base + n);
 *   }
 * }
 * const factory: ActorFactory = (base: number) => new Adder(base);
 * ```
 */
// deno-lint-ignore no-explicit-any
export type ActorFactory = (...args: never) => Actor<any>;

/**
 * Options of {@linkcode serveWorker}.
 *
 * @example Usage
 * ```ts
 * import { Actor } from "@understudy/core";
 * import type { ServeOptions } from "@understudy/core/worker";
 *
 * class Echo extends Actor<string> {
 *   onReceive(message: string): void {
 *     this.sender?.tell(message);
 *   }
 * }
 * const options: ServeOptions = { actors: { Echo: () => new Echo() } };
 * ```
 */
export interface ServeOptions {
  /** The factories the main side may spawn from, by name. */
  readonly actors: Readonly<Record<string, ActorFactory>>;
  /**
   * The system to serve; by default a new one, named `"worker"`, which
   * {@linkcode WorkerServer.close} terminates.
   */
  readonly system?: ActorSystem;
}

/**
 * What {@linkcode serveWorker} returns: the served system, and `close`.
 *
 * @example Usage
 * ```ts
 * import { serveWorker } from "@understudy/core/worker";
 *
 * const { port1, port2 } = new MessageChannel();
 * const server = serveWorker(port2, { actors: {} });
 * server.system.name; // "worker"
 * await server.close();
 * port1.close();
 * port2.close();
 * ```
 */
export interface WorkerServer {
  /** The actor system served. */
  readonly system: ActorSystem;
  /**
   * Stops serving: removes the listener, and terminates the system if
   * `serveWorker` created it. Resolves when done.
   */
  close(): Promise<void>;
}

/** An actor the main side spawned. */
class Served {
  /** The main side stopped its ref (STOP): it knows, and needs no STOPPED. */
  stopAsked = false;
  /**
   * Frames for its name that came while it was stopping at the main side's
   * word (a later spawn of the name, its messages, its stop): acted on, in
   * order, once it has stopped.
   */
  readonly after: unknown[][] = [];

  constructor(
    readonly name: string,
    readonly factory: string,
    readonly ref: ActorRef<unknown>,
    /** The spawn it is the actor of (the main side's `SpawnCommand.id`). */
    public id: number,
  ) {}
}

/**
 * A message from the main side, queued for a served actor: the runtime
 * opens it when the actor's turn for it comes (whatever the actor's
 * handler), and it acknowledges its seq when that turn (or its async
 * handler) has ended with it handled; if it becomes a dead letter instead,
 * its seq goes back to the main side with the reason. A stash keeps it the
 * main side's until a later turn handles it.
 */
class FromMain extends TrackedMessage {
  constructor(
    readonly message: unknown,
    readonly seq: number,
    readonly outbox: Outbox,
  ) {
    super();
    outbox.owe();
  }

  taken(): void {
    this.outbox.ack(this.seq, true);
  }

  undelivered(reason: string): void {
    this.outbox.undelivered(this.seq, reason);
  }
}

/** A ref to something on the main side, known by number. */
class MainSideRef extends ActorRef<unknown> {
  readonly #server: Server;
  readonly #id: number;

  constructor(server: Server, id: number) {
    super();
    this.#server = server;
    this.#id = id;
  }

  get path(): string {
    const id = this.#id;
    return id < 0 ? `/main/ask-${-id}` : `/main/ref-${id}`;
  }

  /** Queues `message` for the main side, in this turn's batch. */
  tell(message: unknown, sender?: ActorRef<never>): void {
    this.#server.toMain(this.#id, message, sender, this);
  }

  /**
   * Asks the main side's ref: the question goes as a tell does (so in order
   * with them), its sender a temporary ref made in the server's system.
   */
  ask<R = unknown>(
    message: unknown,
    options?: Parameters<ActorRef<unknown>["ask"]>[1],
  ): Promise<R> {
    return this.#server.actor.askFor<R>(
      this as ActorRef<never>,
      message,
      options,
    );
  }
}

/** Stops the server's actor (in a system the server does not own). */
class Close {}
const CLOSE = /* @__PURE__ */ new Close();

/** Watches the served actors. */
class ServerActor extends Actor<unknown> {
  readonly #server: Server;
  constructor(server: Server) {
    super();
    this.#server = server;
  }
  onReceive(message: unknown): void {
    if (message instanceof Served) {
      this.context.watch(message.ref);
    } else if (message instanceof Terminated) {
      this.#server.stopped(message.ref);
    } else if (message instanceof Close) {
      this.context.stopSelf();
    }
  }
}

let servers = 0;

class Server implements WorkerServer {
  readonly system: ActorSystem;
  /**
   * The server's actor: it watches the served actors, and asks of
   * main-side refs are made through it (`askFor`: their temporary refs
   * belong to its system).
   */
  readonly actor: ActorCell<unknown>;
  readonly #endpoint: Endpoint;
  readonly #factories: Readonly<Record<string, ActorFactory>>;
  readonly #ownsSystem: boolean;
  readonly #outbox: Outbox;
  readonly #served = new Map<string, Served>();
  readonly #byRef = new Map<ActorRef<unknown>, Served>();
  readonly #exports = new Exports<ActorRef<never>>();
  readonly #imports = new Imports<MainSideRef>((id) =>
    new MainSideRef(this, id)
  );
  #closed: Promise<void> | undefined = undefined;
  readonly #onMessage = (event: EndpointEvent): void =>
    this.#receive(event.data);
  /** Checks every frame from the main side. */
  readonly #reader: FrameReader = this.#newReader();

  constructor(endpoint: Endpoint, options: ServeOptions) {
    this.#endpoint = endpoint;
    this.#factories = { ...options.actors };
    this.#ownsSystem = options.system === undefined;
    this.system = options.system ?? ActorSystem.create("worker");
    this.#outbox = new Outbox(
      endpoint,
      (frame, error) => this.#uncloneable(frame, error),
    );
    this.actor = this.system.actorOf(
      Props.create(() => new ServerActor(this)),
      `~worker-server-${++servers}`,
    ) as unknown as ActorCell<unknown>;
    endpoint.addEventListener("message", this.#onMessage);
    endpoint.start?.();
  }

  close(): Promise<void> {
    if (this.#closed !== undefined) return this.#closed;
    this.#endpoint.removeEventListener("message", this.#onMessage);
    this.#outbox.flush();
    this.#outbox.close();
    if (this.#ownsSystem) return this.#closed = this.system.terminate();
    this.actor.tell(CLOSE);
    return this.#closed = Promise.resolve();
  }

  /** A message for the main side's ref `id`. */
  toMain(
    id: number,
    message: unknown,
    sender: ActorRef<never> | undefined,
    recipient: MainSideRef,
  ): void {
    if (this.#closed !== undefined) {
      this.system.publishDeadLetter(
        message,
        sender,
        recipient as ActorRef<never>,
        "the worker server is closed",
      );
      return;
    }
    if (
      refusedSender(this.system, message, recipient as ActorRef<never>, sender)
    ) return;
    this.#outbox.deliver(0, id, message, this.#exports.senderId(sender));
  }

  /**
   * A served actor stopped: the main side hears of it (after the messages
   * it had not handled, which went back as dead letters when it stopped).
   */
  stopped(ref: ActorRef<never>): void {
    const served = this.#byRef.get(ref);
    if (served === undefined) return;
    this.#byRef.delete(ref);
    // Its name stays taken until now: a spawn under it finds it running.
    this.#served.delete(served.name);
    if (!served.stopAsked) {
      this.#outbox.frame(STOPPED, served.name, served.id);
    }
    // Frames read (and checked) before, acted on now, each in a reader of its own.
    for (const frame of served.after) {
      const reader = this.#newReader();
      reader.read(frame);
      this.#frame(reader, reader.next());
    }
  }

  #newReader(): FrameReader {
    return new FrameReader(
      true,
      this.#exports,
      (message) => this.system.log.error(message),
    );
  }

  /**
   * A batch from the main side, through the reader that checks every
   * frame (frame_reader.ts says what a bad one does).
   */
  #receive(batch: unknown): void {
    const reader = this.#reader;
    if (!reader.read(batch)) return;
    for (let kind = reader.next(); kind !== END; kind = reader.next()) {
      this.#frame(reader, kind);
    }
  }

  /** Acts on the frame `reader` has just read, of `kind`. */
  #frame(reader: FrameReader, kind: number): void {
    if (kind === DELIVER || kind === SPAWN || kind === STOP) {
      // For a name whose actor is stopping at the main side's word, a frame
      // (but that actor's own STOP again) is for a later spawn of the name.
      const name = kind === DELIVER ? reader.target : reader.name;
      const stopping = typeof name === "string"
        ? this.#served.get(name)
        : undefined;
      if (
        stopping?.stopAsked && !(kind === STOP && reader.id === stopping.id)
      ) {
        stopping.after.push(reader.frame());
        return;
      }
    }
    switch (kind) {
      case DELIVER:
        this.#deliver(reader);
        return;
      case SPAWN:
        this.#spawn(reader.name, reader.factory, reader.args, reader.id);
        return;
      case PING:
        this.#outbox.frame(PONG, reader.id);
        return;
      case STOP: {
        // After the messages sent before it, as a PoisonPill does; one for
        // an earlier spawn of the name (its actor gone already) is nothing.
        const served = this.#served.get(reader.name);
        if (
          served !== undefined && served.id === reader.id && !served.stopAsked
        ) {
          served.stopAsked = true;
          served.ref.tell(PoisonPill);
        }
        return;
      }
      case LOST:
        replyLost(this.#exports.get(reader.sender), reader.reason);
        return;
      default: // BAD
        this.#rejected(reader);
    }
  }

  /**
   * A frame the reader rejected: the messages it carried go back to the
   * main side, whose they are, or, their seq unreadable, are dead letters
   * here.
   */
  #rejected(reader: FrameReader): void {
    const reason = `a malformed frame from the main side (${reader.error})`;
    const seq = reader.seq;
    for (let m = reader.first; m < reader.end; m++) {
      if (seq > 0) {
        this.#outbox.frame(UNDELIVERED, seq + m - reader.first, reason);
      } else {
        this.system.publishDeadLetter(
          reader.batch[m],
          undefined,
          this.system.deadLetters as ActorRef<never>,
          reason,
        );
      }
    }
  }

  /** Delivers the run of messages the reader has just read. */
  #deliver(reader: FrameReader): void {
    const batch = reader.batch;
    const seq = reader.seq;
    const target = reader.target;
    const senderId = reader.sender;
    const count = reader.end - reader.first;
    const first = reader.first;
    const sender = senderId === 0
      ? undefined
      : this.#imports.get(senderId) as ActorRef<never>;
    const ref = typeof target === "string"
      ? this.#served.get(target)?.ref
      : this.#exports.get(target);
    const outbox = this.#outbox;
    if (ref === undefined) {
      const reason = typeof target === "string"
        ? `no actor named "${target}" runs in the worker`
        : "the worker-side ref it was sent to no longer exists";
      for (let k = 0; k < count; k++) {
        outbox.frame(UNDELIVERED, seq + k, reason);
      }
      return;
    }
    if (ref instanceof ActorCell) {
      // An actor (served, or one that sent to the main side and is
      // answered): acknowledged when its turn for the message ends.
      for (let k = 0; k < count; k++) {
        ref.enqueueSent(
          new FromMain(batch[first + k], seq + k, outbox),
          sender,
        );
      }
      return;
    }
    // Not an actor (an ask's temporary ref): handled on receipt, unless
    // the ask has ended (a late answer): a dead letter here, and returned
    // so that the main side, which sent it, publishes it too.
    for (let k = 0; k < count; k++) {
      if (ref instanceof AskRef && ref.settled) {
        outbox.frame(UNDELIVERED, seq + k, ASK_COMPLETED);
      } else outbox.ack(seq + k);
      ref.tell(batch[first + k] as never, sender);
    }
  }

  #spawn(
    name: string,
    factoryName: string,
    args: readonly unknown[],
    id: number,
  ): void {
    const existing = this.#served.get(name);
    if (existing !== undefined) {
      if (existing.factory !== factoryName) {
        this.#outbox.frame(
          SPAWN_FAILED,
          name,
          `"${name}" already runs factory ${describeValue(existing.factory)}`,
          id,
        );
        return;
      }
      // The same spawn again (sent while the worker was restarting): the
      // actor that runs is now that spawn's.
      existing.id = id;
      return;
    }
    const factory = Object.hasOwn(this.#factories, factoryName)
      ? this.#factories[factoryName]
      : undefined;
    if (typeof factory !== "function") {
      this.#outbox.frame(
        SPAWN_FAILED,
        name,
        `the worker has no factory named ${describeValue(factoryName)}`,
        id,
      );
      return;
    }
    let ref: ActorRef<unknown>;
    try {
      ref = this.system.actorOf(
        Props.create(() =>
          (factory as unknown as (...args: unknown[]) => Actor<unknown>)(
            ...args,
          )
        ),
        name,
      );
    } catch (error) {
      this.#outbox.frame(SPAWN_FAILED, name, describeError(error), id);
      return;
    }
    const served = new Served(name, factoryName, ref, id);
    this.#served.set(name, served);
    this.#byRef.set(ref, served);
    this.actor.tell(served);
  }

  /** A message of ours could not be cloned (it comes as a run of one). */
  #uncloneable(frame: unknown[], error: unknown): void {
    if (frame[0] !== DELIVER) return;
    const id = frame[2] as number;
    const reason = cloneFailure(error);
    this.system.publishDeadLetter(
      frame[5],
      this.#exports.get(frame[3] as number),
      this.#imports.get(id) as ActorRef<never>,
      reason,
    );
    this.#outbox.frame(LOST, id, reason);
  }
}

/**
 * Serves an actor system over `endpoint`, inside a worker: the main side
 * (an actor made by `workerProps`) spawns actors here from
 * `options.actors` and talks to them as if they were local. Call it once,
 * at the worker's top level, with `self` (or a port).
 *
 * A message counts as handled when its actor's turn for it ends (an async
 * handler's when it settles), whatever handles it (`onReceive`, or a
 * handler set with `become`); one stashed is not handled yet; one that goes
 * to dead letters here instead (its actor stopped first, say) goes back to
 * the main side, which publishes it there. Messages cross by structured
 * clone, so class instances arrive as plain objects.
 *
 * @example A worker script
 * ```ts no-run: runs inside a worker
 * import { Actor } from "@understudy/core";
 * import { serveWorker } from "@understudy/core/worker";
 *
 * class Primes extends Actor<number> {
 *   onReceive(limit: number): void {
 *     let count = 0;
 *     for (let n = 2; n <= limit; n++) {
 *       let prime = true;
 *       for (let d = 2; d * d <= n; d++) if (n % d === 0) { prime = false; break; }
 *       if (prime) count++;
 *     }
 *     this.sender?.tell(count);
 *   }
 * }
 *
 * serveWorker(self, { actors: { Primes: () => new Primes() } });
 * ```
 *
 * @param endpoint The worker's `self`, or a port to the main side.
 * @param options The factories, and optionally the system to serve.
 * @returns The server: its system, and `close()`.
 */
export function serveWorker(
  endpoint: Endpoint,
  options: ServeOptions,
): WorkerServer {
  const action = "serve worker";
  checkEndpoint(action, "endpoint", endpoint);
  if (typeof options !== "object" || options === null) {
    fail(action, "options", "an object", options);
  }
  const actors = options.actors;
  if (typeof actors !== "object" || actors === null) {
    fail(action, "actors", "an object of factories by name", actors);
  }
  for (const [name, factory] of Object.entries(actors)) {
    if (typeof factory !== "function") {
      fail(action, `actors.${name}`, "a function returning an Actor", factory);
    }
  }
  if (
    options.system !== undefined && !(options.system instanceof ActorSystem)
  ) {
    fail(action, "system", "an ActorSystem", options.system);
  }
  return new Server(endpoint, options);
}
