// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * What a BackoffSender says and understands besides the messages it
 * carries: the envelope its child receives ({@linkcode BackoffSenderTracked}),
 * the acknowledgement the child sends back ({@linkcode BackoffSenderAck}),
 * the events it publishes on the event stream (all subclasses of
 * {@linkcode BackoffSenderEvent}), and the protocol messages it handles
 * itself ({@linkcode BackoffSenderProtocol}), shared with the
 * BackoffSupervisor where they make sense.
 *
 * @module
 */

import type { ActorRef } from "../runtime/actor_ref.ts";
import { checkNumber } from "../validation.ts";
import type {
  GetCurrentChild,
  GetRestartCount,
  ResetRestartCount,
  RespawnNow,
} from "./backoff_protocol.ts";

/**
 * One message as the BackoffSender's child receives it: its id, the
 * message, the original sender (kept across re-sends, to reply to), and
 * which try this is. Reach it as `BackoffSender.Tracked<M>`.
 *
 * Ids start at 1 and increase by one per message sent to the BackoffSender.
 * Delivery is at least once: after a crash the same id may come again (the
 * child may have done the work and crashed before its `Ack`), so the child
 * or the receiver of the reply drops an id it has seen.
 *
 * @example A child that acknowledges and replies
 * ```ts
 * import { Actor, BackoffSender } from "@understudy/core";
 *
 * class Worker extends Actor<BackoffSender.Tracked<string>> {
 *   onReceive(tracked: BackoffSender.Tracked<string>): void {
 *     const reply = tracked.message.toUpperCase(); // the dangerous work
 *     this.context.parent.tell(new BackoffSender.Ack(tracked.id));
 *     tracked.sender?.tell(reply);
 *   }
 * }
 * ```
 *
 * @typeParam M The message's type.
 */
export class BackoffSenderTracked<M> {
  /**
   * Creates a `BackoffSenderTracked`. The BackoffSender makes these; a
   * child only reads them.
   *
   * @param id The message's id, from 1.
   * @param message The message as it was sent.
   * @param sender Who sent it (to reply to), if it gave a sender.
   * @param attempt This try's number: 1, then 1 + the tries the message had
   *   before (deliveries a child began to process without acknowledging).
   *   More than 1 means an earlier child may have done the work.
   */
  constructor(
    readonly id: number,
    readonly message: M,
    readonly sender: ActorRef<unknown> | undefined,
    readonly attempt: number,
  ) {}
}

/**
 * The child's acknowledgement of message `id`, sent to its parent (the
 * BackoffSender) after the dangerous work succeeded:
 * `this.context.parent.tell(new BackoffSender.Ack(tracked.id))`. The
 * message is then forgotten (never re-sent) and the retry count goes back
 * to 0. An `Ack` for an id the BackoffSender does not hold (acknowledged
 * already, or dropped) is ignored. Reach it as `BackoffSender.Ack`.
 *
 * @example Usage
 * ```ts
 * import { BackoffSender } from "@understudy/core";
 *
 * const ack = new BackoffSender.Ack(1);
 * console.log(ack.id); // 1
 * ```
 */
export class BackoffSenderAck {
  /** The acknowledged message's id. */
  readonly id: number;

  /**
   * Creates a `BackoffSenderAck`.
   *
   * @param id The id of the acknowledged message (`tracked.id`).
   * @throws {RangeError | TypeError} If `id` is not a whole number from 1
   *   to `Number.MAX_SAFE_INTEGER`.
   */
  constructor(id: number) {
    this.id = checkNumber(
      "create BackoffSender.Ack",
      "id",
      id,
      1,
      Number.MAX_SAFE_INTEGER,
      true,
    );
  }
}

/**
 * Base of the BackoffSender's events on the event stream; subscribe to it
 * for all of them. Every message sent through a BackoffSender ends with
 * exactly one {@linkcode BackoffSenderAcknowledged} or one
 * {@linkcode BackoffSenderGaveUp}.
 *
 * @example Usage
 * ```ts
 * import { ActorSystem, BackoffSenderEvent } from "@understudy/core";
 *
 * const system = ActorSystem.create("demo");
 * system.eventStream.subscribe(BackoffSenderEvent, (event) => console.log(event.constructor.name));
 * await system.terminate();
 * ```
 */
export abstract class BackoffSenderEvent {
  /**
   * Creates a `BackoffSenderEvent`.
   *
   * @param backoffSender The BackoffSender that published it.
   */
  constructor(readonly backoffSender: ActorRef<never>) {}
}

/**
 * The child terminated; the unacknowledged messages will be re-sent after
 * `delayMs`, which the policy gave for `retryCount`.
 *
 * @example Usage
 * ```ts
 * import { ActorSystem, BackoffSenderRetryScheduled } from "@understudy/core";
 *
 * const system = ActorSystem.create("demo");
 * system.eventStream.subscribe(BackoffSenderRetryScheduled, (event) => console.log(event.retryCount, event.delayMs));
 * await system.terminate();
 * ```
 */
export class BackoffSenderRetryScheduled extends BackoffSenderEvent {
  /**
   * Creates a `BackoffSenderRetryScheduled`.
   *
   * @param backoffSender The BackoffSender.
   * @param retryCount Terminations since the last `Ack` or `Reset`, before this one.
   * @param delayMs The delay chosen.
   * @param unacked How many messages wait for the re-send.
   */
  constructor(
    backoffSender: ActorRef<never>,
    readonly retryCount: number,
    readonly delayMs: number,
    readonly unacked: number,
  ) {
    super(backoffSender);
  }
}

/**
 * A message was delivered again, to a new child, after a termination.
 *
 * @example Usage
 * ```ts
 * import { ActorSystem, BackoffSenderResent } from "@understudy/core";
 *
 * const system = ActorSystem.create("demo");
 * system.eventStream.subscribe(BackoffSenderResent, (event) => console.log(event.id, event.attempt));
 * await system.terminate();
 * ```
 */
export class BackoffSenderResent extends BackoffSenderEvent {
  /**
   * Creates a `BackoffSenderResent`.
   *
   * @param backoffSender The BackoffSender.
   * @param id The message's id.
   * @param message The message.
   * @param attempt The try number it was delivered with.
   */
  constructor(
    backoffSender: ActorRef<never>,
    readonly id: number,
    readonly message: unknown,
    readonly attempt: number,
  ) {
    super(backoffSender);
  }
}

/**
 * The child acknowledged a message: it will not be sent again.
 *
 * @example Usage
 * ```ts
 * import { ActorSystem, BackoffSenderAcknowledged } from "@understudy/core";
 *
 * const system = ActorSystem.create("demo");
 * system.eventStream.subscribe(BackoffSenderAcknowledged, (event) => console.log(event.id));
 * await system.terminate();
 * ```
 */
export class BackoffSenderAcknowledged extends BackoffSenderEvent {
  /**
   * Creates a `BackoffSenderAcknowledged`.
   *
   * @param backoffSender The BackoffSender.
   * @param id The message's id.
   * @param message The message.
   * @param attempts Its tries, the acknowledged one included.
   */
  constructor(
    backoffSender: ActorRef<never>,
    readonly id: number,
    readonly message: unknown,
    readonly attempts: number,
  ) {
    super(backoffSender);
  }
}

/**
 * The BackoffSender gave up on a message: it was tried `maxAttempts` times,
 * pushed out by `maxUnacked`, or left when the BackoffSender stopped. A
 * {@linkcode DeadLetter} with the same reason, the message and its
 * original sender is published with it (an `ask` then fails at once).
 *
 * @example Usage
 * ```ts
 * import { ActorSystem, BackoffSenderGaveUp } from "@understudy/core";
 *
 * const system = ActorSystem.create("demo");
 * system.eventStream.subscribe(BackoffSenderGaveUp, (event) => console.log(event.id, event.reason));
 * await system.terminate();
 * ```
 */
export class BackoffSenderGaveUp extends BackoffSenderEvent {
  /**
   * Creates a `BackoffSenderGaveUp`.
   *
   * @param backoffSender The BackoffSender.
   * @param id The message's id.
   * @param message The message.
   * @param attempts Its tries so far.
   * @param reason Why.
   */
  constructor(
    backoffSender: ActorRef<never>,
    readonly id: number,
    readonly message: unknown,
    readonly attempts: number,
    readonly reason: string,
  ) {
    super(backoffSender);
  }
}

/**
 * The messages a BackoffSender handles itself and never passes to its
 * child: the child's {@linkcode BackoffSenderAck}, and the
 * BackoffSupervisor's `GetRestartCount` (its reply `RestartCount` counts
 * terminations since the last `Ack` or `Reset`), `Reset`, `RespawnNow` (a
 * pending wait ends: re-send now) and `GetCurrentChild`. Its ref accepts
 * these and the messages it carries.
 *
 * @example Usage
 * ```ts
 * import { BackoffSender, type BackoffSenderProtocol } from "@understudy/core";
 *
 * const reset: BackoffSenderProtocol = BackoffSender.Reset;
 * ```
 */
export type BackoffSenderProtocol =
  | BackoffSenderAck
  | GetCurrentChild
  | GetRestartCount
  | ResetRestartCount
  | RespawnNow;
