// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * `PoisonPill`: the message that stops any actor once it is processed.
 *
 * @module
 */

import { Notice } from "./kernel/mailbox.ts";

/**
 * The class of the one {@linkcode PoisonPill}: a runtime notice, so a turn
 * taking it out of the mailbox knows it by its type, at no cost to other
 * messages. Internal.
 */
class PoisonPillNotice extends Notice implements PoisonPill {
  readonly kind = "PoisonPill" as const;

  override get sent(): boolean {
    return true;
  }
}

/**
 * The type of {@linkcode PoisonPill}.
 *
 * @example Usage
 * ```ts
 * import { PoisonPill } from "@understudy/core";
 *
 * const pill: PoisonPill = PoisonPill;
 * ```
 */
export interface PoisonPill {
  /** Always `"PoisonPill"`, for logs; only the exported value itself stops an actor. */
  readonly kind: "PoisonPill";
}

/**
 * Stops the actor it is sent to once it is processed: it waits its turn in
 * the mailbox like any message (the messages before it are handled first),
 * the actor never sees it, and the actor then stops as with
 * `context.stopSelf()`. Messages behind it become dead letters. Any actor
 * accepts it, whatever its message type (`ref.tell(PoisonPill)`); sent with
 * `ask`, it gets no reply (the ask times out). It is this one value that
 * counts (by identity), not an object that looks like it.
 *
 * @example Usage
 * ```ts
 * import { Actor, ActorSystem, PoisonPill, Props } from "@understudy/core";
 *
 * class Printer extends Actor<string> {
 *   onReceive(line: string): void {
 *     console.log(line);
 *   }
 * }
 * const system = ActorSystem.create("demo");
 * const printer = system.actorOf(Props.create(() => new Printer()));
 * printer.tell("first");
 * printer.tell(PoisonPill); // "first" is printed, then the actor stops
 * printer.tell("too late"); // a dead letter
 * await system.terminate();
 * ```
 */
export const PoisonPill: PoisonPill = /* @__PURE__ */ new PoisonPillNotice();

/**
 * Whether `message` is a runtime notice (a timer's tick, a `Terminated`),
 * which nobody sent: the PoisonPill and a tracked message travel as notices
 * but were sent, so they are not ones. Internal.
 */
export function isRuntimeNotice(message: unknown): boolean {
  return Notice.is(message) && !message.sent;
}
