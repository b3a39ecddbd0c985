// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The socket actor: the BackoffSupervisor's child, one per attempt. It
 * reports `SocketReady` as it starts, holds the `Send`s it gets until it is
 * told to `Connect`, makes one WebSocket, and reports what happens to it
 * (see `socket_protocol.ts`). When the attempt ends, it stops and reports
 * `SocketEnded`, with (acknowledged mode) the messages it wrote and did
 * not confirm: the supervisor spawns the next socket actor at once, and
 * hands it the messages this one had not taken yet (its stash and mailbox,
 * through the runtime's port for patterns), in order; the connection actor
 * hands it the unacknowledged ones with its `Connect`, to write first. When
 * to connect again is the connection actor's decision, not this actor's.
 *
 * A written message is confirmed, by default, once the socket's
 * `bufferedAmount` shows its bytes left (read every FLUSH_POLL_MS while
 * some wait); in acknowledged mode, when the server acknowledges its id.
 * Then its sender gets a `Sent`. The default mode writes a message at most
 * once: one still unconfirmed when its socket ends goes to dead letters,
 * never out again on the next socket (the server could not tell the copy
 * from a new message; ids that let it are what acknowledged mode adds).
 *
 * A socket whose `send` throws ends the attempt (the message goes to dead
 * letters). If the actor crashes instead (a heartbeat `message` function
 * that throws), the message it was handling and those it had not confirmed
 * go to dead letters, and the supervisor replaces it just the same.
 *
 * The socket's own events (open, message, close) and the URL function's
 * result are messages too: each handler only tells this actor an
 * {@linkcode AttemptEvent} carrying its attempt's token, and the work is
 * done in this actor's turn, in mailbox order, after the messages that came
 * before it. The turn first checks the token: an event of an attempt that
 * is over (a frame or a close still queued when a `Disconnect` or a timeout
 * ended it, handed on by the supervisor to the next socket actor) changes
 * nothing, as a browser drops the frames that arrive once `close()` was
 * called. (A handler also skips telling an attempt that is over, so that a
 * stopped actor gets no message to turn into a dead letter; that is a read,
 * the turn decides.) Until the turn that handles the open event, the socket
 * counts as not open: a `Send` ahead of it waits, and goes out after the
 * messages to write again and the older `Send`s, in order.
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
import {
  byteLength,
  Close,
  isWebSocketData,
  Send,
  Sent,
  type WebSocketCommand,
} from "./messages.ts";
import { type Settings, URL_EXPECTED, webSocketUrl } from "./options.ts";
import {
  Connect,
  Disconnect,
  DropQueued,
  type Outgoing,
  Probe,
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

/** How often `bufferedAmount` is read while written messages wait for confirmation. */
const FLUSH_POLL_MS = 20;

/** Why a message written in the default mode, not confirmed when its socket ended, is a dead letter. */
const UNCONFIRMED_AT_CLOSE =
  "connection ended before its bytes left the buffer; not sent again (the default mode sends at most once: use ack to resend with ids)";

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

/** The "expire" timer's message: the oldest message waiting reached `ttlMs`. */
class Expire {
  declare private readonly brand: "expire";
}

/** The "flush" timer's message: time to read `bufferedAmount`. */
class Flush {
  declare private readonly brand: "flush";
}

// The attempt's events, each told by its handler to the actor itself.

/**
 * Something that happened to one attempt, outside this actor, with what
 * came with it: handled in its turn if `attempt` is still the current one,
 * else ignored.
 */
class AttemptEvent {
  /** The token of the attempt it belongs to. */
  declare readonly attempt: object;
  declare readonly value: unknown;
  constructor(attempt: object, value?: unknown) {
    this.attempt = attempt;
    this.value = value;
  }
}

/** The URL function returned (or its promise resolved to) `value`, not checked yet. */
class UrlGiven extends AttemptEvent {}

/** The URL function threw, or its promise rejected, with `value`. */
class UrlFailed extends AttemptEvent {}

/** The socket's `open` event. */
class Opened extends AttemptEvent {}

/** The socket's `message` event: `value` is the frame. */
class Received extends AttemptEvent {}

/** The socket's `close` event: `value` says how it closed. */
class Closed extends AttemptEvent {
  declare readonly value: CloseInfo;
}

/** One attempt; see the module doc. Internal to this module. */
export class SocketActor extends Actor<unknown> {
  readonly #settings: Settings;
  /** The connection actor: its events name it. */
  readonly #connection: ActorRef<WebSocketCommand>;
  #ws?: WebSocketLike;
  /** A token for the attempt under way or open, if any: its events carry it. */
  #attempt?: object;
  /** This turn or an earlier one handled the socket's open event: `Send`s may be written. */
  #open = false;
  /** Messages waiting for the socket to open: `Send`s stashed, and `#resend`. */
  #waiting = 0;
  /** Messages earlier attempts did not confirm, to write first (from `Connect`). */
  #resend: Outgoing[] = [];
  /** Messages written to this socket and not confirmed yet, oldest first. */
  #unconfirmed: Outgoing[] = [];
  /** The next id (acknowledged mode). */
  #nextId = 1;
  /** Bytes written to this socket, messages and pings. */
  #written = 0;
  /** Messages answered `Sent` on this socket, in the default mode. */
  #confirmed = 0;
  /** How the attempt ended, once it did: `postStop` reports it. */
  #ending?: CloseInfo;
  /** `Close` was done: nothing to report any more. */
  #closed = false;
  /** With a heartbeat: the socket opened and no frame came yet (`WebSocketOpened` waits for one). */
  #unverified = false;
  /** With `ack.decodeResume`: the socket opened, and the server's word (the last id it handled) has not come yet. */
  #resuming = false;
  /** With `ack.decodeResume`: the server's word came on this socket. */
  #resumed = false;
  /** The connection gave up, for this reason: `Send`s are dropped until `Connect`. */
  #dropping?: string;
  /** When each `Send` reached the connection (with `ttlMs` only): shared with it. */
  readonly #enqueuedAt: WeakMap<Send, number> | undefined;

  constructor(
    settings: Settings,
    connection: ActorRef<WebSocketCommand>,
    enqueuedAt?: WeakMap<Send, number>,
  ) {
    super();
    this.#settings = settings;
    this.#connection = connection;
    this.#enqueuedAt = enqueuedAt;
  }

  override preStart(): void {
    this.#report(new SocketReady());
  }

  /**
   * After its attempt ended: reports it, with the messages to write again.
   * Stopped otherwise (a crash, or with its parent, `Close` not handled):
   * the socket, if any, is closed, and those messages go to dead letters.
   */
  override postStop(): void {
    this.#end(1000, "");
    if (this.#closed) return;
    let unconfirmed = this.#unconfirmed.concat(this.#resend);
    const ending = this.#ending;
    if (ending && !this.#settings.ack) {
      // At most once: written, maybe read, never written again.
      for (const outgoing of unconfirmed) {
        this.#drop(outgoing, UNCONFIRMED_AT_CLOSE);
      }
      unconfirmed = [];
    }
    if (!ending) {
      for (const outgoing of unconfirmed) {
        this.#drop(outgoing, "socket actor stopped", false);
      }
      unconfirmed = [];
    }
    this.#report(
      new SocketEnded(
        ending ?? failure("socket actor failed"),
        unconfirmed,
        this.#nextId,
      ),
    );
  }

  onReceive(message: unknown): void {
    if (message instanceof AttemptEvent) {
      // One of an attempt that is over: see the module doc.
      if (message.attempt !== this.#attempt) return;
      if (message instanceof Received) return this.#received(message.value);
      if (message instanceof Opened) return this.#opened();
      if (message instanceof Closed) return this.#ended(message.value);
      if (message instanceof UrlGiven) return this.#openSocket(message.value);
      if (message instanceof UrlFailed) {
        return this.#ended(
          failure(`url failed: ${describeError(message.value)}`),
        );
      }
    }
    if (message instanceof Send) {
      return this.#send({
        send: message,
        sender: this.sender,
        id: 0,
        tries: 0,
        end: 0,
      });
    }
    if (message instanceof Connect) {
      this.#dropping = undefined;
      this.#resend = message.resend;
      this.#nextId = message.nextId;
      this.#waiting += message.resend.length;
      return this.#connect();
    }
    if (message instanceof DropQueued) {
      // The stash comes back through #send, which drops each.
      this.#dropping = message.reason;
      this.#waiting = 0;
      return this.context.unstashAll();
    }
    if (message instanceof Expire) {
      // Each comes back through #send: expired ones are dropped, the others
      // stashed again, in order, ahead of the mailbox.
      this.#waiting = this.#resend.length;
      return this.context.unstashAll();
    }
    if (message instanceof Disconnect) {
      if (this.#attempt) {
        this.#ended({ code: 1000, reason: message.reason, wasClean: true });
      }
      return;
    }
    if (message instanceof Close) {
      this.#flush();
      this.#end(message.code, message.reason);
      this.#closed = true;
      for (const outgoing of this.#unconfirmed.concat(this.#resend)) {
        this.#drop(
          outgoing,
          "connection closed before it was confirmed",
          false,
        );
      }
      return this.#report(new SocketClosed());
    }
    // Its timers: "ping"; "flush"; "stable", whose report is passed on;
    // "deadline" (the connection timeout, or the heartbeat's after a ping),
    // whose report says how the attempt failed.
    if (message instanceof Ping || message instanceof Probe) {
      return this.#ping();
    }
    if (message instanceof Flush) return this.#flush();
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
   * Writes the message if the socket is open, else keeps it until the
   * socket opens, in order. At most `maxQueued` wait; past that, it goes to
   * dead letters.
   */
  #send(outgoing: Outgoing): void {
    const { maxQueued } = this.#settings;
    if (this.#dropping) return this.#drop(outgoing, this.#dropping);
    if (this.#writable) return this.#write(outgoing);
    if (this.#expired(outgoing)) return;
    if (this.#waiting >= maxQueued) {
      return this.#drop(outgoing, `queue full (maxQueued ${maxQueued})`);
    }
    if (this.context.stash()) {
      this.#waiting++;
      this.#expireLater(outgoing);
    } else this.#report(new SendDropped(outgoing.send, "stash overflow")); // the runtime published its dead letter
  }

  /** With `ttlMs`: whether it waited that long, and if so drops it. */
  #expired(outgoing: Outgoing): boolean {
    const { ttlMs } = this.#settings;
    const at = this.#enqueuedAt?.get(outgoing.send);
    if (at === undefined || this.context.system.scheduler.now() - at < ttlMs) {
      return false;
    }
    this.#drop(outgoing, `expired: waited ${ttlMs} ms (ttlMs) unsent`);
    return true;
  }

  /** With `ttlMs`: the "expire" timer runs for the oldest message waiting, the first stashed. */
  #expireLater(outgoing: Outgoing): void {
    const at = this.#enqueuedAt?.get(outgoing.send);
    const timers = this.context.timers;
    if (at === undefined || timers.isTimerActive("expire")) return;
    const now = this.context.system.scheduler.now();
    timers.startSingleTimer(
      "expire",
      new Expire(),
      Math.max(0, at + this.#settings.ttlMs - now),
    );
  }

  /**
   * Writes a message to the open socket, and keeps it until confirmed. In
   * acknowledged mode, first gives it an id (once) and checks the limits.
   * A socket whose `send` throws ends the attempt.
   */
  #write(outgoing: Outgoing): void {
    const { ack } = this.#settings;
    if (this.#expired(outgoing)) return;
    const unconfirmed = this.#unconfirmed;
    let frame: unknown = outgoing.send.data;
    if (ack) {
      const { maxAttempts, maxUnacked } = ack;
      if (outgoing.tries >= maxAttempts) {
        return this.#drop(
          outgoing,
          `not acknowledged after ${outgoing.tries} attempts (maxAttempts ${maxAttempts})`,
        );
      }
      if (unconfirmed.length >= maxUnacked) {
        return this.#drop(
          outgoing,
          `unacknowledged buffer full (maxUnacked ${maxUnacked})`,
        );
      }
      outgoing.id ||= this.#nextId++;
      try {
        frame = ack.encode(outgoing.id, frame as Send["data"]);
      } catch (error) {
        return this.#drop(outgoing, `ack.encode threw ${describeError(error)}`);
      }
      if (!isWebSocketData(frame)) {
        return this.#drop(
          outgoing,
          `ack.encode returned ${
            describeValue(frame)
          }, not text or binary data`,
        );
      }
    }
    try {
      this.#ws!.send(frame as Send["data"]);
    } catch (error) {
      this.#drop(outgoing, `cannot send: ${describeError(error)}`);
      return this.#ended(failure(`send failed: ${describeError(error)}`));
    }
    outgoing.tries++;
    outgoing.end = this.#written += byteLength(frame as Send["data"]);
    unconfirmed.push(outgoing);
    this.#flush();
  }

  /**
   * Default mode: answers `Sent` for each
   * message whose bytes have left the socket's buffer, oldest first, and
   * keeps reading `bufferedAmount` while some wait. (A `bufferedAmount` that
   * counts frame headers too only makes this later.)
   */
  #flush(): void {
    const ws = this.#ws;
    if (!ws || this.#settings.ack) return;
    const unconfirmed = this.#unconfirmed;
    const left = this.#written - (ws.bufferedAmount || 0);
    let n = 0;
    for (; n < unconfirmed.length && unconfirmed[n].end <= left; n++) {
      unconfirmed[n].sender?.tell(
        new Sent(unconfirmed[n].send),
        this.self as never,
      );
    }
    this.#confirmed += n;
    unconfirmed.splice(0, n);
    const timers = this.context.timers;
    if (!unconfirmed.length) timers.cancel("flush");
    else if (!timers.isTimerActive("flush")) {
      timers.startTimerWithFixedDelay("flush", new Flush(), FLUSH_POLL_MS);
    }
  }

  /** Acknowledged mode: the message with that id is delivered, if it is still waiting. */
  #acked(id: unknown): void {
    const unconfirmed = this.#unconfirmed;
    const i = unconfirmed.findIndex((outgoing) => outgoing.id === id);
    if (i < 0) return; // a second acknowledgement, or none of ours
    const [{ send, sender }] = unconfirmed.splice(i, 1);
    sender?.tell(new Sent(send, true), this.self as never);
  }

  /**
   * With `ack.decodeRefusal`: whether `data` is the server's refusal of a
   * message; one still waiting for its acknowledgement leaves the buffer,
   * never to be sent again, and goes to dead letters.
   */
  #refused(data: unknown): boolean {
    let refusal: { id: number; reason: string } | undefined;
    try {
      refusal = this.#settings.ack!.decodeRefusal!(data);
    } catch (error) {
      this.log.error("ack.decodeRefusal threw", error);
    }
    if (!refusal) return false;
    // Written to this socket, or (before the server's word, which refusals
    // precede) to an earlier one and waiting to be written again.
    for (const waiting of [this.#unconfirmed, this.#resend]) {
      const i = waiting.findIndex((outgoing) => outgoing.id === refusal.id);
      if (i < 0) continue;
      if (waiting === this.#resend) this.#waiting--;
      this.#drop(
        waiting.splice(i, 1)[0],
        `refused by the server: ${refusal.reason}`,
      );
    }
    // A second refusal, or none of ours: swallowed all the same.
    return true;
  }

  /** Starts the attempt: opens the socket, once a URL function (if any) has given its URL. */
  #connect(): void {
    const { url, connectionTimeoutMs } = this.#settings;
    const attempt = this.#attempt = {};
    this.context.timers.startSingleTimer(
      "deadline",
      new SocketEnded(
        failure(`connection timed out after ${connectionTimeoutMs} ms`),
      ),
      connectionTimeoutMs,
    );
    // A static URL was checked by websocketProps.
    if (typeof url === "string") return this.#openSocket(url);
    new Promise<unknown>((resolve) => resolve(url())).then(
      (given) => this.#tell(new UrlGiven(attempt, given)),
      (error) => this.#tell(new UrlFailed(attempt, error)),
    );
  }

  /**
   * Tells this actor an event of its attempt, unless that attempt is over
   * (this actor may have stopped: a message to it would be a dead letter).
   * The turn checks again.
   */
  #tell(event: AttemptEvent): void {
    if (event.attempt === this.#attempt) this.self.tell(event);
  }

  /** Opens the socket, at `given` (a URL function's result is checked here, so that a bad one fails this attempt with a reason). */
  #openSocket(given: unknown): void {
    const { WebSocket, protocols } = this.#settings;
    const attempt = this.#attempt!;
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
    // Each handler only tells this actor what happened.
    ws.onopen = () => this.#tell(new Opened(attempt));
    ws.onmessage = ({ data }: { data: unknown }) =>
      this.#tell(new Received(attempt, data));
    ws.onclose = ({ code, reason, wasClean }: CloseInfo) =>
      this.#tell(new Closed(attempt, { code, reason, wasClean }));
    // A close always follows an error; and the `ws` package throws an error nobody listens to.
    ws.onerror = () => {};
  }

  /** A frame: an acknowledgement (acknowledged mode), or a message for the subscriber. Any frame answers a heartbeat's ping. */
  #received(data: unknown): void {
    const ack = this.#settings.ack;
    const resuming = this.#resuming;
    let id: unknown;
    try {
      id = resuming ? ack!.decodeResume!(data) : ack?.decodeAck(data);
    } catch (error) {
      this.log.error(
        `ack.${resuming ? "decodeResume" : "decodeAck"} threw`,
        error,
      );
    }
    if (resuming) {
      // Nothing counts before the server's word (the last id it handled)
      // but the refusals it sends first: ids the word will cover.
      if (ack!.decodeRefusal && this.#refused(data)) return;
      if (typeof id !== "number" || !(id >= 0)) return;
      const handled = id;
      this.#resuming = false;
      this.#resumed = true;
      // What it handled is acknowledged, not sent again; ids go on after it.
      this.#resend = this.#resend.filter((outgoing) =>
        outgoing.id > handled ||
        void outgoing.sender?.tell(
          new Sent(outgoing.send, true),
          this.self as never,
        )
      );
      this.#nextId = Math.max(this.#nextId, handled + 1);
      return this.#opened();
    }
    this.context.timers.cancel("deadline");
    if (this.#unverified) {
      // The first round trip: now it counts as connected.
      this.#unverified = false;
      this.#publish(new WebSocketOpened(this.#connection, this.#ws!.protocol));
    }
    if (ack?.decodeRefusal && this.#refused(data)) return;
    if (id !== undefined) return this.#acked(id);
    this.#publish(new WebSocketMessage(this.#connection, data));
  }

  /** Whether a message can be written now: the open event was handled, and the socket has not closed since. */
  get #writable(): boolean {
    return this.#open && this.#ws?.readyState === OPEN;
  }

  /**
   * The socket opened: the messages to write again go first, then those
   * waiting. (One that closed again before this turn is not written to:
   * its close event comes next, and ends the attempt.)
   */
  #opened(): void {
    const { heartbeat, minUptimeMs, ack } = this.#settings;
    // A server that says what it handled is heard first (see #received);
    // the connection timeout runs on until it has.
    if (ack?.decodeResume && !this.#resumed) {
      this.#resuming = true;
      return;
    }
    const timers = this.context.timers;
    const ws = this.#ws!;
    timers.cancel("deadline");
    // With a heartbeat, connected only once a frame came back (see #received).
    if (!heartbeat) {
      this.#publish(new WebSocketOpened(this.#connection, ws.protocol));
    }
    this.#report(new SocketOpened());
    if (ws.readyState !== OPEN) return;
    this.#open = true;
    if (heartbeat) {
      this.#unverified = true;
      // The first round trip's probe, after the messages waiting.
      this.self.tell(new Probe());
      timers.startTimerWithFixedDelay("ping", new Ping(), heartbeat.intervalMs);
    }
    timers.startSingleTimer("stable", new SocketStable(), minUptimeMs);
    this.#waiting = 0;
    // A socket whose send throws ends the attempt: the rest wait again.
    for (const outgoing of this.#resend.splice(0)) {
      if (this.#ws) this.#write(outgoing);
      else this.#resend.push(outgoing);
    }
    // In this turn: the `Send`s stashed go before any still in the mailbox.
    this.context.unstashAll();
  }

  /** Sends a ping, and fails the socket if no frame at all comes back within `timeoutMs`. */
  #ping(): void {
    const { message = "ping", timeoutMs } = this.#settings.heartbeat!;
    const timers = this.context.timers;
    // Closed, and its close event not handled yet: that event ends the attempt.
    if (!this.#writable) return;
    const ping = typeof message === "function" ? message() : message;
    this.#ws!.send(ping);
    this.#written += byteLength(ping);
    if (!timers.isTimerActive("deadline")) {
      timers.startSingleTimer(
        "deadline",
        new SocketEnded(failure(`no frame within ${timeoutMs} ms of a ping`)),
        timeoutMs,
      );
    }
  }

  /** The attempt is over: this actor stops, and reports it (`postStop`); the supervisor spawns the next. */
  #ended(close: CloseInfo): void {
    // What left the buffer is confirmed first (a closed socket's
    // `bufferedAmount` keeps counting what never left).
    this.#flush();
    this.#ending = close;
    this.#end(close.code, close.reason, close.wasClean);
    this.context.stopSelf();
  }

  /** Stops every timer; closes the socket of the attempt, if any, and reports it. */
  #end(code: number, reason: string, wasClean = true): void {
    const ws = this.#ws;
    this.context.timers.cancelAll();
    if (!this.#attempt) return;
    this.#attempt = this.#ws = undefined;
    // Its handlers may still fire: they find the attempt over, and tell nothing.
    if (ws && ws.readyState <= OPEN) {
      // 1006 may not be sent: a failure the client detected closes with 4000.
      ws.close(code === 1006 ? 4000 : code, reason);
    }
    this.#publish(
      new WebSocketClosed(
        this.#connection,
        code,
        reason,
        wasClean,
        this.#confirmed,
      ),
    );
  }

  /** A message that will not be sent: to dead letters, and (`report`) counted by the connection. */
  #drop(outgoing: Outgoing, reason: string, report = true): void {
    this.context.system.publishDeadLetter(
      outgoing.send,
      outgoing.sender as never,
      this.#connection as never,
      reason,
    );
    if (report) this.#report(new SendDropped(outgoing.send, reason));
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
