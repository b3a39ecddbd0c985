// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * What the actors of one connection share: the connection actor, and each
 * socket actor its BackoffSupervisor spawns in turn. Pause flags and retry
 * counts must survive a socket actor's death and be read by the next one
 * as it starts, before any message could reach it; one object, created
 * with the connection actor and handed to every socket actor, does that.
 *
 * @module
 */

import type { ActorRef } from "../runtime/actor_ref.ts";
import type { ActorSystem } from "../runtime/actor_system.ts";
import { type WebSocketEvent, WebSocketMessageDropped } from "./events.ts";
import { Close, type Send, type WebSocketCommand } from "./messages.ts";
import type { Settings } from "./options.ts";

/** One connection's shared state. Internal to this module. */
export class SharedState {
  /** Set by the connection actor as it starts. */
  connection!: ActorRef<WebSocketCommand>;
  system!: ActorSystem;
  /** The live socket actor, if any (a dying one is removed at once). */
  socket?: ActorRef<unknown>;
  /** The network is down: no attempts until `online`. */
  offline = false;
  /** The page was hidden for `hiddenCloseMs`: no socket until it is visible. */
  hidden = false;
  /** Gave up: no attempts until `Reconnect`. */
  halted = false;
  /** How a socket actor that stops closes its socket: as `Close` asked, if it did. */
  close = new Close();
  /** Attempts since the last stable connection or reset. */
  attempts = 0;
  /** Retries since then: the BackoffSupervisor's restart count. */
  retries = 0;
  /** The wait before the next attempt, for its `WebSocketConnecting`. */
  delayMs = 0;
  /** Whether the current socket is open. */
  open = false;
  /** `Send`s accepted and not yet handed to a socket: what `maxQueued` bounds. */
  pending = 0;
  /** Messages dropped so far. */
  dropped = 0;

  constructor(readonly settings: Settings) {}

  /** Why attempts are paused, if they are. */
  get pausedBy(): "offline" | "hidden" | undefined {
    return this.offline ? "offline" : this.hidden ? "hidden" : undefined;
  }

  /** Makes an event of this connection, and tells the subscriber and the event stream. */
  emit<A extends unknown[]>(
    Event: new (
      connection: ActorRef<WebSocketCommand>,
      ...args: A
    ) => WebSocketEvent,
    ...args: A
  ): void {
    const event = new Event(this.connection, ...args);
    const subscriber = this.settings.subscriber;
    try {
      if (typeof subscriber === "function") subscriber(event);
      else subscriber?.tell(event);
    } catch (error) {
      this.system.log.error("WebSocket subscriber threw", error);
    }
    this.system.eventStream.publish(event);
  }

  /**
   * Reports a `Send` over `maxQueued`, after publishing its dead letter
   * unless the runtime did (`sender` is `null` then).
   */
  drop(send: Send, sender: unknown): void {
    const reason = `queue full (maxQueued ${this.settings.maxQueued})`;
    if (sender !== null) {
      this.system.publishDeadLetter(
        send,
        sender as never,
        this.connection as never,
        reason,
      );
    }
    this.emit(WebSocketMessageDropped, send, reason, ++this.dropped);
  }
}
