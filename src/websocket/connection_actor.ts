// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The connection actor: the ref `websocketProps` gives. It owns a
 * BackoffSupervisor whose child is the socket actor, forwards `Send`s to it
 * (the supervisor keeps them, in order and bounded, while no socket actor
 * runs), listens to the page, and outlives giving up so that `Reconnect`
 * always works.
 *
 * @module
 */

import { Actor } from "../runtime/actor.ts";
import type { ActorRef } from "../runtime/actor_ref.ts";
import { Props } from "../runtime/props.ts";
import { BackoffSupervisor } from "../patterns/backoff_supervisor.ts";
import { MAX_TIMER_DELAY_MS } from "../backoff/max_timer_delay.ts";
import { WebSocketReconnectScheduled } from "./events.ts";
import { Close, Reconnect, Send } from "./messages.ts";
import type { SharedState } from "./shared_state.ts";
import { SocketActor } from "./socket_actor.ts";
import { describeValue } from "../supervision/describe_value.ts";

/** The wait used when the policy gives no usable delay. */
const FALLBACK_DELAY_MS = 30_000;

/** The page events listened to, on the window or its document. */
const PAGE_EVENTS = ["online", "offline", "visibilitychange"];

/**
 * See the module doc. Besides the `WebSocketCommand`s it receives the page's
 * event types as strings, and its timers' keys ("hidden", "resume").
 * Internal to this module.
 */
export class ConnectionActor extends Actor<unknown> {
  readonly #shared: SharedState;
  #supervisor!: ActorRef<unknown>;
  readonly #onPageEvent = (event: { readonly type: string }): void =>
    this.self.tell(event.type);

  constructor(shared: SharedState) {
    super();
    this.#shared = shared;
  }

  override preStart(): void {
    const shared = this.#shared;
    const { page, maxQueued } = shared.settings;
    shared.connection = this.self;
    shared.system = this.context.system;
    this.#supervisor = this.context.actorOf(
      BackoffSupervisor.props({
        childProps: Props.create(() => new SocketActor(shared), {
          stashCapacity: maxQueued,
        }),
        childName: "socket",
        minBackoff: 0,
        maxBackoff: 30_000,
        // Reports each delay as the supervisor picks it.
        policy: {
          delayFor: (restartCount) => {
            const delayMs = this.#delayFor(restartCount);
            shared.retries = restartCount + 1;
            shared.delayMs = delayMs;
            shared.emit(
              WebSocketReconnectScheduled,
              shared.attempts + 1,
              delayMs,
            );
            return delayMs;
          },
        },
        resetCounter: "manual", // the socket actor resets it after minUptimeMs open
        // `maxQueued` is enforced on arrival (see onReceive), so these
        // stashes hold at most that many `Send`s and cannot overflow. (With
        // minBackoff 0 there is no drain grace: a new socket actor gets them
        // at once.)
        maxStashSize: Infinity,
      }),
      "backoff",
    );
    if (page) {
      this.#listen("addEventListener");
      shared.offline = page.navigator?.onLine === false;
      this.onReceive("visibilitychange"); // the page may be hidden already
    }
  }

  override postStop(): void {
    if (this.#shared.settings.page) this.#listen("removeEventListener");
  }

  #listen(method: "addEventListener" | "removeEventListener"): void {
    const page = this.#shared.settings.page!;
    for (const type of PAGE_EVENTS) {
      (type[0] === "v" ? page.document : page)?.[method](
        type,
        this.#onPageEvent,
      );
    }
  }

  onReceive(message: unknown): void {
    const shared = this.#shared;
    const { maxQueued, page, hiddenCloseMs } = shared.settings;
    const timers = this.context.timers;
    if (message instanceof Send) {
      // Bounded while there is no open socket; while open, messages only pass through.
      if (!shared.open && shared.pending >= maxQueued) {
        return shared.drop(message, this.sender);
      }
      shared.pending++;
      return this.#supervisor.tell(message, this.sender as never);
    }
    if (message instanceof Close) {
      shared.close = message;
      return this.context.stopSelf();
    }
    if (message instanceof Reconnect) {
      shared.halted = shared.hidden = false;
      return this.#resume(0, message);
    }
    switch (message) {
      case "offline":
        shared.offline = true;
        return this.#update();
      case "online":
        if (!shared.offline) return;
        shared.offline = false;
        // Soon, not at once: a whole office coming back online must not
        // reconnect in step. Also when a long backoff wait is under way.
        return this.#resume(this.#delayFor(0));
      case "visibilitychange":
        if (page!.document?.visibilityState === "hidden") {
          if (hiddenCloseMs < Infinity && !timers.isTimerActive("hidden")) {
            timers.startSingleTimer("hidden", "hidden", hiddenCloseMs);
          }
        } else {
          timers.cancel("hidden");
          if (shared.hidden) {
            shared.hidden = false;
            this.#resume(0);
          }
        }
        return;
      case "hidden": // for hiddenCloseMs
        shared.hidden = true;
        return this.#update();
      case "resume":
        return this.#update();
    }
  }

  /**
   * `policy.delayFor(restartCount)` as a delay a timer can wait: one above
   * MAX_TIMER_DELAY_MS is clamped to it; if the policy throws or returns
   * NaN, a negative number or a non-number, the error is logged and the
   * delay is 30 s, so that a broken custom policy causes neither a retry
   * storm nor a crash.
   */
  #delayFor(restartCount: number): number {
    let delayMs: unknown;
    try {
      delayMs = this.#shared.settings.policy.delayFor(restartCount);
    } catch (error) {
      this.log.error(
        `policy.delayFor(${restartCount}) threw; waiting ${FALLBACK_DELAY_MS} ms`,
        error,
      );
      return FALLBACK_DELAY_MS;
    }
    if (typeof delayMs === "number" && delayMs >= 0) {
      return Math.min(delayMs, MAX_TIMER_DELAY_MS);
    }
    this.log.error(
      `policy.delayFor(${restartCount}) returned ${
        describeValue(delayMs)
      }, not a delay; waiting ${FALLBACK_DELAY_MS} ms`,
    );
    return FALLBACK_DELAY_MS;
  }

  /**
   * The pause flags changed, or it is time to connect again: the socket
   * actor is told; while a backoff wait is under way, it ends now (the new
   * socket actor reads the flags as it starts).
   */
  #update(): void {
    const socket = this.#shared.socket;
    if (socket) socket.tell("update");
    else this.#supervisor.tell(BackoffSupervisor.RespawnNow);
  }

  /**
   * A fresh start after `delayMs`, with the retry count reset. A `Reconnect`
   * goes to a live socket actor at once (it replaces an open socket too).
   */
  #resume(delayMs: number, reconnect?: Reconnect): void {
    const shared = this.#shared;
    shared.attempts = shared.retries = 0;
    shared.delayMs = delayMs;
    this.#supervisor.tell(BackoffSupervisor.Reset);
    if (reconnect && shared.socket) shared.socket.tell(reconnect);
    else this.context.timers.startSingleTimer("resume", "resume", delayMs);
  }
}
