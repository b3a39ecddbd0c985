// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The dispatcher: a ready queue of actors with messages waiting, drained in
 * one loop.
 *
 * One microtask starts a drain; the loop then runs every ready actor in
 * turn (each for at most {@linkcode THROUGHPUT} messages, for fairness)
 * until nothing is ready. So a message costs a few field or array
 * operations and a call, not a microtask. To keep the host responsive, the
 * loop checks the clock every {@linkcode CLOCK_CHECK_INTERVAL} actor runs
 * and, after {@linkcode SLICE_MS} of work (timed from the first check, so a
 * short drain never reads the clock), yields to the event loop, letting
 * timers, I/O and rendering in.
 *
 * The yield is a `MessageChannel` message where one exists: a macrotask with
 * no minimum delay (`setTimeout(0)` waits at least 1 ms in Node and 4 ms in
 * nested browser timers, which would idle a busy loop a fifth of the time).
 * But Node, Deno and Bun deliver such messages ahead of due timers, so the
 * first yield of a busy stretch also arms a `setTimeout(0)` probe; if it has
 * not fired a slice later, the loop waits for it, and resumes from it, after
 * every timer due before it has run. Timers thus wait at most about two
 * slices, and the 1 ms clamp is paid once per stretch, not once per slice.
 * Channel and probe are released whenever the loop runs dry, so neither keeps
 * a process alive.
 *
 * @module
 */

import { ringSlots } from "./mailbox.ts";
import { now } from "./timers.ts";

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
const CLOCK_CHECK_INTERVAL = 128;
const INITIAL_CAPACITY = 16; // a power of two

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
  /** A drain is queued (microtask) or running. */
  #active = false;
  /** Resumes the loop after a yield; open only while the loop is busy. */
  #channel: MessageChannel | undefined = undefined;
  /** The pending `setTimeout(0)` probe, and when it was armed. */
  #probe: unknown = undefined;
  #probeArmedAt = 0;
  /** The loop yielded until the probe fires. */
  #awaitingProbe = false;
  readonly #drain = (): void => this.#run();
  readonly #resume = (): void => this.#run();
  readonly #probeFired = (): void => {
    this.#probe = undefined;
    if (this.#awaitingProbe) {
      this.#awaitingProbe = false;
      this.#run();
    }
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

  /** Cancels a pending resume; used when the system terminates. */
  close(): void {
    this.#idle();
  }

  #run(): void {
    // The slice is timed from the first clock check, not from the start: a
    // short drain (one message, the common case) never reads the clock.
    let sliceStart = -1;
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
      runnable.run();
      if (--untilClockCheck === 0) {
        untilClockCheck = CLOCK_CHECK_INTERVAL;
        const t = now();
        if (sliceStart < 0) {
          sliceStart = t;
        } else if (
          t - sliceStart >= SLICE_MS &&
          (this.#first !== undefined || this.#length > 0)
        ) {
          this.#yield();
          return; // still active: schedule() must not start a second loop
        }
      }
    }
    this.#idle();
  }

  #yield(): void {
    const t = now();
    if (this.#probe === undefined) {
      this.#probe = globalThis.setTimeout(this.#probeFired, 0);
      this.#probeArmedAt = t;
    }
    const Channel = globalThis.MessageChannel;
    if (typeof Channel !== "function" || t - this.#probeArmedAt >= SLICE_MS) {
      this.#awaitingProbe = true; // let the due timers in first
      return;
    }
    if (this.#channel === undefined) {
      this.#channel = new Channel();
      this.#channel.port1.onmessage = this.#resume;
    }
    this.#channel.port2.postMessage(undefined);
  }

  #idle(): void {
    this.#active = false;
    this.#awaitingProbe = false;
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
