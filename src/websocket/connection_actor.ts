// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The connection actor: the ref `websocketProps` gives, and the one that
 * decides. It owns a BackoffSupervisor whose child is the socket actor (one
 * per attempt, respawned at once after each), forwards `Send`s to it (the
 * supervisor keeps them, in order, while a new socket actor is spawned),
 * listens to the page, and, from what the socket actors report, decides
 * when the next attempt starts: after the policy's delay, or after a pause,
 * or never (giving up, until `Reconnect`). It outlives giving up, so that
 * `Reconnect` always works.
 *
 * It owns every count and flag of the connection (the pause reasons,
 * messages dropped), and, between two attempts, the messages the last one
 * wrote and did not confirm (handed to the next with `Connect`, to write
 * first) and the next id of acknowledged mode. It refuses a `Send` over
 * `maxMessageBytes` at once. It is the only one to call the user's `policy`
 * and `shouldReconnect`, in its own turn.
 *
 * Retries are counted, waited, reset and given up by a
 * {@linkcode BackoffDecision}, the rules both supervisor styles use: the
 * count is its `restartCount`, the delay its verdict's (the policy asked
 * through `delayOr`; one that gives no usable delay means 30 s, logged),
 * and `maxRetries` is its `maxRestarts`. Its reset is `"manual"`: the
 * count goes back to 0 when the socket actor reports `SocketStable` (open
 * for `minUptimeMs`, measured from the open event, not from the socket
 * actor's start), when a
 * pause ends and on `Reconnect`. This actor waits the delay itself, on its
 * own timer, since a pause or a `Reconnect` cuts the wait short. The retry
 * limit is this decision's alone: the BackoffSupervisor under it respawns
 * each socket actor at once and never gives up (giving up there would stop
 * it and drop the waiting messages), so its own count is never consulted.
 *
 * @module
 */

import { loggedDelay, logPolicyFailure } from "../backoff/_policy.ts";
import { Actor } from "../runtime/actor.ts";
import { BackoffDecision } from "../supervision/backoff_decision.ts";
import type { ActorRef } from "../runtime/actor_ref.ts";
import { Props } from "../runtime/props.ts";
import { BackoffSupervisor } from "../patterns/backoff_supervisor.ts";
import {
  publishEvent,
  WebSocketConnecting,
  type WebSocketEvent,
  WebSocketGaveUp,
  WebSocketMessageDropped,
  WebSocketPaused,
  WebSocketReconnectScheduled,
} from "./events.ts";
import { byteLength, Close, Reconnect, Send } from "./messages.ts";
import type { Settings } from "./options.ts";
import { SocketActor } from "./socket_actor.ts";
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
import type { CloseInfo } from "./websocket_like.ts";

/** The wait used when the policy gives no usable delay. */
const FALLBACK_DELAY_MS = 30_000;

/**
 * The page events listened to, on the window or its document, and the
 * "hidden" timer's: the page has been hidden for `hiddenCloseMs`.
 */
type PageEventType =
  | "online"
  | "offline"
  | "pagehide"
  | "pageshow"
  | "visibilitychange"
  | "freeze"
  | "resume"
  | "hidden";
const WINDOW_EVENTS: readonly PageEventType[] = [
  "online",
  "offline",
  "pagehide",
  "pageshow",
];
const DOCUMENT_EVENTS: readonly PageEventType[] = [
  "visibilitychange",
  "freeze",
  "resume",
];

/** Why attempts are paused. */
type PauseReason = "offline" | "hidden" | "frozen";

/** The end of a socket actor that crashed: it could not report it. */
const CRASHED: CloseInfo = {
  code: 1006,
  reason: "socket actor failed",
  wasClean: false,
};

// Its own messages: a page event, and its timers'.

/** A page event, told by the listener (or the "hidden" timer). */
class PageEvent {
  declare readonly type: PageEventType;
  constructor(type: PageEventType) {
    this.type = type;
  }
}
/** The "connect" timer's: the wait before the next attempt is over. */
class ConnectDue {
  declare private readonly brand: "connect-due";
}

/**
 * What the connection is doing: exactly one of these at a time.
 *
 * - waiting: for the "connect" timer (a backoff delay, or the short wait
 *   after `online`).
 * - connecting, open: a socket actor was told to `Connect`, and its socket
 *   is not open yet, or is.
 * - ending, reconnecting: it was told to `Disconnect` (for a pause, or a
 *   `Reconnect`); its `SocketEnded` is awaited.
 * - paused: offline, or hidden for `hiddenCloseMs`; no attempt.
 * - gave-up: `maxRetries` reached or `shouldReconnect` said no; until
 *   `Reconnect`.
 * - closing: `Close` was passed on; when the socket actor has done it, the
 *   connection stops.
 */
type Phase =
  | "waiting"
  | "connecting"
  | "open"
  | "ending"
  | "reconnecting"
  | "paused"
  | "gave-up"
  | "closing";

/** See the module doc. Internal to this module. */
export class ConnectionActor extends Actor<unknown> {
  readonly #settings: Settings;
  #supervisor!: ActorRef<unknown>;
  #phase: Phase = "waiting";
  /** The wait before the next attempt, for its `WebSocketConnecting`. */
  #delayMs = 0;
  /** Socket actors that reported `SocketReady` and not `SocketEnded`: 1, or 0 between two. */
  #sockets = 0;
  /** The network is down: no attempts until `online`. */
  #offline = false;
  /** The page was hidden for `hiddenCloseMs`: no socket until it is visible. */
  #hidden = false;
  /**
   * The page was frozen or left (`freeze`, `pagehide`): no socket until it
   * resumes or is shown again. An open socket would keep the page out of the
   * back-forward cache, and a frozen page cannot answer it anyway.
   */
  #frozen = false;
  /** The pause last reported, so that each is reported once. */
  #pausedBy?: PauseReason;
  /** Retries since the last stable connection or reset (its `restartCount`), their delays, and `maxRetries`. */
  readonly #retries: BackoffDecision;
  /** Messages dropped so far. */
  #dropped = 0;
  /** Between two attempts: the messages to write again, oldest first. */
  #resend: Outgoing[] = [];
  /** The next id (acknowledged mode). */
  #nextId = 1;
  /** Why it gave up, while it has: `Send`s go to dead letters until `Reconnect`. */
  #gaveUp?: string;
  /** When each `Send` arrived, for `ttlMs` (shared with the socket actors). */
  readonly #enqueuedAt: WeakMap<Send, number> | undefined;
  readonly #onPageEvent = (event: { readonly type: string }): void =>
    this.self.tell(new PageEvent(event.type as PageEventType));

  constructor(settings: Settings) {
    super();
    this.#settings = settings;
    this.#retries = new BackoffDecision({
      policy: settings.policy,
      minBackoff: 0,
      maxBackoff: FALLBACK_DELAY_MS,
      fallbackName: `${FALLBACK_DELAY_MS} ms`,
      resetCounter: "manual",
      triggerOn: "any",
      maxRestarts: settings.maxRetries,
    });
    if (settings.ttlMs < Infinity) this.#enqueuedAt = new WeakMap();
  }

  override preStart(): void {
    const settings = this.#settings;
    const page = settings.page;
    this.#supervisor = this.context.actorOf(
      BackoffSupervisor.props({
        childProps: Props.create(
          () => new SocketActor(settings, this.self, this.#enqueuedAt),
          { stashCapacity: settings.maxQueued },
        ),
        childName: "socket",
        // The next socket actor is spawned at once, and waits for `Connect`:
        // the backoff delay is this actor's to choose, report and wait, and
        // the retry limit this actor's to enforce (see the module doc). The
        // supervisor's delays are all 0 and it never gives up.
        minBackoff: 0,
        maxBackoff: 0,
        // Its count is never read: without a reset rule it starts no
        // stability timer and publishes no BackoffCounterReset per socket.
        resetCounter: "never",
        // The socket actors bound the `Send`s waiting (`maxQueued`): the
        // supervisor keeps the few in flight while it spawns the next one.
        maxStashSize: Infinity,
      }),
      "backoff",
    );
    if (page) {
      this.#listen("addEventListener");
      this.#offline = page.navigator?.onLine === false;
      this.#pageEvent("visibilitychange"); // the page may be hidden already
    }
    this.#connectAfter(0);
  }

  override postStop(): void {
    if (this.#settings.page) this.#listen("removeEventListener");
    this.#release("connection stopped");
  }

  /** The messages kept between two attempts go to dead letters (`counted`: with events). */
  #release(reason: string, counted = false): void {
    for (const { send, sender } of this.#resend.splice(0)) {
      this.context.system.publishDeadLetter(
        send,
        sender as never,
        this.self as never,
        reason,
      );
      if (counted) this.#droppedOne(send, reason);
    }
  }

  #listen(method: "addEventListener" | "removeEventListener"): void {
    const page = this.#settings.page!;
    for (const type of WINDOW_EVENTS) page[method](type, this.#onPageEvent);
    for (const type of DOCUMENT_EVENTS) {
      page.document?.[method](type, this.#onPageEvent);
    }
  }

  onReceive(message: unknown): void {
    const phase = this.#phase;
    // Passed on in every phase: after a `Close`, the socket actor keeps them
    // and they go to dead letters when it stops.
    if (message instanceof Send) {
      const { data } = message;
      const max = this.#settings.maxMessageBytes;
      const bytes = typeof data === "string" && data.length * 3 <= max
        ? 0
        : byteLength(data);
      const reason = bytes > max
        ? `${bytes} bytes, over maxMessageBytes (${max})`
        : this.#gaveUp;
      if (!reason) {
        const enqueuedAt = this.#enqueuedAt;
        if (enqueuedAt && !enqueuedAt.has(message)) {
          enqueuedAt.set(message, this.context.system.scheduler.now());
        }
        return this.#supervisor.tell(message, this.sender as never);
      }
      this.#deadLetter(message, reason);
      return this.#droppedOne(message, reason);
    }
    if (message instanceof SocketEnded) {
      this.#sockets--;
      this.#resend = this.#resend.concat(message.unconfirmed);
      this.#nextId = Math.max(this.#nextId, message.nextId);
      if (phase === "closing") return;
      return this.#ended(message.close);
    }
    if (phase === "closing") {
      // Only the socket actor's acknowledgement matters now.
      if (message instanceof SocketClosed) this.context.stopSelf();
      else if (message instanceof Close || message instanceof Reconnect) {
        this.#deadLetter(message, "connection closing");
      }
      return;
    }
    if (message instanceof Close) {
      this.#phase = "closing";
      this.context.timers.cancelAll();
      this.#release("connection closed");
      return this.#supervisor.tell(message);
    }
    if (message instanceof Reconnect) {
      this.#gaveUp = undefined;
      this.#hidden = false;
      this.#retries.reset();
      // (A second `Disconnect` while ending finds no attempt: it changes nothing.)
      if (phase === "connecting" || phase === "open" || phase === "ending") {
        this.#disconnect("reconnecting", "reconnect");
      } else if (phase !== "reconnecting") this.#connect(0);
      return;
    }
    // From the socket actors.
    if (message instanceof SocketReady) {
      // One that started before it and did not report its end crashed.
      if (this.#sockets++) {
        this.#sockets = 1;
        this.#ended(CRASHED);
      }
      return;
    }
    if (message instanceof SocketOpened) {
      if (phase === "connecting") this.#phase = "open";
      return;
    }
    if (message instanceof SocketStable) {
      // Up long enough: the next failure starts again from the first delay.
      this.#retries.reset();
      return;
    }
    if (message instanceof SendDropped) {
      return this.#droppedOne(message.send, message.reason);
    }
    // From the page, and the timers.
    if (message instanceof PageEvent) return this.#pageEvent(message.type);
    if (message instanceof ConnectDue) {
      if (phase === "waiting") this.#connect(this.#delayMs);
      return;
    }
    this.#deadLetter(message, "not handled");
  }

  #pageEvent(type: PageEventType): void {
    const { page, hiddenCloseMs } = this.#settings;
    const timers = this.context.timers;
    switch (type) {
      case "offline":
        this.#offline = true;
        return this.#pauseStarted();
      case "hidden":
        this.#hidden = true;
        return this.#pauseStarted();
      case "freeze":
      case "pagehide":
        this.#frozen = true;
        return this.#pauseStarted();
      case "resume":
      case "pageshow":
        if (!this.#frozen) return;
        this.#frozen = false;
        return this.#resume(0);
      case "online":
        if (!this.#offline) return;
        this.#offline = false;
        // Soon, not at once: a whole office coming back online must not
        // reconnect in step. Also when a long backoff wait is under way.
        return this.#resume(this.#firstDelay());
      case "visibilitychange":
        if (page!.document?.visibilityState === "hidden") {
          if (hiddenCloseMs < Infinity && !timers.isTimerActive("hidden")) {
            timers.startSingleTimer(
              "hidden",
              new PageEvent("hidden"),
              hiddenCloseMs,
            );
          }
        } else {
          timers.cancel("hidden");
          if (this.#hidden) {
            this.#hidden = false;
            this.#resume(0);
          } else if (this.#phase === "open" && this.#settings.heartbeat) {
            // Timers may not have run while hidden: a socket that died
            // meanwhile is found now, not at the next ping.
            this.#supervisor.tell(new Probe());
          }
        }
    }
  }

  /** Why attempts are paused now, if they are. */
  get #pausedFor(): PauseReason | undefined {
    return this.#offline
      ? "offline"
      : this.#hidden
      ? "hidden"
      : this.#frozen
      ? "frozen"
      : undefined;
  }

  /**
   * A pause began: an attempt under way is ended (an open socket only when
   * the page is hidden: one may outlive a spell offline, and the heartbeat
   * finds it if it died); a wait is cut short.
   */
  #pauseStarted(): void {
    const phase = this.#phase;
    if (
      phase === "connecting" ||
      (phase === "open" && (this.#hidden || this.#frozen))
    ) {
      this.#disconnect("ending", `paused: ${this.#pausedFor}`);
    } else if (phase === "waiting" || phase === "paused") {
      this.#pause();
    }
  }

  /** A pause ended: the next attempt starts after `delayMs`, with the retries reset. Not after giving up. */
  #resume(delayMs: number): void {
    this.#retries.reset();
    const phase = this.#phase;
    if (phase === "waiting" || phase === "paused") this.#connectAfter(delayMs);
  }

  /** The next attempt, after `delayMs` (at once if 0), unless paused. */
  #connectAfter(delayMs: number): void {
    if (this.#pausedFor) return this.#pause();
    if (!delayMs) return this.#connect(0);
    this.#phase = "waiting";
    this.#delayMs = delayMs;
    this.context.timers.startSingleTimer("connect", new ConnectDue(), delayMs);
  }

  /**
   * Tells the socket actor to connect: the current one, or, if it is
   * stopping, the next one (the supervisor holds the order until then).
   */
  #connect(waitedMs: number): void {
    this.context.timers.cancel("connect");
    this.#phase = "connecting";
    this.#pausedBy = undefined;
    this.#publish(
      new WebSocketConnecting(
        this.self,
        this.#retries.restartCount + 1,
        waitedMs,
      ),
    );
    this.#supervisor.tell(new Connect(this.#resend, this.#nextId));
    this.#resend = [];
  }

  #disconnect(phase: "ending" | "reconnecting", reason: string): void {
    this.#phase = phase;
    this.#supervisor.tell(new Disconnect(reason));
  }

  /** No attempts until the pause ends; reported once per reason. */
  #pause(): void {
    const reason = this.#pausedFor!;
    this.context.timers.cancel("connect");
    this.#phase = "paused";
    if (this.#pausedBy === reason) return;
    this.#pausedBy = reason;
    this.#publish(new WebSocketPaused(this.self, reason));
  }

  /** The attempt ended, `close` says how: connect again at once, retry after a backoff, pause, or give up. */
  #ended(close: CloseInfo): void {
    const phase = this.#phase;
    // Ended as this actor asked (or on its own just before): not a failure.
    // After a pause that ended meanwhile, the next attempt starts at once.
    if (phase === "reconnecting") return this.#connect(0);
    if (phase === "ending") return this.#connectAfter(0);
    if (phase !== "connecting" && phase !== "open") return;
    const { shouldReconnect, maxRetries } = this.#settings;
    let retry = true;
    try {
      retry = shouldReconnect?.(close) ?? true;
    } catch (error) {
      this.log.error("shouldReconnect threw; reconnecting", error);
    }
    // Paused meanwhile: no retry is counted; the pause's end connects.
    if (retry && this.#pausedFor) return this.#pause();
    const verdict = retry
      ? this.#retries.childTerminated("failure", 0) // time unread: manual reset, no childStarted
      : undefined;
    if (verdict?.action !== "respawn") {
      const why = verdict
        ? `maxRetries (${maxRetries}) reached`
        : `shouldReconnect returned false for code ${close.code}`;
      this.#phase = "gave-up";
      this.#publish(new WebSocketGaveUp(this.self, why, close));
      // Every message waiting, and each sent until `Reconnect`, is a dead
      // letter: no ask waits for a connection that will not come.
      const reason = this.#gaveUp = `gave up: ${why}`;
      this.#release(reason, true);
      return this.#supervisor.tell(new DropQueued(reason));
    }
    if (verdict.policyFailure) {
      logPolicyFailure(this.log, verdict.policyFailure);
    }
    this.#publish(
      new WebSocketReconnectScheduled(
        this.self,
        this.#retries.restartCount + 1,
        verdict.delayMs,
      ),
    );
    this.#connectAfter(verdict.delayMs);
  }

  /**
   * `policy.delayFor(0)`, for the short wait after `online`, asked as the
   * decision asks it: if the policy gives no usable delay, the error is
   * logged and the wait is 30 s.
   */
  #firstDelay(): number {
    return loggedDelay(this.log, this.#settings.policy, 0, FALLBACK_DELAY_MS);
  }

  #droppedOne(send: Send, reason: string): void {
    this.#publish(
      new WebSocketMessageDropped(this.self, send, reason, ++this.#dropped),
    );
  }

  #publish(event: WebSocketEvent): void {
    publishEvent(this, this.#settings.subscriber, event);
  }

  #deadLetter(message: unknown, reason: string): void {
    this.context.system.publishDeadLetter(
      message,
      this.sender as never,
      this.self as never,
      reason,
    );
  }
}
