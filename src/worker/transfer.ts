// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * {@linkcode Transfer}: a message sent across a worker boundary together
 * with the objects to move rather than copy.
 *
 * @module
 */

import { fail } from "../validation.ts";

/**
 * Whether `value` is a {@linkcode Transfer}, asked without calling anything
 * of `value`'s (`instanceof` runs a proxy's traps, and a revoked proxy
 * throws; a private brand's `in` runs none): a `tell` checks it in the
 * sender's turn, for every message (a brand costs less than the `WeakSet`
 * lookup it replaces). Internal.
 */
export function isTransfer(value: unknown): value is Transfer {
  return typeof value === "object" && value !== null && Transfer.is(value);
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
  readonly #transfer = true;

  /**
   * Whether `value` (an object) is a `Transfer`. Internal.
   *
   * @example Usage
   * ```ts
   * import { Transfer } from "@understudy/core/worker";
   *
   * Transfer.is(new Transfer("hello", [])); // true
   * ```
   *
   * @param value Any object.
   * @returns Whether it was made by `new Transfer`.
   */
  static is(value: object): boolean {
    return #transfer in value;
  }

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
  }
}
