// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The dispatcher: a ready queue of actors with messages waiting, drained in
 * one loop.
 *
 * One microtask starts a drain; the loop then runs every ready actor in
 * turn (each for at most {@linkcode THROUGHPUT} messages, for fairness)
 * until nothing is ready. So a message costs a few array operations and a
 * call, not a microtask. To keep the host responsive, the loop checks the
 * clock every {@linkcode CLOCK_CHECK_INTERVAL} actor runs and, after
 * {@linkcode SLICE_MS} of work, yields to the event loop with a
 * `setTimeout(0)`, letting timers, I/O and rendering in.
 *
 * @module
 */

/** Something the dispatcher can run: an actor cell. */
export interface Runnable {
  /** Processes some of its messages; re-schedules itself if more remain. */
  run(): void;
}

/** Messages one actor may process before the next ready actor gets a turn. */
export const THROUGHPUT = 64;
/** How long the loop works before yielding to the event loop. */
export const SLICE_MS = 5;
/** Actor runs between clock checks; keeps `performance.now()` off the hot path. */
const CLOCK_CHECK_INTERVAL = 32;
const INITIAL_CAPACITY = 16; // a power of two

function now(): number {
  return globalThis.performance?.now() ?? Date.now();
}

/** The ready queue and its drain loop. Internal to the runtime. */
export class Dispatcher {
  #ready: (Runnable | undefined)[] = new Array(INITIAL_CAPACITY);
  #head = 0;
  #length = 0;
  /** A drain is queued (microtask) or running. */
  #active = false;
  /** The handle of the `setTimeout` that resumes after a yield. */
  #resumeTimer: unknown = undefined;
  readonly #drain = (): void => this.#run();
  readonly #resume = (): void => {
    this.#resumeTimer = undefined;
    this.#run();
  };

  /** Queues `runnable`; the caller ensures it is not queued already. */
  schedule(runnable: Runnable): void {
    if (this.#length === this.#ready.length) this.#grow();
    this.#ready[(this.#head + this.#length) & (this.#ready.length - 1)] =
      runnable;
    this.#length++;
    if (!this.#active) {
      this.#active = true;
      queueMicrotask(this.#drain);
    }
  }

  /** Cancels a pending resume timer; used when the system terminates. */
  close(): void {
    if (this.#resumeTimer !== undefined) {
      globalThis.clearTimeout(this.#resumeTimer as number);
      this.#resumeTimer = undefined;
      this.#active = false;
    }
  }

  #run(): void {
    const start = now();
    let untilClockCheck = CLOCK_CHECK_INTERVAL;
    while (this.#length > 0) {
      const ready = this.#ready;
      const runnable = ready[this.#head]!;
      ready[this.#head] = undefined;
      this.#head = (this.#head + 1) & (ready.length - 1);
      this.#length--;
      runnable.run();
      if (--untilClockCheck === 0) {
        untilClockCheck = CLOCK_CHECK_INTERVAL;
        if (now() - start >= SLICE_MS && this.#length > 0) {
          this.#resumeTimer = globalThis.setTimeout(this.#resume, 0);
          return; // still active: schedule() must not start a second loop
        }
      }
    }
    this.#active = false;
  }

  #grow(): void {
    const old = this.#ready;
    const next: (Runnable | undefined)[] = new Array(old.length * 2);
    const mask = old.length - 1;
    for (let i = 0; i < this.#length; i++) {
      next[i] = old[(this.#head + i) & mask];
    }
    this.#ready = next;
    this.#head = 0;
  }
}
