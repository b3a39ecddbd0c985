// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * One actor system per Durable Object: created on first use, its actors
 * reachable from other objects through remote refs, and terminated by
 * `reset()`. The `withActors` mixin puts one on a Durable Object class and
 * answers the RPC calls with it.
 *
 * @module
 */

import type { Terminated } from "../runtime/actor.ts";
import {
  ActorRef,
  AskTimeoutError,
  UndeliveredError,
} from "../runtime/actor_ref.ts";
import {
  ActorSystem,
  type ActorSystemOptions,
} from "../runtime/actor_system.ts";
import { describeError, describeValue, fail } from "../validation.ts";
import { DurableHost, type DurableHostOptions } from "./durable_host.ts";
import type { DurableTimers } from "./durable_timers.ts";
import type { DurableStore } from "../patterns/durable_port.ts";
import { realScheduler } from "../runtime/ports/scheduler.ts";
import { whenIdle } from "../runtime/ports/dispatcher_idle.ts";
import { Props } from "../runtime/props.ts";
import {
  Channel,
  OUTBOX_PREFIX,
  type OutboxChunk,
  type OutboxStore,
  type RecoveredTell,
} from "./channel.ts";
import type {
  DurableObjectNamespaceLike,
  DurableObjectStateLike,
} from "./platform.ts";
import { ChannelRef, type RefContext } from "./channel_ref.ts";
import {
  type ActorHostLimits,
  checkLimits,
  type ExposeOptions,
  limitError,
  type Limits,
  type RemoteCaller,
  type RemoteRequest,
} from "./door.ts";
import { HighWater } from "./high_water.ts";
import {
  RemoteWatches,
  type RemoteWatchOptions,
  WatchRelay,
  type WatchSettings,
  watchSettings,
} from "./remote_watch.ts";
import { RemoteRef } from "./remote_ref.ts";
import {
  type RemoteRetryOptions,
  type RetrySettings,
  retrySettings,
} from "./retry.ts";
import {
  type HostStub,
  isWireFrom,
  isWirePacket,
  readBatch,
  type WireFrom,
} from "./wire.ts";

/**
 * Options of {@linkcode ActorHost} (and of `withActors`).
 *
 * @example Usage
 * ```ts
 * import type { ActorHostOptions } from "@understudy/core/durable";
 *
 * const options: ActorHostOptions = {
 *   binding: "ROOM",
 *   systemName: "room",
 *   system: { logLevel: "warn" },
 *   retry: { maxAttempts: 4 },
 * };
 * ```
 */
export interface ActorHostOptions {
  /**
   * The name of this class's own namespace binding in `env` (such as
   * `"ROOM"`): with the object's name, who this object is when it calls
   * another. Without it, its actors' messages cross without a sender
   * (nothing can reply to them by `tell`) and are not numbered, so a retry
   * may deliver a tell twice.
   */
  binding?: string;
  /** Limits on what callers send this object. */
  limits?: ActorHostLimits;
  /** How watches of remote refs notice an object that is gone. */
  watch?: RemoteWatchOptions;
  /**
   * Keep tells not yet delivered in the object's storage (written in the
   * turn they are told, deleted once delivered or given up), so that they
   * survive this object's eviction: the object's next life sends them
   * again, first, in their own numbers (the receiver drops those it
   * already took). Needs `binding` and a storage with `list` and
   * `delete`. Costs two storage writes per call. Default `false`.
   */
  outbox?: boolean;
  /** The name of the actor system. Default `"durable"`. */
  systemName?: string;
  /** Options of the actor system. */
  system?: ActorSystemOptions;
  /** How remote refs retry failed calls. */
  retry?: RemoteRetryOptions;
  /**
   * Called with each new actor system, right after it is created: create
   * the object's actors here and {@linkcode ActorHost.expose} those that
   * other objects may reach. A throw terminates that system and
   * propagates.
   */
  setup?: (system: ActorSystem, host: ActorHost) => void;
  /**
   * Makes the host durable (a SQLite-backed object's `ctx` is needed):
   * `host.store` and `host.timers` on the object's storage, a scheduler
   * whose timers wake the object by its alarm after an eviction,
   * `activate()` for the constructor and `alarm()` for the alarm handler
   * (`withActors` calls both). See docs/edge-durable.md. Default: off.
   */
  durable?: boolean | DurableHostOptions;
}

/**
 * The most macrotasks an activation waits for its actors to start: the
 * dispatcher yields every 3 ms, so about 3 s (`blockConcurrencyWhile`
 * allows 30).
 */
const ACTIVATION_TASKS = 1_000;
/** Local actors kept so that replies to them can find them, at most. */
const MAX_SENDERS = 1_024;
/** Remote refs kept for senders of incoming messages, at most. */
const MAX_REMOTE_REFS = 1_024;
/** Callers remembered as vouched for (or refused), at most. */
const MAX_VOUCHED = 1_024;
/** Callers being vouched for at once, at most; more are refused as overloaded. */
const MAX_VOUCHING = 16;
/** Answers to asks kept for their retries, at most (the oldest go first). */
const ANSWERS_KEPT = 1_024;

/** An exposed actor and who may send to it. */
interface Exposed {
  readonly ref: ActorRef<unknown>;
  readonly authorize: ((request: RemoteRequest) => boolean) | undefined;
}

/** A local actor that sent remote messages: replies to it are let in from the objects it sent to. */
interface ReplyDoor {
  readonly ref: ActorRef<unknown>;
  /** `binding\0name` of each object it sent to. */
  readonly peers: Set<string>;
}

/** One actor system and everything tied to it, until a reset. */
class Generation {
  readonly system: ActorSystem;
  /** Outgoing ways, by `binding\0name`. */
  readonly channels = new Map<string, Channel>();
  /** Remote refs made for incoming senders, by `binding\0name\0path`. */
  readonly remoteRefs = new Map<string, RemoteRef<unknown>>();
  /** Actors reachable by path from any caller: exposed ones. */
  readonly exposed = new Map<string, Exposed>();
  /** Actors reachable by path from the objects they sent to. */
  readonly senders = new Map<string, ReplyDoor>();
  /** Callers asked about, by `binding\0name\0incarnation`: whether they vouched (or the question). */
  readonly vouched = new Map<string, boolean | Promise<boolean>>();
  vouching = 0;
  /** Watches this object's actors keep on other objects' actors. */
  readonly watches: RemoteWatches;
  /** Watches other objects keep on this object's actors, by watch id: the relay watching. */
  readonly relays = new Map<string, ActorRef<unknown>>();

  constructor(system: ActorSystem, watch: WatchSettings) {
    this.system = system;
    this.watches = new RemoteWatches(system, watch);
  }

  close(): void {
    this.watches.close();
    this.relays.clear();
    for (const channel of this.channels.values()) channel.close();
    this.channels.clear();
    this.remoteRefs.clear();
    this.exposed.clear();
    this.senders.clear();
    this.vouched.clear();
  }
}

/**
/**
 * The actors of one Durable Object. Its actor system is created on first
 * use (`system`, `ref`, `expose` or an incoming call) and
 * {@linkcode ActorHostOptions.setup} runs then; `reset()` terminates it
 * (every `postStop` runs, every timer is cleared, remote messages still
 * waiting go to dead letters) and the next use creates a fresh one.
 *
 * When the platform evicts the object, no code runs: the object's memory,
 * its system and its timers go with it (workerd cancels the timers of an
 * object it resets), and the next call creates a fresh object and system.
 * With the `durable` option, what must outlive that is in the object's
 * storage and its alarm wakes the object again: stored timers
 * (`host.timers`), durable patterns' records and `DurableState` values
 * (`host.store`), and the due times of receive timeouts and typed backoff
 * restarts (the scheduler's `dueKeeper`); see docs/edge-durable.md.
 *
 * What survives is in storage: the high-water marks of the tells it
 * received, so that a caller's retry is not taken twice.
 *
 * Only exposed actors can be reached from other objects (and, for
 * replies, a local actor that sent a remote message, from the objects it
 * sent to); the sender an actor sees is the calling object as it knows
 * itself, confirmed by asking it.
 *
 * Usually made by `withActors`; by hand, give it the object's `ctx` and
 * `env` and call `deliver`, `ask` and `vouch` from three RPC methods named
 * `understudyDeliver`, `understudyAsk` and `understudyVouch`.
 *
 * @example Usage
 * ```ts
 * import { Actor, Props } from "@understudy/core";
 * import { ActorHost } from "@understudy/core/durable";
 *
 * class Counter extends Actor<string> {
 *   #count = 0;
 *   onReceive(message: string): void {
 *     if (message === "inc") this.#count++;
 *     else this.sender?.tell(this.#count);
 *   }
 * }
 *
 * const host = new ActorHost({ id: { name: "counter-1" } }, {}, {
 *   binding: "COUNTER",
 *   system: { logLevel: "warn" },
 *   setup: (system, host) => {
 *     host.expose(system.actorOf(Props.create(() => new Counter()), "counter"));
 *   },
 * });
 * // What a caller's `tell("inc")` to /user/counter does here (a caller
 * // that is not an actor host: no identity, so no numbering):
 * await host.deliver(null, 1, [["/user/counter", "inc"]]);
 * console.log(await host.ask(null, ["/user/counter", "get"], 1_000)); // [0, 1]
 * await host.reset();
 * ```
 */
export class ActorHost {
  readonly #env: Record<string, unknown>;
  readonly #options: ActorHostOptions;
  readonly #retry: RetrySettings;
  readonly #limits: Limits;
  readonly #watch: WatchSettings;
  readonly #binding: string | undefined;
  readonly #name: string | undefined;
  readonly #highWater: HighWater;
  /** Answers to recent asks from callers that know themselves, by caller and ask number: a retry gets the same. */
  readonly #answers = new Map<
    string,
    Promise<[0, unknown] | [1, number] | [2, string]>
  >();
  readonly #outbox: (OutboxStore & DurableObjectStorageLikeList) | undefined;
  /** What the ways store their tells through: stamped with `#life` and `#stamped`. */
  readonly #stampedOutbox: OutboxStore | undefined;
  /**
   * This life's place among the lives that stored tells: one more than the
   * latest read back (recovered tells of several earlier lives are sent in
   * the order they were stored, not in the order of their random keys).
   */
  #life = 0;
  #stamped = 0;
  /** Stored tells of an earlier life, read back and not yet taken up by a system. */
  #recovered: Map<string, unknown> | undefined;
  #current: Generation | undefined = undefined;
  #generations = 0;
  readonly #durable: DurableHost | undefined;

  /**
   * Creates a host; its system is created on first use.
   *
   * @param ctx The Durable Object's state (`this.ctx`), for its name and storage; `undefined` outside an object (a Worker's `fetch`), whose actors then cannot be replied to by `tell`.
   * @param env The Worker's `env`, where namespace bindings are found by name.
   * @param options Binding, system options, retries, limits and setup.
   * @throws {TypeError} If `env` is not an object or an option has the wrong type.
   * @throws {RangeError} If a retry option or a limit is out of range.
   */
  constructor(
    ctx: DurableObjectStateLike | undefined,
    env: object,
    options: ActorHostOptions = {},
  ) {
    const action = "create actor host";
    if (typeof env !== "object" || env === null) {
      fail(action, "env", "an object (the Worker's env)", env);
    }
    if (typeof options !== "object" || options === null) {
      fail(action, "options", "an object", options);
    }
    if (options.binding !== undefined && typeof options.binding !== "string") {
      fail(action, "binding", "a string", options.binding);
    }
    if (options.setup !== undefined && typeof options.setup !== "function") {
      fail(action, "setup", "a function", options.setup);
    }
    this.#retry = retrySettings(action, options.retry);
    this.#limits = checkLimits(action, options.limits);
    this.#watch = watchSettings(action, options.watch);
    this.#env = env as Record<string, unknown>;
    this.#options = options;
    this.#binding = options.binding;
    const name = ctx?.id?.name;
    this.#name = typeof name === "string" ? name : undefined;
    const durable = options.durable;
    this.#durable = durable === undefined || durable === false
      ? undefined
      : new DurableHost(ctx, durable, () => this.#current?.system.log);
    this.#highWater = new HighWater(ctx?.storage);
    if (options.outbox !== undefined && typeof options.outbox !== "boolean") {
      fail(action, "outbox", "a boolean", options.outbox);
    }
    const storage = ctx?.storage;
    if (options.outbox === true) {
      if (
        typeof storage?.list !== "function" ||
        typeof storage?.delete !== "function"
      ) {
        fail(
          action,
          "outbox",
          "false when the object's storage has no list and delete",
          options.outbox,
        );
      }
      const outbox = storage as OutboxStore & DurableObjectStorageLikeList;
      this.#outbox = outbox;
      this.#stampedOutbox = {
        put: (key, value) =>
          outbox.put(key, {
            ...value as object,
            order: [this.#life, this.#stamped++],
          }),
        delete: (key) => outbox.delete(key),
      };
    }
  }

  /**
   * Reads back the tells an earlier life of this object stored and did
   * not deliver (with `outbox: true`); they leave first, as soon as the
   * system exists. `withActors` calls it inside `blockConcurrencyWhile`
   * in the constructor, so no call comes in before.
   *
   * @example Usage
   * ```ts
   * import { ActorHost } from "@understudy/core/durable";
   *
   * const host = new ActorHost(undefined, {});
   * await host.recover(); // no outbox: nothing to do
   * ```
   *
   * @returns Resolves once read.
   */
  async recover(): Promise<void> {
    const outbox = this.#outbox;
    if (outbox === undefined) return;
    const stored = await outbox.list({ prefix: OUTBOX_PREFIX });
    if (stored.size === 0) return;
    // In the order stored: by life, then by write within it (keys of
    // chunks stored before the stamp sort first, in key order).
    const entries = [...stored].map(([key, value]) => {
      const order = (value as { order?: unknown } | null)?.order;
      const stamp = Array.isArray(order) && Number.isSafeInteger(order[0]) &&
          Number.isSafeInteger(order[1])
        ? order as [number, number]
        : [-1, 0];
      return { key, value, stamp };
    });
    entries.sort((a, b) => a.stamp[0] - b.stamp[0] || a.stamp[1] - b.stamp[1]);
    for (const entry of entries) {
      if (entry.stamp[0] >= this.#life) this.#life = entry.stamp[0] + 1;
    }
    this.#recovered = new Map(entries.map((e) => [e.key, e.value]));
    if (this.#current !== undefined) this.#takeUp(this.#current);
  }

  /** Hands the tells read back to their ways. */
  #takeUp(generation: Generation): void {
    const stored = this.#recovered;
    this.#recovered = undefined;
    if (stored === undefined) return;
    const byWay = new Map<
      string,
      {
        binding: string;
        name: string;
        tells: RecoveredTell[];
        chunks: OutboxChunk[];
      }
    >();
    for (const [key, value] of stored) {
      const chunk = value as {
        binding?: unknown;
        name?: unknown;
        incarnation?: unknown;
        entries?: unknown;
      };
      if (
        typeof chunk?.binding !== "string" || typeof chunk.name !== "string" ||
        typeof chunk.incarnation !== "string" || !Array.isArray(chunk.entries)
      ) continue;
      const wayKey = `${chunk.binding}\0${chunk.name}`;
      let way = byWay.get(wayKey);
      if (way === undefined) {
        way = {
          binding: chunk.binding,
          name: chunk.name,
          tells: [],
          chunks: [],
        };
        byWay.set(wayKey, way);
      }
      let last = 0;
      for (const entry of chunk.entries as [number, unknown][]) {
        const [seq, packet] = entry;
        if (!isWirePacket(packet) || typeof seq !== "number") continue;
        last = Math.max(last, seq);
        let recipient: ActorRef<never>;
        try {
          recipient = this.ref(way.binding, way.name, packet[0]) as ActorRef<
            never
          >;
        } catch {
          continue;
        }
        way.tells.push({
          to: packet[0],
          message: packet[1],
          senderPath: packet[2],
          recipient,
          seq,
          incarnation: chunk.incarnation,
        });
      }
      way.chunks.push({ key, incarnation: chunk.incarnation, last });
    }
    for (const way of byWay.values()) {
      let channel: Channel;
      try {
        channel = this.#channel(
          generation,
          "recover outbox",
          way.binding,
          way.name,
        );
      } catch (error) {
        generation.system.log.warn(
          `stored tells to ${way.binding}/${way.name} cannot be sent: ${
            describeError(error)
          }`,
        );
        continue;
      }
      channel.recover(way.tells, way.chunks);
    }
  }

  /**
   * The object's storage as a {@linkcode DurableStore} (its synchronous
   * KV), for `DurableState` and `durableBackoff`; its `wakeAt` sets the
   * object's alarm. Durable hosts only.
   *
   * @example Usage
   * ```ts no-run: needs a Durable Object's storage
   * import { DurableState, type ActorHost } from "@understudy/core/durable";
   *
   * declare const host: ActorHost;
   * const visits = new DurableState(host.store, "visits", 0);
   * visits.set(visits.value + 1);
   * ```
   *
   * @throws {TypeError} If the host is not durable.
   */
  get store(): DurableStore {
    return this.#durableOr("use the store").store;
  }

  /**
   * Stored timers by (actor path, key), delivered by the object's alarm
   * even after an eviction. Durable hosts only.
   *
   * @example Usage
   * ```ts no-run: needs a Durable Object's storage
   * import type { ActorHost } from "@understudy/core/durable";
   *
   * declare const host: ActorHost;
   * host.timers.startSingle("/user/room", "close", "close", 60_000);
   * ```
   *
   * @throws {TypeError} If the host is not durable.
   */
  get timers(): DurableTimers {
    return this.#durableOr("use durable timers").timers;
  }

  /**
   * Activation, for the object's constructor, inside
   * `ctx.blockConcurrencyWhile` (as `withActors` does): reads the alarm,
   * creates the system (`setup` re-creates the actors, which restore their
   * stored state in `preStart`), re-arms for the stored timers, and lets the
   * actors start before any event reaches the object (taking back the due
   * times of their receive timeouts and typed restarts; what no actor took
   * back is dropped). It waits until the system has nothing left to run,
   * over as many of the dispatcher's slices as that takes, but at most
   * about 3 s (1,000 slices): a setup whose actors keep each other busy
   * from their start resolves then, and an actor started later loses what
   * the earlier life kept for it. Durable hosts only.
   *
   * @example Usage
   * ```ts no-run: needs a Durable Object's storage
   * import type { ActorHost } from "@understudy/core/durable";
   *
   * declare const ctx: { blockConcurrencyWhile(f: () => Promise<void>): Promise<void> };
   * declare const host: ActorHost;
   * ctx.blockConcurrencyWhile(() => host.activate());
   * ```
   *
   * @returns Resolves once the actors have started (or after the bound).
   * @throws {TypeError} If the host is not durable.
   */
  async activate(): Promise<void> {
    const durable = this.#durableOr("activate actor host");
    durable.due.activating();
    await durable.clock.load();
    const { system } = this.#generation();
    durable.clock.rearm(durable.timers.nextDue());
    // The actors' preStart (where stored state is restored) runs now: all
    // of them, over as many of the dispatcher's slices as it takes.
    await whenIdle(system, ACTIVATION_TASKS);
    // Due times the earlier life kept for actors not re-created are dropped.
    durable.due.settle();
  }

  /**
   * The object's alarm handler (what `withActors`' `alarm()` calls):
   * activates the system, delivers the stored timers now due to the actors
   * at their paths (a path nothing is exposed at gets a dead letter), then
   * re-arms for the earliest due time still wanted. A failure throws, so
   * the platform retries the alarm; on the last retry
   * (`maxAlarmRetries`) it is logged and not thrown. Durable hosts only.
   *
   * @example Usage
   * ```ts no-run: needs a Durable Object's storage
   * import type { ActorHost } from "@understudy/core/durable";
   *
   * declare const host: ActorHost;
   * await host.alarm({ retryCount: 0, isRetry: false });
   * ```
   *
   * @param alarmInfo What the platform passes to `alarm()` (`retryCount`).
   * @returns Resolves when done; rejects with the failure for the platform to retry.
   * @throws {TypeError} If the host is not durable.
   */
  alarm(alarmInfo?: unknown): Promise<void> {
    try {
      const durable = this.#durableOr("run alarm");
      durable.runAlarm(alarmInfo, () => {
        const generation = this.#generation();
        const system = generation.system;
        durable.timers.runDue(durable.clock.wallNow(), (path, key, message) => {
          const ref = generation.exposed.get(path)?.ref;
          if (ref !== undefined) ref.tell(message);
          else {
            system.publishDeadLetter(
              message,
              undefined,
              system.deadLetters as ActorRef<never>,
              `durable timer ${
                JSON.stringify(key)
              }: no actor exposed at ${path} in this object`,
            );
          }
        });
      }, () => this.#current?.system.log);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #durableOr(action: string): DurableHost {
    const durable = this.#durable;
    if (durable === undefined) {
      fail(
        action,
        "durable",
        "set (new ActorHost(ctx, env, { durable: true }))",
        undefined,
      );
    }
    return durable;
  }

  /**
   * The object's actor system, created (and set up) on first use.
   *
   * @example Usage
   * ```ts
   * import { ActorHost } from "@understudy/core/durable";
   *
   * const host = new ActorHost(undefined, {});
   * console.log(host.system.name); // "durable"
   * await host.reset();
   * ```
   */
  get system(): ActorSystem {
    return this.#generation().system;
  }

  /**
   * How many actor systems this host has created: 1 after first use, one
   * more after each `reset()` and next use.
   *
   * @example Usage
   * ```ts
   * import { ActorHost } from "@understudy/core/durable";
   *
   * const host = new ActorHost(undefined, {});
   * host.system;
   * await host.reset();
   * host.system;
   * console.log(host.generations); // 2
   * await host.reset();
   * ```
   */
  get generations(): number {
    return this.#generations;
  }

  /**
   * Storage writes made for received tells' high-water marks: one per
   * accepted call from an actor host that knows itself (the cost of
   * exactly-once delivery).
   *
   * @example Usage
   * ```ts
   * import { ActorHost } from "@understudy/core/durable";
   *
   * const host = new ActorHost(undefined, {});
   * console.log(host.storageWrites); // 0
   * ```
   */
  get storageWrites(): number {
    return this.#highWater.writes;
  }

  /**
   * This object's address, if known: its binding and its name.
   *
   * @example Usage
   * ```ts
   * import { ActorHost } from "@understudy/core/durable";
   *
   * const host = new ActorHost({ id: { name: "lobby" } }, {}, { binding: "ROOM" });
   * console.log(host.address); // { binding: "ROOM", name: "lobby" }
   * ```
   */
  get address(): { binding: string; name: string } | undefined {
    return this.#binding !== undefined && this.#name !== undefined
      ? { binding: this.#binding, name: this.#name }
      : undefined;
  }

  /**
   * Makes `ref` reachable from other objects by its path (until the next
   * reset). With `authorize`, only the messages it allows come in.
   *
   * @example Usage
   * ```ts
   * import { Actor, Props } from "@understudy/core";
   * import { ActorHost } from "@understudy/core/durable";
   *
   * class Sink extends Actor<string> {
   *   onReceive(): void {}
   * }
   * const host = new ActorHost(undefined, {});
   * const sink = host.expose(host.system.actorOf(Props.create(() => new Sink()), "sink"), {
   *   authorize: ({ caller }) => caller?.binding === "ORDER",
   * });
   * console.log(sink.path); // "/user/sink"
   * await host.reset();
   * ```
   *
   * @typeParam T The actor's messages.
   * @param ref A ref of this host's system.
   * @param options Who may send to it.
   * @returns `ref`.
   * @throws {TypeError} If `ref` is not an actor ref, or `authorize` is not a function.
   */
  expose<T>(ref: ActorRef<T>, options: ExposeOptions = {}): ActorRef<T> {
    const action = "expose actor";
    if (!(ref instanceof ActorRef) || ref instanceof RemoteRef) {
      fail(action, "ref", "a local ActorRef", ref);
    }
    if (typeof options !== "object" || options === null) {
      fail(action, "options", "an object", options);
    }
    const authorize = options.authorize;
    if (authorize !== undefined && typeof authorize !== "function") {
      fail(action, "authorize", "a function", authorize);
    }
    this.#generation().exposed.set(ref.path, {
      ref: ref as ActorRef<unknown>,
      authorize,
    });
    return ref;
  }

  /**
   * A ref to the actor at `path` in the object called `name` of the
   * namespace bound as `binding` in `env`.
   *
   * @example Usage
   * ```ts no-run: needs a Durable Object namespace binding
   * import type { ActorHost } from "@understudy/core/durable";
   *
   * declare const host: ActorHost;
   * host.ref<string>("ROOM", "lobby", "/user/room").tell("hello");
   * ```
   *
   * @typeParam T The remote actor's messages.
   * @param binding The namespace binding's name in `env`.
   * @param name The object's name (`idFromName`).
   * @param path The actor's path in that object, such as `"/user/room"`.
   * @returns The ref.
   * @throws {TypeError} If `env[binding]` is not a Durable Object namespace, or `name` or `path` is not a string (`path` starting with "/").
   */
  ref<T>(binding: string, name: string, path: string): RemoteRef<T> {
    const action = "make remote ref";
    if (typeof binding !== "string") {
      fail(action, "binding", "a string", binding);
    }
    if (typeof name !== "string") fail(action, "name", "a string", name);
    if (typeof path !== "string" || !path.startsWith("/")) {
      fail(action, "path", 'an actor path starting with "/"', path);
    }
    const generation = this.#generation();
    const key = `${binding}\0${name}`;
    const channel = this.#channel(generation, action, binding, name);
    const context: RefContext = {
      addressOf: (sender) => this.#addressOf(generation, sender, key),
      watch: (watcher, ref) => {
        if (!(watcher instanceof ActorRef) || watcher instanceof RemoteRef) {
          fail("watch remote ref", "watcher", "a local ActorRef", watcher);
        }
        return generation.watches.watch(
          watcher as ActorRef<unknown> as ActorRef<Terminated>,
          ref as ActorRef<never>,
          ref.channel,
          ref.address.path,
        );
      },
    };
    return new ChannelRef<T>({ binding, name, path }, channel, context);
  }

  /** The way to the object `binding/name`, made on first use. */
  #channel(
    generation: Generation,
    action: string,
    binding: string,
    name: string,
  ): Channel {
    const key = `${binding}\0${name}`;
    let channel = generation.channels.get(key);
    if (channel === undefined) {
      channel = new Channel(
        generation.system,
        this.#namespace(action, binding),
        binding,
        name,
        this.#retry,
        this.#binding !== undefined && this.#name !== undefined
          ? [this.#binding, this.#name]
          : undefined,
        this.#stampedOutbox,
      );
      generation.channels.set(key, channel);
    }
    return channel;
  }

  /**
   * Terminates the actor system (every `postStop` runs, every timer is
   * cleared) and gives up the remote messages still waiting (dead letters);
   * the next use creates a fresh system. Resolves when the old system has
   * terminated.
   *
   * @example Usage
   * ```ts
   * import { ActorHost } from "@understudy/core/durable";
   *
   * const host = new ActorHost(undefined, {});
   * const first = host.system;
   * await host.reset();
   * console.log(host.system !== first); // true
   * await host.reset();
   * ```
   *
   * @returns Resolves once the old system has terminated.
   */
  async reset(): Promise<void> {
    const generation = this.#current;
    if (generation === undefined) return;
    this.#current = undefined;
    // Terminate first: postStop hooks may still send remote messages.
    await generation.system.terminate();
    generation.close();
  }

  /**
   * Delivers told messages that arrived over RPC (what the mixin's
   * `understudyDeliver` calls). The caller's identity, if it claims one,
   * is confirmed by asking that object first (once per incarnation);
   * numbered tells at or below the caller's high-water mark are copies and
   * are dropped, and the mark is stored in the same turn. A message for a
   * path nothing is exposed at, or that `authorize` refuses, goes to this
   * system's dead letters.
   *
   * @example Usage
   * ```ts
   * import { ActorHost } from "@understudy/core/durable";
   *
   * const host = new ActorHost(undefined, {});
   * await host.deliver(null, 1, [["/user/nobody", "hello"]]); // a dead letter
   * await host.reset();
   * ```
   *
   * @param from The calling host's `[binding, name, incarnation]`, or `null`.
   * @param first The number of the batch's first tell (for a caller with an identity).
   * @param wire `[path, message]` or `[path, message, senderPath]` entries, or the runs and messages a remote ref sends.
   * @returns Resolves once the messages are in their actors' mailboxes.
   * @throws {TypeError} If `wire` is neither, or `from` is malformed.
   * @throws {RangeError} (marked `overloaded`) If the batch is larger than `limits.maxBatch`, or would queue more than `limits.maxQueued` messages for an actor.
   * @throws {Error} If the caller does not vouch for the identity it claims.
   */
  async deliver(from: unknown, first: unknown, wire: unknown): Promise<void> {
    const action = "deliver remote messages";
    const batch = readBatch(wire);
    if (batch === undefined) {
      fail(
        action,
        "batch",
        "an array of [path, message] entries, or runs and messages",
        wire,
      );
    }
    const { messages, runs } = batch;
    const size = messages.length;
    if (size > this.#limits.maxBatch) {
      throw limitError(
        `Cannot ${action}: a batch of ${size} messages is more than limits.maxBatch (${this.#limits.maxBatch})`,
      );
    }
    const caller = await this.#caller(action, from);
    let skip = 0;
    let marks: Record<string, number> | undefined;
    if (caller !== undefined) {
      if (typeof first !== "number" || !Number.isSafeInteger(first)) {
        fail(action, "first", "a whole number", first);
      }
      marks = await this.#highWater.load(caller.binding, caller.name);
      // Copies of tells already taken: a retry whose first reply was lost.
      skip = Math.min(
        size,
        Math.max(0, (marks[caller.incarnation] ?? 0) - first + 1),
      );
    }
    const generation = this.#generation();
    const system = generation.system;
    // A route a run (a route a message where an authorize hook must see
    // each): a batch's tells mostly go to one path from one sender.
    const routes:
      (ActorRef<unknown> | string | (ActorRef<unknown> | string)[])[] = [];
    const queued = new Map<ActorRef<unknown>, number>();
    const count = (route: ActorRef<unknown> | string, n: number) => {
      if (typeof route !== "string") {
        queued.set(route, (queued.get(route) ?? 0) + n);
      }
    };
    let start = 0;
    for (const [to, , end] of runs) {
      const from = Math.max(start, skip);
      start = end;
      if (from >= end) {
        routes.push("");
        continue;
      }
      if (to === undefined) routes.push("malformed remote message");
      else if (generation.exposed.get(to)?.authorize === undefined) {
        const route = this.#route(
          generation,
          caller,
          to,
          messages[from],
          "tell",
        );
        routes.push(route);
        count(route, end - from);
      } else {
        const each: (ActorRef<unknown> | string)[] = [];
        for (let i = from; i < end; i++) {
          const route = this.#route(
            generation,
            caller,
            to,
            messages[i],
            "tell",
          );
          each.push(route);
          count(route, 1);
        }
        routes.push(each);
      }
    }
    for (const [ref, count] of queued) {
      const waiting = mailboxSize(ref);
      if (waiting + count > this.#limits.maxQueued) {
        throw limitError(
          `Cannot ${action}: ${ref.path} has ${waiting} messages waiting; ${count} more would be more than limits.maxQueued (${this.#limits.maxQueued})`,
        );
      }
    }
    if (caller !== undefined && skip < size) {
      this.#highWater.advance(
        caller.binding,
        caller.name,
        marks!,
        caller.incarnation,
        (first as number) + size - 1,
      );
    }
    start = 0;
    for (let r = 0; r < runs.length; r++) {
      const [, senderPath, end] = runs[r];
      const from = Math.max(start, skip);
      start = end;
      if (from >= end) continue;
      const sender = caller !== undefined && senderPath !== undefined
        ? this.#senderRef(generation, caller, senderPath)
        : undefined;
      const run = routes[r];
      if (typeof run !== "string" && !Array.isArray(run)) {
        // One actor takes the whole run: a tell a message, nothing more.
        for (let i = from; i < end; i++) run.tell(messages[i], sender);
        continue;
      }
      for (let i = from; i < end; i++) {
        const route = Array.isArray(run) ? run[i - from] : run;
        if (typeof route === "string") {
          system.publishDeadLetter(
            messages[i],
            sender,
            system.deadLetters as ActorRef<never>,
            route,
          );
        } else route.tell(messages[i], sender);
      }
    }
  }

  /**
   * Answers an ask that arrived over RPC (what the mixin's `understudyAsk`
   * calls): `[0, reply]`, `[1, timeoutMs]` if no reply came in time, or
   * `[2, reason]` if the message was not delivered (nothing exposed at the
   * path, or `authorize` refused it).
   *
   * @example Usage
   * ```ts
   * import { ActorHost } from "@understudy/core/durable";
   *
   * const host = new ActorHost(undefined, {});
   * console.log(await host.ask(null, ["/user/nobody", "?"], 100)); // [2, "no actor exposed at /user/nobody in this object"]
   * await host.reset();
   * ```
   *
   * @param from The calling host's `[binding, name, incarnation]`, or `null`.
   * @param packet `[path, message]`.
   * @param timeoutMs How long to wait for the reply.
   * @param askId The ask's number on the caller's way (a caller that knows itself sends it; a retry carries the same): a retry of an ask still remembered (the last 1,024) gets the first call's answer, and its message is not delivered again.
   * @returns The outcome.
   * @throws {TypeError} If `from` is malformed.
   * @throws {Error} If the caller does not vouch for the identity it claims.
   */
  async ask(
    from: unknown,
    packet: unknown,
    timeoutMs: unknown,
    askId?: unknown,
  ): Promise<[0, unknown] | [1, number] | [2, string]> {
    const caller = await this.#caller("answer remote ask", from);
    if (caller === undefined || !Number.isSafeInteger(askId)) {
      return this.#answer(caller, packet, timeoutMs);
    }
    // A retry of an ask whose reply was lost gets the first call's
    // answer: the message is not delivered twice.
    const key =
      `${caller.binding}\0${caller.name}\0${caller.incarnation}\0${askId}`;
    const answers = this.#answers;
    let answer = answers.get(key);
    if (answer === undefined) {
      answer = this.#answer(caller, packet, timeoutMs);
      answers.set(key, answer);
      if (answers.size > ANSWERS_KEPT) {
        answers.delete(answers.keys().next().value!);
      }
    }
    return answer;
  }

  /** Delivers an ask that arrived over RPC; resolves with its outcome. */
  async #answer(
    caller: VouchedCaller | undefined,
    packet: unknown,
    timeoutMs: unknown,
  ): Promise<[0, unknown] | [1, number] | [2, string]> {
    const generation = this.#generation();
    const system = generation.system;
    if (!isWirePacket(packet) || typeof timeoutMs !== "number") {
      system.publishDeadLetter(
        packet,
        undefined,
        system.deadLetters as ActorRef<never>,
        "malformed remote ask",
      );
      return [2, "malformed remote ask"];
    }
    const route = this.#route(generation, caller, packet[0], packet[1], "ask");
    if (typeof route === "string") {
      system.publishDeadLetter(
        packet[1],
        undefined,
        system.deadLetters as ActorRef<never>,
        route,
      );
      return [2, route];
    }
    if (mailboxSize(route) >= this.#limits.maxQueued) {
      const reason =
        `${route.path} has ${this.#limits.maxQueued} messages waiting (limits.maxQueued)`;
      system.publishDeadLetter(
        packet[1],
        undefined,
        system.deadLetters as ActorRef<never>,
        reason,
      );
      return [2, reason];
    }
    try {
      return [0, await route.ask(packet[1], timeoutMs)];
    } catch (error) {
      return toOutcome(error, timeoutMs);
    }
  }

  /**
   * Answers another object that asks whether this object is calling it
   * (what the mixin's `understudyVouch` calls): `true` if this host has a
   * way to the object `binding/name` whose incarnation is `incarnation`.
   * A random incarnation nobody else has seen is what makes a caller's
   * identity impossible to claim falsely.
   *
   * @example Usage
   * ```ts
   * import { ActorHost } from "@understudy/core/durable";
   *
   * const host = new ActorHost(undefined, {});
   * console.log(host.vouch("0123456789abcdef", "ROOM", "lobby")); // false
   * ```
   *
   * @param incarnation The incarnation the caller claimed.
   * @param binding The asking object's binding.
   * @param name The asking object's name.
   * @returns Whether this object is that caller.
   */
  vouch(incarnation: unknown, binding: unknown, name: unknown): boolean {
    const channel = this.#current?.channels.get(`${binding}\0${name}`);
    return typeof incarnation === "string" && channel !== undefined &&
      channel.speaksFor(incarnation);
  }

  /**
   * Starts a watch another object keeps on the actor at `path` here (what
   * the mixin's `understudyWatch` calls): resolves with `null`, or why
   * not (nothing exposed there, `authorize` refused a `"watch"`, or the
   * caller is not an actor host that knows itself, to be told when it
   * stops).
   *
   * @example Usage
   * ```ts
   * import { ActorHost } from "@understudy/core/durable";
   *
   * const host = new ActorHost(undefined, {});
   * console.log(await host.watched(null, "/user/room", "w1")); // "a watch needs a caller that is an actor host with a binding"
   * await host.reset();
   * ```
   *
   * @param from The calling host's `[binding, name, incarnation]`.
   * @param path The actor to watch.
   * @param watchId The watch's id, chosen by the watcher (random).
   * @returns `null` once watched, or why not.
   */
  async watched(
    from: unknown,
    path: unknown,
    watchId: unknown,
  ): Promise<string | null> {
    const caller = await this.#caller("start remote watch", from);
    if (caller === undefined) {
      return "a watch needs a caller that is an actor host with a binding";
    }
    if (typeof path !== "string" || typeof watchId !== "string") {
      return "malformed remote watch";
    }
    const generation = this.#generation();
    if (generation.relays.has(watchId)) return null;
    const route = this.#route(generation, caller, path, undefined, "watch");
    if (typeof route === "string") return route;
    let ending = false;
    const notify = (): void => {
      if (generation.relays.get(watchId) !== relay || ending) return;
      ending = true;
      // The watch stays known until the watcher has been told: a heartbeat
      // that comes first would take it for lost, and tell the wrong reason.
      // Best effort: should this call fail, the watcher's next heartbeat
      // finds the watch gone.
      const ended = (): void => {
        if (generation.relays.get(watchId) === relay) {
          generation.relays.delete(watchId);
        }
      };
      this.#channel(generation, "end remote watch", caller.binding, caller.name)
        .invoke((stub) => stub.understudyWatchEnded(watchId, `${path} stopped`))
        .then(ended, ended);
    };
    const relay = generation.system.actorOf(
      Props.create(() => new WatchRelay(route as ActorRef<never>, notify)),
    );
    generation.relays.set(watchId, relay);
    return null;
  }

  /**
   * Which of `watchIds` this object does not know: watches whose actor is
   * gone (what the mixin's `understudyWatchCheck` calls).
   *
   * @example Usage
   * ```ts
   * import { ActorHost } from "@understudy/core/durable";
   *
   * const host = new ActorHost(undefined, {});
   * console.log(host.watchCheck(["w1"])); // ["w1"]
   * ```
   *
   * @param watchIds Ids of watches the caller keeps here.
   * @returns Those this object does not know.
   */
  watchCheck(watchIds: unknown): string[] {
    if (!Array.isArray(watchIds)) return [];
    const relays = this.#current?.relays;
    return watchIds.filter((id): id is string =>
      typeof id === "string" && relays?.has(id) !== true
    );
  }

  /**
   * Ends a watch another object kept here (what the mixin's
   * `understudyUnwatch` calls).
   *
   * @example Usage
   * ```ts
   * import { ActorHost } from "@understudy/core/durable";
   *
   * const host = new ActorHost(undefined, {});
   * host.unwatched("w1"); // nothing to end
   * ```
   *
   * @param watchId The watch's id.
   */
  unwatched(watchId: unknown): void {
    const generation = this.#current;
    if (generation === undefined || typeof watchId !== "string") return;
    const relay = generation.relays.get(watchId);
    if (relay === undefined) return;
    generation.relays.delete(watchId);
    generation.system.stop(relay as ActorRef<never>);
  }

  /**
   * Another object says an actor watched from here stopped (what the
   * mixin's `understudyWatchEnded` calls): its watcher is told a
   * `RemoteTerminated`. The watch's id is random and known only to the two
   * objects, so nobody else can end it.
   *
   * @example Usage
   * ```ts
   * import { ActorHost } from "@understudy/core/durable";
   *
   * const host = new ActorHost(undefined, {});
   * host.watchEnded("w1", "/user/room stopped"); // no such watch: nothing happens
   * ```
   *
   * @param watchId The watch's id.
   * @param reason Why it ended.
   */
  watchEnded(watchId: unknown, reason: unknown): void {
    this.#current?.watches.ended(watchId, reason);
  }

  /** The namespace bound as `binding`, or a TypeError naming it. */
  #namespace(action: string, binding: string): DurableObjectNamespaceLike {
    const namespace = this.#env[binding] as DurableObjectNamespaceLike;
    if (
      typeof namespace !== "object" || namespace === null ||
      typeof namespace.idFromName !== "function" ||
      typeof namespace.get !== "function"
    ) {
      fail(
        action,
        "binding",
        `the name of a Durable Object namespace binding in env (env[${
          JSON.stringify(binding)
        }] is ${describeValue(namespace)})`,
        binding,
      );
    }
    return namespace;
  }

  /**
   * Where a message from `caller` to `path` goes: an exposed actor that
   * `authorize` lets it reach, a local sender replied to by an object it
   * sent to, or (a string) why it goes to dead letters.
   */
  #route(
    generation: Generation,
    caller: VouchedCaller | undefined,
    path: string,
    message: unknown,
    kind: "tell" | "ask" | "watch",
  ): ActorRef<unknown> | string {
    const exposed = generation.exposed.get(path);
    if (exposed !== undefined) {
      const authorize = exposed.authorize;
      if (authorize === undefined) return exposed.ref;
      let allowed = false;
      try {
        allowed = authorize({
          caller: caller === undefined
            ? undefined
            : { binding: caller.binding, name: caller.name },
          path,
          message,
          kind,
        }) === true;
      } catch (error) {
        generation.system.log.warn(
          `authorize of ${path} threw: ${describeError(error)}`,
        );
      }
      return allowed
        ? exposed.ref
        : `not authorized: the authorize hook of ${path} refused a ${kind} from ${
          caller === undefined
            ? "a caller without an identity"
            : `${caller.binding}/${caller.name}`
        }`;
    }
    const door = generation.senders.get(path);
    if (
      door !== undefined && kind !== "ask" && caller !== undefined &&
      door.peers.has(`${caller.binding}\0${caller.name}`)
    ) return door.ref;
    return `no actor exposed at ${path} in this object`;
  }

  /** The caller `from` claims to be, once it has vouched for it; `undefined` for none. */
  async #caller(
    action: string,
    from: unknown,
  ): Promise<VouchedCaller | undefined> {
    if (from === null || from === undefined) return undefined;
    if (!isWireFrom(from)) {
      fail(action, "from", "null or [binding, name, incarnation]", from);
    }
    const [binding, name, incarnation] = from;
    const generation = this.#generation();
    const key = `${binding}\0${name}\0${incarnation}`;
    let vouched = generation.vouched.get(key);
    if (vouched === undefined) {
      vouched = this.#askToVouch(generation, from, key);
    }
    if (!(await vouched)) {
      throw new Error(
        `Cannot ${action}: the caller claims to be ${binding}/${name}, which does not vouch for it`,
      );
    }
    return { binding, name, incarnation };
  }

  /** Asks the object `from` names whether it is calling. */
  #askToVouch(
    generation: Generation,
    from: WireFrom,
    key: string,
  ): Promise<boolean> {
    const [binding, name, incarnation] = from;
    const me = this.address;
    const namespace = this.#env[binding] as DurableObjectNamespaceLike;
    if (
      me === undefined || typeof namespace?.idFromName !== "function" ||
      typeof namespace?.get !== "function"
    ) {
      // Nobody to ask, or no name to ask with: the claim cannot be checked.
      return Promise.resolve(false);
    }
    if (generation.vouching >= MAX_VOUCHING) {
      return Promise.reject(limitError(
        `Cannot deliver remote messages: ${MAX_VOUCHING} callers are being vouched for already`,
      ));
    }
    generation.vouching++;
    const question = (async () => {
      try {
        const stub = namespace.get(namespace.idFromName(name)) as HostStub;
        return (await stub.understudyVouch(
          incarnation,
          me.binding,
          me.name,
        )) ===
          true;
      } finally {
        generation.vouching--;
      }
    })().then((answer) => {
      generation.vouched.set(key, answer);
      if (generation.vouched.size > MAX_VOUCHED) {
        generation.vouched.delete(generation.vouched.keys().next().value!);
      }
      return answer;
    }, (error) => {
      // No answer is not a no: the caller may try again, and is asked again.
      generation.vouched.delete(key);
      throw Object.assign(
        new Error(
          `Cannot deliver remote messages: the caller's identity (${binding}/${name}) could not be confirmed: ${
            describeError(error)
          }`,
        ),
        { retryable: true },
      );
    });
    generation.vouched.set(key, question);
    return question;
  }

  /** The address replies to `sender` should go to, or `undefined` if it has none; opens its reply door to `peer`. */
  #addressOf(
    generation: Generation,
    sender: ActorRef<never> | undefined,
    peer: string,
  ): string | undefined {
    // A remote sender cannot be vouched for by this object: it crosses as none.
    if (sender === undefined || sender instanceof RemoteRef) return undefined;
    if (this.#binding === undefined || this.#name === undefined) {
      return undefined;
    }
    const path = sender.path;
    if (!generation.exposed.has(path)) {
      const senders = generation.senders;
      let door = senders.get(path);
      if (door === undefined || door.ref !== sender) {
        door = { ref: sender as ActorRef<unknown>, peers: new Set() };
      }
      door.peers.add(peer);
      senders.delete(path);
      senders.set(path, door);
      if (senders.size > MAX_SENDERS) {
        senders.delete(senders.keys().next().value!);
      }
    }
    return path;
  }

  #generation(): Generation {
    let generation = this.#current;
    if (generation === undefined) {
      const options = this.#options;
      const durable = this.#durable;
      const system = ActorSystem.create(
        options.systemName ?? "durable",
        durable === undefined ? options.system : {
          ...options.system,
          scheduler: durable.scheduler(
            options.system?.scheduler ?? realScheduler,
          ),
        },
      );
      generation = new Generation(system, this.#watch);
      this.#current = generation;
      this.#generations++;
      if (options.setup !== undefined) {
        try {
          options.setup(system, this);
        } catch (error) {
          this.#current = undefined;
          generation.close();
          system.terminate();
          throw error;
        }
      }
      this.#takeUp(generation);
    }
    return generation;
  }

  /** The sender of an incoming message: a remote ref (cached) to `path` in the vouched calling object. */
  #senderRef(
    generation: Generation,
    caller: VouchedCaller,
    path: string,
  ): ActorRef<never> | undefined {
    const key = `${caller.binding}\0${caller.name}\0${path}`;
    let ref = generation.remoteRefs.get(key);
    if (ref === undefined) {
      try {
        ref = this.ref(caller.binding, caller.name, path);
      } catch (error) {
        generation.system.log.warn(
          `a remote message's sender cannot be replied to: ${
            describeError(error)
          }`,
        );
        return undefined;
      }
      generation.remoteRefs.set(key, ref);
      if (generation.remoteRefs.size > MAX_REMOTE_REFS) {
        generation.remoteRefs.delete(
          generation.remoteRefs.keys().next().value!,
        );
      }
    }
    return ref as ActorRef<never>;
  }
}

/** A storage that can list (for the outbox). */
interface DurableObjectStorageLikeList {
  list(options: { prefix: string }): Promise<Map<string, unknown>>;
}

/** A caller that vouched for its identity. */
interface VouchedCaller extends RemoteCaller {
  readonly incarnation: string;
}

/** Messages waiting in a local actor's mailbox (0 if the ref has none to read). */
function mailboxSize(ref: ActorRef<unknown>): number {
  const size = (ref as { mailbox?: { size?: unknown } }).mailbox?.size;
  return typeof size === "number" ? size : 0;
}

function toOutcome(
  error: unknown,
  timeoutMs: number,
): [1, number] | [2, string] {
  if (error instanceof AskTimeoutError) return [1, timeoutMs];
  if (error instanceof UndeliveredError) return [2, error.reason];
  return [2, describeError(error)];
}
