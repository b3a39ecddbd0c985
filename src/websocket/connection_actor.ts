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
import { DeadLetter } from "../runtime/event_stream.ts";
import { Props } from "../runtime/props.ts";
import {
  BackoffScheduled,
  BackoffSupervisor,
} from "../patterns/backoff_supervisor.ts";
import { WebSocketReconnectScheduled } from "./events.ts";
import {
  Close,
  ConnectionStatus,
  GetConnectionStatus,
  Reconnect,
  Send,
} from "./messages.ts";
import type { SharedState } from "./shared_state.ts";
import { PauseChanged, SocketActor } from "./socket_actor.ts";
import { routeEvents } from "./event_router.ts";

const PAGE_EVENTS = ["online", "offline"];

/** See the module doc. Internal to this module. */
export class ConnectionActor extends Actor<unknown> {
  readonly #shared: SharedState;
  #supervisor!: ActorRef<unknown>;
  #unsubscribe: (() => void) | undefined = undefined;
  readonly #onPageEvent = (event: { readonly type: string }): void =>
    this.self.tell(event.type);

  constructor(shared: SharedState) {
    super();
    this.#shared = shared;
  }

  override preStart(): void {
    const shared = this.#shared;
    const { page, maxQueued, policy } = shared.settings;
    shared.connection = this.self;
    shared.system = this.context.system;
    if (page) {
      for (const type of PAGE_EVENTS) {
        page.addEventListener(type, this.#onPageEvent);
      }
      page.document?.addEventListener("visibilitychange", this.#onPageEvent);
      shared.offline = page.navigator?.onLine === false;
      this.#onVisibilityChange();
    }
    this.#supervisor = this.context.actorOf(
      BackoffSupervisor.props({
        childProps: Props.create(() => new SocketActor(shared), {
          stashCapacity: maxQueued,
        }),
        childName: "socket",
        minBackoff: 0,
        maxBackoff: 30_000, // only for a custom policy returning NaN
        policy,
        resetCounter: "manual", // the socket actor resets it after minUptimeMs open
        maxStashSize: maxQueued,
        drainGraceMs: 0,
      }),
      "backoff",
    );
    this.#unsubscribe = routeEvents(
      shared.system,
      [this.self, this.#supervisor],
      (event) => this.#onSystemEvent(event),
    );
  }

  override postStop(): void {
    const { page } = this.#shared.settings;
    this.#unsubscribe?.();
    if (page) {
      for (const type of PAGE_EVENTS) {
        page.removeEventListener(type, this.#onPageEvent);
      }
      page.document?.removeEventListener("visibilitychange", this.#onPageEvent);
    }
    this.#shared.state = "closed";
  }

  onReceive(message: unknown): void {
    const shared = this.#shared;
    if (message instanceof Send) {
      return this.#supervisor.tell(message, this.sender as never);
    }
    if (message instanceof Close) {
      shared.closing = message;
      return this.context.stopSelf();
    }
    if (message instanceof Reconnect) {
      shared.halted = shared.hidden = false;
      this.#resetRetries();
      return shared.socket?.tell(message);
    }
    if (message instanceof GetConnectionStatus) {
      return this.sender?.tell(
        new ConnectionStatus(
          shared.state,
          shared.attempts,
          shared.droppedTotal,
        ),
      );
    }
    switch (message) {
      case "offline":
        shared.offline = true;
        return shared.socket?.tell(new PauseChanged(0));
      case "online":
        if (!shared.offline) return;
        shared.offline = false;
        this.#resetRetries();
        // Soon, not at once: a whole office coming back online must not reconnect in step.
        return shared.socket?.tell(
          new PauseChanged(shared.settings.policy.delayFor(0)),
        );
      case "visibilitychange":
        return this.#onVisibilityChange();
      case "hidden-too-long":
        shared.hidden = true;
        return shared.socket?.tell(new PauseChanged(0));
    }
    this.context.system.publishDeadLetter(
      message,
      this.sender as never,
      this.self as never,
      "not a WebSocketCommand",
    );
  }

  #onVisibilityChange(): void {
    const shared = this.#shared;
    const { page, hiddenCloseMs } = shared.settings;
    const timers = this.context.timers;
    if (page!.document?.visibilityState === "hidden") {
      if (hiddenCloseMs !== Infinity && !timers.isTimerActive("hidden")) {
        timers.startSingleTimer("hidden", "hidden-too-long", hiddenCloseMs);
      }
    } else {
      timers.cancel("hidden");
      if (shared.hidden) {
        shared.hidden = false;
        this.#resetRetries();
        shared.socket?.tell(new PauseChanged(0));
      }
    }
  }

  /** A fresh start: the next failure waits the first delay again. */
  #resetRetries(): void {
    this.#shared.attempts = this.#shared.retries = 0;
    this.#supervisor.tell(BackoffSupervisor.Reset);
  }

  /**
   * The event stream tells the delays the supervisor chose, and the `Send`s
   * that went to dead letters on their way to a socket actor: over the
   * supervisor's stash limit, or left in this actor's or the supervisor's
   * mailbox or stash when they stopped. (A socket actor reports its own.)
   * Only events about this actor or its supervisor are routed here.
   */
  #onSystemEvent(event: object): void {
    const shared = this.#shared;
    if (event instanceof BackoffScheduled) {
      shared.retries = event.restartCount + 1;
      shared.delayMs = event.delayMs;
      shared.emit(
        new WebSocketReconnectScheduled(
          shared.connection,
          shared.attempts + 1,
          event.delayMs,
        ),
      );
    } else if (event instanceof DeadLetter && event.message instanceof Send) {
      shared.reportDropped(
        event.message,
        /stopped/.test(event.reason) ? "connection closed" : event.reason,
      );
    }
  }
}
