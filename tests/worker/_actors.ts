// Copyright 2026 the understudy authors. MIT license.
// Actors served in the workers of the worker tests (fake and real), and
// a main-side actor that collects what comes back.

import { Actor } from "../../src/runtime/actor.ts";
import type { ActorRef } from "../../src/runtime/actor_ref.ts";
import type { ActorSystem } from "../../src/runtime/actor_system.ts";
import { Props } from "../../src/runtime/props.ts";
import { BackoffSupervisor } from "../../src/patterns/backoff_supervisor.ts";
import { Transfer } from "../../src/worker/transfer.ts";

/** Answers each message with itself. */
export class Echo extends Actor<unknown> {
  onReceive(message: unknown): void {
    this.sender?.tell(message, this.self);
  }
}

/** Counts "inc"; answers "get" with the count. */
export class Counter extends Actor<"inc" | "get"> {
  #count = 0;
  onReceive(message: "inc" | "get"): void {
    if (message === "inc") this.#count++;
    else this.sender?.tell(this.#count);
  }
}

/** A {@linkcode Counter} whose stop takes a while (its postStop waits 30 ms). */
export class SlowToStopCounter extends Counter {
  override async postStop(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
}

/**
 * A {@linkcode Counter} that notes its starts and stops in `lifecycle` (`start 1`,
 * `stop 1`, … numbered per instance), and whose stop takes a while.
 */
export class LoggedCounter extends Counter {
  static instances = 0;
  readonly #id = ++LoggedCounter.instances;
  constructor(readonly lifecycle: string[]) {
    super();
  }
  override preStart(): void {
    this.lifecycle.push(`start ${this.#id}`);
  }
  override async postStop(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 30));
    this.lifecycle.push(`stop ${this.#id}`);
  }
}

/** Answers a number n with n + 1, with itself as the sender. */
export class Incrementer extends Actor<number> {
  onReceive(n: number): void {
    this.sender?.tell(n + 1, this.self);
  }
}

/** Stops on "stop"; answers anything else with "ok". */
export class Stopper extends Actor<string> {
  onReceive(message: string): void {
    if (message === "stop") this.context.stopSelf();
    else this.sender?.tell("ok");
  }
}

/** Answers with something that cannot be cloned. */
export class BadReplier extends Actor<unknown> {
  onReceive(): void {
    this.sender?.tell({ callback: () => 1 });
  }
}

/**
 * Answers "move" with a `Transfer` whose objects cannot move (a plain
 * object is not transferable), anything else with itself.
 */
export class BadMover extends Actor<unknown> {
  onReceive(message: unknown): void {
    this.sender?.tell(message === "move" ? new Transfer("a", [{}]) : message);
  }
}

/** Keeps the numbers it is sent, in order; answers "read" with them. */
export class Journal extends Actor<number | "read"> {
  readonly #entries: number[] = [];
  onReceive(message: number | "read"): void {
    if (message === "read") this.sender?.tell([...this.#entries]);
    else this.#entries.push(message);
  }
}

/** Answers an ArrayBuffer with its size. */
export class Measurer extends Actor<ArrayBuffer> {
  onReceive(buffer: ArrayBuffer): void {
    this.sender?.tell(buffer.byteLength);
  }
}

/**
 * Answers each job `{ n }` with n, and calls `die()` when it reaches
 * `dieAt` (only in the first worker: `die` is given per worker).
 */
export class Recorder extends Actor<{ n: number }> {
  constructor(readonly dieAt: number, readonly die: () => void) {
    super();
  }
  onReceive(job: { n: number }): void {
    this.sender?.tell(job.n);
    if (job.n === this.dieAt) this.die();
  }
}

/** On the main side: records the numbers it is sent. */
export class Collector extends Actor<number> {
  constructor(readonly seen: number[]) {
    super();
  }
  onReceive(n: number): void {
    this.seen.push(n);
  }
}

/** A {@linkcode Collector} in `system`, and the list it fills. */
export function collecting(
  system: ActorSystem,
): { seen: number[]; collector: ActorRef<number> } {
  const seen: number[] = [];
  const collector = system.actorOf(Props.create(() => new Collector(seen)));
  return { seen, collector };
}

/**
 * On the main side: plays ping-pong with the actor it is given, through
 * the sender refs, up to `limit`, then answers the starter.
 */
export class Player extends Actor<number | { start: ActorRef<number> }> {
  #starter: ActorRef<unknown> | undefined;
  constructor(readonly limit: number) {
    super();
  }
  onReceive(message: number | { start: ActorRef<number> }): void {
    if (typeof message === "object") {
      this.#starter = this.sender;
      message.start.tell(0, this.self);
      return;
    }
    if (message >= this.limit) this.#starter?.tell(message);
    else this.sender?.tell(message + 1, this.self);
  }
}

/**
 * Swaps its handler with `become` on its first message ("switch"); the
 * handler it becomes answers each message with itself.
 */
export class Switcher extends Actor<unknown> {
  onReceive(): void {
    this.context.become((message) => this.sender?.tell(message, this.self));
  }
}

/**
 * Keeps what it is sent in `Holder.handled`, and answers it. A message with
 * no sender (a tell from inside the worker) holds its turn until
 * `Holder.release()`, unanswered;
 * its ref is `Holder.ref` once started. One at a time, in the same thread
 * (a fake worker).
 */
export class Holder extends Actor<unknown> {
  static ref: ActorRef<unknown> | undefined;
  static handled: unknown[] = [];
  static #waiting: (() => void)[] = [];

  /** Ends every turn held so far. */
  static release(): void {
    for (const end of Holder.#waiting.splice(0)) end();
  }

  override preStart(): void {
    Holder.ref = this.self;
    Holder.handled = [];
    Holder.#waiting = [];
  }

  onReceive(message: unknown): void | Promise<void> {
    Holder.handled.push(message);
    if (this.sender === undefined) {
      return new Promise((resolve) => Holder.#waiting.push(resolve));
    }
    this.sender.tell(message);
  }
}

/** Answers each message twice. */
export class DoubleReplier extends Actor<unknown> {
  onReceive(message: unknown): void {
    this.sender?.tell(message);
    this.sender?.tell(message);
  }
}

/**
 * Calls back whoever sends it a message (tells it "call", with itself as
 * the sender), and holds that turn until `Caller.release()`.
 */
export class Caller extends Actor<unknown> {
  static #waiting: (() => void)[] = [];

  /** Ends every turn held so far. */
  static release(): void {
    for (const end of Caller.#waiting.splice(0)) end();
  }

  /** How many turns it holds. */
  static get holding(): number {
    return Caller.#waiting.length;
  }

  onReceive(): Promise<void> {
    this.sender?.tell("call", this.self);
    return new Promise((resolve) => Caller.#waiting.push(resolve));
  }
}

/** On the main side: answers every message, and counts them. */
export class Answerer extends Actor<unknown> {
  constructor(readonly received: unknown[]) {
    super();
  }
  onReceive(message: unknown): void {
    this.received.push(message);
    this.sender?.tell("answer");
  }
}

/**
 * Asks whoever sends it a message "first", then tells it "second" at once;
 * answers "answered: <reply>" to the same sender when the ask settles.
 */
export class AskThenTell extends Actor<unknown> {
  onReceive(): void {
    const caller = this.sender!;
    caller.ask<string>("first", 5_000).then((reply) =>
      caller.tell(`answered: ${reply}`)
    );
    caller.tell("second");
  }
}

/**
 * In the worker: asks whoever sent it a message "question" back, and tells
 * them how that ask ended ("answered: …" or "failed: <error> at <path>
 * (<reason>)").
 */
export class AskBack extends Actor<unknown> {
  onReceive(): void {
    const caller = this.sender!;
    caller.ask<unknown>("question", 10_000).then(
      (reply) => caller.tell(`answered: ${reply}`),
      (error: Error & { path?: string; reason?: string }) =>
        caller.tell(`failed: ${error.name} at ${error.path} (${error.reason})`),
    );
  }
}

/** On the main side: answers "question" with what cannot be cloned, keeps the rest. */
export class UncloneableAnswerer extends Actor<unknown> {
  constructor(readonly received: unknown[]) {
    super();
  }
  onReceive(message: unknown): void {
    if (message === "question") this.sender?.tell({ callback: () => 1 });
    else this.received.push(message);
  }
}

/** In the worker: asks whoever sent it a message "question", giving up after 20 ms. */
export class ImpatientAsker extends Actor<unknown> {
  onReceive(): void {
    this.sender!.ask("question", 20).catch(() => {});
  }
}

/** On the main side: answers "question" 100 ms later. */
export class LateAnswerer extends Actor<unknown> {
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  onReceive(message: unknown): void {
    const asker = this.sender;
    if (message !== "question" || asker === undefined) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      asker.tell("late answer", this.self);
    }, 100);
    this.#timers.add(timer);
  }
  override postStop(): void {
    for (const timer of this.#timers) clearTimeout(timer);
  }
}

/**
 * In the worker: stashes every number; answers "ping" with "pong", stops
 * on "stop", and handles the stash on "release" (each number is then
 * answered with itself).
 */
export class Stasher extends Actor<number | string> {
  #released = false;
  onReceive(message: number | string): void {
    if (message === "ping") this.sender?.tell("pong");
    else if (message === "stop") this.context.stopSelf();
    else if (message === "release") {
      this.#released = true;
      this.context.unstashAll();
    } else if (this.#released) this.sender?.tell(message);
    else this.context.stash();
  }
}

/** On the main side: keeps the sender of every message (refs from the worker). */
export class SenderKeeper extends Actor<unknown> {
  constructor(readonly senders: ActorRef<unknown>[]) {
    super();
  }
  onReceive(): void {
    if (this.sender !== undefined) this.senders.push(this.sender);
  }
}

/**
 * In the worker: answers its sender once with a sender that is no ref, and
 * then says whether that threw ("threw") or not ("did not throw").
 */
export class NoRefSender extends Actor<unknown> {
  onReceive(): void {
    const caller = this.sender!;
    let outcome = "did not throw";
    try {
      caller.tell("with a bad sender", "not a ref" as never);
    } catch {
      outcome = "threw";
    }
    caller.tell(outcome);
  }
}

/**
 * In the worker: answers each message with 2,100 numbers (more than one
 * batch holds, so a batch is posted in the middle of the turn), then
 * stashes it.
 */
/** In the worker: answers each message with 2,100 replies, more than a batch holds. */
export class Chatty extends Actor<unknown> {
  onReceive(): void {
    for (let n = 0; n < 2_100; n++) this.sender?.tell(n);
  }
}

export class ChattyStasher extends Actor<unknown> {
  onReceive(): void {
    for (let n = 0; n < 2_100; n++) this.sender?.tell(n);
    this.context.stash();
  }
}

/**
 * In the worker, with an async handler: answers "ping" with "pong"; any
 * other message it stashes after an `await`, or, for "hold", keeps its
 * turn until `AsyncStasher.release()`.
 */
export class AsyncStasher extends Actor<unknown> {
  static #waiting: (() => void)[] = [];

  /** Ends every turn held so far. */
  static release(): void {
    for (const end of AsyncStasher.#waiting.splice(0)) end();
  }

  async onReceive(message: unknown): Promise<void> {
    if (message === "ping") {
      this.sender?.tell("pong");
      return;
    }
    if (message === "hold") {
      await new Promise<void>((resolve) => AsyncStasher.#waiting.push(resolve));
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
    this.context.stash();
  }
}

/**
 * In the worker: runs a BackoffSupervisor whose child echoes and fails on
 * "crash" (then stays down a minute); answers anything with "supervisor",
 * sent from the supervisor's ref, so that the main side can tell it.
 */
export class SupervisorKeeper extends Actor<unknown> {
  readonly #supervisor = this.context.actorOf(
    BackoffSupervisor.props({
      childProps: Props.create(() => new CrashingEcho()),
      childName: "child",
      minBackoff: 60_000,
      maxBackoff: 60_000,
    }),
    "supervisor",
  );
  onReceive(): void {
    this.sender?.tell("supervisor", this.#supervisor as ActorRef<never>);
  }
}

/** Answers each message with itself, but fails on "crash". */
class CrashingEcho extends Actor<unknown> {
  onReceive(message: unknown): void {
    if (message === "crash") throw new Error("crash");
    this.sender?.tell(message);
  }
}
