// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * One connection per browser: `connectShared(name, url, options)` in every
 * tab of an origin, and only one of them (the leader, who holds the Web
 * Lock `name`) opens a supervised socket; the others (followers) send
 * through it over a BroadcastChannel, and hear its messages and status.
 * When the leader's tab closes, its lock is released and the next tab in
 * the lock's queue takes over with a socket of its own.
 *
 * Nothing is lost silently across a change of leader: a follower's message
 * the leader did not take yet (no "taken" came back) is sent again to the
 * next leader; one it took and did not confirm rejects with kind
 * `"not-confirmed"` (it may have gone out: at most once, as a socket's).
 * Where there is no `navigator.locks` (outside browsers), every instance
 * leads.
 *
 * @module
 */

import {
  connect,
  type ConnectOptions,
  SendFailedError,
  type SocketSnapshot,
  type SupervisedSocket,
} from "./supervised_socket.ts";
import { settingsFrom, type WebSocketOptions } from "./options.ts";
import type { WebSocketData } from "./websocket_like.ts";
import { fail } from "../validation.ts";

/** The part of `navigator.locks` used. */
interface LocksLike {
  request(name: string, callback: () => Promise<void>): Promise<unknown>;
}

/** The part of a `BroadcastChannel` used. */
interface ChannelLike {
  postMessage(message: unknown): void;
  onmessage: ((event: { readonly data: unknown }) => void) | null;
  close(): void;
}

/** What the tabs say to each other. */
type Frame =
  | { t: "hello" }
  | { t: "leader" }
  | { t: "status"; snapshot: SocketSnapshot }
  | { t: "message"; data: unknown }
  | { t: "send"; id: number; from: string; data: WebSocketData }
  | { t: "taken"; id: number; to: string }
  | { t: "sent"; id: number; to: string }
  | { t: "failed"; id: number; to: string; reason: string };

/**
 * The state of a shared socket: the leader's socket, as the leader last
 * reported it, and whether this tab leads.
 *
 * @example Usage
 * ```ts
 * import type { SharedSnapshot } from "@understudy/core/websocket";
 *
 * const label = (s: SharedSnapshot) => `${s.status}${s.leader ? " (this tab's socket)" : ""}`;
 * ```
 */
export interface SharedSnapshot extends SocketSnapshot {
  /** Whether this tab holds the connection. */
  readonly leader: boolean;
}

/** A follower's message on its way to a leader. */
interface Pending {
  readonly data: WebSocketData;
  taken: boolean;
  resolve(): void;
  reject(error: unknown): void;
}

let instances = 0;

/**
 * A connection shared by the tabs of an origin; made by
 * {@linkcode connectShared}.
 *
 * @example Usage
 * ```ts
 * import { connectShared } from "@understudy/core/websocket";
 *
 * const chat = connectShared("chat", "wss://chat.example/ws", { page: false });
 * chat.addEventListener("message", (data) => console.log(data));
 * await chat.close();
 * ```
 */
export class SharedSocket {
  readonly #name: string;
  readonly #url: WebSocketOptions["url"];
  readonly #options: ConnectOptions;
  readonly #id = `${Date.now().toString(36)}-${++instances}-${
    Math.random().toString(36).slice(2)
  }`;
  readonly #channel: ChannelLike | undefined;
  #socket?: SupervisedSocket;
  #release?: () => void;
  #closed = false;
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();
  #snapshot: SharedSnapshot = {
    status: "connecting",
    readyState: 0,
    attempt: 1,
    lastClose: undefined,
    dropped: 0,
    leader: false,
  };
  readonly #statusListeners = new Set<(snapshot: SharedSnapshot) => void>();
  readonly #messageListeners = new Set<(data: unknown) => void>();

  /**
   * Use {@linkcode connectShared}.
   *
   * @param name The lock's and channel's name, the same in every tab.
   * @param url Where to connect.
   * @param options As {@linkcode connect}'s.
   */
  constructor(
    name: string,
    url: WebSocketOptions["url"],
    options: ConnectOptions = {},
  ) {
    if (typeof name !== "string" || name === "") {
      fail("connect shared", "name", "a non-empty string", name);
    }
    // Checked here, in every tab: a follower may lead later.
    settingsFrom({ ...options, url });
    this.#name = `understudy-websocket:${name}`;
    this.#url = url;
    this.#options = options;
    const host = globalThis as unknown as {
      navigator?: { locks?: LocksLike };
      BroadcastChannel?: new (name: string) => ChannelLike;
    };
    const locks = host.navigator?.locks;
    if (!locks || !host.BroadcastChannel) {
      this.#lead();
      return;
    }
    const channel = this.#channel = new host.BroadcastChannel(this.#name);
    channel.onmessage = ({ data }) => this.#heard(data as Frame);
    this.#post({ t: "hello" });
    locks.request(
      this.#name,
      () =>
        new Promise<void>((release) => {
          if (this.#closed) return release();
          this.#release = release;
          this.#lead();
        }),
    );
  }

  /** Whether this tab holds the connection. */
  get leader(): boolean {
    return this.#snapshot.leader;
  }

  /** The leader's status (see `SocketStatus`). */
  get status(): SocketSnapshot["status"] {
    return this.#snapshot.status;
  }

  /**
   * The current snapshot: the same object until something changes. Bound.
   *
   * @returns The snapshot.
   */
  readonly getSnapshot = (): SharedSnapshot => this.#snapshot;

  /**
   * Calls `listener` with the snapshot now and after each change (as
   * `SupervisedSocket.subscribe`). Bound.
   *
   * @param listener Called with each snapshot.
   * @returns A function that removes the listener.
   */
  readonly subscribe = (
    listener: (snapshot: SharedSnapshot) => void,
  ): () => void => {
    this.#statusListeners.add(listener);
    listener(this.#snapshot);
    return () => this.#statusListeners.delete(listener);
  };

  /**
   * Calls `listener` with each incoming frame's data (`"message"`), or each
   * snapshot (`"status"`).
   *
   * @param type `"message"` or `"status"`.
   * @param listener The listener.
   */
  addEventListener(
    type: "message" | "status",
    listener: (value: never) => void,
  ): void {
    (type === "message" ? this.#messageListeners : this.#statusListeners)
      .add(listener as (value: unknown) => void);
  }

  /**
   * Removes a listener added with `addEventListener`.
   *
   * @param type `"message"` or `"status"`.
   * @param listener The listener.
   */
  removeEventListener(
    type: "message" | "status",
    listener: (value: never) => void,
  ): void {
    (type === "message" ? this.#messageListeners : this.#statusListeners)
      .delete(listener as (value: unknown) => void);
  }

  /**
   * Sends `data` over the shared connection; resolves once the leader's
   * socket confirmed it (as `SupervisedSocket.sendConfirmed`), rejects with
   * a {@linkcode SendFailedError}.
   *
   * @param data Text or binary data (structured-cloneable).
   * @returns A promise of the confirmation.
   */
  send(data: WebSocketData): Promise<void> {
    if (this.#closed) {
      return Promise.reject(
        new SendFailedError(this.#name, "connection closed"),
      );
    }
    const socket = this.#socket;
    if (socket) return socket.sendConfirmed(data).then(() => {});
    const id = this.#nextId++;
    return new Promise<void>((resolve, reject) => {
      this.#pending.set(id, { data, taken: false, resolve, reject });
      this.#post({ t: "send", id, from: this.#id, data });
    });
  }

  /**
   * Leaves: a leader closes its socket and lets the next tab take over; a
   * follower's messages still waiting reject (kind `"closed"`).
   *
   * @returns A promise of the end.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const { reject } of this.#pending.values()) {
      reject(new SendFailedError(this.#name, "connection closed"));
    }
    this.#pending.clear();
    this.#channel?.close();
    await this.#socket?.close();
    this.#release?.();
  }

  /** This tab holds the lock: it opens the socket, takes over what it had waiting, and tells the others. */
  #lead(): void {
    const socket = this.#socket = connect(this.#url, this.#options);
    socket.subscribe((snapshot) => {
      this.#update({ ...snapshot, leader: true });
      this.#post({ t: "status", snapshot });
    });
    socket.addEventListener("message", ({ data }) => {
      this.#emitMessage(data);
      this.#post({ t: "message", data });
    });
    this.#post({ t: "leader" });
    // What this tab had sent through the last leader, not taken by it.
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id);
      if (pending.taken) {
        pending.reject(new SendFailedError(this.#name, NOT_CONFIRMED));
      } else {socket.sendConfirmed(pending.data).then(
          pending.resolve,
          pending.reject,
        );}
    }
  }

  #heard(frame: Frame): void {
    if (this.#closed) return;
    const socket = this.#socket;
    if (socket) {
      // The leader: sends for the others, and tells a newcomer the status.
      if (frame.t === "hello") {
        this.#post({ t: "status", snapshot: socket.getSnapshot() });
      } else if (frame.t === "send") {
        const { id, from: to, data } = frame;
        this.#post({ t: "taken", id, to });
        socket.sendConfirmed(data).then(
          () => this.#post({ t: "sent", id, to }),
          (error) =>
            this.#post({
              t: "failed",
              id,
              to,
              reason: String(error?.reason ?? error),
            }),
        );
      }
      return;
    }
    switch (frame.t) {
      case "status":
        return this.#update({ ...frame.snapshot, leader: false });
      case "message":
        return this.#emitMessage(frame.data);
      case "leader":
        // A new leader: what the last one did not take goes to it; what it
        // took and did not confirm may have gone out, and is not sent twice.
        for (const [id, pending] of this.#pending) {
          if (pending.taken) {
            this.#pending.delete(id);
            pending.reject(new SendFailedError(this.#name, NOT_CONFIRMED));
          } else {
            this.#post({ t: "send", id, from: this.#id, data: pending.data });
          }
        }
        return;
    }
    if (
      (frame.t !== "taken" && frame.t !== "sent" && frame.t !== "failed") ||
      frame.to !== this.#id
    ) return;
    const pending = this.#pending.get(frame.id);
    if (!pending) return;
    if (frame.t === "taken") {
      pending.taken = true;
      return;
    }
    this.#pending.delete(frame.id);
    if (frame.t === "sent") pending.resolve();
    else pending.reject(new SendFailedError(this.#name, frame.reason));
  }

  #post(frame: Frame): void {
    // A leader that leaves says nothing more: the next one reports.
    if (!this.#closed) this.#channel?.postMessage(frame);
  }

  #update(snapshot: SharedSnapshot): void {
    this.#snapshot = snapshot;
    for (const listener of [...this.#statusListeners]) listener(snapshot);
  }

  #emitMessage(data: unknown): void {
    for (const listener of [...this.#messageListeners]) listener(data);
  }
}

/** Why a message a leader took is not sent again by the next. */
const NOT_CONFIRMED =
  "the leader left before confirming it; not sent again (it may have gone out)";

/**
 * Opens one connection for all the tabs of an origin that call it with the
 * same `name`: the first to get the Web Lock `name` opens a supervised
 * socket ({@linkcode connect}), the others send through it over a
 * BroadcastChannel and hear its frames and status; when the leader's tab
 * closes, the next one takes over. Without `navigator.locks` (outside
 * browsers), each call leads on its own.
 *
 * @example Usage
 * ```ts
 * import { connectShared } from "@understudy/core/websocket";
 *
 * const chat = connectShared("chat", "wss://chat.example/ws", { page: false });
 * chat.subscribe((s) => console.log(s.status, s.leader ? "leader" : "follower"));
 * await chat.close();
 * ```
 *
 * @param name The same in every tab that shares the connection.
 * @param url Where to connect (used by whichever tab leads).
 * @param options As {@linkcode connect}'s (used by whichever tab leads).
 * @returns The shared socket.
 * @throws {TypeError} If `name` is not a non-empty string.
 */
export function connectShared(
  name: string,
  url: WebSocketOptions["url"],
  options?: ConnectOptions,
): SharedSocket {
  return new SharedSocket(name, url, options);
}
