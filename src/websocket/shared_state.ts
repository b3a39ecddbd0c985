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
import type { Close, WebSocketCommand } from "./messages.ts";
import type { Settings } from "./options.ts";

/** One connection's shared state. Internal to this module. */
export class SharedState {
  /** Set by the connection actor as it starts. */
  connection!: ActorRef<WebSocketCommand>;
  system!: ActorSystem;
  /** The live socket actor, if any (a dying one is removed at once). */
  socket: ActorRef<unknown> | undefined = undefined;
  /** The network is down: no attempts until `online`. */
  offline = false;
  /** The page was hidden for `hiddenCloseMs`: no socket until it is visible. */
  hidden = false;
  /** Gave up: no attempts until `Reconnect`. */
  halted = false;
  /** Set by `Close`: how the socket is to be closed. */
  closing: Close | undefined = undefined;
  /** Attempts since the last stable connection or reset. */
  attempts = 0;
  /** Retries since then: the BackoffSupervisor's restart count. */
  retries = 0;
  /** The backoff delay the next socket actor waited, for its `WebSocketConnecting`. */
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

  /** Tells the subscriber and the event stream. */
  emit(event: WebSocketEvent): void {
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
   * Reports a message that will not be sent, after publishing its dead
   * letter unless the runtime did (`sender` is `null` then).
   */
  drop(message: unknown, reason: string, sender?: unknown): void {
    if (sender !== null) {
      this.system.publishDeadLetter(
        message,
        sender as never,
        this.connection as never,
        reason,
      );
    }
    this.emit(
      new WebSocketMessageDropped(
        this.connection,
        message,
        reason,
        ++this.dropped,
      ),
    );
  }
}
