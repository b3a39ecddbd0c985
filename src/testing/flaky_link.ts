// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The fault core every flaky link is made of: one direction of a frame
 * channel that drops, delays, duplicates and reorders what goes through it,
 * drawing every decision from a {@linkcode SeededRandom} and timing every
 * delivery on a {@linkcode Scheduler}. The socket, worker and Durable
 * Object adapters are thin layers over it: they turn their transport's
 * frames into `send` calls and deliver what comes out.
 *
 * @module
 */

import type { Scheduler } from "../runtime/ports/scheduler.ts";
import { checkDelay, fail } from "../validation.ts";
import { checkRate, type SeededRandom } from "./seeded_random.ts";

/**
 * What one direction of a link does to its frames. Rates are
 * probabilities in [0, 1], drawn per frame; every field is optional (none:
 * a link that only defers each frame to a later timer of its scheduler).
 *
 * @example Akka's reliable-delivery random spec: 10–30% lost, 0–40 ms late
 * ```ts
 * import { type LinkFaults, seededRandom } from "@understudy/core/testing";
 *
 * const random = seededRandom(1234);
 * const faults: LinkFaults = {
 *   drop: random.between(0.1, 0.3),
 *   delayMs: [0, 40],
 *   duplicate: 0.05,
 *   reorder: 0.1,
 * };
 * ```
 */
export interface LinkFaults {
  /** Share of frames lost. */
  readonly drop?: number;
  /** Share of frames (not lost) delivered twice, the copy at its own time. */
  readonly duplicate?: number;
  /**
   * Share of frames freed from FIFO order: held back up to the link's
   * longest delay plus 10 ms more, they may be overtaken by later frames.
   * The others arrive in the order sent. Delays are whole milliseconds.
   */
  readonly reorder?: number;
  /** Each frame's delay in ms: fixed, or `[min, max]` drawn per frame. Default 0. */
  readonly delayMs?: number | readonly [number, number];
}

/** What one channel did, counted. */
export interface ChannelStats {
  /** Frames handed to `send`. */
  readonly sent: number;
  /** Frames handed on (copies included). */
  readonly delivered: number;
  /** Frames lost by the `drop` fault. */
  readonly dropped: number;
  /** Extra copies made by the `duplicate` fault. */
  readonly duplicated: number;
  /** Frames freed from FIFO order by the `reorder` fault. */
  readonly reordered: number;
  /** Frames in flight when the channel closed, never delivered. */
  readonly discarded: number;
}

/**
 * Options of {@linkcode FlakyChannel}.
 *
 * @example Usage
 * ```ts
 * import { type FlakyChannelOptions, ManualScheduler, seededRandom } from "@understudy/core/testing";
 *
 * const options: FlakyChannelOptions<string> = {
 *   name: "up",
 *   random: seededRandom(1),
 *   scheduler: new ManualScheduler(),
 *   faults: { drop: 0.2 },
 *   deliver: (frame) => console.log(frame),
 * };
 * ```
 *
 * @typeParam F The frames.
 */
export interface FlakyChannelOptions<F> {
  /** Names the channel in its trace (`"up"`, `"socket 2 ▸ server"`). */
  readonly name: string;
  /** Where every fault is drawn from: give the channel its own fork. */
  readonly random: SeededRandom;
  /** Times the deliveries: the system's scheduler (a `ManualScheduler` in tests). */
  readonly scheduler: Scheduler;
  /** What the channel does to frames. Default: none. */
  readonly faults?: LinkFaults;
  /** Hands a frame on to the far side. */
  readonly deliver: (frame: F) => void;
}

/** Checks `faults`, naming `option` in the error. Internal to the kit. */
export function checkFaults(
  action: string,
  option: string,
  faults: unknown,
): LinkFaults {
  if (typeof faults !== "object" || faults === null) {
    fail(
      action,
      option,
      "an object of faults { drop, duplicate, reorder, delayMs }",
      faults,
    );
  }
  const f = faults as LinkFaults;
  for (const rate of ["drop", "duplicate", "reorder"] as const) {
    if (f[rate] !== undefined) checkRate(action, `${option}.${rate}`, f[rate]);
  }
  const { delayMs } = f;
  if (Array.isArray(delayMs)) {
    if (delayMs.length !== 2) {
      fail(action, `${option}.delayMs`, "a number or [min, max]", delayMs);
    }
    const min = checkDelay(action, `${option}.delayMs[0]`, delayMs[0]);
    const max = checkDelay(action, `${option}.delayMs[1]`, delayMs[1]);
    if (max < min) {
      fail(action, `${option}.delayMs[1]`, `>= delayMs[0] (${min})`, max, true);
    }
  } else if (delayMs !== undefined) {
    checkDelay(action, `${option}.delayMs`, delayMs);
  }
  return f;
}

/**
 * One direction of a flaky link: frames handed to
 * {@linkcode FlakyChannel.send} come out of `deliver` later, on timers of
 * the scheduler, after the faults: some lost, some late, some twice, some
 * out of order. Each frame draws the same six numbers from the channel's
 * random source whatever happens to it, so a run is replayed exactly by
 * its seed, and changing one rate does not reshuffle the other decisions.
 * Frames not freed by the `reorder` fault arrive in the order sent, as
 * over a TCP connection or a `MessagePort` with latency.
 *
 * Every decision is written to {@linkcode FlakyChannel.trace}, stamped
 * with the scheduler's time, so two runs of one seed can be compared line
 * by line. {@linkcode FlakyChannel.close} cancels what is in flight (no
 * timer outlives the test).
 *
 * @example A lossy channel, replayed by its seed
 * ```ts
 * import { FlakyChannel, ManualScheduler, seededRandom } from "@understudy/core/testing";
 *
 * async function run(seed: number): Promise<number[]> {
 *   const scheduler = new ManualScheduler();
 *   const received: number[] = [];
 *   const channel = new FlakyChannel<number>({
 *     name: "up",
 *     random: seededRandom(seed),
 *     scheduler,
 *     faults: { drop: 0.3, delayMs: [0, 40], reorder: 0.2 },
 *     deliver: (frame) => received.push(frame),
 *   });
 *   for (let i = 1; i <= 10; i++) channel.send(i);
 *   await scheduler.timePasses(100);
 *   channel.close();
 *   return received;
 * }
 * const first = await run(99);
 * console.log(first.length < 10); // true: some were lost
 * console.log(JSON.stringify(await run(99)) === JSON.stringify(first)); // true: same seed, same run
 * ```
 *
 * @typeParam F The frames.
 */
export class FlakyChannel<F> {
  /** The channel's name, as in its trace. */
  readonly name: string;
  readonly #random: SeededRandom;
  readonly #scheduler: Scheduler;
  readonly #deliver: (frame: F) => void;
  #faults: LinkFaults;
  /** Timers of frames in flight, by handle. */
  readonly #inFlight = new Set<unknown>();
  /** When the last frame kept in FIFO order is due: none may arrive before it. */
  #lastDueMs = -Infinity;
  #closed = false;
  #frames = 0;
  #stats = {
    sent: 0,
    delivered: 0,
    dropped: 0,
    duplicated: 0,
    reordered: 0,
    discarded: 0,
  };
  /** Lines of `${ms} ${name} #${frame} ${what}`. */
  readonly #trace: string[] = [];

  /**
   * Creates a channel.
   *
   * @example Usage
   * ```ts
   * import { FlakyChannel, ManualScheduler, seededRandom } from "@understudy/core/testing";
   *
   * const scheduler = new ManualScheduler();
   * const channel = new FlakyChannel<string>({
   *   name: "down",
   *   random: seededRandom(5),
   *   scheduler,
   *   deliver: (frame) => console.log(frame),
   * });
   * channel.send("hello");
   * await scheduler.timePasses(0); // prints "hello"
   * ```
   *
   * @param options Name, random source, scheduler, faults and where frames go.
   */
  constructor(options: FlakyChannelOptions<F>) {
    const action = "create FlakyChannel";
    if (typeof options !== "object" || options === null) {
      fail(action, "options", "an object", options);
    }
    const { name, random, scheduler, faults = {}, deliver } = options;
    if (typeof name !== "string") fail(action, "name", "a string", name);
    if (typeof random?.next !== "function") {
      fail(action, "random", "a SeededRandom", random);
    }
    if (
      typeof scheduler?.setTimeout !== "function" ||
      typeof scheduler?.clearTimeout !== "function" ||
      typeof scheduler?.now !== "function"
    ) {
      fail(
        action,
        "scheduler",
        "a Scheduler (setTimeout, clearTimeout, now)",
        scheduler,
      );
    }
    if (typeof deliver !== "function") {
      fail(action, "deliver", "a function", deliver);
    }
    this.name = name;
    this.#random = random;
    this.#scheduler = scheduler;
    this.#deliver = deliver;
    this.#faults = checkFaults(action, "faults", faults);
  }

  /**
   * The faults in force.
   *
   * @example Usage
   * ```ts
   * import { FlakyChannel, ManualScheduler, seededRandom } from "@understudy/core/testing";
   *
   * const channel = new FlakyChannel<string>({
   *   name: "up",
   *   random: seededRandom(1),
   *   scheduler: new ManualScheduler(),
   *   faults: { drop: 0.5 },
   *   deliver: () => {},
   * });
   * console.log(channel.faults.drop); // 0.5
   * ```
   */
  get faults(): LinkFaults {
    return this.#faults;
  }

  /**
   * Changes the faults from the next frame on (frames in flight keep their
   * fate); `{}` heals the channel.
   *
   * @example Heal the link for the end of a test
   * ```ts
   * import { FlakyChannel, ManualScheduler, seededRandom } from "@understudy/core/testing";
   *
   * const channel = new FlakyChannel<string>({
   *   name: "up",
   *   random: seededRandom(1),
   *   scheduler: new ManualScheduler(),
   *   faults: { drop: 1 },
   *   deliver: () => {},
   * });
   * channel.setFaults({});
   * console.log(channel.faults.drop); // undefined
   * ```
   *
   * @param faults The new faults.
   */
  setFaults(faults: LinkFaults): void {
    this.#faults = checkFaults("set faults", "faults", faults);
  }

  /**
   * Sends `frame` through the faults. After {@linkcode FlakyChannel.close},
   * frames are discarded.
   *
   * @example Usage
   * ```ts
   * import { FlakyChannel, ManualScheduler, seededRandom } from "@understudy/core/testing";
   *
   * const scheduler = new ManualScheduler();
   * const seen: string[] = [];
   * const channel = new FlakyChannel<string>({
   *   name: "up",
   *   random: seededRandom(1),
   *   scheduler,
   *   faults: { delayMs: 10 },
   *   deliver: (frame) => seen.push(frame),
   * });
   * channel.send("a");
   * await scheduler.timePasses(9);
   * console.log(seen.length); // 0
   * await scheduler.timePasses(1);
   * console.log(seen); // ["a"]
   * ```
   *
   * @param frame The frame.
   */
  send(frame: F): void {
    const n = ++this.#frames;
    this.#stats.sent++;
    const f = this.#faults;
    const random = this.#random;
    // Six draws per frame, whatever they decide: a replay stays aligned.
    const dropDraw = random.next();
    const duplicateDraw = random.next();
    const reorderDraw = random.next();
    const delayDraw = random.next();
    const copyDelayDraw = random.next();
    const holdDraw = random.next();
    if (this.#closed) {
      this.#stats.discarded++;
      this.#note(n, "discarded (closed)");
      return;
    }
    if (dropDraw < (f.drop ?? 0)) {
      this.#stats.dropped++;
      this.#note(n, "dropped");
      return;
    }
    const [min, max] = delayRange(f);
    const now = this.#scheduler.now();
    let dueMs = now + min + Math.floor(delayDraw * (max - min + 1));
    if (reorderDraw < (f.reorder ?? 0)) {
      this.#stats.reordered++;
      dueMs += Math.floor(holdDraw * (max + 11));
      this.#note(n, `free of order, due in ${round(dueMs - now)} ms`);
    } else {
      dueMs = Math.max(dueMs, this.#lastDueMs);
      this.#lastDueMs = dueMs;
      this.#note(n, `due in ${round(dueMs - now)} ms`);
    }
    this.#schedule(frame, dueMs - now);
    if (duplicateDraw < (f.duplicate ?? 0)) {
      this.#stats.duplicated++;
      const copyMs = min + Math.floor(copyDelayDraw * (max - min + 11));
      this.#note(n, `copied, the copy due in ${round(copyMs)} ms`);
      this.#schedule(frame, copyMs);
    }
  }

  /**
   * Frames in flight: sent, not yet delivered, dropped or discarded.
   *
   * @example Usage
   * ```ts
   * import { FlakyChannel, ManualScheduler, seededRandom } from "@understudy/core/testing";
   *
   * const scheduler = new ManualScheduler();
   * const channel = new FlakyChannel<string>({
   *   name: "up",
   *   random: seededRandom(1),
   *   scheduler,
   *   deliver: () => {},
   * });
   * channel.send("a");
   * console.log(channel.inFlight); // 1
   * await scheduler.timePasses(0);
   * console.log(channel.inFlight); // 0
   * ```
   */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /**
   * What the channel did so far, counted.
   *
   * @example Usage
   * ```ts
   * import { FlakyChannel, ManualScheduler, seededRandom } from "@understudy/core/testing";
   *
   * const channel = new FlakyChannel<string>({
   *   name: "up",
   *   random: seededRandom(1),
   *   scheduler: new ManualScheduler(),
   *   faults: { drop: 1 },
   *   deliver: () => {},
   * });
   * channel.send("a");
   * console.log(channel.stats.dropped); // 1
   * ```
   */
  get stats(): ChannelStats {
    return { ...this.#stats };
  }

  /**
   * Every decision, one line each (`${ms} ${name} #${frame} ${what}`),
   * oldest first: two runs of one seed give the same lines.
   *
   * @example Usage
   * ```ts
   * import { FlakyChannel, ManualScheduler, seededRandom } from "@understudy/core/testing";
   *
   * const channel = new FlakyChannel<string>({
   *   name: "up",
   *   random: seededRandom(1),
   *   scheduler: new ManualScheduler(),
   *   faults: { drop: 1 },
   *   deliver: () => {},
   * });
   * channel.send("a");
   * console.log(channel.trace); // ["0 up #1 dropped"]
   * ```
   */
  get trace(): readonly string[] {
    return this.#trace;
  }

  /**
   * Whether {@linkcode FlakyChannel.close} was called.
   *
   * @example Usage
   * ```ts
   * import { FlakyChannel, ManualScheduler, seededRandom } from "@understudy/core/testing";
   *
   * const channel = new FlakyChannel<string>({
   *   name: "up",
   *   random: seededRandom(1),
   *   scheduler: new ManualScheduler(),
   *   deliver: () => {},
   * });
   * channel.close();
   * console.log(channel.closed); // true
   * ```
   */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Closes the channel: frames in flight are discarded (their timers
   * cancelled), later ones too. A connection that went down loses what was
   * on the wire; and no timer outlives the test.
   *
   * @example Usage
   * ```ts
   * import { FlakyChannel, ManualScheduler, seededRandom } from "@understudy/core/testing";
   *
   * const scheduler = new ManualScheduler();
   * const channel = new FlakyChannel<string>({
   *   name: "up",
   *   random: seededRandom(1),
   *   scheduler,
   *   faults: { delayMs: 10 },
   *   deliver: () => console.log("never"),
   * });
   * channel.send("a");
   * channel.close();
   * console.log(scheduler.pendingTimers); // 0
   * ```
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const handle of this.#inFlight) {
      this.#scheduler.clearTimeout(handle);
      this.#stats.discarded++;
    }
    if (this.#inFlight.size > 0) {
      this.#trace.push(
        `${
          round(this.#scheduler.now())
        } ${this.name} closed, ${this.#inFlight.size} in flight discarded`,
      );
    }
    this.#inFlight.clear();
  }

  #schedule(frame: F, delayMs: number): void {
    const handle = this.#scheduler.setTimeout(() => {
      this.#inFlight.delete(handle);
      this.#stats.delivered++;
      this.#deliver(frame);
    }, delayMs);
    this.#inFlight.add(handle);
  }

  #note(n: number, what: string): void {
    this.#trace.push(
      `${round(this.#scheduler.now())} ${this.name} #${n} ${what}`,
    );
  }
}

function delayRange(faults: LinkFaults): [number, number] {
  const { delayMs = 0 } = faults;
  return typeof delayMs === "number"
    ? [delayMs, delayMs]
    : [delayMs[0], delayMs[1]];
}

/** Times in the trace: whole virtual milliseconds are the usual case. */
function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
