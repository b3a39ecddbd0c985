// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The dispatcher: a ready queue of actors with messages waiting, drained in
 * one loop.
 *
 * One microtask starts a drain; the loop then runs every ready actor in
 * turn (each for at most {@linkcode THROUGHPUT} messages, for fairness)
 * until nothing is ready. So a message costs a few field or array
 * operations and a call, not a microtask.
 *
 * To keep the host responsive, the loop checks the clock every
 * {@linkcode CLOCK_CHECK_INTERVAL} actor runs (a short drain never reads
 * it) and works in slices of {@linkcode SLICE_MS}. A slice that ends with
 * actors still ready yields: the loop simply returns, and resumes when a
 * `setTimeout(0)` probe fires. The probe was armed well before (at the start
 * of the slice, or {@linkcode PROBE_LEAD_MS} into the first slice of a busy
 * stretch, so a short drain never touches a timer), so it is due already:
 * the host's minimum timer delay (1 ms in Node, 4 ms for nested timers in
 * browsers) is not spent idle, and every timer that fell due during the
 * slice runs before the loop does. While an actor floods itself, a timer
 * thus waits about one slice. The probe's callback does not run the next
 * slice itself, which would hold back the timers due after it (and nest
 * the timers that actors start): it posts a `MessageChannel` message, a
 * macrotask with no minimum delay that the host runs after them, and the
 * slice runs from that. Where there is no `MessageChannel` (workerd) the
 * loop resumes from the probe directly. Channel and probe exist only while
 * the loop is busy, so neither keeps a process alive. A channel message
 * alone would not do: Node, Deno and Bun deliver such messages ahead of a
 * due timer (Node and Bun a thousand in a row, Deno over a hundred).
 *
 * The loop never dies: a throw escaping an actor's run is handed to that
 * runnable's {@linkcode Runnable.crashed} (which must leave the queue
 * consistent), a throw from that is swallowed, and the loop goes on with
 * the next ready actor.
 *
 * @module
 */

import { ringSlots } from "./kernel/mailbox.ts";
import { realScheduler } from "./ports/scheduler.ts";

/**
 * The host's clock for the dispatcher's slices, which belong to no system
 * (everything else reads its system's scheduler).
 */
function now(): number {
  return realScheduler.now();
}

/** Something the dispatcher can run: an actor cell. */
export interface Runnable {
  /** Processes some of its messages; re-schedules itself if more remain. */
  run(): void;
  /**
   * Called when `run()` threw; the runnable must leave the queue in a
   * consistent state (re-schedule itself if it still has work, or not).
   */
  crashed(error: unknown): void;
}

/** Messages one actor may process before the next ready actor gets a turn. */
export const THROUGHPUT = 64;
/** How long the loop works before yielding to the event loop. */
export const SLICE_MS = 3;
/**
 * How far into the first slice of a busy stretch the probe is armed: late
 * enough that a short drain never arms it, early enough that it is due
 * (hosts clamp `setTimeout(0)` to 1 or 2 ms) when the slice ends.
 */
const PROBE_LEAD_MS = 1;
/** Actor runs between clock checks; keeps `performance.now()` off the hot path. */
const CLOCK_CHECK_INTERVAL = 128;
const INITIAL_CAPACITY = 16; // a power of two
/**
 * The largest ready queue kept once it is empty (8 KB of slots). A burst of
 * 200,000 actors made ready at once (a spawn, a fan-out) grew it to 262,144
 * slots, 2 MB kept for good: 13 B more per idle actor in the spawn bench.
 */
const KEPT_CAPACITY = 1_024;

/** The ready queue and its drain loop. Internal to the runtime. */
export class Dispatcher {
  /**
   * The oldest ready runnable, when it was queued into an empty queue. In a
   * conversation between actors (one ready at a time) the queue is then a
   * single field, and the ring below stays untouched.
   */
  #first: Runnable | undefined = undefined;
  /** The ring of the other ready runnables, all queued after `#first`. */
  #ready: (Runnable | undefined)[] = new Array(INITIAL_CAPACITY);
  #head = 0;
  #length = 0;
  /** A drain is queued (microtask), running, or waiting for the probe. */
  #active = false;
  /**
   * The `setTimeout(0)` armed when a slice starts; the loop yields by
   * returning, and resumes when it fires. Pending only while the loop is busy.
   */
  #probe: unknown = undefined;
  /** Resumes the loop after the probe; open only while the loop is busy. */
  #channel: MessageChannel | undefined = undefined;
  readonly #drain = (): void => this.#run(-1);
  readonly #resume = (): void => this.#run(this.#startSlice());
  readonly #probeFired = (): void => {
    this.#probe = undefined;
    // Resuming inside the timer's callback would hold back the timers due
    // with it; a message runs after them (and starts no nested timers).
    const Channel = globalThis.MessageChannel;
    if (typeof Channel !== "function") {
      this.#resume(); // no MessageChannel (workerd): resume here
      return;
    }
    if (this.#channel === undefined) {
      this.#channel = new Channel();
      this.#channel.port1.onmessage = this.#resume;
    }
    this.#channel.port2.postMessage(undefined);
  };

  /** Queues `runnable`; the caller ensures it is not queued already. */
  schedule(runnable: Runnable): void {
    if (this.#first === undefined && this.#length === 0) {
      this.#first = runnable;
    } else {
      if (this.#length === this.#ready.length) this.#grow();
      this.#ready[(this.#head + this.#length) & (this.#ready.length - 1)] =
        runnable;
      this.#length++;
    }
    if (!this.#active) {
      this.#active = true;
      queueMicrotask(this.#drain);
    }
  }

  /** Nothing is ready to run and no drain is under way. */
  get idle(): boolean {
    return !this.#active;
  }

  /** Cancels a pending resume; used when the system terminates. */
  close(): void {
    this.#idle();
  }

  /** Drains the queue; `sliceStart` < 0 until the first clock check. */
  #run(sliceStart: number): void {
    let untilClockCheck = CLOCK_CHECK_INTERVAL;
    for (;;) {
      let runnable = this.#first;
      if (runnable !== undefined) {
        this.#first = undefined;
      } else if (this.#length > 0) {
        const ready = this.#ready;
        runnable = ready[this.#head]!;
        ready[this.#head] = undefined;
        this.#head = (this.#head + 1) & (ready.length - 1);
        this.#length--;
      } else {
        break;
      }
      try {
        runnable.run();
      } catch (error) {
        crash(runnable, error);
      }
      if (--untilClockCheck === 0) {
        untilClockCheck = CLOCK_CHECK_INTERVAL;
        // A short drain (one message, the common case) never reads the
        // clock; a long one is timed from its first check.
        if (sliceStart < 0) {
          sliceStart = now();
          continue;
        }
        const elapsed = now() - sliceStart;
        if (
          elapsed >= SLICE_MS &&
          (this.#first !== undefined || this.#length > 0) &&
          this.#active // not closed meanwhile: then drain to the end
        ) {
          this.#armProbe(); // armed already, unless the checks were sparse
          return; // yield until the probe fires; still active
        }
        // Not at once: a drain shorter than this never touches a timer.
        if (elapsed >= PROBE_LEAD_MS) this.#armProbe();
      }
    }
    this.#idle();
  }

  /** Arms the probe the current slice will end by waiting for. */
  #armProbe(): void {
    this.#probe ??= globalThis.setTimeout(this.#probeFired, 0);
  }

  /** Starts a slice after a yield: the loop is known to be busy. */
  #startSlice(): number {
    this.#armProbe();
    return now();
  }

  #idle(): void {
    this.#active = false;
    if (this.#length === 0 && this.#ready.length > KEPT_CAPACITY) {
      this.#ready = new Array(INITIAL_CAPACITY);
      this.#head = 0;
    }
    if (this.#probe !== undefined) {
      globalThis.clearTimeout(this.#probe as number);
      this.#probe = undefined;
    }
    if (this.#channel !== undefined) {
      this.#channel.port1.close();
      this.#channel.port2.close();
      this.#channel = undefined;
    }
  }

  #grow(): void {
    const old = this.#ready;
    this.#ready = ringSlots(old, this.#head, this.#length, old.length * 2);
    this.#head = 0;
  }
}

/** Hands a throw that escaped `run()` to its runnable; nothing escapes. */
function crash(runnable: Runnable, error: unknown): void {
  try {
    runnable.crashed(error);
  } catch {
    // The runnable failed to recover; the loop must go on regardless.
  }
}
