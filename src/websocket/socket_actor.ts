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
 * It stops rather than throws: the runtime would dead-letter a message that
 * crashed it, and the supervisor treats a stop and a crash alike. Pauses
 * (offline, hidden page, giving up) keep it alive without a socket, so the
 * messages it holds stay in order and a resume needs no respawn.
 *
 * The socket's own events (open, message, close) and the URL function's
 * result are handled as they come, not through the mailbox: JavaScript runs
 * one thing at a time, so they change this actor's state only between two
 * messages, and each handler first checks that its attempt is still the
 * current one, so a late event of an abandoned socket changes nothing.
 *
 * @module
 */

import { Actor } from "../runtime/actor.ts";
import { BackoffSupervisor } from "../patterns/backoff_supervisor.ts";
import {
  WebSocketClosed,
  WebSocketConnecting,
  WebSocketGaveUp,
  WebSocketMessage,
  WebSocketOpened,
  WebSocketPaused,
} from "./events.ts";
import { Reconnect, Send, Sent } from "./messages.ts";
import { URL_EXPECTED, webSocketUrl } from "./options.ts";
import { describeError, describeValue } from "../supervision/describe_value.ts";
import type { SharedState } from "./shared_state.ts";
import type {
  CloseInfo,
  WebSocketConstructor,
  WebSocketLike,
} from "./websocket_like.ts";

const OPEN = 1;

/** A failure the client detected itself: reported as an abnormal closure. */
const failure = (reason: string): CloseInfo => ({
  code: 1006,
  reason,
  wasClean: false,
});

/**
 * One WebSocket at a time; see the module doc. Besides `Send` and
 * `Reconnect` it accepts "update" from the connection actor: the pause
 * flags changed, or it is time to connect again. Its timers run only while
 * it has an attempt under way or open: "ping" and "stable" deliver their
 * key; "deadline" (the connection timeout, then, while open, the
 * heartbeat's timeout after a ping) delivers the failure it detects.
 * Internal to this module.
 */
export class SocketActor extends Actor<unknown> {
  readonly #shared: SharedState;
  #ws?: WebSocketLike;
  /** A token for the attempt under way or open, if any: each attempt's handlers compare theirs to it. */
  #attempt?: object;
  /** The pause last reported, so each is reported once. */
  #pausedBy?: string;

  constructor(shared: SharedState) {
    super();
    this.#shared = shared;
  }

  override preStart(): void {
    const shared = this.#shared;
    shared.socket = this.self;
    this.#update();
  }

  override postStop(): void {
    const shared = this.#shared;
    if (shared.socket === this.self) shared.socket = undefined;
    this.#end(shared.close.code, shared.close.reason);
  }

  onReceive(message: unknown): void {
    const shared = this.#shared;
    const heartbeat = shared.settings.heartbeat!;
    const timers = this.context.timers;
    if (message instanceof Send) return this.#send(message);
    if (message instanceof Reconnect) {
      this.#end(1000, "reconnect");
      return this.#connect();
    }
    switch (message) {
      case "update":
        return this.#update();
      case "ping": {
        const ping = heartbeat.message ?? "ping";
        this.#ws!.send(typeof ping === "function" ? ping() : ping);
        if (!timers.isTimerActive("deadline")) {
          timers.startSingleTimer(
            "deadline",
            failure(`no frame within ${heartbeat.timeoutMs} ms of a ping`),
            heartbeat.timeoutMs,
          );
        }
        return;
      }
      case "stable":
        // Up long enough: the next failure starts again from the first delay.
        shared.attempts = shared.retries = 0;
        return this.context.parent.tell(BackoffSupervisor.Reset);
      default: // the failure the "deadline" timer detected
        return this.#ended(message as CloseInfo);
    }
  }

  /**
   * Sends if open, else keeps the message for later, in order. (An open
   * socket throws only for a bad frame, which `Send` already refused; if it
   * threw anyway, this actor would crash and be respawned like after a
   * close, with the message in dead letters.)
   */
  #send(send: Send): void {
    const shared = this.#shared;
    const ws = this.#ws;
    if (ws?.readyState === OPEN) {
      shared.pending--; // first: should send throw, the crash must not keep the slot
      ws.send(send.data);
      this.sender?.tell(new Sent(send), this.self as never);
    } else if (!this.context.stash()) {
      // More arrived in flight while open than maxQueued, and the socket closed.
      shared.pending--;
      shared.drop(send, null); // the runtime published its dead letter
    }
  }

  /**
   * Pauses (closing the socket) if it must, else connects unless an attempt
   * is under way.
   */
  #update(): void {
    const shared = this.#shared;
    const pause = shared.pausedBy;
    if (shared.halted) return; // only Reconnect goes on from here
    if (!pause) {
      this.#pausedBy = undefined;
      if (!this.#attempt) this.#connect();
    } else if ((shared.hidden || !shared.open) && this.#pausedBy !== pause) {
      // An open socket may outlive a spell offline; the heartbeat finds it if it died.
      this.#end(1000, `paused: ${pause}`);
      this.#pausedBy = pause;
      shared.emit(WebSocketPaused, pause);
    }
  }

  /** Starts an attempt, after `shared.delayMs` was waited. */
  #connect(): void {
    const shared = this.#shared;
    const { url, WebSocket, protocols, connectionTimeoutMs } = shared.settings;
    const timers = this.context.timers;
    const attempt = this.#attempt = {};
    const current = () => attempt === this.#attempt;
    shared.emit(WebSocketConnecting, ++shared.attempts, shared.delayMs);
    timers.startSingleTimer(
      "deadline",
      failure(`connection timed out after ${connectionTimeoutMs} ms`),
      connectionTimeoutMs,
    );
    new Promise<unknown>((resolve) =>
      resolve(typeof url === "string" ? url : url())
    ).then((given) => {
      if (!current()) return;
      // A static URL was checked by websocketProps; a function's result is
      // checked here, so that a bad one fails this attempt with a reason.
      const href = webSocketUrl(given);
      if (href === undefined) {
        const reason = `url failed: url() returned ${
          describeValue(given)
        }, not ${URL_EXPECTED}`;
        this.log.error(reason);
        return this.#ended(failure(reason));
      }
      let ws: WebSocketLike;
      try {
        ws = new (WebSocket ??
          (globalThis as unknown as { WebSocket: WebSocketConstructor })
            .WebSocket)(href, protocols);
      } catch (error) {
        return this.#ended(failure(`cannot open: ${describeError(error)}`));
      }
      this.#ws = ws;
      ws.binaryType = "arraybuffer";
      ws.onopen = () => current() && this.#opened();
      ws.onmessage = ({ data }: { data: unknown }) => {
        if (!current()) return;
        timers.cancel("deadline");
        shared.emit(WebSocketMessage, data);
      };
      ws.onclose = ({ code, reason, wasClean }: CloseInfo) =>
        current() && this.#ended({ code, reason, wasClean });
      // A close always follows an error; and the `ws` package throws an error nobody listens to.
      ws.onerror = () => {};
    }, (error) =>
      current() &&
      this.#ended(failure(`url failed: ${describeError(error)}`)));
  }

  #opened(): void {
    const shared = this.#shared;
    const { heartbeat, minUptimeMs } = shared.settings;
    const timers = this.context.timers;
    shared.open = true;
    timers.cancel("deadline");
    shared.emit(WebSocketOpened, this.#ws!.protocol);
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
    let retry = true;
    try {
      retry = shouldReconnect?.(close) ?? true;
    } catch (error) {
      this.log.error("shouldReconnect threw; reconnecting", error);
    }
    if (retry && shared.pausedBy) return this.#update();
    const gaveUp = !retry
      ? `shouldReconnect returned false for code ${close.code}`
      : shared.retries >= maxRetries
      ? `maxRetries (${maxRetries}) reached`
      : "";
    if (gaveUp) {
      shared.halted = true;
      return shared.emit(WebSocketGaveUp, gaveUp, close);
    }
    shared.socket = undefined;
    this.context.stopSelf();
  }

  /** Stops every timer; closes the socket of the current attempt, if any, and reports it. */
  #end(code: number, reason: string, wasClean = true): void {
    const ws = this.#ws;
    this.context.timers.cancelAll();
    if (!this.#attempt) return;
    this.#attempt = undefined;
    this.#ws = undefined;
    this.#shared.open = false;
    // Its handlers may still fire; they check the attempt, which is over.
    if (ws && ws.readyState <= OPEN) {
      // 1006 may not be sent: a failure the client detected closes with 4000.
      ws.close(code === 1006 ? 4000 : code, reason);
    }
    this.#shared.emit(WebSocketClosed, code, reason, wasClean);
  }
}
