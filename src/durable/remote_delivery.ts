// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * What a remote ref reports when a message finally fails to cross: the
 * error an `ask` rejects with, and the event published next to the
 * message's `DeadLetter`, both carrying the platform's error and the number
 * of attempts made.
 *
 * @module
 */

import type { ActorRef } from "../runtime/actor_ref.ts";
import { UndeliveredError } from "../runtime/actor_ref.ts";
import { errorText } from "./retry.ts";

/**
 * A message to another Durable Object could not be delivered: the call
 * failed with an error that may not be retried, or still failed after the
 * last attempt. An `ask` through a remote ref rejects with it; it is an
 * {@linkcode UndeliveredError}, so code written for local refs handles it.
 *
 * @example Usage
 * ```ts
 * import { RemoteDeliveryError } from "@understudy/core/durable";
 *
 * const busy = Object.assign(new Error("Durable Object is overloaded."), { overloaded: true });
 * const error = new RemoteDeliveryError("durable://ROOM/lobby/user/room", busy, 1);
 * console.log(error.attempts, error.cause === busy); // 1 true
 * ```
 */
export class RemoteDeliveryError extends UndeliveredError {
  /** The last error the call failed with (as the platform gave it: `retryable`, `overloaded` and `remote` flags included). */
  declare readonly cause: unknown;
  /** Calls made, the first included. */
  declare readonly attempts: number;

  /**
   * Creates a `RemoteDeliveryError`.
   *
   * @param path The remote ref's path.
   * @param cause The last error.
   * @param attempts Calls made.
   */
  constructor(path: string, cause: unknown, attempts: number) {
    super(path, remoteReason(cause, attempts));
    this.name = "RemoteDeliveryError";
    this.cause = cause;
    this.attempts = attempts;
  }
}

/**
 * Published on the sender's event stream when a message to another Durable
 * Object is given up (a `DeadLetter` is published for it too, whose reason
 * names the error): the error itself and the attempts made.
 *
 * @example Usage
 * ```ts
 * import { ActorSystem } from "@understudy/core";
 * import { RemoteDeliveryFailed } from "@understudy/core/durable";
 *
 * const system = ActorSystem.create("demo");
 * system.eventStream.subscribe(RemoteDeliveryFailed, (failed) => {
 *   console.log(`${failed.recipient.path}: ${String(failed.error)} after ${failed.attempts} attempts`);
 * });
 * await system.terminate();
 * ```
 */
export class RemoteDeliveryFailed {
  /**
   * Creates the event.
   *
   * @param message The message.
   * @param sender Its sender, if any.
   * @param recipient The remote ref it was sent to.
   * @param error The last error.
   * @param attempts Calls made, the first included.
   */
  constructor(
    readonly message: unknown,
    readonly sender: ActorRef<never> | undefined,
    readonly recipient: ActorRef<never>,
    readonly error: unknown,
    readonly attempts: number,
  ) {}
}

/** The dead-letter reason of a message given up after `attempts` calls. Internal. */
export function remoteReason(error: unknown, attempts: number): string {
  return `remote delivery failed after ${attempts} attempt${
    attempts === 1 ? "" : "s"
  }: ${errorText(error)}`;
}
