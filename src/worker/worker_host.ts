// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The actor that owns one worker, on the main side: it starts the worker in
 * `preStart`, carries messages to it in batches, hands what comes back to
 * local actors, and ends it in `postStop`. When the worker dies it fails
 * with a {@linkcode WorkerDiedError}, so whatever supervises it (a
 * BackoffSupervisor, a strategy) treats the worker as a crashed child.
 *
 * Every message it posts stays in its books until the worker acknowledges
 * it as handled or returns it; when the worker dies, those still in the
 * books go to dead letters, and those not yet posted (still in its mailbox)
 * go back to its supervisor, which gives them to the next worker. Internal
 * to the worker transport.
 *
 * @module
 */

import { Actor } from "../runtime/actor.ts";
import type { ActorCell } from "../runtime/kernel/cell.ts";
import { ActorRef } from "../runtime/actor_ref.ts";
import { describeError } from "../validation.ts";
import { type Endpoint, type EndpointEvent, toHandle } from "./endpoint.ts";
import {
  HeartbeatTick,
  Outgoing,
  RemoteStopped,
  SpawnCommand,
  StopCommand,
  WorkerDiedError,
  WorkerDown,
} from "./messages.ts";
import {
  ACKS,
  Book,
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

/** What the owner of a worker needs to know. Internal. */
export interface HostSettings {
  /** Starts a worker; `died` is to be called if it dies. */
  readonly create: (died: (reason: unknown) => void) => unknown;
  readonly heartbeat:
    | { readonly intervalMs: number; readonly timeoutMs: number }
    | undefined;
  /** The actors to spawn in each new worker. */
  readonly spawns: () => Iterable<SpawnCommand>;
  /** The gate's short cut to the current owner. */
  readonly conduit: Conduit;
}

/**
 * The short cut from the stand-ins (and the refs to worker-side senders)
 * to the owner of the current worker: while that owner is up and no
 * message for the worker is on its way through the link (in the owner's
 * mailbox, or in its supervisor's stash), a message is handed to the
 * owner at once, in the sender's turn, rather than through the link's
 * mailbox; otherwise it goes through the link, and the short cut stays
 * closed until every message sent that way has reached the owner, so no
 * message overtakes another. Internal; one per gate.
 */
export class Conduit {
  /**
   * Where messages for the worker enter when they cannot go at once: the
   * gate's child (its BackoffSupervisor, or the owner itself). Set by the
   * gate as it makes that child.
   */
  link!: ActorCell<Outgoing | SpawnCommand | StopCommand>;
  /** The owner of a worker that is up, or `undefined`. */
  host: WorkerHost | undefined = undefined;
  /** Messages for the worker told to the link and not yet taken by an owner. */
  queued = 0;
  /**
   * Stops told to the link that no owner has sent yet: an owner sends them
   * first, before its spawns, so that a worker that outlived the owner
   * before it (a server on a channel) stops an actor ahead of its respawn.
   */
  readonly stops: Set<StopCommand> = new Set();

  /** Whether a message handed to {@linkcode Conduit.send} goes to the owner at once. */
  get open(): boolean {
    return this.host !== undefined && this.queued === 0;
  }

  /**
   * Hands a message for the worker to the owner at once if it can;
   * otherwise through the link.
   */
  send(
    target: string | number,
    message: unknown,
    recipient: ActorRef<never>,
    epoch: number,
    sender: ActorRef<never> | undefined,
  ): void {
    if (this.open) {
      this.host!.send(target, message, recipient, epoch, sender);
      return;
    }
    this.throughLink(
      new Outgoing(target, message, recipient, epoch, this),
      sender,
    );
  }

  /**
   * Tells the link a message for the owner, counted as on its way until
   * the owner takes it ({@linkcode Conduit.taken}), so that nothing sent
   * after it takes the short cut past it. A stop is also kept in `stops`
   * until an owner has sent it.
   */
  throughLink(
    message: Outgoing | SpawnCommand | StopCommand,
    sender?: ActorRef<never>,
  ): void {
    if (message instanceof StopCommand) this.stops.add(message);
    this.queued++;
    this.link.tell(message, sender);
  }

  /** A message told through the link was taken by an owner, or dropped. */
  taken(): void {
    if (this.queued > 0) this.queued--;
  }
}

/** Distinguishes one worker from the next, for refs that belong to one. */
let epochs = 0;

const HEARTBEAT = /* @__PURE__ */ new HeartbeatTick();

/**
 * A ref to something in the worker known by number (the sender of a
 * message from the worker: an actor, or a worker-side `ask`). Its messages
 * go through the link, like those to served actors; it belongs to one
 * worker, and after that worker died its messages go to dead letters.
 */
class WorkerSideRef extends ActorRef<unknown> {
  readonly #conduit: Conduit;
  readonly #id: number;
  readonly #epoch: number;

  constructor(conduit: Conduit, id: number, epoch: number) {
    super();
    this.#conduit = conduit;
    this.#id = id;
    this.#epoch = epoch;
  }

  get path(): string {
    const id = this.#id;
    const name = id < 0 ? `ask-${-id}` : `ref-${id}`;
    return `${this.#conduit.link.path}/worker-${this.#epoch}/${name}`;
  }

  tell(message: unknown, sender?: ActorRef<never>): void {
    this.#conduit.send(
      this.#id,
      message,
      this as ActorRef<never>,
      this.#epoch,
      sender,
    );
  }

  /** Asks as it tells (so in order with tells), through the link's system. */
  ask<R = unknown>(
    message: unknown,
    options?: Parameters<ActorRef<unknown>["ask"]>[1],
  ): Promise<R> {
    return this.#conduit.link.askFor<R>(
      this as ActorRef<never>,
      message,
      options,
    );
  }
}

/** The owner of one worker. Internal (made by `workerProps`). */
export class WorkerHost extends Actor<unknown> {
  readonly #settings: HostSettings;
  readonly #epoch = ++epochs;
  #terminate: (() => unknown) | undefined = undefined;
  #endpoint: Endpoint | undefined = undefined;
  #outbox: Outbox | undefined = undefined;
  /** Posted and not yet acknowledged or returned, by seq. */
  readonly #inFlight = new Book<unknown, ActorRef<never>>();
  #seq = 0;
  readonly #exports = new Exports<ActorRef<never>>();
  #imports: Imports<WorkerSideRef> | undefined = undefined;
  /** Why the worker died, once known. */
  #dead: string | undefined = undefined;
  #lastHeard = 0;
  #stopped = false;
  /** Checks every frame from the worker. */
  #reader: FrameReader | undefined = undefined;
  /** Set once a batch could not be read: nothing more from it is. */
  #unreadable = false;

  readonly #onMessage = (event: EndpointEvent): void =>
    this.#receive(event.data);
  readonly #onMessageError = (): void =>
    this.#died("a message from the worker could not be deserialized");
  readonly #onError = (event: EndpointEvent): void => {
    const error = event as EndpointEvent & {
      message?: unknown;
      error?: unknown;
      preventDefault?: () => void;
    };
    // Deno would otherwise rethrow the worker's error in this thread.
    error.preventDefault?.();
    this.#died(
      `it threw: ${
        describeError(error.error ?? error.message ?? "an error event")
      }`,
    );
  };

  constructor(settings: HostSettings) {
    super();
    this.#settings = settings;
  }

  /** Starts the worker and spawns the registered actors in it, first. */
  override preStart(): void {
    const handle = toHandle(
      this.#settings.create((reason) =>
        this.#died(`it exited (${describeError(reason)})`)
      ),
    );
    this.#terminate = () => handle.terminate();
    const endpoint = handle.endpoint;
    this.#endpoint = endpoint;
    this.#outbox = new Outbox(
      endpoint,
      (frame, error) => this.#uncloneable(frame, error),
      this.#inFlight as Book<unknown, unknown>,
    );
    const epoch = this.#epoch;
    const conduit = this.#settings.conduit;
    this.#imports = new Imports((id) => new WorkerSideRef(conduit, id, epoch));
    this.#reader = new FrameReader(
      false,
      this.#exports,
      (message) => this.log.error(message),
    );
    endpoint.addEventListener("message", this.#onMessage);
    endpoint.addEventListener("messageerror", this.#onMessageError);
    endpoint.addEventListener("error", this.#onError);
    endpoint.start?.();
    for (const stop of conduit.stops) this.#stop(stop.message);
    conduit.stops.clear();
    for (const spawn of this.#settings.spawns()) this.#spawn(spawn);
    conduit.host = this;
    const heartbeat = this.#settings.heartbeat;
    if (heartbeat !== undefined) {
      this.#lastHeard = this.context.system.scheduler.now();
      this.context.timers.startTimerWithFixedDelay(
        "heartbeat",
        HEARTBEAT,
        heartbeat.intervalMs,
      );
    }
  }

  /** Ends the worker; what it had not handled goes to dead letters. */
  override postStop(): void {
    this.#stopped = true;
    this.#close();
    const endpoint = this.#endpoint;
    if (endpoint !== undefined) {
      endpoint.removeEventListener("message", this.#onMessage);
      endpoint.removeEventListener("messageerror", this.#onMessageError);
      endpoint.removeEventListener("error", this.#onError);
    }
    this.#outbox?.close();
    try {
      const ended = this.#terminate?.();
      if (ended instanceof Promise) ended.catch(() => {});
    } catch (error) {
      this.log.warn(`terminating the worker threw: ${describeError(error)}`);
    }
    const reason = this.#dead === undefined
      ? "worker stopped before handling it"
      : `worker died before handling it (${this.#dead})`;
    const system = this.context.system;
    this.#inFlight.clear((message, sender, recipient) =>
      system.publishDeadLetter(message, sender, recipient, reason)
    );
  }

  /** Closes the short cut to this owner. */
  #close(): void {
    const conduit = this.#settings.conduit;
    if (conduit.host === this) conduit.host = undefined;
  }

  /**
   * Posts messages and spawns to the worker; fails once the worker is
   * known dead (messages met before that are stashed, and go back to the
   * supervisor with the rest of the mailbox).
   */
  onReceive(message: unknown): void | Promise<void> {
    if (message instanceof Outgoing) {
      if (this.#dead !== undefined) {
        this.context.stash();
        return;
      }
      this.#settings.conduit.taken();
      return this.send(
        message.target,
        message.message,
        message.recipient,
        message.epoch,
        this.sender as ActorRef<never> | undefined,
      );
    }
    if (message instanceof SpawnCommand) {
      if (this.#dead !== undefined) {
        this.context.stash();
        return;
      }
      this.#settings.conduit.taken(); // counted by the gate when it sent it
      return this.#spawn(message);
    }
    if (message instanceof StopCommand) {
      if (this.#dead !== undefined) {
        this.context.stash();
        return;
      }
      const conduit = this.#settings.conduit;
      conduit.taken(); // counted by the stand-in that sent it
      // Not sent already, first thing, by this owner (see Conduit.stops).
      if (conduit.stops.delete(message)) this.#stop(message.message);
      return;
    }
    if (message instanceof WorkerDown) {
      // Another owner's, passed on by a supervisor that took over its
      // mailbox: that worker is gone already, and this one is not.
      if (message.owner !== this) return;
      throw new WorkerDiedError(message.reason);
    }
    if (message instanceof HeartbeatTick) {
      const heartbeat = this.#settings.heartbeat!;
      const now = this.context.system.scheduler.now();
      if (now - this.#lastHeard > heartbeat.timeoutMs) {
        this.#died(
          `no answer to the heartbeat within ${heartbeat.timeoutMs} ms`,
        );
        return;
      }
      this.#outbox!.frame(PING, 0);
      return;
    }
    this.context.system.publishDeadLetter(
      message,
      this.sender as ActorRef<never> | undefined,
      this.self as ActorRef<never>,
      "not a message for a worker's owner",
    );
  }

  /**
   * Posts a message to the worker (in this turn's batch) and keeps it in
   * the books until the worker acknowledges or returns it. Called in this
   * actor's turn, or in a stand-in's through the {@linkcode Conduit}.
   */
  send(
    target: string | number,
    message: unknown,
    recipient: ActorRef<never>,
    epoch: number,
    sender: ActorRef<never> | undefined,
  ): void {
    if (epoch !== 0 && epoch !== this.#epoch) {
      this.context.system.publishDeadLetter(
        message,
        sender,
        recipient,
        "the worker it belonged to has died",
      );
      return;
    }
    let senderId = 0;
    if (sender !== undefined) {
      // (The system is looked up only for a sender: a stream has none.)
      if (refusedSender(this.context.system, message, recipient, sender)) {
        return;
      }
      senderId = this.#exports.idOf(sender);
    }
    // In the books by being in the outbox's batch (see Book).
    this.#outbox!.deliver(
      ++this.#seq,
      target,
      message,
      senderId,
      sender,
      recipient,
    );
  }

  #stop(spawn: SpawnCommand): void {
    this.#outbox!.frame(STOP, spawn.name, spawn.id);
  }

  #spawn(spawn: SpawnCommand): void {
    this.#outbox!.frame(
      SPAWN,
      spawn.name,
      spawn.factory,
      spawn.args,
      spawn.id,
    );
  }

  /**
   * A frame of ours could not be cloned (a DELIVER comes as a run of one):
   * its message is a dead letter.
   */
  #uncloneable(frame: unknown[], error: unknown): void {
    if (frame[0] === DELIVER) {
      const book = this.#inFlight;
      if (!book.take(frame[1] as number)) return;
      const reason = cloneFailure(error);
      this.context.system.publishDeadLetter(
        book.message,
        book.sender,
        book.recipient!,
        reason,
      );
      // A reply to an ask in the worker: that ask fails at once.
      const target = frame[2];
      if (typeof target === "number" && target < 0) {
        this.#outbox!.frame(LOST, target, reason);
      }
    } else if (frame[0] === SPAWN) {
      this.#toParent(
        new RemoteStopped(
          frame[1] as string,
          `its arguments could not be cloned (${describeError(error)})`,
          frame[4] as number,
        ),
      );
    }
  }

  #toParent(message: unknown): void {
    this.context.parent.tell(message, this.self as ActorRef<never>);
  }

  /** The worker is dead: fail in this actor's next turn. */
  #died(reason: string): void {
    if (this.#dead !== undefined || this.#stopped) return;
    this.#dead = reason;
    this.#close();
    const self = this.self as ActorRef<never>;
    self.tell(new WorkerDown(reason, self, this) as never);
  }

  /**
   * A batch from the worker, read in the listener (no extra hop), through
   * the reader that checks every frame (frame_reader.ts says what a bad
   * one does).
   */
  #receive(batch: unknown): void {
    const reader = this.#reader!;
    if (this.#stopped || this.#unreadable || !reader.read(batch)) return;
    const system = this.context.system;
    // The heartbeat's clock is the system's, as its timer is.
    this.#lastHeard = system.scheduler.now();
    reader.sent = this.#seq;
    const frames = reader.batch;
    for (let kind = reader.next(); kind !== END; kind = reader.next()) {
      switch (kind) {
        case DELIVER: {
          const senderId = reader.sender;
          const sender = senderId === 0
            ? undefined
            : this.#imports!.get(senderId) as ActorRef<never>;
          const target = this.#exports.get(reader.target as number);
          const end = reader.end;
          if (target === undefined) {
            for (let m = reader.first; m < end; m++) {
              system.publishDeadLetter(
                frames[m],
                sender,
                system.deadLetters as ActorRef<never>,
                "the ref it was sent to no longer exists",
              );
            }
          } else {
            for (let m = reader.first; m < end; m++) {
              target.tell(frames[m] as never, sender);
            }
          }
          break;
        }
        case ACKS: {
          const inFlight = this.#inFlight;
          for (let r = reader.first; r < reader.end; r += 2) {
            const first = frames[r] as number;
            const last = frames[r + 1] as number;
            if (inFlight.drop(first, last) !== 0) {
              reader.report(`ACKS of ${first}…${last}, not all in flight`);
            }
          }
          break;
        }
        case UNDELIVERED: {
          const book = this.#inFlight;
          if (book.take(reader.seq)) {
            system.publishDeadLetter(
              book.message,
              book.sender,
              book.recipient!,
              reader.reason,
            );
          } else reader.report(`UNDELIVERED of ${reader.seq}, not in flight`);
          break;
        }
        case STOPPED:
          this.#toParent(
            new RemoteStopped(reader.name, "it stopped", reader.id),
          );
          break;
        case SPAWN_FAILED:
          this.#toParent(
            new RemoteStopped(reader.name, reader.reason, reader.id),
          );
          break;
        case LOST: {
          const target = this.#exports.get(reader.sender);
          const reason = reader.reason;
          system.publishDeadLetter(
            "(a message from the worker that could not be cloned)",
            undefined,
            target ?? system.deadLetters as ActorRef<never>,
            reason,
          );
          replyLost(target, reason);
          break;
        }
        case PONG:
          break;
        default: // BAD
          this.#rejected(reader);
      }
    }
  }

  /**
   * A frame the reader rejected: the messages it carried are dead letters;
   * one the rest of the batch could not be read past closes the link, as
   * a dead worker (something it sent may be lost unread).
   */
  #rejected(reader: FrameReader): void {
    const system = this.context.system;
    const reason = `a malformed frame from the worker (${reader.error})`;
    for (let m = reader.first; m < reader.end; m++) {
      system.publishDeadLetter(
        reader.batch[m],
        undefined,
        system.deadLetters as ActorRef<never>,
        reason,
      );
    }
    if (reader.fatal) {
      this.#unreadable = true;
      this.#died(`it sent a malformed frame (${reader.error})`);
    }
  }
}
