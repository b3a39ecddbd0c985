// Copyright 2026 the understudy authors. MIT license.

/**
 * The worker of the worker example (browser page and Deno program alike):
 * a CPU-heavy actor, counting primes by trial division, served over `self`.
 *
 * @module
 */

import { Actor } from "../../mod.ts";
import { type Endpoint, serveWorker } from "../../src/worker/mod.ts";

/** Answers a limit with the number of primes up to it (slowly, on purpose). */
export class Primes extends Actor<number> {
  onReceive(limit: number): void {
    let count = 0;
    for (let n = 2; n <= limit; n++) {
      let prime = true;
      for (let d = 2; d * d <= n; d++) {
        if (n % d === 0) {
          prime = false;
          break;
        }
      }
      if (prime) count++;
    }
    this.sender?.tell(count);
  }
}

serveWorker(self as unknown as Endpoint, {
  actors: { Primes: () => new Primes() },
});
