// Copyright 2026 the understudy authors. MIT license.

/**
 * The worker example's program, the same in a browser page (page.ts) and
 * under Deno (deno.ts): a CPU-heavy actor runs in a worker under a
 * BackoffSupervisor, while a UI actor on the main thread ticks every 50 ms
 * and reports how late its ticks were. The heavy work never blocks it.
 *
 * @module
 */

import { Actor, type ActorRef, ActorSystem, Props } from "../../mod.ts";
import {
  spawnInWorker,
  workerBackoff,
  workerProps,
} from "../../src/worker/mod.ts";

/** The UI actor: ticks, and shows the longest delay of a tick so far. */
class Ui extends Actor<"tick" | { status: string }> {
  #last = performance.now();
  #worstMs = 0;
  constructor(readonly show: (line: string) => void) {
    super();
  }
  override preStart(): void {
    this.context.timers.startTimerWithFixedDelay("tick", "tick", 50);
  }
  onReceive(message: "tick" | { status: string }): void {
    if (message === "tick") {
      const now = performance.now();
      this.#worstMs = Math.max(this.#worstMs, now - this.#last - 50);
      this.#last = now;
      return;
    }
    this.show(
      `${message.status} (UI ticks late by at most ${
        this.#worstMs.toFixed(1)
      } ms)`,
    );
  }
}

/**
 * Runs the program: counts primes up to `limits` in the worker, one after
 * the other, while the UI ticks; `show` prints each line.
 */
export async function run(
  workerUrl: URL,
  limits: number[],
  show: (line: string) => void,
): Promise<void> {
  const system = ActorSystem.create("worker-example", { logLevel: "warn" });
  const ui: ActorRef<"tick" | { status: string }> = system.actorOf(
    Props.create(() => new Ui(show)),
    "ui",
  );
  const compute = system.actorOf(
    workerProps({
      create: () => new Worker(workerUrl, { type: "module" }),
      backoff: workerBackoff({ minBackoff: 100, maxBackoff: 5_000 }),
      heartbeat: { intervalMs: 1_000, timeoutMs: 30_000 },
    }),
    "compute",
  );
  try {
    const primes = await spawnInWorker<number>(compute, "primes", "Primes");
    for (const limit of limits) {
      const started = performance.now();
      const count = await primes.ask<number>(limit, 60_000);
      ui.tell({
        status: `${count} primes up to ${limit} in ${
          (performance.now() - started).toFixed(0)
        } ms, in the worker`,
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  } finally {
    await system.terminate(); // the worker is terminated, the ticks stop
  }
}
