// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Death watch across objects. The watching object registers the watch with
 * the watched actor's object (`understudyWatch`), where a relay actor
 * watches the actor and says so (`understudyWatchEnded`) when it stops.
 * An object's eviction runs no code, so nothing would say that its actors
 * are gone: the watching object also asks, every `heartbeatMs`, which of
 * its watches the other object still knows (`understudyWatchCheck`); one
 * it does not know has lost its actor (the object was reset or evicted),
 * and one whose object cannot be reached for `unreachableAfterMs` is given
 * up. Each ends, exactly once, with a {@linkcode RemoteTerminated} told to
 * the watcher, carrying why.
 *
 * @module
 */

import { Actor, Terminated } from "../runtime/actor.ts";
import type { ActorRef } from "../runtime/actor_ref.ts";
import type { ActorSystem } from "../runtime/actor_system.ts";
import { checkDuration, fail } from "../validation.ts";
import { type Channel, randomId } from "./channel.ts";
import { errorText } from "./retry.ts";

/**
 * The `Terminated` a watcher of a remote ref gets: the actor stopped, its
 * object lost it (reset or evicted), or its object could not be reached
 * past the deadline. `reason` says which.
 *
 * @example Usage
 * ```ts
 * import { Actor, Terminated } from "@understudy/core";
 * import { RemoteTerminated } from "@understudy/core/durable";
 *
 * class Watcher extends Actor<Terminated> {
 *   onReceive(message: Terminated): void {
 *     if (message instanceof RemoteTerminated) {
 *       this.log.info(`${message.ref.path} is gone: ${message.reason}`);
 *     }
 *   }
 * }
 * ```
 */
export class RemoteTerminated extends Terminated {
  /**
   * Creates a `RemoteTerminated`.
   *
   * @param ref The remote ref that was watched.
   * @param reason Why the watch ended.
   */
  constructor(ref: ActorRef<never>, readonly reason: string) {
    super(ref);
  }
}

/**
 * How remote watches notice an object that is gone. Every field is
 * optional.
 *
 * @example Usage
 * ```ts
 * import type { RemoteWatchOptions } from "@understudy/core/durable";
 *
 * const watch: RemoteWatchOptions = { heartbeatMs: 1_000, unreachableAfterMs: 5_000 };
 * ```
 */
export interface RemoteWatchOptions {
  /** How often the watching object asks after its watches, in ms (> 0, at most 2^31 - 1). Default 5,000. */
  heartbeatMs?: number;
  /** How long a watched actor's object may stay unreachable before the watch ends, in ms (> 0). Default 15,000. */
  unreachableAfterMs?: number;
}

/** The longest wait a timer takes everywhere (2^31 - 1 ms). */
const MAX_TIMER_MS = 2_147_483_647;

/** Checked watch options. Internal. */
export interface WatchSettings {
  readonly heartbeatMs: number;
  readonly unreachableAfterMs: number;
}

/** Checks `options` (of `action`) and fills in the defaults. Internal. */
export function watchSettings(
  action: string,
  options: RemoteWatchOptions | undefined,
): WatchSettings {
  if (options === undefined) {
    return { heartbeatMs: 5_000, unreachableAfterMs: 15_000 };
  }
  if (typeof options !== "object" || options === null) {
    fail(action, "watch", "an object", options);
  }
  return {
    heartbeatMs: options.heartbeatMs === undefined ? 5_000 : checkDuration(
      action,
      "watch.heartbeatMs",
      options.heartbeatMs,
      MAX_TIMER_MS,
    ),
    unreachableAfterMs: options.unreachableAfterMs === undefined
      ? 15_000
      : checkDuration(
        action,
        "watch.unreachableAfterMs",
        options.unreachableAfterMs,
      ),
  };
}

/** One watch of a remote actor. */
interface Watch {
  readonly id: string;
  readonly watcher: ActorRef<Terminated>;
  readonly ref: ActorRef<never>;
  readonly channel: Channel;
  readonly path: string;
  /** The other object took the watch. */
  registered: boolean;
  /** When the other object last answered. */
  lastOk: number;
  lastError: unknown;
}

/** The watches one object's actors keep on actors of other objects. Internal. */
export class RemoteWatches {
  readonly #system: ActorSystem;
  readonly #settings: WatchSettings;
  readonly #watches = new Map<string, Watch>();
  #timer: unknown = undefined;
  #closed = false;

  constructor(system: ActorSystem, settings: WatchSettings) {
    this.#system = system;
    this.#settings = settings;
  }

  /** Watches currently kept. */
  get size(): number {
    return this.#watches.size;
  }

  /** `watcher` watches the actor at `path` over `channel`; returns what ends the watch. */
  watch(
    watcher: ActorRef<Terminated>,
    ref: ActorRef<never>,
    channel: Channel,
    path: string,
  ): () => void {
    if (this.#closed) {
      watcher.tell(
        new RemoteTerminated(ref, "the watching actor host was reset"),
      );
      return () => {};
    }
    const watch: Watch = {
      id: randomId(),
      watcher,
      ref,
      channel,
      path,
      registered: false,
      lastOk: this.#now(),
      lastError: undefined,
    };
    this.#watches.set(watch.id, watch);
    this.#register(watch);
    this.#arm();
    return () => this.#cancel(watch.id);
  }

  /** The other object says the watched actor stopped. */
  ended(watchId: unknown, reason: unknown): void {
    if (typeof watchId === "string") this.#end(watchId, String(reason));
  }

  /** Ends every watch without a word (the watching system is going) and clears the timer. */
  close(): void {
    this.#closed = true;
    this.#disarm();
    this.#watches.clear();
  }

  #now(): number {
    return this.#system.scheduler.now();
  }

  #register(watch: Watch): void {
    const from = watch.channel.from;
    watch.channel.invoke((stub) =>
      stub.understudyWatch(from, watch.path, watch.id)
    ).then(
      (answer) => {
        if (!this.#watches.has(watch.id)) return;
        if (answer === null) {
          watch.registered = true;
          watch.lastOk = this.#now();
        } else this.#end(watch.id, String(answer));
      },
      (error) => {
        watch.lastError = error;
      },
    );
  }

  #cancel(id: string): void {
    const watch = this.#watches.get(id);
    if (watch === undefined) return;
    this.#watches.delete(id);
    if (this.#watches.size === 0) this.#disarm();
    watch.channel.invoke((stub) => stub.understudyUnwatch(id)).catch(() => {});
  }

  #end(id: string, reason: string): void {
    const watch = this.#watches.get(id);
    if (watch === undefined) return;
    this.#watches.delete(id);
    if (this.#watches.size === 0) this.#disarm();
    watch.watcher.tell(new RemoteTerminated(watch.ref, reason));
  }

  #arm(): void {
    if (this.#timer !== undefined || this.#closed) return;
    this.#timer = this.#system.scheduler.setTimeout(
      () => this.#beat(),
      this.#settings.heartbeatMs,
    );
  }

  #disarm(): void {
    if (this.#timer !== undefined) {
      this.#system.scheduler.clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  /** Asks each watched object after its watches; ends those it lost, and those past the deadline. */
  #beat(): void {
    this.#timer = undefined;
    const byChannel = new Map<Channel, Watch[]>();
    for (const watch of this.#watches.values()) {
      if (!watch.registered) {
        this.#overdue(watch);
        if (this.#watches.has(watch.id)) this.#register(watch);
        continue;
      }
      let list = byChannel.get(watch.channel);
      if (list === undefined) byChannel.set(watch.channel, list = []);
      list.push(watch);
    }
    for (const [channel, watches] of byChannel) {
      channel.invoke((stub) =>
        stub.understudyWatchCheck(watches.map((w) => w.id))
      ).then(
        (unknown) => {
          const lost = new Set(Array.isArray(unknown) ? unknown : []);
          const now = this.#now();
          for (const watch of watches) {
            if (lost.has(watch.id)) {
              this.#end(
                watch.id,
                "its object no longer has it (the object was reset or evicted)",
              );
            } else watch.lastOk = now;
          }
        },
        (error) => {
          for (const watch of watches) {
            watch.lastError = error;
            this.#overdue(watch);
          }
        },
      );
    }
    if (this.#watches.size > 0) this.#arm();
  }

  /** Ends `watch` if its object has not answered for longer than the deadline. */
  #overdue(watch: Watch): void {
    const silentMs = this.#now() - watch.lastOk;
    if (silentMs > this.#settings.unreachableAfterMs) {
      this.#end(
        watch.id,
        `its object could not be reached for ${Math.round(silentMs)} ms${
          watch.lastError === undefined ? "" : `: ${errorText(watch.lastError)}`
        }`,
      );
    }
  }
}

/** In the watched object: watches one local actor for another object, and says when it stops. Internal. */
export class WatchRelay extends Actor<unknown> {
  readonly #target: ActorRef<never>;
  readonly #onEnd: () => void;

  constructor(target: ActorRef<never>, onEnd: () => void) {
    super();
    this.#target = target;
    this.#onEnd = onEnd;
  }

  override preStart(): void {
    this.context.watch(this.#target);
  }

  onReceive(message: unknown): void {
    if (message instanceof Terminated) {
      this.#onEnd();
      this.context.stop(this.self);
    }
  }
}
