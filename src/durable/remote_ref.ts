// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * A ref to an actor in another Durable Object, by name: the namespace
 * binding, the object's name and the actor's path. `tell` and `ask` go over
 * the platform's RPC; the kernel does not know about it.
 *
 * @module
 */

import { ActorRef } from "../runtime/actor_ref.ts";

/**
 * Where a remote actor lives: a Durable Object namespace binding (the name
 * of the binding in `env`), the object's name within it (as given to
 * `idFromName`), and the actor's path in that object's system.
 *
 * @example Usage
 * ```ts
 * import type { RemoteAddress } from "@understudy/core/durable";
 *
 * const room: RemoteAddress = { binding: "ROOM", name: "lobby", path: "/user/room" };
 * ```
 */
export interface RemoteAddress {
  /** The namespace binding's name in `env`, such as `"ROOM"`. */
  readonly binding: string;
  /** The object's name, such as `"lobby"`. */
  readonly name: string;
  /** The actor's path in the object's system, such as `"/user/room"`. */
  readonly path: string;
}

/**
 * A ref to an actor in another Durable Object; get one from
 * `ActorHost.ref`. Messages cross by the platform's RPC serialization
 * (structured clone: plain objects, arrays, `Map`, `Date`, errors, typed
 * arrays…; instances of your own classes do not cross and go to dead
 * letters). A sender crosses as its address, so the receiver's
 * `this.sender.tell(reply)` comes back over RPC. Failed calls are retried
 * as the host's `RemoteRetryOptions` say; a message finally given
 * up is a dead letter carrying the error, and an `ask` rejects with a
 * `RemoteDeliveryError`.
 *
 * Tells from one object to another arrive in the order they were told
 * (each retry holds back the tells behind it). An ask is its own call, and
 * its reply is the call's result.
 *
 * @example Usage
 * ```ts no-run: needs a Durable Object namespace, as in workerd
 * import type { ActorHost } from "@understudy/core/durable";
 *
 * declare const host: ActorHost;
 * const room = host.ref<string>("ROOM", "lobby", "/user/room");
 * room.tell("hello");
 * console.log(await room.ask<number>("count", 2_000));
 * ```
 *
 * @typeParam T The messages the remote actor accepts.
 */
export abstract class RemoteRef<T> extends ActorRef<T> {
  /**
   * Where the actor lives.
   *
   * @example Usage
   * ```ts no-run: needs a Durable Object namespace, as in workerd
   * import type { ActorHost } from "@understudy/core/durable";
   *
   * declare const host: ActorHost;
   * console.log(host.ref("ROOM", "lobby", "/user/room").address.name); // "lobby"
   * ```
   */
  abstract get address(): RemoteAddress;

  /**
   * `watcher` watches this actor: when it stops, when its object loses it
   * (reset or evicted), or when its object cannot be reached past the
   * host's `watch.unreachableAfterMs`, `watcher` is told a
   * `RemoteTerminated` (a `Terminated`) saying why, once. Returns what
   * ends the watch early; call it in the watcher's `postStop`. (This is
   * the port `context.watch` would call for a ref that is not local.)
   *
   * @example Usage
   * ```ts no-run: needs a Durable Object namespace, as in workerd
   * import { Actor, type Terminated } from "@understudy/core";
   * import type { RemoteRef } from "@understudy/core/durable";
   *
   * class Watcher extends Actor<Terminated> {
   *   #unwatch = (): void => {};
   *   constructor(readonly room: RemoteRef<string>) {
   *     super();
   *   }
   *   override preStart(): void {
   *     this.#unwatch = this.room.watchRemote(this.self);
   *   }
   *   onReceive(gone: Terminated): void {
   *     this.log.warn(`${gone.ref.path} is gone`);
   *   }
   *   override postStop(): void {
   *     this.#unwatch();
   *   }
   * }
   * ```
   *
   * @param watcher The actor to tell.
   * @param instead With its `message`, what `watcher` is told in place of
   *   the `RemoteTerminated` (what `context.watchWith` passes).
   * @returns Ends the watch (no `RemoteTerminated` comes after).
   */
  abstract watchRemote(
    watcher: ActorRef<never>,
    instead?: { readonly message: unknown },
  ): () => void;
}
