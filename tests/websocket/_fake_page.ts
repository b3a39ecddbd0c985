// Copyright 2026 the understudy authors. MIT license.
// A page to drive from tests (not a test file itself): online/offline on the
// window, visibilitychange on its document, and a count of listeners.

import type { PageLike } from "../../src/websocket/mod.ts";

type Listener = (event: { readonly type: string }) => void;

class Target {
  readonly listeners = new Map<string, Set<Listener>>();
  addEventListener(type: string, listener: Listener): void {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type)!.add(listener);
  }
  removeEventListener(type: string, listener: Listener): void {
    this.listeners.get(type)?.delete(listener);
  }
  dispatch(type: string): void {
    for (const listener of this.listeners.get(type) ?? []) listener({ type });
  }
  get listenerCount(): number {
    let count = 0;
    for (const set of this.listeners.values()) count += set.size;
    return count;
  }
}

export class FakePage extends Target implements PageLike {
  readonly navigator = { onLine: true };
  readonly document = Object.assign(new Target(), {
    visibilityState: "visible",
  });

  goOffline(): void {
    this.navigator.onLine = false;
    this.dispatch("offline");
  }
  goOnline(): void {
    this.navigator.onLine = true;
    this.dispatch("online");
  }
  hide(): void {
    this.document.visibilityState = "hidden";
    this.document.dispatch("visibilitychange");
  }
  show(): void {
    this.document.visibilityState = "visible";
    this.document.dispatch("visibilitychange");
  }
  /** The page goes into the back-forward cache, or is left. */
  pagehide(): void {
    this.dispatch("pagehide");
  }
  /** The page is shown again (from the back-forward cache). */
  pageshow(): void {
    this.dispatch("pageshow");
  }
  /** The browser freezes the page (a background tab, a discarded one). */
  freeze(): void {
    this.document.dispatch("freeze");
  }
  resume(): void {
    this.document.dispatch("resume");
  }
  /** Listeners on the window and the document. */
  get allListeners(): number {
    return this.listenerCount + this.document.listenerCount;
  }
}
