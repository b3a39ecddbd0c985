// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The remote ref an actor host makes: `tell` and `ask` queue the message
 * on the channel to the actor's object. Internal to the module.
 *
 * @module
 */

import { ActorRef, type AskOptions } from "../runtime/actor_ref.ts";
import { Terminated } from "../runtime/actor.ts";
import { readAskOptions } from "../runtime/features/ask.ts";
import type { Channel } from "./channel.ts";
import { type RemoteAddress, RemoteRef } from "./remote_ref.ts";

/** What a remote ref needs from its host. */
export interface RefContext {
  /** The path in this object to reply to `sender` at, or `undefined` if it cannot be replied to. */
  addressOf(sender: ActorRef<never> | undefined): string | undefined;
  /** `watcher` watches `ref`; returns what ends the watch. */
  watch(watcher: ActorRef<never>, ref: ChannelRef<unknown>): () => void;
}

/** A remote ref whose messages go through a {@linkcode Channel}. */
export class ChannelRef<T> extends RemoteRef<T> {
  readonly #address: RemoteAddress;
  readonly #channel: Channel;
  readonly #context: RefContext;
  readonly #path: string;

  constructor(
    address: RemoteAddress,
    channel: Channel,
    context: RefContext,
  ) {
    super();
    this.#address = address;
    this.#channel = channel;
    this.#context = context;
    this.#path = `durable://${address.binding}/${
      encodeURIComponent(address.name)
    }${address.path}`;
  }

  get address(): RemoteAddress {
    return this.#address;
  }

  /** The way its messages go. */
  get channel(): Channel {
    return this.#channel;
  }

  watchRemote(
    watcher: ActorRef<never>,
    instead?: { readonly message: unknown },
  ): () => void {
    const to = instead === undefined
      ? watcher
      : new WatchedWith(watcher, instead.message);
    return this.#context.watch(to, this as ChannelRef<unknown>);
  }

  /** `durable://BINDING/object-name/actor/path`. */
  get path(): string {
    return this.#path;
  }

  tell(message: T, sender?: ActorRef<never>): void {
    this.#channel.tell(
      this.#address.path,
      message,
      this.#context.addressOf(sender),
      sender,
      this as ActorRef<never>,
    );
  }

  ask<R = unknown>(message: T, options?: number | AskOptions): Promise<R> {
    const { timeoutMs: ms, signal } = readAskOptions(options);
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<R>((resolve, reject) => {
      let onAbort: (() => void) | undefined;
      if (signal !== undefined) {
        onAbort = () => reject(signal.reason);
        signal.addEventListener("abort", onAbort, { once: true });
      }
      const release = () => {
        if (onAbort !== undefined) {
          signal!.removeEventListener("abort", onAbort);
        }
      };
      this.#channel.ask(this.#address.path, message, this as ActorRef<never>, {
        resolve: (reply) => {
          release();
          resolve(reply as R);
        },
        reject: (error) => {
          release();
          reject(error);
        },
        timeoutMs: ms,
        deadline: this.#channel.now() + ms,
      });
    });
  }
}

/**
 * The watcher a remote watch is given for `watchWith`: the
 * `RemoteTerminated` it is told becomes the watcher's own message.
 */
class WatchedWith extends ActorRef<never> {
  constructor(readonly watcher: ActorRef<never>, readonly message: unknown) {
    super();
  }

  get path(): string {
    return this.watcher.path;
  }

  tell(message: unknown, sender?: ActorRef<never>): void {
    this.watcher.tell(
      (message instanceof Terminated ? this.message : message) as never,
      sender,
    );
  }

  ask<R>(): Promise<R> {
    return Promise.reject(
      new TypeError(`Cannot ask the watch of ${this.path}: it only tells`),
    );
  }
}
