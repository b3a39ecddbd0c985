// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The remote port: what a transport (`../worker/`) needs of the runtime to
 * stand a local actor in for one elsewhere, without reaching into the cell
 * or replacing a ref's methods. A transport spawns its stand-in with
 * {@linkcode actorOfWithHook}: every message told to the stand-in's ref,
 * and every tracked message delivered to it, is first offered to the
 * transport's {@linkcode DeliveryHook}, which may take it straight to the
 * link (in the sender's turn: a hop saved) or leave it to the mailbox, as
 * any ref's. Internal: not exported from the package.
 *
 * @module
 */

import type { ActorContext } from "../actor.ts";
import { ActorCell } from "../kernel/cell.ts";
import type { ActorRef } from "../actor_ref.ts";
import type { SystemCore } from "../actor_system.ts";
import type { Props } from "../props.ts";
import type { CellPort } from "../kernel/cell_port.ts";
import type { TrackedMessage } from "./tracked_message.ts";

/** A transport's hook at a stand-in's door. */
export interface DeliveryHook {
  /**
   * Offered each message told to the stand-in; `true` if the transport took
   * it, and then the mailbox never sees it.
   */
  tell(message: unknown, sender: ActorRef<never> | undefined): boolean;
  /**
   * Offered each tracked message delivered to the stand-in; `true` if the
   * transport took it (it then owes the message `taken()`).
   */
  tracked(message: TrackedMessage, sender: unknown): boolean;
}

/** A cell whose door its transport's hook sees first. */
class HookedCell<T> extends ActorCell<T> {
  readonly #hook: DeliveryHook;

  constructor(
    core: SystemCore,
    parent: CellPort,
    childKey: string | number,
    props: Props<T>,
    hookFor: (ref: ActorRef<T>) => DeliveryHook,
  ) {
    super(core, parent, childKey, props);
    this.#hook = hookFor(this);
  }

  override tell(message: T, sender?: ActorRef<never>): void {
    if (!this.#hook.tell(message, sender)) super.tell(message, sender);
  }

  override enqueueSent(message: TrackedMessage, sender: unknown): void {
    if (!this.#hook.tracked(message, sender)) {
      super.enqueueSent(message, sender);
    }
  }
}

/**
 * Spawns `props` as a child of the actor whose context is `context`, with
 * `hookFor(ref)` at its door (see {@linkcode DeliveryHook}).
 */
export function actorOfWithHook<C>(
  context: ActorContext<unknown>,
  props: Props<C>,
  name: string,
  hookFor: (ref: ActorRef<C>) => DeliveryHook,
): ActorRef<C> {
  // A local actor's context is its cell.
  const parent = context as unknown as ActorCell<never>;
  return parent.spawn(
    props,
    name,
    (core, cell, key, p) => new HookedCell(core, cell, key, p, hookFor),
  );
}
