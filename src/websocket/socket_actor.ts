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
import type { SharedState } from "./shared_state.ts";
import type {
  CloseInfo,
  WebSocketConstructor,
  WebSocketLike,
} from "./websocket_like.ts";

/** Unique across connections, so no socket actor mistakes another's report for its own. */
let attemptIds = 0;

const OPEN = 1;

/** A failure the client detected itself: reported as an abnormal closure. */
const failure = (reason: string): CloseInfo => ({
  code: 1006,
  reason,
  wasClean: false,
});

/**
 * One WebSocket at a time; see the module doc. Besides `Send` and
 * `Reconnect` it accepts a number from the connection actor: the pause flags
 * changed, and if no longer paused it connects after that many ms. Its
 * timers (keyed by the strings they deliver) run only while it has an
 * attempt under way or open, except "wake", which runs only while it has
 * none. Internal to this module.
 */
export class SocketActor extends Actor<unknown> {
  readonly #shared: SharedState;
  #ws: WebSocketLike | undefined = undefined;
  /** The attempt under way or open; 0 when there is none. */
  #attempt = 0;
  #open = false;
  /** The pause last reported, so each is reported once. */
  #pausedBy: string | undefined = undefined;
  /** The wait before the attempt the "wake" timer starts. */
  #wakeDelayMs = 0;

  constructor(shared: SharedState) {
    super();
    this.#shared = shared;
  }

  override preStart(): void {
    const shared = this.#shared;
    const delayMs = shared.delayMs; // waited by the supervisor before spawning this actor
    shared.socket = this.self;
    shared.delayMs = 0;
    if (shared.halted || shared.pausedBy) this.#update(0);
    else this.#connect(delayMs);
  }

  override postStop(): void {
    const shared = this.#shared;
    if (shared.socket === this.self) shared.socket = undefined;
    this.#end(shared.closing?.code ?? 1000, shared.closing?.reason ?? "");
  }

  onReceive(message: unknown): void {
    const shared = this.#shared;
    const { heartbeat, connectionTimeoutMs } = shared.settings;
    const timers = this.context.timers;
    if (message instanceof Send) return this.#send(message);
    if (typeof message === "number") return this.#update(message);
    if (message instanceof Reconnect) {
      this.#end(1000, "reconnect");
      timers.cancel("wake");
      return this.#connect(0);
    }
    switch (message) {
      case "wake":
        return this.#connect(this.#wakeDelayMs);
      case "timeout":
        return this.#ended(
          failure(`connection timed out after ${connectionTimeoutMs} ms`),
        );
      case "ping": {
        const ping = heartbeat!.message ?? "ping";
        this.#ws!.send(typeof ping === "function" ? ping() : ping);
        if (!timers.isTimerActive("silence")) {
          timers.startSingleTimer("silence", "silence", heartbeat!.timeoutMs);
        }
        return;
      }
      case "silence":
        return this.#ended(
          failure(`no frame within ${heartbeat!.timeoutMs} ms of a ping`),
        );
      case "stable":
        // Up long enough: the next failure starts again from the first delay.
        shared.attempts = shared.retries = 0;
        return this.context.parent.tell(BackoffSupervisor.Reset);
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
    if (this.#open && this.#ws!.readyState === OPEN) {
      shared.pending--; // first: should send throw, the crash must not keep the slot
      this.#ws!.send(send.data);
      this.sender?.tell(new Sent(send), this.self as never);
    } else if (!this.context.stash()) {
      // More arrived in flight while open than maxQueued, and the socket closed.
      shared.pending--;
      shared.drop(
        send,
        `queue full (maxQueued ${shared.settings.maxQueued})`,
        null, // the runtime published its dead letter
      );
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
      if ((shared.hidden || !this.#open) && this.#pausedBy !== pause) {
        this.#end(1000, `paused: ${pause}`);
        timers.cancel("wake");
        this.#pausedBy = pause;
        shared.emit(new WebSocketPaused(shared.connection, pause));
      }
    } else if (!this.#attempt && !timers.isTimerActive("wake")) {
      this.#pausedBy = undefined;
      this.#wakeDelayMs = delayMs;
      timers.startSingleTimer("wake", "wake", delayMs);
    }
  }

  #connect(delayMs: number): void {
    const shared = this.#shared;
    const { url, connectionTimeoutMs } = shared.settings;
    const attempt = this.#attempt = ++attemptIds;
    shared.emit(
      new WebSocketConnecting(shared.connection, ++shared.attempts, delayMs),
    );
    this.context.timers.startSingleTimer(
      "timeout",
      "timeout",
      connectionTimeoutMs,
    );
    new Promise<string>((resolve) =>
      resolve(typeof url === "string" ? url : url())
    ).then(
      (resolved) => attempt === this.#attempt && this.#openSocket(resolved),
      (error) =>
        attempt === this.#attempt &&
        this.#ended(failure(`url failed: ${error}`)),
    );
  }

  #openSocket(url: string): void {
    const attempt = this.#attempt;
    const { WebSocket, protocols } = this.#shared.settings;
    let ws: WebSocketLike;
    try {
      // A URL that is not one (as a url function may return) throws here.
      const Socket = WebSocket ??
        (globalThis as unknown as { WebSocket: WebSocketConstructor })
          .WebSocket;
      ws = protocols === undefined
        ? new Socket(url)
        : new Socket(url, protocols);
    } catch (error) {
      return this.#ended(failure(`cannot open: ${error}`));
    }
    this.#ws = ws;
    ws.binaryType = "arraybuffer";
    // Each handler first checks that its attempt is still the current one.
    ws.onopen = () => attempt === this.#attempt && this.#opened();
    ws.onmessage = (event: { data: unknown }) => {
      if (attempt !== this.#attempt) return;
      this.context.timers.cancel("silence");
      this.#shared.emit(
        new WebSocketMessage(this.#shared.connection, event.data),
      );
    };
    ws.onclose = ({ code, reason, wasClean }: CloseInfo) =>
      attempt === this.#attempt && this.#ended({ code, reason, wasClean });
    // A close always follows an error; and the `ws` package throws an error nobody listens to.
    ws.onerror = () => {};
  }

  #opened(): void {
    const shared = this.#shared;
    const { heartbeat, minUptimeMs } = shared.settings;
    const timers = this.context.timers;
    this.#open = shared.open = true;
    timers.cancel("timeout");
    shared.emit(new WebSocketOpened(shared.connection, this.#ws!.protocol));
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
    let retry = true;
    try {
      retry = shouldReconnect?.(close) ?? true;
    } catch (error) {
      this.log.error("shouldReconnect threw; reconnecting", error);
    }
    if (!retry) {
      gaveUp = `shouldReconnect returned false for code ${close.code}`;
    } else if (shared.pausedBy) {
      return this.#update(0);
    } else if (shared.retries >= maxRetries) {
      gaveUp = `maxRetries (${maxRetries}) reached`;
    }
    if (gaveUp) {
      shared.halted = true;
      return shared.emit(new WebSocketGaveUp(shared.connection, gaveUp, close));
    }
    shared.socket = undefined;
    this.context.stopSelf();
  }

  /** Closes the socket of the current attempt, if any, and reports it. */
  #end(code: number, reason: string, wasClean = true): void {
    if (!this.#attempt) return;
    const ws = this.#ws;
    this.#attempt = 0;
    this.#ws = undefined;
    this.#open = this.#shared.open = false;
    this.context.timers.cancelAll(); // "wake" is not running: an attempt was
    // Its handlers may still fire; they check the attempt, which is over.
    if (ws !== undefined && ws.readyState <= OPEN) {
      // 1006 may not be sent: a failure the client detected closes with 4000.
      ws.close(code === 1006 ? 4000 : code, reason);
    }
    this.#shared.emit(
      new WebSocketClosed(this.#shared.connection, code, reason, wasClean),
    );
  }
}
