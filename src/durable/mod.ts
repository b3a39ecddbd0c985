// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Actors on Cloudflare Durable Objects: one actor system per object, and
 * refs to actors in other objects that `tell` and `ask` over the platform's
 * RPC, retrying what the platform marks retryable with a backoff policy.
 * A ref heals after any error (a fresh stub); tells are numbered, and the
 * receiver keeps its high-water mark in storage, so that a tell is taken
 * once across the eviction of either side; `watchRemote` tells a watcher
 * when the actor, or its object, is gone; only exposed actors are
 * reachable, from a sender the library vouches for, as `authorize` and
 * the host's `limits` allow. See docs/edge-refs.md.
 *
 * - {@linkcode withActors}: a Durable Object base class whose objects each
 *   host an actor system ({@linkcode ActorHost}), created on first use and
 *   terminated by `reset()`.
 * - {@linkcode RemoteRef}: `this.actors.ref(binding, name, path)`, a ref to
 *   an actor in another object. Messages cross by the platform's
 *   serialization; what cannot cross, or still fails after the last
 *   attempt, is a dead letter with the error ({@linkcode RemoteDeliveryFailed}),
 *   and an `ask` rejects with a {@linkcode RemoteDeliveryError}.
 * - {@linkcode RemoteRetryOptions}: errors marked `retryable` are retried
 *   (at most 3 calls by default, full-jitter exponential waits), and so is
 *   a numbered batch of tells that met a reset object; errors marked
 *   `overloaded`, and any other, are not.
 * - {@linkcode RemoteTerminated}: what `RemoteRef.watchRemote` tells the
 *   watcher, with the reason.
 * - {@linkcode ExposeOptions} (`authorize`), {@linkcode RemoteRequest},
 *   {@linkcode RemoteCaller}, {@linkcode ActorHostLimits}: who may come in.
 *
 * - Durability (`withActors(DurableObject, { durable: true })`, on a
 *   SQLite-backed class): the object's one alarm multiplexes every due time
 *   and wakes the object after an eviction; {@linkcode DurableTimers}
 *   deliver stored messages by (actor path, key); {@linkcode durableBackoff}
 *   and {@linkcode durableSender} keep a BackoffSupervisor's stash and a
 *   BackoffSender's ledger; {@linkcode DurableState} keeps an actor's own
 *   value. Each is written in the turn that changes it.
 * - {@linkcode SocketServer}: browser WebSockets through the Hibernation
 *   API, each client message processed once by an actor, effectively once
 *   with the client's `durableSocketAck()` (docs/edge-socket.md).
 *
 * `src/` imports nothing from `cloudflare:workers`: pass its
 * `DurableObject` class to {@linkcode withActors}.
 *
 * @example An order and its payment
 * ```ts no-run: imports cloudflare:workers, which only workerd has
 * import { DurableObject } from "cloudflare:workers";
 * import { Actor, type ActorSystem, Props } from "@understudy/core";
 * import { withActors } from "@understudy/core/durable";
 *
 * class Payment extends Actor<{ amount: number }> {
 *   onReceive(charge: { amount: number }): void {
 *     this.sender?.tell({ paid: charge.amount });
 *   }
 * }
 *
 * export class PaymentObject extends withActors(DurableObject, { binding: "PAYMENT" }) {
 *   override createActors(system: ActorSystem): void {
 *     this.actors.expose(system.actorOf(Props.create(() => new Payment()), "payment"));
 *   }
 * }
 *
 * export class OrderObject extends withActors(DurableObject, { binding: "ORDER" }) {
 *   async pay(amount: number): Promise<unknown> {
 *     const payment = this.actors.ref<{ amount: number }>("PAYMENT", "order-42", "/user/payment");
 *     return await payment.ask({ amount }, 2_000);
 *   }
 * }
 * ```
 *
 * @module
 */

export { ActorHost, type ActorHostOptions } from "./actor_host.ts";
export type { AlarmInfoLike, DurableStorageLike } from "./alarm_clock.ts";
export type { DurableHostOptions } from "./durable_host.ts";
export { DurableState } from "./durable_state.ts";
export { DurableTimers } from "./durable_timers.ts";
export {
  type BackoffDurability,
  type BackoffRecord,
  durableBackoff,
  type DurableBackoffOptions,
  durableSender,
  type DurableStore,
  type SenderDurability,
  type SenderRecord,
} from "../patterns/durable_port.ts";
export type {
  ActorHostLimits,
  ExposeOptions,
  RemoteCaller,
  RemoteRequest,
} from "./door.ts";
export type {
  DurableObjectBase,
  DurableObjectNamespaceLike,
  DurableObjectStateLike,
  DurableObjectStorageLike,
  HibernatableWebSocketLike,
  HibernationStateLike,
} from "./platform.ts";
export {
  type SocketFrame,
  type SocketHeartbeat,
  SocketMessage,
  SocketServer,
  type SocketServerOptions,
} from "./socket_server.ts";
export {
  RemoteDeliveryError,
  RemoteDeliveryFailed,
} from "./remote_delivery.ts";
export { type RemoteAddress, RemoteRef } from "./remote_ref.ts";
export { RemoteTerminated, type RemoteWatchOptions } from "./remote_watch.ts";
export {
  defaultRemoteRetryPolicy,
  isRetryableDurableError,
  type RemoteRetryOptions,
} from "./retry.ts";
export {
  type ActorHostConstructor,
  type ActorHostObject,
  withActors,
} from "./with_actors.ts";
