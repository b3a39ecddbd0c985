// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The shape of a browser page this module reacts to: `online`, `offline`,
 * `pagehide` and `pageshow` on the window, `visibilitychange`, `freeze` and
 * `resume` on its document. `globalThis`
 * fits in a browser; in Deno, Bun and Node it has no document and no
 * `navigator.onLine`, so nothing happens.
 *
 * @module
 */

/**
 * Something listeners can be added to and removed from.
 *
 * @example Usage
 * ```ts
 * import type { EventTargetLike } from "@understudy/core/websocket";
 *
 * const target: EventTargetLike = new EventTarget();
 * ```
 */
export interface EventTargetLike {
  /**
   * Adds a listener.
   *
   * @param type The event type.
   * @param listener Called with each event.
   */
  addEventListener(
    type: string,
    listener: (event: { readonly type: string }) => void,
  ): void;
  /**
   * Removes a listener added before.
   *
   * @param type The event type.
   * @param listener The listener.
   */
  removeEventListener(
    type: string,
    listener: (event: { readonly type: string }) => void,
  ): void;
}

/**
 * A page: where `online`/`offline` and `pagehide`/`pageshow` events come
 * from (the window), whether the network is up at start
 * (`navigator.onLine`), whether the page is hidden
 * (`document.visibilityState`, `visibilitychange`), and when it is frozen
 * (`freeze`, `resume` on the document).
 *
 * @example A page to drive from a test
 * ```ts
 * import type { PageLike } from "@understudy/core/websocket";
 *
 * const page: PageLike & EventTarget = Object.assign(new EventTarget(), {
 *   navigator: { onLine: true },
 * });
 * page.dispatchEvent(new Event("offline"));
 * ```
 */
export interface PageLike extends EventTargetLike {
  /** `onLine: false` means the connection starts paused. */
  readonly navigator?: { readonly onLine?: boolean };
  /** The document whose visibility is watched, if any. */
  readonly document?: EventTargetLike & { readonly visibilityState?: string };
}
