// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The loss of a host at seeded points: a Durable Object evicted (its
 * `ctx.abort()`), a worker terminated, a server killed. A test offers the
 * loss at the points where it may happen; each offer draws once from the
 * seeded source, so a replayed seed loses the same hosts at the same offers.
 *
 * @module
 */

import { checkRate, type SeededRandom } from "./seeded_random.ts";
import { fail } from "../validation.ts";

/**
 * Loses a host with probability `rate` at each offer.
 *
 * @example Evicting a Durable Object at random points
 * ```ts
 * import { HostLoss, seededRandom } from "@understudy/core/testing";
 *
 * const ctx = { aborted: 0, abort() { this.aborted++; } }; // a Durable Object's state, in a test
 * const loss = new HostLoss(seededRandom(26), 0.3);
 * for (let i = 0; i < 100; i++) loss.offer(() => ctx.abort());
 * console.log(loss.lost === ctx.aborted); // true, and the same count for seed 26 every run
 * ```
 */
export class HostLoss {
  readonly #random: SeededRandom;
  readonly #rate: number;
  #lost = 0;

  /**
   * Creates a `HostLoss`.
   *
   * @param random Where each decision is drawn from.
   * @param rate The chance of a loss at each offer, 0 to 1.
   */
  constructor(random: SeededRandom, rate: number) {
    if (typeof random?.next !== "function") {
      fail("create HostLoss", "random", "a SeededRandom", random);
    }
    checkRate("create HostLoss", "rate", rate);
    this.#random = random;
    this.#rate = rate;
  }

  /** How many hosts were lost so far. */
  get lost(): number {
    return this.#lost;
  }

  /**
   * Offers a loss: with the rate's chance, runs `lose` (which loses the
   * host: `ctx.abort()`, `worker.terminate()`, …) and returns `true`.
   *
   * @example Usage
   * ```ts
   * import { HostLoss, seededRandom } from "@understudy/core/testing";
   *
   * const loss = new HostLoss(seededRandom(1), 1);
   * console.log(loss.offer(() => {})); // true: rate 1 always loses
   * ```
   *
   * @param lose Loses the host.
   * @returns Whether it was lost.
   */
  offer(lose: () => unknown): boolean {
    if (!this.#random.chance(this.#rate)) return false;
    this.#lost++;
    lose();
    return true;
  }
}
