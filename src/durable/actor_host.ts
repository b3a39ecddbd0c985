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
import { Channel } from "./channel.ts";
import { DurableHost, type DurableHostOptions } from "./durable_host.ts";
import type { DurableTimers } from "./durable_timers.ts";
import type { DurableStore } from "../patterns/durable_port.ts";
import { realScheduler } from "../runtime/scheduler.ts";
import type {
  DurableObjectNamespaceLike,
  DurableObjectStateLike,
} from "./platform.ts";
import { ChannelRef, type SenderAddresser } from "./channel_ref.ts";
import { RemoteRef } from "./remote_ref.ts";
import {
  type RemoteRetryOptions,
  type RetrySettings,
  retrySettings,
} from "./retry.ts";
import { isWirePacket, isWireTarget, type WirePacket } from "./wire.ts";

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
   * `"ROOM"`), so that messages its actors send carry an address the
   * receiver can reply to. Without it, the host learns it from the first
   * call it receives; until then its actors' messages cross without a
   * sender.
   */
  binding?: string;
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

/** Local actors kept so that replies to them can find them, at most. */
const MAX_SENDERS = 1_024;
/** Remote refs kept for senders of incoming messages, at most. */
const MAX_REMOTE_REFS = 1_024;

/** One actor system and everything tied to it, until a reset. */
class Generation {
  readonly system: ActorSystem;
  /** Outgoing ways, by `binding\0name`. */
  readonly channels = new Map<string, Channel>();
  /** Remote refs made for incoming senders, by `binding\0name\0path`. */
  readonly remoteRefs = new Map<string, RemoteRef<unknown>>();
  /** Actors reachable by path: exposed ones. */
  readonly exposed = new Map<string, ActorRef<unknown>>();
  /** Actors reachable by path: recent local senders of remote messages. */
  readonly senders = new Map<string, ActorRef<unknown>>();

  constructor(system: ActorSystem) {
    this.system = system;
  }

  close(): void {
    for (const channel of this.channels.values()) channel.close();
    this.channels.clear();
    this.remoteRefs.clear();
    this.exposed.clear();
    this.senders.clear();
  }
}

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
 * (`host.store`); see docs/edge-durable.md.
 *
 * Usually made by `withActors`; by hand, give it the object's `ctx` and
 * `env` and call `deliver` and `ask` from two RPC methods named
 * `understudyDeliver` and `understudyAsk`.
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
 * // What another object's `tell("inc")` to /user/counter does here:
 * host.deliver([["/user/counter", "inc"]], ["COUNTER", "counter-1"]);
 * console.log(await host.ask(["/user/counter", "get"], ["COUNTER", "counter-1"], 1_000)); // [0, 1]
 * await host.reset();
 * ```
 */
export class ActorHost {
  readonly #env: Record<string, unknown>;
  readonly #options: ActorHostOptions;
  readonly #retry: RetrySettings;
  #binding: string | undefined;
  #name: string | undefined;
  #current: Generation | undefined = undefined;
  readonly #addresser: SenderAddresser = {
    addressOf: (sender) => this.#addressOf(sender),
  };
  #generations = 0;
  readonly #durable: DurableHost | undefined;

  /**
   * Creates a host; its system is created on first use.
   *
   * @param ctx The Durable Object's state (`this.ctx`), for its name; `undefined` outside an object (a Worker's `fetch`), whose actors then cannot be replied to by `tell`.
   * @param env The Worker's `env`, where namespace bindings are found by name.
   * @param options Binding, system options, retries and setup.
   * @throws {TypeError} If `env` is not an object or an option has the wrong type.
   * @throws {RangeError} If a retry option is out of range.
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
    this.#env = env as Record<string, unknown>;
    this.#options = options;
    this.#binding = options.binding;
    const name = ctx?.id?.name;
    this.#name = typeof name === "string" ? name : undefined;
    const durable = options.durable;
    this.#durable = durable === undefined || durable === false
      ? undefined
      : new DurableHost(ctx, durable, () => this.#current?.system.log);
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
   * actors start before any event reaches the object. Durable hosts only.
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
   * @returns Resolves once the actors have started.
   * @throws {TypeError} If the host is not durable.
   */
  async activate(): Promise<void> {
    const durable = this.#durableOr("activate actor host");
    await durable.clock.load();
    this.#generation();
    durable.clock.rearm(durable.timers.nextDue());
    // The actors' preStart (where stored state is restored) runs now.
    await new Promise<void>((resolve) =>
      realScheduler.setTimeout(() => resolve(), 0)
    );
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
          const ref = generation.exposed.get(path);
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
   * reset).
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
   * const sink = host.expose(host.system.actorOf(Props.create(() => new Sink()), "sink"));
   * console.log(sink.path); // "/user/sink"
   * await host.reset();
   * ```
   *
   * @typeParam T The actor's messages.
   * @param ref A ref of this host's system.
   * @returns `ref`.
   * @throws {TypeError} If `ref` is not an actor ref.
   */
  expose<T>(ref: ActorRef<T>): ActorRef<T> {
    if (!(ref instanceof ActorRef) || ref instanceof RemoteRef) {
      fail("expose actor", "ref", "a local ActorRef", ref);
    }
    this.#generation().exposed.set(ref.path, ref as ActorRef<unknown>);
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
    let channel = generation.channels.get(key);
    if (channel === undefined) {
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
      channel = new Channel(
        generation.system,
        namespace,
        [binding, name],
        this.#retry,
      );
      generation.channels.set(key, channel);
    }
    return new ChannelRef<T>(
      { binding, name, path },
      channel,
      this.#addresser,
    );
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
   * `understudyDeliver` calls). A message for a path nothing is exposed at
   * goes to this system's dead letters.
   *
   * @example Usage
   * ```ts
   * import { ActorHost } from "@understudy/core/durable";
   *
   * const host = new ActorHost(undefined, {});
   * host.deliver([["/user/nobody", "hello"]], ["ROOM", "lobby"]); // a dead letter
   * await host.reset();
   * ```
   *
   * @param batch `[path, message]` or `[path, message, binding, name, senderPath]` entries.
   * @param target The `[binding, name]` the caller addressed (this object).
   * @throws {TypeError} If `batch` is not an array.
   */
  deliver(batch: unknown, target: unknown): void {
    this.#learn(target);
    if (!Array.isArray(batch)) {
      fail("deliver remote messages", "batch", "an array", batch);
    }
    const generation = this.#generation();
    for (const packet of batch) {
      if (!isWirePacket(packet)) {
        generation.system.publishDeadLetter(
          packet,
          undefined,
          generation.system.deadLetters as ActorRef<never>,
          "malformed remote message",
        );
        continue;
      }
      const sender = this.#senderOf(generation, packet);
      const ref = generation.exposed.get(packet[0]) ??
        generation.senders.get(packet[0]);
      if (ref === undefined) {
        generation.system.publishDeadLetter(
          packet[1],
          sender,
          generation.system.deadLetters as ActorRef<never>,
          `no actor exposed at ${packet[0]} in this object`,
        );
      } else {
        ref.tell(packet[1], sender);
      }
    }
  }

  /**
   * Answers an ask that arrived over RPC (what the mixin's `understudyAsk`
   * calls): `[0, reply]`, `[1, timeoutMs]` if no reply came in time, or
   * `[2, reason]` if the message was not delivered.
   *
   * @example Usage
   * ```ts
   * import { ActorHost } from "@understudy/core/durable";
   *
   * const host = new ActorHost(undefined, {});
   * console.log(await host.ask(["/user/nobody", "?"], ["ROOM", "lobby"], 100)); // [2, "no actor exposed at /user/nobody in this object"]
   * await host.reset();
   * ```
   *
   * @param packet `[path, message]`.
   * @param target The `[binding, name]` the caller addressed.
   * @param timeoutMs How long to wait for the reply.
   * @returns The outcome.
   */
  async ask(
    packet: unknown,
    target: unknown,
    timeoutMs: unknown,
  ): Promise<[0, unknown] | [1, number] | [2, string]> {
    this.#learn(target);
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
    const ref = generation.exposed.get(packet[0]) ??
      generation.senders.get(packet[0]);
    if (ref === undefined) {
      const reason = `no actor exposed at ${packet[0]} in this object`;
      system.publishDeadLetter(
        packet[1],
        undefined,
        system.deadLetters as ActorRef<never>,
        reason,
      );
      return [2, reason];
    }
    try {
      return [0, await ref.ask(packet[1], timeoutMs)];
    } catch (error) {
      return toOutcome(error, timeoutMs);
    }
  }

  /** The address replies to `sender` should go to, or `undefined` if it has none. */
  #addressOf(
    sender: ActorRef<never> | undefined,
  ): [string, string, string] | undefined {
    if (sender === undefined) return undefined;
    if (sender instanceof RemoteRef) {
      const { binding, name, path } = sender.address;
      return [binding, name, path];
    }
    const binding = this.#binding;
    const name = this.#name;
    if (binding === undefined || name === undefined) return undefined;
    const path = sender.path;
    const generation = this.#generation();
    if (!generation.exposed.has(path)) {
      const senders = generation.senders;
      senders.delete(path);
      senders.set(path, sender as ActorRef<unknown>);
      if (senders.size > MAX_SENDERS) {
        senders.delete(senders.keys().next().value!);
      }
    }
    return [binding, name, path];
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
      generation = new Generation(system);
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
    }
    return generation;
  }

  /** Learns this object's address from what a caller addressed, if not known yet. */
  #learn(target: unknown): void {
    if (
      (this.#binding === undefined || this.#name === undefined) &&
      isWireTarget(target)
    ) {
      this.#binding ??= target[0];
      this.#name ??= target[1];
    }
  }

  /** The sender of an incoming packet, as a remote ref (cached), if it has an address. */
  #senderOf(
    generation: Generation,
    packet: WirePacket,
  ): ActorRef<never> | undefined {
    if (packet.length !== 5) return undefined;
    const [, , binding, name, path] = packet;
    const key = `${binding}\0${name}\0${path}`;
    let ref = generation.remoteRefs.get(key);
    if (ref === undefined) {
      try {
        ref = this.ref(binding, name, path);
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

function toOutcome(
  error: unknown,
  timeoutMs: number,
): [1, number] | [2, string] {
  if (error instanceof AskTimeoutError) return [1, timeoutMs];
  if (error instanceof UndeliveredError) return [2, error.reason];
  return [2, describeError(error)];
}
