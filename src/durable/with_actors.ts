// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The Durable Object class helper: `withActors(DurableObject)` is a base
 * class whose objects each host one actor system (an {@linkcode ActorHost}
 * as `this.actors`) and answer the RPC methods remote refs call.
 *
 * @module
 */

import type { ActorSystem } from "../runtime/actor_system.ts";
import { fail } from "../validation.ts";
import { ActorHost, type ActorHostOptions } from "./actor_host.ts";
import type { DurableObjectBase, DurableObjectStateLike } from "./platform.ts";

/**
 * What `withActors` adds to a Durable Object class.
 *
 * @example Usage
 * ```ts
 * import type { ActorHostObject } from "@understudy/core/durable";
 *
 * async function resetActors(object: ActorHostObject): Promise<void> {
 *   await object.actors.reset();
 * }
 * ```
 */
export interface ActorHostObject {
  /** The object's actors: its system (created on first use), `expose`, `ref` and `reset`. */
  readonly actors: ActorHost;
  /**
   * Override to create the object's actors; called with each new actor
   * system. Expose those other objects may reach with
   * `this.actors.expose(ref)`.
   *
   * @param system The new system.
   */
  createActors(system: ActorSystem): void;
  /**
   * RPC: told messages from another object's remote refs.
   *
   * @param from Who calls: `[binding, name, incarnation]`, or `null`.
   * @param first The number of the first message.
   * @param batch The messages.
   */
  understudyDeliver(
    from: unknown,
    first: unknown,
    batch: unknown,
  ): Promise<void>;
  /**
   * RPC: an ask from another object's remote ref; resolves with the outcome.
   *
   * @param from Who calls: `[binding, name, incarnation]`, or `null`.
   * @param packet The message.
   * @param timeoutMs How long to wait for the reply.
   * @param askId The ask's number on the caller's way, if it has one.
   */
  understudyAsk(
    from: unknown,
    packet: unknown,
    timeoutMs: unknown,
    askId?: unknown,
  ): Promise<unknown>;
  /**
   * The object's alarm handler (durable hosts): delivers the stored timers
   * now due, re-arms, and throws a failure for the platform to retry.
   * Override to add work of your own, and call `super.alarm(alarmInfo)`.
   *
   * @param alarmInfo What the platform passes (`retryCount`, `isRetry`).
   */
  alarm(alarmInfo?: unknown): Promise<void>;
  /**
   * RPC: whether this object is the caller `incarnation` of another
   * object's way to `binding/name` (how a callee confirms who calls).
   *
   * @param incarnation The incarnation claimed.
   * @param binding The asking object's binding.
   * @param name The asking object's name.
   */
  understudyVouch(
    incarnation: unknown,
    binding: unknown,
    name: unknown,
  ): boolean;
  /**
   * RPC: another object watches the actor at `path` here.
   *
   * @param from Who calls.
   * @param path The actor.
   * @param watchId The watch's id.
   */
  understudyWatch(
    from: unknown,
    path: unknown,
    watchId: unknown,
  ): Promise<string | null>;
  /**
   * RPC: which of these watches this object no longer knows.
   *
   * @param watchIds The watches' ids.
   */
  understudyWatchCheck(watchIds: unknown): string[];
  /**
   * RPC: ends a watch kept here.
   *
   * @param watchId The watch's id.
   */
  understudyUnwatch(watchId: unknown): void;
  /**
   * RPC: an actor watched from here stopped.
   *
   * @param watchId The watch's id.
   * @param reason Why.
   */
  understudyWatchEnded(watchId: unknown, reason: unknown): void;
}

/**
 * The constructor type `withActors` returns (intersected with the base's).
 *
 * @example Usage
 * ```ts
 * import type { ActorHostConstructor } from "@understudy/core/durable";
 *
 * declare const Room: ActorHostConstructor;
 * ```
 */
export type ActorHostConstructor = abstract new (
  // deno-lint-ignore no-explicit-any
  ...args: any[]
) => ActorHostObject;

/** A mixin's constructor arguments (TypeScript requires `any[]`). */
// deno-lint-ignore no-explicit-any
type AnyArgs = any[];

/**
 * Extends a Durable Object base class (Cloudflare's `DurableObject` from
 * `cloudflare:workers`, which `src/` does not import: pass it in) so that
 * each object hosts one actor system. Override `createActors(system)` to
 * create the object's actors and expose those other objects may reach;
 * reach theirs with `this.actors.ref(binding, name, path)`. The RPC
 * methods named `understudy…` are what remote refs call (RPC on Durable Object stubs needs a compatibility date of
 * 2024-04-03 or later).
 *
 * @example A chat room object
 * ```ts no-run: imports cloudflare:workers, which only workerd has
 * import { DurableObject } from "cloudflare:workers";
 * import { Actor, type ActorSystem, Props } from "@understudy/core";
 * import { withActors } from "@understudy/core/durable";
 *
 * class Room extends Actor<string> {
 *   onReceive(text: string): void {
 *     this.log.info(text);
 *   }
 * }
 *
 * export class ChatRoom extends withActors(DurableObject, { binding: "ROOM" }) {
 *   override createActors(system: ActorSystem): void {
 *     this.actors.expose(system.actorOf(Props.create(() => new Room()), "room"));
 *   }
 * }
 * ```
 *
 * @typeParam B The base class.
 * @param Base The base class, whose constructor takes `(ctx, env)`.
 * @param options The host's options (its `setup` is `createActors`).
 * @returns A class to extend.
 * @throws {TypeError} If `Base` is not a class or an option has the wrong type (when the first object is created, for the options).
 */
export function withActors<B extends DurableObjectBase>(
  Base: B,
  options: Omit<ActorHostOptions, "setup"> = {},
): B & ActorHostConstructor {
  if (typeof Base !== "function") {
    fail("make actor host class", "Base", "a class", Base);
  }
  abstract class WithActors extends Base implements ActorHostObject {
    readonly actors: ActorHost;

    constructor(...args: AnyArgs) {
      super(...args);
      const ctx = args[0] as DurableObjectStateLike;
      this.actors = new ActorHost(
        ctx,
        args[1] as object,
        { ...options, setup: (system) => this.createActors(system) },
      );
      // Stored tells of an earlier life are read back before any call.
      if (
        options.outbox === true &&
        typeof ctx?.blockConcurrencyWhile === "function"
      ) ctx.blockConcurrencyWhile(() => this.actors.recover());
      // Activation before any event: the subclass's fields are set by the
      // time the callback runs (after its first await), and the actors
      // restore what they stored before any message reaches them.
      if (
        options.durable !== undefined && options.durable !== false &&
        typeof ctx?.blockConcurrencyWhile === "function"
      ) {
        ctx.blockConcurrencyWhile(() => this.actors.activate());
      }
    }

    createActors(_system: ActorSystem): void {}

    understudyDeliver(
      from: unknown,
      first: unknown,
      batch: unknown,
    ): Promise<void> {
      return this.actors.deliver(from, first, batch);
    }

    understudyAsk(
      from: unknown,
      packet: unknown,
      timeoutMs: unknown,
      askId?: unknown,
    ): Promise<unknown> {
      return this.actors.ask(from, packet, timeoutMs, askId);
    }

    understudyVouch(
      incarnation: unknown,
      binding: unknown,
      name: unknown,
    ): boolean {
      return this.actors.vouch(incarnation, binding, name);
    }

    understudyWatch(
      from: unknown,
      path: unknown,
      watchId: unknown,
    ): Promise<string | null> {
      return this.actors.watched(from, path, watchId);
    }

    understudyWatchCheck(watchIds: unknown): string[] {
      return this.actors.watchCheck(watchIds);
    }

    understudyUnwatch(watchId: unknown): void {
      this.actors.unwatched(watchId);
    }

    understudyWatchEnded(watchId: unknown, reason: unknown): void {
      this.actors.watchEnded(watchId, reason);
    }

    alarm(alarmInfo?: unknown): Promise<void> {
      return this.actors.alarm(alarmInfo);
    }
  }
  return WithActors;
}
