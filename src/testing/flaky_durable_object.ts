// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The Durable Object RPC adapter of the flaky link (`flaky_link.ts`): a namespace whose stubs
 * send every call, and every reply, through a {@linkcode FlakyChannel},
 * so that calls between objects are dropped, delayed, duplicated and
 * reordered as the seed decides. A call whose request or reply was lost
 * rejects, after `lostAfterMs`, with an error marked `retryable`, as a
 * dropped connection does on the platform (where the caller cannot tell
 * whether the object took the call); a duplicated request runs the method
 * twice, and only the first reply counts.
 *
 * @module
 */

import type { Scheduler } from "../runtime/ports/scheduler.ts";
import { checkDuration, fail } from "../validation.ts";
import {
  type ChannelStats,
  FlakyChannel,
  type LinkFaults,
} from "./flaky_link.ts";
import type { SeededRandom } from "./seeded_random.ts";

/**
 * Options of {@linkcode FlakyNamespace}.
 *
 * @example Usage
 * ```ts
 * import { ManualScheduler, seededRandom } from "@understudy/core/testing";
 * import type { FlakyNamespaceOptions } from "@understudy/core/testing";
 *
 * const options: FlakyNamespaceOptions = {
 *   random: seededRandom(7),
 *   scheduler: new ManualScheduler(),
 *   requests: { drop: 0.1, delayMs: [0, 20], duplicate: 0.05, reorder: 0.1 },
 *   replies: { drop: 0.1 },
 * };
 * ```
 */
export interface FlakyNamespaceOptions {
  /** Where every fault decision comes from. */
  readonly random: SeededRandom;
  /** What times deliveries and the loss timeout. */
  readonly scheduler: Scheduler;
  /** What happens to calls on their way to the object. */
  readonly requests?: LinkFaults;
  /** What happens to replies on their way back. */
  readonly replies?: LinkFaults;
  /** How long a call waits for its reply before it rejects as lost, in ms. Default 200. */
  readonly lostAfterMs?: number;
}

/**
 * A Durable Object namespace binding, as far as this adapter uses it (the
 * shape of `DurableObjectNamespaceLike` in `src/durable/`, declared here
 * because the wings of floor 5 do not import one another).
 *
 * @example Usage
 * ```ts
 * import type { NamespaceLike } from "@understudy/core/testing";
 *
 * const objects: NamespaceLike = { idFromName: (name) => name, get: () => ({}) };
 * ```
 */
export interface NamespaceLike {
  /**
   * The id of the object called `name`.
   *
   * @param name The object's name.
   */
  idFromName(name: string): unknown;
  /**
   * A stub for the object with this id.
   *
   * @param id From `idFromName`.
   */
  get(id: unknown): unknown;
}

/** A call on its way: what runs it at the object, and how to settle it. */
interface CallFrame {
  readonly call: number;
  readonly run: () => unknown;
}

/** A reply on its way back. */
interface ReplyFrame {
  readonly call: number;
  readonly ok: boolean;
  readonly value: unknown;
}

/**
 * A Durable Object namespace (as `ActorHost` reads `env`) whose stubs'
 * calls and replies go through flaky links. Wraps another namespace (the
 * platform's, or one of objects in the same process).
 *
 * @example Calls across a lossy link
 * ```ts
 * import { FlakyNamespace, ManualScheduler, seededRandom } from "@understudy/core/testing";
 *
 * const objects = {
 *   idFromName: (name: string) => name,
 *   get: (_id: unknown) => ({ hello: (who: string) => `hello, ${who}` }),
 * };
 * const scheduler = new ManualScheduler();
 * const flaky = new FlakyNamespace(objects, { random: seededRandom(1), scheduler, requests: { delayMs: 5 } });
 * const stub = flaky.get(flaky.idFromName("a")) as { hello(who: string): Promise<string> };
 * const reply = stub.hello("you");
 * await scheduler.timePasses(10);
 * console.log(await reply); // "hello, you"
 * flaky.close();
 * ```
 */
export class FlakyNamespace implements NamespaceLike {
  readonly #inner: NamespaceLike;
  readonly #scheduler: Scheduler;
  readonly #lostAfterMs: number;
  readonly #requests: FlakyChannel<CallFrame>;
  readonly #replies: FlakyChannel<ReplyFrame>;
  readonly #pending = new Map<
    number,
    {
      resolve: (v: unknown) => void;
      reject: (e: unknown) => void;
      timer: unknown;
    }
  >();
  #calls = 0;

  /**
   * Creates the namespace.
   *
   * @param inner The namespace whose objects are called.
   * @param options Faults, randomness, scheduler.
   * @throws {TypeError} If `inner` is not a namespace, or an option has the wrong type.
   * @throws {RangeError} If a rate or `lostAfterMs` is out of range.
   */
  constructor(
    inner: NamespaceLike,
    options: FlakyNamespaceOptions,
  ) {
    const action = "create FlakyNamespace";
    if (
      typeof inner?.idFromName !== "function" ||
      typeof inner?.get !== "function"
    ) {
      fail(
        action,
        "inner",
        "a Durable Object namespace (idFromName, get)",
        inner,
      );
    }
    if (typeof options !== "object" || options === null) {
      fail(action, "options", "an object", options);
    }
    this.#inner = inner;
    this.#scheduler = options.scheduler;
    this.#lostAfterMs = options.lostAfterMs === undefined ? 200 : checkDuration(
      action,
      "lostAfterMs",
      options.lostAfterMs,
      2_147_483_647,
    );
    this.#requests = new FlakyChannel<CallFrame>({
      name: "requests",
      random: options.random,
      scheduler: options.scheduler,
      faults: options.requests,
      deliver: (frame) => this.#arrive(frame),
    });
    this.#replies = new FlakyChannel<ReplyFrame>({
      name: "replies",
      random: options.random,
      scheduler: options.scheduler,
      faults: options.replies,
      deliver: (frame) => this.#settle(frame),
    });
  }

  /**
   * What each direction did, counted.
   *
   * @example Usage
   * ```ts
   * import { FlakyNamespace, ManualScheduler, seededRandom } from "@understudy/core/testing";
   *
   * const flaky = new FlakyNamespace({ idFromName: (n: string) => n, get: () => ({}) }, {
   *   random: seededRandom(1),
   *   scheduler: new ManualScheduler(),
   * });
   * console.log(flaky.stats.requests.sent); // 0
   * flaky.close();
   * ```
   */
  get stats(): { requests: ChannelStats; replies: ChannelStats } {
    return { requests: this.#requests.stats, replies: this.#replies.stats };
  }

  /**
   * The wrapped namespace's id for `name`.
   *
   * @example Usage
   * ```ts
   * import { FlakyNamespace, ManualScheduler, seededRandom } from "@understudy/core/testing";
   *
   * const flaky = new FlakyNamespace({ idFromName: (n: string) => `id:${n}`, get: () => ({}) }, {
   *   random: seededRandom(1),
   *   scheduler: new ManualScheduler(),
   * });
   * console.log(flaky.idFromName("a")); // "id:a"
   * flaky.close();
   * ```
   *
   * @param name The object's name.
   * @returns Its id.
   */
  idFromName(name: string): unknown {
    return this.#inner.idFromName(name);
  }

  /**
   * A stub whose every method call goes through the flaky links.
   *
   * @example Usage
   * ```ts
   * import { FlakyNamespace, ManualScheduler, seededRandom } from "@understudy/core/testing";
   *
   * const flaky = new FlakyNamespace({ idFromName: (n: string) => n, get: () => ({ ping: () => "pong" }) }, {
   *   random: seededRandom(1),
   *   scheduler: new ManualScheduler(),
   * });
   * const stub = flaky.get("a") as { ping(): Promise<string> };
   * console.log(typeof stub.ping); // "function"
   * flaky.close();
   * ```
   *
   * @param id From {@linkcode FlakyNamespace.idFromName}.
   * @returns The stub.
   */
  get(id: unknown): unknown {
    const inner = this.#inner.get(id) as Record<string, unknown>;
    return new Proxy({}, {
      get: (_target, method) => {
        if (typeof method !== "string" || method === "then") return undefined;
        return (...args: unknown[]) =>
          this.#call(() => {
            const fn = inner[method];
            if (typeof fn !== "function") {
              throw new TypeError(`The object has no RPC method ${method}`);
            }
            return fn.apply(inner, args);
          });
      },
    });
  }

  /**
   * Stops both links (what is in flight is never delivered) and rejects
   * the calls still waiting, clearing every timer.
   *
   * @example Usage
   * ```ts
   * import { FlakyNamespace, ManualScheduler, seededRandom } from "@understudy/core/testing";
   *
   * const flaky = new FlakyNamespace({ idFromName: (n: string) => n, get: () => ({}) }, {
   *   random: seededRandom(1),
   *   scheduler: new ManualScheduler(),
   * });
   * flaky.close();
   * ```
   */
  close(): void {
    this.#requests.close();
    this.#replies.close();
    for (const [call, pending] of this.#pending) {
      this.#scheduler.clearTimeout(pending.timer);
      this.#pending.delete(call);
      pending.reject(new Error("the flaky namespace was closed"));
    }
  }

  #call(run: () => unknown): Promise<unknown> {
    const call = ++this.#calls;
    return new Promise((resolve, reject) => {
      const timer = this.#scheduler.setTimeout(() => {
        this.#pending.delete(call);
        reject(Object.assign(
          new Error(
            `Network connection lost (call ${call} or its reply dropped by FlakyNamespace)`,
          ),
          { retryable: true },
        ));
      }, this.#lostAfterMs);
      this.#pending.set(call, { resolve, reject, timer });
      this.#requests.send({ call, run });
    });
  }

  #arrive(frame: CallFrame): void {
    let result: Promise<unknown>;
    try {
      result = Promise.resolve(frame.run());
    } catch (error) {
      result = Promise.reject(error);
    }
    result.then(
      (value) => this.#replies.send({ call: frame.call, ok: true, value }),
      (value) => this.#replies.send({ call: frame.call, ok: false, value }),
    );
  }

  #settle(frame: ReplyFrame): void {
    const pending = this.#pending.get(frame.call);
    if (pending === undefined) return; // a copy, or too late
    this.#pending.delete(frame.call);
    this.#scheduler.clearTimeout(pending.timer);
    if (frame.ok) pending.resolve(frame.value);
    else pending.reject(frame.value);
  }
}
