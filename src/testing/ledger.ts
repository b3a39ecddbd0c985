// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The books of a test run under faults: every message the test sends,
 * and what became of it.
 *
 * @module
 */

import type { ActorSystem } from "../runtime/actor_system.ts";
import { DeadLetter } from "../runtime/event_stream.ts";
import { describeValue, fail } from "../validation.ts";
import type { SeededRandom } from "./seeded_random.ts";

/** What became of one message so far. */
type Fate = "pending" | "handled" | "dead-lettered";

/** One message in the books. */
interface Account {
  readonly label: string;
  /** Its place in send order (1, 2, …). */
  readonly n: number;
  handled: number;
  deadLettered: number;
  /** Its dead letter said it may have been handled (see `inDoubt`). */
  inDoubt: boolean;
  /** The dead letters' reasons, for the failure message. */
  readonly reasons: string[];
}

/**
 * How many messages are in each state; `problems` counts the breaches of
 * the rule (a message handled twice, dead-lettered twice, both, or an
 * unknown one).
 *
 * @example Usage
 * ```ts
 * import { MessageLedger, type LedgerCounts } from "@understudy/core/testing";
 *
 * const ledger = new MessageLedger({ seed: 1 });
 * ledger.sent("a");
 * ledger.handled("a");
 * const counts: LedgerCounts = ledger.counts;
 * console.log(counts.handled); // 1
 * ```
 */
export interface LedgerCounts {
  /** Messages the test sent. */
  readonly sent: number;
  /** Messages handled exactly once (and not dead-lettered). */
  readonly handled: number;
  /** Messages dead-lettered exactly once (and not handled). */
  readonly deadLettered: number;
  /** Messages neither handled nor dead-lettered yet. */
  readonly pending: number;
  /**
   * Messages dead-lettered in doubt (they may have been handled), handled
   * or not: counted in `handled` or `deadLettered` too.
   */
  readonly inDoubt: number;
  /** Breaches of the rule recorded so far. */
  readonly problems: number;
}

/**
 * Options of {@linkcode MessageLedger}.
 *
 * @example Usage
 * ```ts
 * import { ManualScheduler, MessageLedger, type MessageLedgerOptions, seededRandom } from "@understudy/core/testing";
 *
 * const scheduler = new ManualScheduler();
 * const options: MessageLedgerOptions = { seed: seededRandom(5), clock: scheduler };
 * const ledger = new MessageLedger(options);
 * ```
 */
export interface MessageLedgerOptions {
  /**
   * The run's seed (or its {@linkcode SeededRandom}): every failure names
   * it, so the run can be replayed.
   */
  readonly seed: number | SeededRandom;
  /** A clock (a scheduler) whose time each problem is stamped with. */
  readonly clock?: { now(): number };
}

/**
 * Thrown by {@linkcode MessageLedger.check}: the seed, the first message
 * that broke the rule, and the counts.
 *
 * @example Usage
 * ```ts
 * import { LedgerError, MessageLedger } from "@understudy/core/testing";
 *
 * const ledger = new MessageLedger({ seed: 9 });
 * ledger.sent("job");
 * try {
 *   ledger.check();
 * } catch (error) {
 *   console.log(error instanceof LedgerError && error.seed); // 9
 * }
 * ```
 */
export class LedgerError extends Error {
  /** `"LedgerError"`. */
  override name = "LedgerError";
  /** The run's seed: give it back to replay the run. */
  readonly seed: number;
  /** The first problem, as in the message. */
  readonly problem: string;

  /**
   * Creates a `LedgerError`.
   *
   * @param seed The run's seed.
   * @param problem The first problem.
   * @param message The whole message.
   */
  constructor(seed: number, problem: string, message: string) {
    super(message);
    this.seed = seed;
    this.problem = problem;
  }
}

/**
 * Accounts for every message a test sends: each must end handled once or
 * dead-lettered once, never both, never twice; at the end, none may be
 * pending unless the test allows it. A breach is recorded the moment it
 * happens (with the virtual time, if a clock was given), and
 * {@linkcode MessageLedger.check} fails with the seed and the first
 * message that broke the rule, so the failing run can be replayed.
 *
 * Messages are named by a key of the test's choice (a number, a string,
 * the message object itself), compared as a `Map` compares keys. The test
 * calls {@linkcode MessageLedger.handled} where its actor handles a
 * message; dead letters can be counted by hand or taken from a system's
 * event stream with {@linkcode MessageLedger.watchDeadLetters}.
 *
 * @example Every job handled once or dead-lettered once
 * ```ts
 * import { Actor, ActorSystem, Props } from "@understudy/core";
 * import { ManualScheduler, MessageLedger } from "@understudy/core/testing";
 *
 * const scheduler = new ManualScheduler();
 * const system = ActorSystem.create("test", { scheduler, logLevel: "off" });
 * const ledger = new MessageLedger({ seed: 42, clock: scheduler });
 * ledger.watchDeadLetters(system, (message) => message);
 *
 * class Worker extends Actor<number> {
 *   onReceive(job: number): void {
 *     ledger.handled(job);
 *     if (job === 2) this.context.stop(this.self); // 3 and 4 become dead letters
 *   }
 * }
 * const worker = system.actorOf(Props.create(() => new Worker()));
 * for (const job of [1, 2, 3, 4]) worker.tell(ledger.sent(job));
 * await scheduler.timePasses(0);
 * ledger.check(); // throws a LedgerError naming the seed if any job broke the rule
 * console.log(ledger.counts); // { sent: 4, handled: 2, deadLettered: 2, pending: 0, inDoubt: 0, problems: 0 }
 * await system.terminate();
 * ```
 *
 * @typeParam K The keys that name messages.
 */
export class MessageLedger<K = unknown> {
  /** The run's seed. */
  readonly seed: number;
  readonly #clock: { now(): number } | undefined;
  readonly #accounts = new Map<K, Account>();
  readonly #problems: string[] = [];

  /**
   * Creates an empty ledger for the run of `options.seed`.
   *
   * @example Usage
   * ```ts
   * import { MessageLedger } from "@understudy/core/testing";
   *
   * const ledger = new MessageLedger<number>({ seed: 3 });
   * console.log(ledger.seed); // 3
   * ```
   *
   * @param options The seed, and a clock to stamp problems with.
   */
  constructor(options: MessageLedgerOptions) {
    if (typeof options !== "object" || options === null) {
      fail("create MessageLedger", "options", "an object", options);
    }
    const { seed, clock } = options;
    const value = typeof seed === "object" && seed !== null
      ? (seed as SeededRandom).seed
      : seed;
    if (typeof value !== "number" || !Number.isInteger(value)) {
      fail(
        "create MessageLedger",
        "seed",
        "a seed (a whole number) or a SeededRandom",
        seed,
      );
    }
    if (clock !== undefined && typeof clock?.now !== "function") {
      fail("create MessageLedger", "clock", "an object with now()", clock);
    }
    this.seed = value;
    this.#clock = clock;
  }

  /**
   * Records that the test sent the message named `key`, and returns `key`
   * (so `ref.tell(ledger.sent(message))` reads naturally). Sending the same
   * key twice is a problem: keys name one message each.
   *
   * @example Usage
   * ```ts
   * import { MessageLedger } from "@understudy/core/testing";
   *
   * const ledger = new MessageLedger<string>({ seed: 1 });
   * const key = ledger.sent("order-17", "order 17 to the billing actor");
   * console.log(key, ledger.counts.pending); // "order-17" 1
   * ```
   *
   * @param key Names the message.
   * @param label How failures describe it; default: the key, described.
   * @returns `key`.
   */
  sent<T extends K>(key: T, label?: string): T {
    if (this.#accounts.has(key)) {
      this.#problem(`${this.#describe(key)} sent twice (keys must be unique)`);
      return key;
    }
    this.#accounts.set(key, {
      label: label ?? describeValue(key),
      n: this.#accounts.size + 1,
      handled: 0,
      deadLettered: 0,
      inDoubt: false,
      reasons: [],
    });
    return key;
  }

  /**
   * Records that the message named `key` was handled (the work was done).
   * A second time, or after a dead letter, is a problem.
   *
   * @example Usage
   * ```ts
   * import { MessageLedger } from "@understudy/core/testing";
   *
   * const ledger = new MessageLedger<number>({ seed: 1 });
   * ledger.sent(1);
   * ledger.handled(1);
   * ledger.handled(1);
   * console.log(ledger.problems[0]); // "message 1 (#1) handled twice"
   * ```
   *
   * @param key Names the message.
   */
  handled(key: K): void {
    const account = this.#account(key, "handled");
    if (account === undefined) return;
    account.handled++;
    if (account.handled === 2) {
      this.#problem(`${this.#describe(key)} handled twice`);
    } else if (
      account.handled === 1 && account.deadLettered > 0 && !account.inDoubt
    ) {
      this.#problem(
        `${this.#describe(key)} handled after it was dead-lettered (${
          account.reasons[0]
        })`,
      );
    }
  }

  /**
   * Records that the message named `key` went to dead letters, for
   * `reason`. A second time, or after it was handled, is a problem.
   *
   * @example Usage
   * ```ts
   * import { MessageLedger } from "@understudy/core/testing";
   *
   * const ledger = new MessageLedger<number>({ seed: 1 });
   * ledger.sent(1);
   * ledger.deadLettered(1, "recipient stopped");
   * console.log(ledger.counts.deadLettered); // 1
   * ```
   *
   * @param key Names the message.
   * @param reason Why it was not delivered.
   */
  deadLettered(key: K, reason: string = "dead letter"): void {
    this.#dead(key, reason, false);
  }

  /**
   * Records a dead letter that cannot say whether the message was handled:
   * the transport lost track of it after it may have been handled (a
   * worker that died before its acknowledgement came back). The message
   * is accounted for; handled once before or after it is no problem, twice
   * still is, and so is a second dead letter.
   *
   * @example A worker lost with the acknowledgement on its way
   * ```ts
   * import { MessageLedger } from "@understudy/core/testing";
   *
   * const ledger = new MessageLedger<number>({ seed: 1 });
   * ledger.sent(1);
   * ledger.handled(1); // in the worker
   * ledger.deadLetteredInDoubt(1, "worker died before handling it");
   * ledger.check(); // passes
   * console.log(ledger.counts.inDoubt); // 1
   * ```
   *
   * @param key Names the message.
   * @param reason Why it was not delivered.
   */
  deadLetteredInDoubt(key: K, reason: string = "dead letter"): void {
    this.#dead(key, reason, true);
  }

  #dead(key: K, reason: string, inDoubt: boolean): void {
    const account = this.#account(key, "dead-lettered");
    if (account === undefined) return;
    account.deadLettered++;
    account.inDoubt ||= inDoubt;
    account.reasons.push(reason);
    if (account.deadLettered === 2) {
      this.#problem(
        `${this.#describe(key)} dead-lettered twice (${
          account.reasons.join("; ")
        })`,
      );
    } else if (
      account.deadLettered === 1 && account.handled > 0 && !inDoubt
    ) {
      this.#problem(
        `${this.#describe(key)} dead-lettered (${reason}) after it was handled`,
      );
    }
  }

  /**
   * Counts `system`'s dead letters: for each `DeadLetter` whose message
   * `keyOf` names (returns a key for; `undefined`: not the test's),
   * {@linkcode MessageLedger.deadLettered} with its reason. Returns the
   * unsubscribe function. `options.inDoubt` picks the dead letters that
   * cannot say whether their message was handled (counted with
   * {@linkcode MessageLedger.deadLetteredInDoubt}).
   *
   * @example Usage
   * ```ts
   * import { ActorSystem } from "@understudy/core";
   * import { MessageLedger } from "@understudy/core/testing";
   *
   * const system = ActorSystem.create("test", { logLevel: "off" });
   * const ledger = new MessageLedger<number>({ seed: 1 });
   * const stop = ledger.watchDeadLetters(system, (m) => typeof m === "number" ? m : undefined);
   * system.deadLetters.tell(ledger.sent(7));
   * await new Promise((resolve) => setTimeout(resolve, 0));
   * console.log(ledger.counts.deadLettered); // 1
   * stop();
   * await system.terminate();
   * ```
   *
   * @param system The actor system.
   * @param keyOf The key of a dead letter's message, or `undefined`.
   * @param options `inDoubt`: whether a dead letter may have been handled.
   * @returns Stops counting.
   */
  watchDeadLetters(
    system: ActorSystem,
    keyOf: (message: unknown) => K | undefined,
    options: { readonly inDoubt?: (dead: DeadLetter) => boolean } = {},
  ): () => void {
    if (typeof keyOf !== "function") {
      fail("watch dead letters", "keyOf", "a function", keyOf);
    }
    const { inDoubt } = options;
    if (inDoubt !== undefined && typeof inDoubt !== "function") {
      fail("watch dead letters", "options.inDoubt", "a function", inDoubt);
    }
    return system.eventStream.subscribe(DeadLetter, (dead) => {
      const key = keyOf(dead.message);
      if (key === undefined) return;
      this.#dead(key, dead.reason, inDoubt?.(dead) === true);
    });
  }

  /**
   * The keys of the messages neither handled nor dead-lettered, in send
   * order.
   *
   * @example Usage
   * ```ts
   * import { MessageLedger } from "@understudy/core/testing";
   *
   * const ledger = new MessageLedger<number>({ seed: 1 });
   * ledger.sent(1);
   * ledger.sent(2);
   * ledger.handled(1);
   * console.log(ledger.pending); // [2]
   * ```
   */
  get pending(): K[] {
    const keys: K[] = [];
    for (const [key, account] of this.#accounts) {
      if (account.handled === 0 && account.deadLettered === 0) keys.push(key);
    }
    return keys;
  }

  /**
   * What happened to the message named `key` so far; `undefined` if it
   * was never sent.
   *
   * @example Usage
   * ```ts
   * import { MessageLedger } from "@understudy/core/testing";
   *
   * const ledger = new MessageLedger<string>({ seed: 1 });
   * ledger.sent("a");
   * console.log(ledger.fateOf("a")); // "pending"
   * ```
   *
   * @param key Names the message.
   */
  fateOf(key: K): "pending" | "handled" | "dead-lettered" | undefined {
    const account = this.#accounts.get(key);
    if (account === undefined) return undefined;
    return fate(account);
  }

  /**
   * Every breach recorded so far, oldest first.
   *
   * @example Usage
   * ```ts
   * import { MessageLedger } from "@understudy/core/testing";
   *
   * const ledger = new MessageLedger<number>({ seed: 1 });
   * ledger.handled(5);
   * console.log(ledger.problems); // ["message 5 handled, but never sent"]
   * ```
   */
  get problems(): readonly string[] {
    return this.#problems;
  }

  /**
   * The counts, by state.
   *
   * @example Usage
   * ```ts
   * import { MessageLedger } from "@understudy/core/testing";
   *
   * const ledger = new MessageLedger<number>({ seed: 1 });
   * ledger.sent(1);
   * console.log(ledger.counts.pending); // 1
   * ```
   */
  get counts(): LedgerCounts {
    let handled = 0;
    let deadLettered = 0;
    let pending = 0;
    let inDoubt = 0;
    for (const account of this.#accounts.values()) {
      if (account.inDoubt) inDoubt++;
      const state = fate(account);
      if (state === "pending") pending++;
      else if (account.handled <= 1 && account.deadLettered <= 1) {
        if (state === "handled") {
          if (account.deadLettered === 0 || account.inDoubt) handled++;
        } else deadLettered++;
      }
    }
    return {
      sent: this.#accounts.size,
      handled,
      deadLettered,
      pending,
      inDoubt,
      problems: this.#problems.length,
    };
  }

  /**
   * Fails the test, with a {@linkcode LedgerError}, if any message broke
   * the rule, or (unless `pendingAllowed`) is still pending: its message
   * names the seed, the first message that broke it, and the counts.
   *
   * @example Usage
   * ```ts
   * import { MessageLedger } from "@understudy/core/testing";
   *
   * const ledger = new MessageLedger<number>({ seed: 77 });
   * ledger.sent(1);
   * try {
   *   ledger.check();
   * } catch (error) {
   *   console.log((error as Error).message.startsWith("seed 77:")); // true
   * }
   * ledger.check({ pendingAllowed: true }); // passes
   * ```
   *
   * @param options `pendingAllowed`: a message still pending is no problem.
   */
  check(options: { readonly pendingAllowed?: boolean } = {}): void {
    let problem = this.#problems[0];
    if (problem === undefined && options.pendingAllowed !== true) {
      const pending = this.pending;
      if (pending.length > 0) {
        problem = `${
          this.#describe(pending[0])
        } neither handled nor dead-lettered`;
      }
    }
    if (problem === undefined) return;
    const c = this.counts;
    const more = c.problems > 1 ? ` (and ${c.problems - 1} more problems)` : "";
    throw new LedgerError(
      this.seed,
      problem,
      `seed ${this.seed}: ${problem}${more}; sent ${c.sent}, handled ${c.handled}, dead-lettered ${c.deadLettered}, pending ${c.pending}`,
    );
  }

  #account(key: K, what: string): Account | undefined {
    const account = this.#accounts.get(key);
    if (account === undefined) {
      this.#problem(`message ${describeValue(key)} ${what}, but never sent`);
    }
    return account;
  }

  #describe(key: K): string {
    const account = this.#accounts.get(key);
    return account === undefined
      ? `message ${describeValue(key)}`
      : `message ${account.label} (#${account.n})`;
  }

  #problem(text: string): void {
    const at = this.#clock === undefined ? "" : ` at ${this.#clock.now()} ms`;
    this.#problems.push(`${text}${at}`);
  }
}

function fate(account: Account): Fate {
  if (account.handled > 0) return "handled";
  return account.deadLettered > 0 ? "dead-lettered" : "pending";
}
