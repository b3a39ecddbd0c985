// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * A ref a test sends to and from, and asserts on what reached it.
 *
 * @module
 */

import { Actor } from "../runtime/actor.ts";
import { ActorRef } from "../runtime/actor_ref.ts";
import type { ActorSystem } from "../runtime/actor_system.ts";
import { Props } from "../runtime/props.ts";
import { Terminated } from "../runtime/actor.ts";
import { checkCount, checkDelay, describeValue, fail } from "../validation.ts";
import { ManualScheduler } from "./manual_scheduler.ts";

/** The default of every `withinMs`: how long a probe waits for a message. */
const DEFAULT_WITHIN_MS = 3_000;
/** The default of `expectNoMessage`'s wait. */
const DEFAULT_QUIET_MS = 100;

/** A message that reached the probe, with its sender. */
interface Received {
  readonly message: unknown;
  readonly sender: ActorRef<unknown> | undefined;
}

/** Private commands to the probe's actor, processed in mailbox order. */
class WatchCommand {
  constructor(readonly ref: ActorRef<never>) {}
}
class StopCommand {}

/** The actor behind a probe: records what reaches it. */
class ProbeActor extends Actor<unknown> {
  readonly #received: (received: Received) => void;
  constructor(received: (received: Received) => void) {
    super();
    this.#received = received;
  }
  onReceive(message: unknown): void {
    if (message instanceof WatchCommand) {
      this.context.watch(message.ref);
    } else if (message instanceof StopCommand) {
      this.context.stopSelf();
    } else {
      this.#received({ message, sender: this.sender });
    }
  }
}

/** A value as an assertion message shows it. */
function show(value: unknown): string {
  if (value instanceof Terminated) return `Terminated(${value.ref.path})`;
  if (typeof value === "object" && value !== null) {
    try {
      const json = JSON.stringify(value);
      const proto = Object.getPrototypeOf(value);
      const name = proto === Object.prototype || Array.isArray(value)
        ? ""
        : `${proto?.constructor?.name ?? ""} `;
      if (json !== undefined) return `${name}${json}`;
    } catch {
      // cyclic, or a getter that throws: fall back to the short form
    }
  }
  return describeValue(value);
}

/**
 * Structural equality: primitives by `Object.is`, arrays element by
 * element, refs by identity, other objects by prototype and own enumerable
 * properties.
 */
function equal(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  // A ref is an identity: two actors are never equal, whatever their fields.
  if (a instanceof ActorRef || b instanceof ActorRef) return false;
  if (
    typeof a !== "object" || typeof b !== "object" || a === null ||
    b === null || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)
  ) {
    return false;
  }
  if (a instanceof Date) return a.getTime() === (b as Date).getTime();
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  for (const key of keysA) {
    if (!Object.hasOwn(b, key)) return false;
    if (
      !equal(
        (a as Record<string, unknown>)[key],
        (b as Record<string, unknown>)[key],
      )
    ) return false;
  }
  return true;
}

/** The error a failed expectation throws. */
function expectationFailed(message: string): Error {
  const error = new Error(message);
  error.name = "ExpectationError";
  return error;
}

/**
 * A ref for tests, as Akka's `TestProbe`: send it messages (or make it the
 * sender of yours), then assert on what arrived. Waits run on the system's
 * scheduler: with a {@linkcode ManualScheduler}, `withinMs` is virtual
 * time that the probe itself moves forward (firing due timers in order)
 * until the message arrives, so a test of a 30-second backoff takes
 * milliseconds; with the real scheduler it is wall-clock time.
 *
 * @typeParam M What the probe receives.
 *
 * @example A reply and a restart, tested
 * ```ts
 * import { Actor, ActorSystem, Props } from "@understudy/core";
 * import { ManualScheduler, TestProbe } from "@understudy/core/testing";
 *
 * class Echo extends Actor<string> {
 *   onReceive(message: string): void {
 *     this.sender?.tell(`echo: ${message}`, this.self);
 *   }
 * }
 *
 * const system = ActorSystem.create("test", { scheduler: new ManualScheduler() });
 * const probe = new TestProbe<string>(system);
 * const echo = system.actorOf(Props.create(() => new Echo()), "echo");
 * probe.send(echo, "hi");
 * await probe.expectMessage("echo: hi");
 * console.log(probe.lastSender === echo); // true
 * await probe.expectNoMessage(1_000); // one virtual second, at once
 * await system.terminate();
 * ```
 */
export class TestProbe<M = unknown> {
  /** The probe as a ref: send to it, or pass it as the sender. */
  readonly ref: ActorRef<M>;
  readonly #system: ActorSystem;
  readonly #queue: Received[] = [];
  /** Wakes a real-time wait when a message arrives. */
  #arrived: (() => void) | undefined = undefined;
  #lastSender: ActorRef<unknown> | undefined = undefined;

  /**
   * Creates a probe: a top-level actor of `system`.
   *
   * @example Usage
   * ```ts
   * import { ActorSystem } from "@understudy/core";
   * import { TestProbe } from "@understudy/core/testing";
   *
   * const system = ActorSystem.create("test");
   * const probe = new TestProbe<number>(system, "numbers");
   * probe.ref.tell(42);
   * console.log(await probe.expectMessage(42)); // 42
   * await system.terminate();
   * ```
   *
   * @param system Where the probe lives; it stops with it.
   * @param name The probe actor's name; default a generated one.
   */
  constructor(system: ActorSystem, name?: string) {
    if (
      system === null || typeof system !== "object" ||
      typeof (system as Partial<ActorSystem>).actorOf !== "function"
    ) {
      fail("create TestProbe", "system", "an ActorSystem", system);
    }
    this.#system = system;
    this.ref = system.actorOf(
      Props.create(() => new ProbeActor((received) => this.#receive(received))),
      name,
    ) as ActorRef<M>;
  }

  /**
   * The sender of the message the probe took last, if it had one.
   *
   * @example Usage
   * ```ts
   * import { ActorSystem } from "@understudy/core";
   * import { TestProbe } from "@understudy/core/testing";
   *
   * const system = ActorSystem.create("test");
   * const probe = new TestProbe(system);
   * const other = new TestProbe(system);
   * other.send(probe.ref, "ping");
   * await probe.expectMessage("ping");
   * console.log(probe.lastSender === other.ref); // true
   * await system.terminate();
   * ```
   */
  get lastSender(): ActorRef<unknown> | undefined {
    return this.#lastSender;
  }

  /**
   * Sends `message` to `target` with the probe as its sender, so replies
   * come back to the probe.
   *
   * @example Usage
   * ```ts
   * import { ActorSystem } from "@understudy/core";
   * import { TestProbe } from "@understudy/core/testing";
   *
   * const system = ActorSystem.create("test");
   * const probe = new TestProbe(system);
   * probe.send(system.deadLetters, "to nobody");
   * await system.terminate();
   * ```
   */
  send<T>(target: ActorRef<T>, message: T): void {
    target.tell(message, this.ref as ActorRef<never>);
  }

  /**
   * Replies to {@linkcode TestProbe.lastSender}, with the probe as the
   * sender. Throws if the last message had no sender.
   *
   * @example Usage
   * ```ts
   * import { Actor, ActorSystem, Props } from "@understudy/core";
   * import { TestProbe } from "@understudy/core/testing";
   *
   * const system = ActorSystem.create("test");
   * const probe = new TestProbe<string>(system);
   * const answer = probe.ref.ask<string>("question?");
   * await probe.expectMessage("question?");
   * probe.reply("answer!");
   * console.log(await answer); // "answer!"
   * await system.terminate();
   * ```
   */
  reply(message: unknown): void {
    const sender = this.#lastSender;
    if (sender === undefined) {
      throw new TypeError(
        `Cannot reply from ${this.ref.path}: the last message it took had no sender (send it with tell(message, sender) or ask)`,
      );
    }
    sender.tell(message as never, this.ref as ActorRef<never>);
  }

  /**
   * Waits for the next message and checks it: equal to `expected`
   * (structurally: same prototype, equal own properties), or accepted by
   * it when it is a function. Resolves to the message; rejects if none
   * arrives within `withinMs` (default 3,000) or the next one does not
   * match.
   *
   * @example Usage
   * ```ts
   * import { ActorSystem } from "@understudy/core";
   * import { TestProbe } from "@understudy/core/testing";
   *
   * const system = ActorSystem.create("test");
   * const probe = new TestProbe<{ kind: string; n: number }>(system);
   * probe.ref.tell({ kind: "count", n: 3 });
   * probe.ref.tell({ kind: "count", n: 4 });
   * await probe.expectMessage({ kind: "count", n: 3 });
   * await probe.expectMessage((m) => m.n > 3);
   * await system.terminate();
   * ```
   */
  async expectMessage(
    expected: M | ((message: M) => boolean),
    withinMs: number = DEFAULT_WITHIN_MS,
  ): Promise<M> {
    checkDelay("expectMessage", "withinMs", withinMs);
    const [message] = await this.#take(
      1,
      withinMs,
      "expectMessage",
      () =>
        typeof expected === "function"
          ? "a message accepted by the predicate"
          : show(expected),
    );
    const matches = typeof expected === "function"
      ? (expected as (message: M) => boolean)(message as M)
      : equal(message, expected);
    if (!matches) {
      throw expectationFailed(
        `expectMessage on ${this.ref.path}: expected ${
          typeof expected === "function"
            ? "a message accepted by the predicate"
            : show(expected)
        }, got ${show(message)}`,
      );
    }
    return message as M;
  }

  /**
   * Waits `ms` (default 100) and rejects if any message arrived meanwhile.
   *
   * @example Usage
   * ```ts
   * import { ActorSystem } from "@understudy/core";
   * import { TestProbe } from "@understudy/core/testing";
   *
   * const system = ActorSystem.create("test");
   * const probe = new TestProbe(system);
   * await probe.expectNoMessage(50);
   * await system.terminate();
   * ```
   */
  async expectNoMessage(ms: number = DEFAULT_QUIET_MS): Promise<void> {
    checkDelay("expectNoMessage", "ms", ms);
    await this.#waitFor(1, ms);
    if (this.#queue.length > 0) {
      throw expectationFailed(
        `expectNoMessage on ${this.ref.path}: expected no message for ${ms} ms, got ${
          show(this.#queue[0].message)
        }`,
      );
    }
  }

  /**
   * Takes the next `count` messages, in order; rejects if fewer arrive
   * within `withinMs` (default 3,000), saying how many did.
   *
   * @example Usage
   * ```ts
   * import { ActorSystem } from "@understudy/core";
   * import { TestProbe } from "@understudy/core/testing";
   *
   * const system = ActorSystem.create("test");
   * const probe = new TestProbe<number>(system);
   * for (const n of [1, 2, 3]) probe.ref.tell(n);
   * console.log(await probe.receiveMessages(3)); // [1, 2, 3]
   * await system.terminate();
   * ```
   */
  receiveMessages(
    count: number,
    withinMs: number = DEFAULT_WITHIN_MS,
  ): Promise<M[]> {
    checkCount("receiveMessages", "count", count);
    checkDelay("receiveMessages", "withinMs", withinMs);
    return this.#take(
      count,
      withinMs,
      "receiveMessages",
      () => `${count} messages`,
    ) as Promise<M[]>;
  }

  /**
   * Watches `ref` and waits for its `Terminated`; rejects if it does not
   * stop within `withinMs` (default 3,000), or if another message comes
   * first.
   *
   * @example Usage
   * ```ts
   * import { Actor, ActorSystem, Props } from "@understudy/core";
   * import { TestProbe } from "@understudy/core/testing";
   *
   * class OneShot extends Actor<string> {
   *   onReceive(): void {
   *     this.context.stopSelf();
   *   }
   * }
   *
   * const system = ActorSystem.create("test");
   * const probe = new TestProbe(system);
   * const actor = system.actorOf(Props.create(() => new OneShot()));
   * actor.tell("go");
   * await probe.expectTerminated(actor);
   * await system.terminate();
   * ```
   */
  async expectTerminated(
    ref: ActorRef<never>,
    withinMs: number = DEFAULT_WITHIN_MS,
  ): Promise<Terminated> {
    checkDelay("expectTerminated", "withinMs", withinMs);
    this.ref.tell(new WatchCommand(ref) as M);
    return await this.expectMessage(
      ((message: unknown) =>
        message instanceof Terminated && message.ref === ref) as (
          message: M,
        ) => boolean,
      withinMs,
    ) as unknown as Terminated;
  }

  /**
   * Stops the probe's actor (messages still queued to it become dead
   * letters). A probe also stops with its system.
   *
   * @example Usage
   * ```ts
   * import { ActorSystem } from "@understudy/core";
   * import { TestProbe } from "@understudy/core/testing";
   *
   * const system = ActorSystem.create("test");
   * const probe = new TestProbe(system);
   * probe.stop();
   * await system.terminate();
   * ```
   */
  stop(): void {
    this.ref.tell(new StopCommand() as M);
  }

  #receive(received: Received): void {
    this.#queue.push(received);
    this.#arrived?.();
  }

  /** Takes `count` messages, waiting up to `withinMs` for them. */
  async #take(
    count: number,
    withinMs: number,
    what: string,
    expected: () => string,
  ): Promise<unknown[]> {
    await this.#waitFor(count, withinMs);
    if (this.#queue.length < count) {
      const got = this.#queue.length;
      throw expectationFailed(
        `${what} on ${this.ref.path}: timed out after ${withinMs} ms waiting for ${expected()}${
          got === 0 ? "; no message arrived" : `; only ${got} arrived`
        }`,
      );
    }
    const taken = this.#queue.splice(0, count);
    this.#lastSender = taken[taken.length - 1].sender;
    return taken.map((received) => received.message);
  }

  /** Resolves once `count` messages are queued or `withinMs` passed. */
  async #waitFor(count: number, withinMs: number): Promise<void> {
    const scheduler = this.#system.scheduler;
    if (scheduler instanceof ManualScheduler) {
      await scheduler.advanceUntil(
        () => this.#queue.length >= count,
        withinMs,
      );
      return;
    }
    if (this.#queue.length >= count && withinMs > 0) return;
    await new Promise<void>((resolve) => {
      const timer = scheduler.setTimeout(done, withinMs);
      const queue = this.#queue;
      function done(): void {
        scheduler.clearTimeout(timer);
        resolve();
      }
      this.#arrived = () => {
        if (queue.length >= count) done();
      };
    });
    this.#arrived = undefined;
  }
}
