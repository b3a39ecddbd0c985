// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The socket actor: owns one WebSocket at a time, for one run of the
 * BackoffSupervisor's child. It stops itself when a connection fails or
 * closes and should be retried; the supervisor then respawns it after the
 * policy's delay, and the messages it had not sent (its stash and mailbox)
 * go back to the supervisor's stash through the runtime's child-lifecycle
 * hook, in order, for the next socket actor.
 *
 * It stops rather than throws: a throw would also dead-letter the internal
 * message that reported the close, and the supervisor treats both alike.
 * Pauses (offline, hidden page, giving up) keep it alive without a socket,
 * so the messages it holds stay in order and a resume needs no respawn.
 *
 * @module
 */

import { Actor } from "../runtime/actor.ts";
import { BackoffSupervisor } from "../patterns/backoff_supervisor.ts";
import { describeValue } from "../supervision/describe_value.ts";
import {
  WebSocketClosed,
  WebSocketConnecting,
  WebSocketGaveUp,
  WebSocketMessage,
  WebSocketOpened,
  WebSocketPaused,
} from "./events.ts";
import { Reconnect, Send, Sent } from "./messages.ts";
import type { SharedState } from "./shared_state.ts";
import type {
  CloseInfo,
  WebSocketConstructor,
  WebSocketLike,
} from "./websocket_like.ts";

/** From the connection actor: the pause flags changed. `delayMs` is the wait before connecting if no longer paused. */
export class PauseChanged {
  constructor(readonly delayMs: number) {}
}

/** The wake-up timer's message: connect now, reporting the wait. */
class Connect {
  constructor(readonly delayMs: number) {}
}

// What the socket and the URL function report, tagged with their attempt so
// that a late report of an abandoned attempt is ignored.
class Signal {
  constructor(readonly attempt: number) {}
}
class Resolved extends Signal {
  constructor(attempt: number, readonly url: unknown) {
    super(attempt);
  }
}
class Opened extends Signal {}
class Received extends Signal {
  constructor(attempt: number, readonly data: unknown) {
    super(attempt);
  }
}
class Ended extends Signal {
  constructor(attempt: number, readonly close: CloseInfo) {
    super(attempt);
  }
}

/** Unique across connections, so no socket actor mistakes another's report for its own. */
let attemptIds = 0;

const OPEN = 1;
const SOCKET_TIMERS = ["timeout", "ping", "silence", "stable"];
const ignore = (): void => {};

/** A failure the client detected itself: reported as an abnormal closure. */
function failure(reason: string): CloseInfo {
  return { code: 1006, reason, wasClean: false };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : describeValue(error);
}

/** One WebSocket at a time; see the module doc. Internal to this module. */
export class SocketActor extends Actor<unknown> {
  readonly #shared: SharedState;
  #ws: WebSocketLike | undefined = undefined;
  /** The attempt under way or open; 0 when there is none. */
  #attempt = 0;
  #open = false;

  constructor(shared: SharedState) {
    super();
    this.#shared = shared;
  }

  override preStart(): void {
    const shared = this.#shared;
    shared.socket = this.self;
    const delayMs = shared.delayMs;
    shared.delayMs = 0;
    if (shared.halted) shared.state = "gave-up";
    else if (!shared.pausedBy) return this.#connect(delayMs);
    this.#update(0);
  }

  override postStop(): void {
    const shared = this.#shared;
    if (shared.socket === this.self) shared.socket = undefined;
    const close = shared.closing;
    this.#end(close?.code ?? 1000, close?.reason ?? "", true);
  }

  onReceive(message: unknown): void {
    const shared = this.#shared;
    const { heartbeat, connectionTimeoutMs } = shared.settings;
    if (message instanceof Send) return this.#send(message);
    if (message instanceof PauseChanged) return this.#update(message.delayMs);
    if (message instanceof Reconnect) {
      this.#end(1000, "reconnect", true);
      this.context.timers.cancel("wake");
      return this.#connect(0);
    }
    if (message instanceof Connect) return this.#connect(message.delayMs);
    if (message instanceof Signal) {
      if (message.attempt !== this.#attempt) return; // abandoned attempt
      if (message instanceof Resolved) {
        return this.#openSocket(message.attempt, message.url);
      }
      if (message instanceof Opened) return this.#opened();
      if (message instanceof Received) {
        this.context.timers.cancel("silence");
        return shared.emit(
          new WebSocketMessage(shared.connection, message.data),
        );
      }
      if (message instanceof Ended) return this.#ended(message.close);
    }
    switch (message) {
      case "timeout":
        return this.#ended(
          failure(`connection timed out after ${connectionTimeoutMs} ms`),
        );
      case "ping": {
        const ping = heartbeat!.message ?? "ping";
        this.#trySend(typeof ping === "function" ? ping() : ping);
        if (!this.context.timers.isTimerActive("silence")) {
          this.context.timers.startSingleTimer(
            "silence",
            "silence",
            heartbeat!.timeoutMs,
          );
        }
        return;
      }
      case "silence":
        return this.#ended(
          failure(
            `heartbeat timed out: no frame within ${
              heartbeat!.timeoutMs
            } ms of a ping`,
          ),
        );
      case "stable":
        // Up long enough: the next failure starts again from the first delay.
        shared.attempts = shared.retries = 0;
        return this.context.parent.tell(BackoffSupervisor.Reset);
    }
    this.context.system.publishDeadLetter(
      message,
      this.sender as never,
      this.self as never,
      "unknown message",
    );
  }

  /** Sends if open, else keeps the message for later, in order. */
  #send(send: Send): void {
    const shared = this.#shared;
    if (this.#open && this.#ws!.readyState === OPEN) {
      const error = this.#trySend(send.data);
      if (error === undefined) {
        return this.sender?.tell(new Sent(send), this.self as never);
      }
      // Addressed to the connection actor, which reports it as dropped.
      this.context.system.publishDeadLetter(
        send,
        this.sender as never,
        shared.connection as never,
        `the socket refused it: ${errorText(error)}`,
      );
    } else if (!this.context.stash()) {
      shared.reportDropped(
        send,
        `queue full (maxQueued ${shared.settings.maxQueued})`,
      );
    }
  }

  /** @returns The error if the socket threw. */
  #trySend(data: Send["data"]): unknown {
    try {
      if (this.#ws?.readyState === OPEN) this.#ws.send(data);
    } catch (error) {
      return error ?? "error";
    }
  }

  /** Connects unless paused; pauses (closing the socket) if it must. */
  #update(delayMs: number): void {
    const shared = this.#shared;
    const pause = shared.pausedBy;
    const timers = this.context.timers;
    if (shared.halted) return; // only Reconnect goes on from here
    if (pause) {
      // An open socket may outlive a spell offline; the heartbeat finds it if it died.
      if ((shared.hidden || !this.#open) && shared.state !== pause) {
        this.#end(1000, `paused: ${pause}`, true);
        timers.cancel("wake");
        shared.state = pause;
        shared.emit(new WebSocketPaused(shared.connection, pause));
      }
    } else if (!this.#attempt && !timers.isTimerActive("wake")) {
      if (delayMs > 0) {
        shared.state = "waiting";
        timers.startSingleTimer("wake", new Connect(delayMs), delayMs);
      } else this.#connect(0);
    }
  }

  #connect(delayMs: number): void {
    const shared = this.#shared;
    const { url, connectionTimeoutMs } = shared.settings;
    const attempt = this.#attempt = ++attemptIds;
    shared.state = "connecting";
    shared.emit(
      new WebSocketConnecting(shared.connection, ++shared.attempts, delayMs),
    );
    this.context.timers.startSingleTimer(
      "timeout",
      "timeout",
      connectionTimeoutMs,
    );
    if (typeof url === "string") return this.#openSocket(attempt, url);
    new Promise((resolve) => resolve(url())).then(
      (resolved) => this.#signal(new Resolved(attempt, resolved)),
      (error) =>
        this.#signal(
          new Ended(
            attempt,
            failure(`the url function failed: ${errorText(error)}`),
          ),
        ),
    );
  }

  /** Reports to this actor, unless the attempt was abandoned (so nothing is sent to a stopped actor). */
  #signal(signal: Signal): void {
    if (signal.attempt === this.#attempt) this.self.tell(signal);
  }

  #openSocket(attempt: number, url: unknown): void {
    const { WebSocket, protocols, binaryType } = this.#shared.settings;
    let ws: WebSocketLike;
    try {
      if (typeof url !== "string") {
        throw new TypeError(
          `the url function returned ${describeValue(url)}, not a string`,
        );
      }
      const Socket = WebSocket ??
        (globalThis as unknown as { WebSocket: WebSocketConstructor })
          .WebSocket;
      ws = protocols === undefined
        ? new Socket(url)
        : new Socket(url, protocols);
    } catch (error) {
      return this.#signal(
        new Ended(
          attempt,
          failure(`cannot open the socket: ${errorText(error)}`),
        ),
      );
    }
    this.#ws = ws;
    ws.binaryType = binaryType;
    ws.onopen = () => this.#signal(new Opened(attempt));
    ws.onmessage = (event: { data: unknown }) =>
      this.#signal(new Received(attempt, event.data));
    ws.onclose = ({ code, reason, wasClean }: CloseInfo) =>
      this.#signal(
        new Ended(attempt, {
          code,
          reason: String(reason ?? ""),
          wasClean: !!wasClean,
        }),
      );
    // A close always follows an error; and the `ws` package throws an error nobody listens to.
    ws.onerror = ignore;
  }

  #opened(): void {
    const shared = this.#shared;
    const { heartbeat, minUptimeMs } = shared.settings;
    const timers = this.context.timers;
    this.#open = true;
    timers.cancel("timeout");
    shared.state = "open";
    shared.emit(
      new WebSocketOpened(shared.connection, this.#ws!.protocol ?? ""),
    );
    if (heartbeat) {
      timers.startTimerWithFixedDelay("ping", "ping", heartbeat.intervalMs);
    }
    timers.startSingleTimer("stable", "stable", minUptimeMs);
    this.context.unstashAll();
  }

  /** The attempt failed or the socket closed: retry after a backoff, pause, or give up. */
  #ended(close: CloseInfo): void {
    const shared = this.#shared;
    const { shouldReconnect, maxRetries } = shared.settings;
    this.#end(close.code, close.reason, close.wasClean);
    let gaveUp: string | undefined;
    if (shouldReconnect && !shouldReconnect(close)) {
      gaveUp = `shouldReconnect returned false for close code ${close.code}`;
    } else if (shared.pausedBy) {
      return this.#update(0);
    } else if (shared.retries >= maxRetries) {
      gaveUp =
        `gave up after ${shared.retries} retries (maxRetries ${maxRetries})`;
    }
    if (gaveUp !== undefined) {
      shared.halted = true;
      shared.state = "gave-up";
      return shared.emit(new WebSocketGaveUp(shared.connection, gaveUp, close));
    }
    shared.state = "waiting";
    shared.socket = undefined;
    this.context.stopSelf();
  }

  /** Closes the socket of the current attempt, if any, and reports it. */
  #end(code: number, reason: string, wasClean: boolean): void {
    if (!this.#attempt) return;
    const shared = this.#shared;
    const ws = this.#ws;
    this.#attempt = 0;
    this.#ws = undefined;
    this.#open = false;
    for (const key of SOCKET_TIMERS) this.context.timers.cancel(key);
    if (ws !== undefined) {
      ws.onopen = ws.onmessage = ws.onclose = null;
      if (ws.readyState <= OPEN) {
        try {
          // 1006 may not be sent: a failure the client detected closes with 4000.
          ws.close(code === 1006 ? 4000 : code, reason);
        } catch {
          ws.close();
        }
      }
    }
    shared.emit(new WebSocketClosed(shared.connection, code, reason, wasClean));
  }
}
