// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * {@linkcode Transfer}: a message sent across a worker boundary together
 * with the objects to move rather than copy.
 *
 * @module
 */

import { fail } from "../validation.ts";

/** Every `Transfer` made: told apart by identity, which no proxy's trap sees. */
const transfers = /* @__PURE__ */ new WeakSet<object>();
/**
 * Whether any `Transfer` was made: until one is, no message is one, and
 * no lookup is made (a `WeakSet` lookup was some 20 ns a message in V8,
 * a tenth of a stream's main-side cost).
 */
let made = false;

/**
 * Whether `value` is a {@linkcode Transfer}, asked without calling anything
 * of `value`'s (`instanceof` runs a proxy's traps, and a revoked proxy
 * throws): a `tell` checks it in the sender's turn. Internal.
 */
export function isTransfer(value: unknown): value is Transfer {
  return made && typeof value === "object" && value !== null &&
    transfers.has(value);
}

/**
 * Wraps a message for a remote ref with the objects to transfer (moved, not
 * copied: an `ArrayBuffer` is detached on the sending side). The receiver
 * gets `message` itself, not the wrapper. Sent to a local actor, the
 * wrapper arrives as it is.
 *
 * @example Usage
 * ```ts
 * import { Transfer } from "@understudy/core/worker";
 *
 * const pixels = new ArrayBuffer(1024);
 * const message = new Transfer({ kind: "frame", pixels }, [pixels]);
 * message.transfer.length; // 1
 * ```
 *
 * @typeParam T The message's type.
 */
export class Transfer<T = unknown> {
  /** The objects to move: `ArrayBuffer`s, `MessagePort`s, streams… */
  readonly transfer: readonly object[];

  /**
   * Creates a `Transfer`.
   *
   * @param message What the receiver gets.
   * @param transfer The objects inside `message` to move.
   */
  constructor(readonly message: T, transfer: readonly object[]) {
    if (!Array.isArray(transfer)) {
      fail(
        "create Transfer",
        "transfer",
        "an array of transferable objects",
        transfer,
      );
    }
    this.transfer = [...transfer];
    transfers.add(this);
    made = true;
  }
}
