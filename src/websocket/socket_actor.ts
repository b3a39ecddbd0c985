// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The socket actor: the BackoffSupervisor's child, one per attempt. It
 * reports `SocketReady` as it starts, holds the `Send`s it gets until it is
 * told to `Connect`, makes one WebSocket, and reports what happens to it
 * (see `socket_protocol.ts`). When the attempt ends, it reports
 * `SocketEnded` and stops: the supervisor spawns the next socket actor at
 * once, and hands it the messages this one had not sent (its stash and
 * mailbox, through the runtime's port for patterns), in order. When to
 * connect again is the connection actor's decision, not this actor's.
 *
 * If it crashes instead (a socket whose `send` throws, a heartbeat
 * `message` function that throws), the message it was handling goes to
 * dead letters and the supervisor replaces it just the same; the next one's
 * `SocketReady` tells the connection actor.
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
import type { ActorRef } from "../runtime/actor_ref.ts";
import { describeError, describeValue } from "../validation.ts";
import {
  publishEvent,
  WebSocketClosed,
  WebSocketMessage,
  WebSocketOpened,
} from "./events.ts";
import { Close, Send, Sent, type WebSocketCommand } from "./messages.ts";
import { type Settings, URL_EXPECTED, webSocketUrl } from "./options.ts";
import {
  Connect,
  Disconnect,
  SendDropped,
  SocketClosed,
  SocketEnded,
  SocketOpened,
  SocketReady,
  SocketStable,
} from "./socket_protocol.ts";
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

/** The "ping" timer's message: time to send a ping. */
class Ping {
  declare private readonly brand: "ping";
}

/** One attempt; see the module doc. Internal to this module. */
export class SocketActor extends Actor<unknown> {
  readonly #settings: Settings;
  /** The connection actor: its events name it. */
  readonly #connection: ActorRef<WebSocketCommand>;
  #ws?: WebSocketLike;
  /** A token for the attempt under way or open, if any: each attempt's handlers compare theirs to it. */
  #attempt?: object;
  /** Whether the socket opened (until the attempt ends). */
  #open = false;
  /** `Send`s stashed, waiting for the socket to open. */
  #waiting = 0;

  constructor(settings: Settings, connection: ActorRef<WebSocketCommand>) {
    super();
    this.#settings = settings;
    this.#connection = connection;
  }

  override preStart(): void {
    this.#report(new SocketReady());
  }

  /** Stopped with its parent (`Close` was handled first) or by a crash: the socket, if any, is closed. */
  override postStop(): void {
    this.#end(1000, "");
  }

  onReceive(message: unknown): void {
    if (message instanceof Send) return this.#send(message);
    if (message instanceof Connect) return this.#connect();
    if (message instanceof Disconnect) {
      if (this.#attempt) {
        this.#ended({ code: 1000, reason: message.reason, wasClean: true });
      }
      return;
    }
    if (message instanceof Close) {
      this.#end(message.code, message.reason);
      return this.#report(new SocketClosed());
    }
    // Its timers: "ping"; "stable", whose report is passed on; "deadline"
    // (the connection timeout, or the heartbeat's after a ping), whose
    // report says how the attempt failed.
    if (message instanceof Ping) return this.#ping();
    if (message instanceof SocketStable) return this.#report(message);
    if (message instanceof SocketEnded) return this.#ended(message.close);
    this.context.system.publishDeadLetter(
      message,
      this.sender as never,
      this.self as never,
      "not handled",
    );
  }

  /**
   * Sends if open, else keeps the message until the socket opens, in order.
   * At most `maxQueued` wait while no socket is open; while one is open but
   * closing, the stash (of that capacity) keeps those in flight. (An open
   * socket throws only for a bad frame, which `Send` already refused; if it
   * threw anyway, this actor would crash and be replaced, with the message
   * in dead letters.)
   */
  #send(send: Send): void {
    const { maxQueued } = this.#settings;
    const ws = this.#ws;
    if (ws?.readyState === OPEN) {
      ws.send(send.data);
      this.sender?.tell(new Sent(send), this.self as never);
    } else if (!this.#open && this.#waiting >= maxQueued) {
      this.context.system.publishDeadLetter(
        send,
        this.sender as never,
        this.#connection as never,
        `queue full (maxQueued ${maxQueued})`,
      );
      this.#report(new SendDropped(send));
    } else if (this.context.stash()) {
      this.#waiting++;
    } else {
      this.#report(new SendDropped(send)); // the runtime published its dead letter
    }
  }

  /** Starts the attempt. */
  #connect(): void {
    const { url, WebSocket, protocols, connectionTimeoutMs } = this.#settings;
    const timers = this.context.timers;
    const attempt = this.#attempt = {};
    const current = () => attempt === this.#attempt;
    timers.startSingleTimer(
      "deadline",
      new SocketEnded(
        failure(`connection timed out after ${connectionTimeoutMs} ms`),
      ),
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
        this.#publish(new WebSocketMessage(this.#connection, data));
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
    const { heartbeat, minUptimeMs } = this.#settings;
    const timers = this.context.timers;
    this.#open = true;
    timers.cancel("deadline");
    this.#publish(new WebSocketOpened(this.#connection, this.#ws!.protocol));
    this.#report(new SocketOpened());
    if (heartbeat) {
      timers.startTimerWithFixedDelay("ping", new Ping(), heartbeat.intervalMs);
    }
    timers.startSingleTimer("stable", new SocketStable(), minUptimeMs);
    this.#waiting = 0;
    this.context.unstashAll();
  }

  /** Sends a ping, and fails the socket if no frame at all comes back within `timeoutMs`. */
  #ping(): void {
    const { message = "ping", timeoutMs } = this.#settings.heartbeat!;
    const timers = this.context.timers;
    this.#ws!.send(typeof message === "function" ? message() : message);
    if (!timers.isTimerActive("deadline")) {
      timers.startSingleTimer(
        "deadline",
        new SocketEnded(failure(`no frame within ${timeoutMs} ms of a ping`)),
        timeoutMs,
      );
    }
  }

  /** The attempt is over: reported, and this actor stops (the supervisor spawns the next). */
  #ended(close: CloseInfo): void {
    this.#end(close.code, close.reason, close.wasClean);
    this.#report(new SocketEnded(close));
    this.context.stopSelf();
  }

  /** Stops every timer; closes the socket of the attempt, if any, and reports it. */
  #end(code: number, reason: string, wasClean = true): void {
    const ws = this.#ws;
    this.context.timers.cancelAll();
    if (!this.#attempt) return;
    this.#attempt = this.#ws = undefined;
    this.#open = false;
    // Its handlers may still fire; they check the attempt, which is over.
    if (ws && ws.readyState <= OPEN) {
      // 1006 may not be sent: a failure the client detected closes with 4000.
      ws.close(code === 1006 ? 4000 : code, reason);
    }
    this.#publish(
      new WebSocketClosed(this.#connection, code, reason, wasClean),
    );
  }

  /** Tells the connection actor, through the supervisor (which passes what its child tells it on to its own parent). */
  #report(report: object): void {
    this.context.parent.tell(report, this.self as never);
  }

  #publish(
    event: WebSocketOpened | WebSocketMessage | WebSocketClosed,
  ): void {
    publishEvent(this, this.#settings.subscriber, event);
  }
}
