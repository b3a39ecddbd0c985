// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The one source every injected fault draws from: a seeded generator, so a
 * failing run is replayed exactly by giving its seed back.
 *
 * @module
 */

import { fail } from "../validation.ts";

/** The largest seed: seeds are 32-bit unsigned integers. */
const MAX_SEED = 0xffff_ffff;

/**
 * A seeded source of random numbers (mulberry32: small, fast, and the same
 * sequence in every runtime). Every fault of the testing kit draws from
 * one, so the same seed makes the same faults, in the same order, at the
 * same virtual times, as long as the test drives the same program on a
 * {@linkcode ManualScheduler}. Print {@linkcode SeededRandom.seed} with a
 * failure (the {@linkcode MessageLedger} does) and pass it back to replay
 * the run.
 *
 * Draws are counted ({@linkcode SeededRandom.draws}); a component that
 * should not shift the others' draws when it draws more takes its own
 * stream with {@linkcode SeededRandom.fork}.
 *
 * @example Same seed, same numbers
 * ```ts
 * import { SeededRandom } from "@understudy/core/testing";
 *
 * const a = new SeededRandom(42);
 * const b = new SeededRandom(42);
 * console.log(a.next() === b.next()); // true
 * console.log(a.int(1, 6) === b.int(1, 6)); // true
 * console.log(a.seed); // 42
 * ```
 */
export class SeededRandom {
  /** The seed this source started from: what replays the run. */
  readonly seed: number;
  #state: number;
  #draws = 0;

  /**
   * Creates a source from `seed`, a whole number in [0, 2³² − 1].
   *
   * @example Usage
   * ```ts
   * import { SeededRandom } from "@understudy/core/testing";
   *
   * const random = new SeededRandom(7);
   * console.log(random.next() < 1); // true
   * ```
   *
   * @param seed The seed.
   */
  constructor(seed: number) {
    if (
      typeof seed !== "number" || !Number.isInteger(seed) || seed < 0 ||
      seed > MAX_SEED
    ) {
      fail(
        "create SeededRandom",
        "seed",
        `a whole number in [0, ${MAX_SEED}]`,
        seed,
        typeof seed === "number",
      );
    }
    this.seed = seed;
    this.#state = seed;
  }

  /**
   * How many numbers were drawn so far (each call of `next`, `chance`,
   * `int`, `between` or `pick` draws one).
   *
   * @example Usage
   * ```ts
   * import { SeededRandom } from "@understudy/core/testing";
   *
   * const random = new SeededRandom(1);
   * random.chance(0.5);
   * random.int(0, 9);
   * console.log(random.draws); // 2
   * ```
   */
  get draws(): number {
    return this.#draws;
  }

  /**
   * The next number, uniform in [0, 1).
   *
   * @example Usage
   * ```ts
   * import { SeededRandom } from "@understudy/core/testing";
   *
   * const x = new SeededRandom(3).next();
   * console.log(x >= 0 && x < 1); // true
   * ```
   */
  next(): number {
    this.#draws++;
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /**
   * `true` with probability `rate` (0: never, 1: always). Draws one number
   * whatever the rate, so changing a rate does not shift later draws.
   *
   * @example Usage
   * ```ts
   * import { SeededRandom } from "@understudy/core/testing";
   *
   * const random = new SeededRandom(5);
   * console.log(random.chance(0)); // false
   * console.log(random.chance(1)); // true
   * ```
   *
   * @param rate A probability in [0, 1].
   */
  chance(rate: number): boolean {
    checkRate("chance", "rate", rate);
    return this.next() < rate;
  }

  /**
   * A whole number uniform in [`lo`, `hi`] (both included).
   *
   * @example Usage
   * ```ts
   * import { SeededRandom } from "@understudy/core/testing";
   *
   * const die = new SeededRandom(9).int(1, 6);
   * console.log(die >= 1 && die <= 6); // true
   * ```
   *
   * @param lo The smallest result, a whole number.
   * @param hi The largest result, a whole number >= `lo`.
   */
  int(lo: number, hi: number): number {
    if (!Number.isSafeInteger(lo)) {
      fail("draw int", "lo", "a whole number", lo, typeof lo === "number");
    }
    if (!Number.isSafeInteger(hi) || hi < lo) {
      fail(
        "draw int",
        "hi",
        `a whole number >= lo (${lo})`,
        hi,
        typeof hi === "number",
      );
    }
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /**
   * A number uniform in [`lo`, `hi`).
   *
   * @example Usage
   * ```ts
   * import { SeededRandom } from "@understudy/core/testing";
   *
   * const ms = new SeededRandom(2).between(0, 40);
   * console.log(ms >= 0 && ms < 40); // true
   * ```
   *
   * @param lo The lower bound, a finite number.
   * @param hi The upper bound, a finite number >= `lo`.
   */
  between(lo: number, hi: number): number {
    if (!Number.isFinite(lo)) {
      fail("draw between", "lo", "a finite number", lo, typeof lo === "number");
    }
    if (!Number.isFinite(hi) || hi < lo) {
      fail(
        "draw between",
        "hi",
        `a finite number >= lo (${lo})`,
        hi,
        typeof hi === "number",
      );
    }
    return lo + this.next() * (hi - lo);
  }

  /**
   * One of `items`, each as likely.
   *
   * @example Usage
   * ```ts
   * import { SeededRandom } from "@understudy/core/testing";
   *
   * const fault = new SeededRandom(4).pick(["drop", "delay", "duplicate"]);
   * console.log(["drop", "delay", "duplicate"].includes(fault)); // true
   * ```
   *
   * @typeParam T The items' type.
   * @param items A non-empty array.
   */
  pick<T>(items: readonly T[]): T {
    if (!Array.isArray(items) || items.length === 0) {
      fail("pick", "items", "a non-empty array", items);
    }
    return items[Math.floor(this.next() * items.length)];
  }

  /**
   * A new, independent source derived from this one's seed and `label`
   * (not from its draws so far): a component given its own fork draws the
   * same numbers whatever the others draw, so a change in one place does
   * not reshuffle the faults everywhere.
   *
   * @example One stream per direction
   * ```ts
   * import { SeededRandom } from "@understudy/core/testing";
   *
   * const random = new SeededRandom(11);
   * const up = random.fork("up");
   * random.next(); // does not change what `up` or a later fork draws
   * console.log(up.next() === new SeededRandom(11).fork("up").next()); // true
   * ```
   *
   * @param label Names the stream; the same label gives the same stream.
   */
  fork(label: string): SeededRandom {
    if (typeof label !== "string") {
      fail("fork SeededRandom", "label", "a string", label);
    }
    // FNV-1a over the label, mixed with the seed.
    let hash = 0x811c9dc5 ^ this.seed;
    for (let i = 0; i < label.length; i++) {
      hash = Math.imul(hash ^ label.charCodeAt(i), 0x01000193);
    }
    return new SeededRandom(hash >>> 0);
  }

  /**
   * `seed <n>`: what a failure message shows.
   *
   * @example Usage
   * ```ts
   * import { SeededRandom } from "@understudy/core/testing";
   *
   * console.log(`${new SeededRandom(8)}`); // "seed 8"
   * ```
   */
  toString(): string {
    return `seed ${this.seed}`;
  }
}

/**
 * A {@linkcode SeededRandom} from `seed`, or from a fresh seed when none is
 * given (read it back from `.seed` and print it with the failure).
 *
 * @example Replay a seed, or draw a new one
 * ```ts
 * import { seededRandom } from "@understudy/core/testing";
 *
 * const replay: number | undefined = undefined; // paste a failing seed here
 * const random = seededRandom(replay);
 * console.log(Number.isInteger(random.seed)); // true
 * ```
 *
 * @param seed A whole number in [0, 2³² − 1]; default: a new random one.
 * @returns The source.
 */
export function seededRandom(seed?: number): SeededRandom {
  return new SeededRandom(
    seed ?? Math.floor(Math.random() * (MAX_SEED + 1)),
  );
}

/**
 * Reads a seed from text (an environment variable a test reads, a
 * command-line argument): `undefined` for `undefined` or an empty string,
 * the number for a whole number in [0, 2³² − 1], a `RangeError` naming the
 * text for anything else.
 *
 * @example A test that replays `UNDERSTUDY_SEED` when it is set
 * ```ts
 * import { parseSeed, seededRandom } from "@understudy/core/testing";
 *
 * const fromEnv: string | undefined = "1234"; // e.g. Deno.env.get("UNDERSTUDY_SEED")
 * const random = seededRandom(parseSeed(fromEnv));
 * console.log(random.seed); // 1234
 * ```
 *
 * @param text The text, or `undefined`.
 * @returns The seed, or `undefined`.
 */
export function parseSeed(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  const seed = Number(text.trim());
  if (!Number.isInteger(seed) || seed < 0 || seed > MAX_SEED) {
    fail(
      "parse seed",
      "text",
      `a whole number in [0, ${MAX_SEED}]`,
      text,
      true,
    );
  }
  return seed;
}

/** Checks a probability given to `action`. Internal to the testing kit. */
export function checkRate(
  action: string,
  option: string,
  rate: unknown,
): number {
  if (typeof rate !== "number" || !(rate >= 0 && rate <= 1)) {
    fail(
      action,
      option,
      "a probability in [0, 1]",
      rate,
      typeof rate === "number",
    );
  }
  return rate;
}
