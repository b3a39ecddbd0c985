// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The front door: `connect(url, options)` gives a supervised socket in one
 * call, its own actor system made for it (and terminated on `close`) when
 * none is given. It is the connection actor of `websocketProps` (its `ref`
 * is exposed, under the same supervision), with what a page needs around
 * it: `send`, a confirming send, a status, WebSocket-style listeners, and a
 * store (`subscribe`/`getSnapshot`) that React, Svelte, Vue and Solid read
 * as they are.
 *
 * Every field of the snapshot is derived from the connection's events, in
 * the connection actor's turn: the socket mirrors what the actor reported,
 * never guesses ahead of it.
 *
 * @module
 */

import {
  type ActorRef,
  type AskOptions,
  UndeliveredError,
} from "../runtime/actor_ref.ts";
import { ActorSystem } from "../runtime/actor_system.ts";
import { ActorStopped } from "../runtime/event_stream.ts";
import { fail } from "../validation.ts";
import {
  WebSocketClosed,
  WebSocketConnecting,
  type WebSocketEvent,
  WebSocketGaveUp,
  WebSocketMessage,
  WebSocketMessageDropped,
  WebSocketOpened,
  WebSocketPaused,
  WebSocketReconnectScheduled,
} from "./events.ts";
import {
  Close,
  Reconnect,
  Send,
  type Sent,
  type WebSocketCommand,
} from "./messages.ts";
import type { WebSocketOptions } from "./options.ts";
import type { CloseInfo, WebSocketData } from "./websocket_like.ts";
import { websocketProps } from "./websocket_props.ts";

/**
 * What a supervised socket is doing.
 *
 * - `"connecting"`: an attempt is under way.
 * - `"open"`: the socket is open (with a heartbeat: and a first frame came
 *   back since).
 * - `"reconnecting"`: the last attempt ended; the next waits its backoff
 *   delay.
 * - `"paused"`: offline, or the page was hidden for `hiddenCloseMs`.
 * - `"gave-up"`: `maxRetries` reached, or `shouldReconnect` said no; until
 *   `reconnect()`.
 * - `"closing"`, `"closed"`: `close()` was called; it is done.
 *
 * @example Usage
 * ```ts
 * import type { SocketStatus } from "@understudy/core/websocket";
 *
 * const label = (status: SocketStatus) => status === "open" ? "online" : "offline";
 * ```
 */
export type SocketStatus =
  | "connecting"
  | "open"
  | "reconnecting"
  | "paused"
  | "gave-up"
  | "closing"
  | "closed";

/**
 * The state of a supervised socket at one moment: the same object until
 * something changes, so that a store reader comparing by identity
 * (React's `useSyncExternalStore`) renders only on a change.
 *
 * @example Usage
 * ```ts
 * import type { SocketSnapshot } from "@understudy/core/websocket";
 *
 * const banner = (s: SocketSnapshot) =>
 *   s.status === "reconnecting" ? `reconnecting (attempt ${s.attempt})` : s.status;
 * ```
 */
export interface SocketSnapshot {
  /** What the socket is doing. */
  readonly status: SocketStatus;
  /**
   * As a WebSocket's: 0 connecting (also while reconnecting, paused or
   * given up), 1 open, 2 closing, 3 closed.
   */
  readonly readyState: 0 | 1 | 2 | 3;
  /** Attempts since the last stable connection, the current one included (1 for the first, which starts at once). */
  readonly attempt: number;
  /** How the last connection or attempt ended, if one did. */
  readonly lastClose: CloseInfo | undefined;
  /** Messages dropped so far (dead letters; see `WebSocketMessageDropped`). */
  readonly dropped: number;
}

/**
 * The events `addEventListener` takes, by type, and the event each
 * listener gets: `"open"`, `"message"` and `"close"` carry what a
 * WebSocket's do (`data`; `code`, `reason`, `wasClean`), and `"status"`
 * the new {@linkcode SocketSnapshot}.
 *
 * @example Usage
 * ```ts
 * import type { SocketEventMap } from "@understudy/core/websocket";
 *
 * const onMessage = (event: SocketEventMap["message"]) => console.log(event.data);
 * ```
 */
export interface SocketEventMap {
  /** The socket opened. */
  open: WebSocketOpened;
  /** A frame arrived. */
  message: WebSocketMessage;
  /** A socket closed, or an attempt failed. */
  close: WebSocketClosed;
  /** An attempt starts. */
  connecting: WebSocketConnecting;
  /** The next attempt is scheduled. */
  reconnecting: WebSocketReconnectScheduled;
  /** Attempts are paused. */
  paused: WebSocketPaused;
  /** Attempts stopped (`maxRetries`, `shouldReconnect`). */
  "gave-up": WebSocketGaveUp;
  /** A message will not be sent. */
  dropped: WebSocketMessageDropped;
  /** The snapshot changed. */
  status: SocketSnapshot;
}

/**
 * Why a confirming send failed, as one word: the message was not sent, or
 * (`"not-confirmed"`) was written once and may not have arrived.
 *
 * @example Usage
 * ```ts
 * import type { SendFailure } from "@understudy/core/websocket";
 *
 * const retryable = (kind: SendFailure) => kind === "gave-up" || kind === "expired";
 * ```
 */
export type SendFailure =
  | "gave-up"
  | "expired"
  | "queue-full"
  | "too-large"
  | "not-confirmed"
  | "not-acknowledged"
  | "closed"
  | "failed";

/** Reasons of dead letters, by the words they start with or contain. */
const FAILURES: readonly [RegExp, SendFailure][] = [
  [/^gave up/, "gave-up"],
  [/^expired/, "expired"],
  [/full|overflow/, "queue-full"],
  [/maxMessageBytes/, "too-large"],
  [/not sent again/, "not-confirmed"],
  [/^not acknowledged/, "not-acknowledged"],
  [/clos|stop|terminat/, "closed"],
];

/**
 * A confirming send ({@linkcode SupervisedSocket.sendConfirmed}) failed:
 * its message went to dead letters. `kind` says why in one word, `reason`
 * in words.
 *
 * @example Usage
 * ```ts
 * import { SendFailedError } from "@understudy/core/websocket";
 *
 * const onFailure = (error: unknown) => {
 *   if (error instanceof SendFailedError && error.kind === "gave-up") console.log("offline: try later");
 * };
 * ```
 */
export class SendFailedError extends UndeliveredError {
  /** Why, in one word. */
  readonly kind: SendFailure;

  /**
   * Creates the error.
   *
   * @param path The connection actor's path.
   * @param reason Why the message was not delivered.
   */
  constructor(path: string, reason: string) {
    super(path, reason);
    this.name = "SendFailedError";
    this.kind = FAILURES.find(([pattern]) => pattern.test(reason))?.[1] ??
      "failed";
  }
}

/** The longest wait an ask takes: a confirming send waits, by default, until it settles. */
const FOREVER_MS = 2_147_483_647;

/**
 * Options of {@linkcode connect}: those of `websocketProps` but `url`, and
 * where the connection lives.
 *
 * @example Usage
 * ```ts
 * import type { ConnectOptions } from "@understudy/core/websocket";
 *
 * const options: ConnectOptions = { maxRetries: 10, heartbeat: { intervalMs: 25_000, timeoutMs: 5_000 } };
 * ```
 */
export interface ConnectOptions extends Omit<WebSocketOptions, "url"> {
  /** The system to run in; default a new one (log level `"warn"`), terminated by `close`. */
  system?: ActorSystem;
  /** The connection actor's name; default one the system makes. */
  name?: string;
}

type Listener = (event: never) => void;

/**
 * A WebSocket that comes back by itself; made by {@linkcode connect}.
 *
 * @example Usage
 * ```ts
 * import { connect } from "@understudy/core/websocket";
 *
 * const socket = connect("wss://chat.example/ws", { page: false });
 * socket.addEventListener("message", (event) => console.log(event.data));
 * socket.sendConfirmed("hello").then(() => console.log("sent"), (error) => console.log(error.kind));
 * await socket.close(); // "closed": hello was never written
 * ```
 */
export class SupervisedSocket {
  /** The connection actor, under supervision: tell it `Send`, `Close` and `Reconnect` as any actor. */
  readonly ref: ActorRef<WebSocketCommand>;
  /** The system it runs in. */
  readonly system: ActorSystem;
  readonly #ownSystem: boolean;
  #snapshot: SocketSnapshot = {
    status: "connecting",
    readyState: 0,
    attempt: 1,
    lastClose: undefined,
    dropped: 0,
  };
  readonly #listeners = new Map<string, Set<Listener>>();
  #closed?: Promise<void>;

  /**
   * Use {@linkcode connect}.
   *
   * @param url Where to connect (see `WebSocketOptions.url`).
   * @param options See {@linkcode ConnectOptions}.
   */
  constructor(url: WebSocketOptions["url"], options: ConnectOptions = {}) {
    if (typeof options !== "object" || options === null) {
      fail("connect", "options", "an object", options);
    }
    const { system, name, subscriber, ...rest } = options;
    if (system !== undefined && !(system instanceof ActorSystem)) {
      fail("connect", "system", "an ActorSystem", system);
    }
    // Checked before a system is made: a bad option leaves nothing behind.
    const props = websocketProps({
      ...rest,
      url,
      subscriber: (event) => {
        // A listener that throws skips neither the snapshot nor the subscriber.
        try {
          this.#heard(event);
        } finally {
          if (typeof subscriber === "function") subscriber(event);
          else subscriber?.tell(event);
        }
      },
    });
    this.#ownSystem = !system;
    this.system = system ??
      ActorSystem.create("websocket", { logLevel: "warn" });
    this.ref = this.system.actorOf(props, name);
  }

  /** What the socket is doing now (as `getSnapshot().status`). */
  get status(): SocketStatus {
    return this.#snapshot.status;
  }

  /** As a WebSocket's: 0 connecting, 1 open, 2 closing, 3 closed. */
  get readyState(): 0 | 1 | 2 | 3 {
    return this.#snapshot.readyState;
  }

  /**
   * The current snapshot: the same object until something changes. Bound,
   * so it can be passed as it is: `useSyncExternalStore(socket.subscribe,
   * socket.getSnapshot)`.
   *
   * @returns The snapshot.
   */
  readonly getSnapshot = (): SocketSnapshot => this.#snapshot;

  /**
   * Calls `listener` with the snapshot now and after each change, until the
   * returned function is called. Bound. This is Svelte's store contract
   * (`$socket` in a component), what Solid's `from(socket)` and Vue's
   * `watchEffect`/`shallowRef` glue read, and, passed to React's
   * `useSyncExternalStore` with `getSnapshot`, a change notification
   * (React ignores the argument, and a call at once is harmless to it).
   *
   * @param listener Called with each snapshot.
   * @returns A function that removes the listener.
   */
  readonly subscribe = (
    listener: (snapshot: SocketSnapshot) => void,
  ): () => void => {
    this.addEventListener("status", listener);
    listener(this.#snapshot);
    return () => this.removeEventListener("status", listener);
  };

  /**
   * Sends `data`: at once if the socket is open, else after the next
   * connect, in order with every other send; dropped messages are dead
   * letters and `"dropped"` events.
   *
   * @param data Text or binary data.
   * @throws {TypeError} If `data` is no text or binary data.
   */
  send(data: WebSocketData): void {
    this.ref.tell(new Send(data));
  }

  /**
   * Sends `data`, and resolves once it is delivered as far as the mode can
   * tell: by default, once it was written to an open socket and its bytes
   * left the buffer; in acknowledged mode (`ack`), once the server
   * acknowledged it. Rejects with a {@linkcode SendFailedError} if it goes
   * to dead letters: dropped, given up (`maxRetries`), expired (`ttlMs`),
   * closed, or still in the buffer when its connection ended. Waits as long
   * as it takes unless `options` set a timeout or a signal.
   *
   * @param data Text or binary data.
   * @param options A timeout in milliseconds, or a timeout and a signal.
   * @returns The `Sent` reply.
   * @throws {TypeError} If `data` is no text or binary data.
   */
  sendConfirmed(
    data: WebSocketData,
    options: number | AskOptions = FOREVER_MS,
  ): Promise<Sent> {
    return this.ref.ask<Sent>(new Send(data), options).catch((error) => {
      throw error instanceof UndeliveredError
        ? new SendFailedError(error.path, error.reason)
        : error;
    });
  }

  /** Connects again now, with the retry count reset (after giving up too). */
  reconnect(): void {
    this.ref.tell(new Reconnect());
  }

  /**
   * Closes for good: the socket with `code` and `reason`, the connection
   * actor, and the system if `connect` made it. Messages still waiting go
   * to dead letters (their confirming sends reject). Resolves when all of
   * it is done; a second call gets the same promise.
   *
   * @param code 1000 or 3000–4999.
   * @param reason At most 123 bytes of UTF-8.
   * @returns A promise of the end.
   * @throws {TypeError} If `code` is not a number or `reason` not a string.
   * @throws {RangeError} If `code` or `reason` is out of range.
   */
  close(code?: number, reason?: string): Promise<void> {
    if (this.#closed) return this.#closed;
    const close = new Close(code, reason);
    this.#update({ status: "closing", readyState: 2 });
    const { system, ref } = this;
    this.#closed = new Promise<void>((resolve) => {
      const unsubscribe = system.eventStream.subscribe(
        ActorStopped,
        (stopped) => {
          if (stopped.ref.path !== ref.path) return;
          unsubscribe();
          resolve();
        },
      );
      system.whenTerminated.then(() => resolve());
      ref.tell(close);
    }).then(async () => {
      if (this.#ownSystem) await system.terminate();
      this.#update({ status: "closed", readyState: 3 });
    });
    return this.#closed;
  }

  /**
   * Calls `listener` with each event of `type` (see
   * {@linkcode SocketEventMap}), in order, in the connection actor's turn.
   * A listener that throws is logged; the others still run.
   *
   * @typeParam K The event type.
   * @param type The event type.
   * @param listener Called with each event.
   */
  addEventListener<K extends keyof SocketEventMap>(
    type: K,
    listener: (event: SocketEventMap[K]) => void,
  ): void {
    let set = this.#listeners.get(type);
    if (!set) this.#listeners.set(type, set = new Set());
    set.add(listener as Listener);
  }

  /**
   * Removes a listener added with `addEventListener`.
   *
   * @typeParam K The event type.
   * @param type The event type.
   * @param listener The listener.
   */
  removeEventListener<K extends keyof SocketEventMap>(
    type: K,
    listener: (event: SocketEventMap[K]) => void,
  ): void {
    this.#listeners.get(type)?.delete(listener as Listener);
  }

  /** An event of the connection: the snapshot follows it, then its listeners hear it. */
  #heard(event: WebSocketEvent): void {
    const snapshot = this.#snapshot;
    const closing = snapshot.readyState >= 2;
    let type: keyof SocketEventMap | undefined;
    if (event instanceof WebSocketConnecting) {
      type = "connecting";
      if (!closing) {
        this.#update({
          status: "connecting",
          readyState: 0,
          attempt: event.attempt,
        });
      }
    } else if (event instanceof WebSocketOpened) {
      type = "open";
      if (!closing) this.#update({ status: "open", readyState: 1 });
    } else if (event instanceof WebSocketMessage) type = "message";
    else if (event instanceof WebSocketClosed) {
      type = "close";
      const { code, reason, wasClean } = event;
      this.#update(
        closing ? { lastClose: { code, reason, wasClean } } : {
          // A pause closes with "paused: …", and its event follows.
          status: reason.startsWith("paused: ") ? "paused" : "reconnecting",
          readyState: 0,
          lastClose: { code, reason, wasClean },
        },
      );
    } else if (event instanceof WebSocketReconnectScheduled) {
      type = "reconnecting";
      if (!closing) this.#update({ status: "reconnecting", readyState: 0 });
    } else if (event instanceof WebSocketPaused) {
      type = "paused";
      if (!closing) this.#update({ status: "paused", readyState: 0 });
    } else if (event instanceof WebSocketGaveUp) {
      type = "gave-up";
      if (!closing) this.#update({ status: "gave-up", readyState: 0 });
    } else if (event instanceof WebSocketMessageDropped) {
      type = "dropped";
      this.#update({ dropped: event.droppedTotal });
    }
    if (type) this.#emit(type, event);
  }

  /** A new snapshot with `change`, if it changes anything; `"status"` listeners hear it. */
  #update(change: Partial<SocketSnapshot>): void {
    const snapshot = this.#snapshot;
    if (
      (Object.keys(change) as (keyof SocketSnapshot)[]).every((key) =>
        change[key] === snapshot[key]
      )
    ) return;
    this.#emit("status", this.#snapshot = { ...snapshot, ...change });
  }

  #emit(type: keyof SocketEventMap, event: unknown): void {
    let failure: { error: unknown } | undefined;
    for (const listener of [...(this.#listeners.get(type) ?? [])]) {
      try {
        (listener as (event: unknown) => void)(event);
      } catch (error) {
        failure ??= { error };
      }
    }
    // The connection actor logs it ("WebSocket subscriber threw").
    if (failure) throw failure.error;
  }
}

/**
 * Opens a WebSocket that comes back by itself, in one call: a supervised
 * connection actor (`websocketProps`), in `options.system` or in an actor
 * system made for it (terminated by `close`). Options are checked here, so
 * a bad one throws at this call.
 *
 * @example A chat client
 * ```ts
 * import { connect } from "@understudy/core/websocket";
 *
 * const chat = connect("wss://chat.example/ws", { heartbeat: { intervalMs: 25_000, timeoutMs: 5_000 }, page: false });
 * chat.addEventListener("message", (event) => console.log(event.data));
 * const unsubscribe = chat.subscribe((snapshot) => console.log(snapshot.status));
 * chat.send("hello");
 * unsubscribe();
 * await chat.close();
 * ```
 *
 * @param url Where to connect: a ws:, wss:, http: or https: URL, or a function returning one.
 * @param options See {@linkcode ConnectOptions}.
 * @returns The supervised socket.
 * @throws {TypeError} If an option has the wrong type (naming it and the value).
 * @throws {RangeError} If a number is out of range (naming it and the value).
 */
export function connect(
  url: WebSocketOptions["url"],
  options?: ConnectOptions,
): SupervisedSocket {
  return new SupervisedSocket(url, options);
}
