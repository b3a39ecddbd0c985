// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Receive timeouts (`context.setReceiveTimeout(ms)`): a
 * {@linkcode ReceiveTimeout} message after `ms` without a message.
 *
 * The timeout runs on the actor's own timers under a private key (the
 * user's `timers.cancelAll()` leaves it alone), so a stop or a restart
 * cancels it (a fresh instance sets its own) and it goes
 * through the system's scheduler. It is not re-armed by every message:
 * the cell notes when the last message arrived, and when the timer falls
 * due (its ticket taken out of the mailbox in turn, after anything queued
 * before it) it is re-armed for the rest of the period, or, if the actor
 * has been idle the whole period, delivers `ReceiveTimeout` and starts a
 * new period. Internal, but for {@linkcode ReceiveTimeout}.
 *
 * Where the scheduler keeps due times (a durable host's, `dueKeeper`), the
 * due time is kept at each arming (a set, and each time the timer falls
 * due: at most one write a period, none per message), with the period. An
 * actor that sets its timeout while it starts, in a new life of the system
 * (re-created after an eviction), takes back the idle time the earlier
 * life kept: its first `ReceiveTimeout` comes at the kept due time (at once
 * if that passed), not a full period later. Messages after the last arming
 * were not kept, so it may come up to one period early.
 *
 * @module
 */

import type { CellPort } from "../kernel/cell_port.ts";
import { NO_MESSAGE } from "../kernel/cell_state.ts";
import { fail, MAX_TIMER_DELAY_MS } from "../../validation.ts";

/**
 * The type of {@linkcode ReceiveTimeout}.
 *
 * @example Usage
 * ```ts
 * import { ReceiveTimeout } from "@understudy/core";
 *
 * const timeout: ReceiveTimeout = ReceiveTimeout;
 * ```
 */
export interface ReceiveTimeout {
  /** Always `"ReceiveTimeout"`, for logs; compare messages with the exported value itself. */
  readonly kind: "ReceiveTimeout";
}

/**
 * What an actor receives when it has set a receive timeout
 * (`this.context.setReceiveTimeout(ms)`) and no message has arrived for
 * `ms`. The timeout stays in effect: while the actor stays idle it comes
 * again every `ms`, until `setReceiveTimeout(undefined)` cancels it. Every
 * message resets the period except the actor's own timers' messages (and
 * `ReceiveTimeout` itself). Cancelled when the actor stops or restarts.
 *
 * @example Usage
 * ```ts
 * import { Actor, ActorSystem, Props, ReceiveTimeout } from "@understudy/core";
 *
 * class Session extends Actor<string | ReceiveTimeout> {
 *   override preStart(): void {
 *     this.context.setReceiveTimeout(30_000);
 *   }
 *   onReceive(message: string | ReceiveTimeout): void {
 *     if (message === ReceiveTimeout) this.context.stopSelf(); // idle for 30 s
 *   }
 * }
 * const system = ActorSystem.create("demo");
 * system.actorOf(Props.create(() => new Session()));
 * await system.terminate();
 * ```
 */
export const ReceiveTimeout: ReceiveTimeout = { kind: "ReceiveTimeout" };

/** What the receive timeout's due time is kept as, by the scheduler's keeper. */
const KIND = "receive-timeout";

/**
 * The key of the receive timeout among the actor's timers; its description
 * is the kind its due time is kept as. Internal.
 */
export const RECEIVE_TIMEOUT_KEY: unique symbol = /* @__PURE__ */ Symbol(KIND);

/** `ms` if it is a usable receive timeout: a number of milliseconds from 1 to 2³¹−1. Internal. */
function checkReceiveTimeout(ms: unknown): number {
  if (!(typeof ms === "number" && ms > 0 && ms <= MAX_TIMER_DELAY_MS)) {
    fail(
      "setReceiveTimeout",
      "ms",
      `a number of milliseconds from 1 to ${MAX_TIMER_DELAY_MS}, or undefined to cancel`,
      ms,
      typeof ms === "number",
    );
  }
  return ms;
}

/** `context.setReceiveTimeout(ms)`; `undefined` cancels. */
export function setReceiveTimeout(
  cell: CellPort,
  ms: number | undefined,
): void {
  if (ms === undefined) {
    if (!cell.receiveTimeoutSet) return;
    cell.receiveTimeoutSet = false;
    cell.actorTimers().cancel(RECEIVE_TIMEOUT_KEY);
    return;
  }
  const extras = cell.ensureExtras();
  extras.receiveTimeoutMs = checkReceiveTimeout(ms);
  // Set while starting (no message turn): idle since what an earlier life
  // kept, if it kept anything (a period P then, due in `inMs`: idle P − inMs).
  const earlier = cell.turnMessage === NO_MESSAGE
    ? cell.core.scheduler.dueKeeper?.takeEarlier(cell.path, KIND)
    : undefined;
  const was = typeof earlier?.data === "number"
    ? earlier.data - earlier.inMs
    : NaN;
  const idle = Number.isFinite(was) ? Math.min(ms, Math.max(0, was)) : 0;
  extras.lastMessageAt = cell.now() - idle;
  cell.receiveTimeoutSet = true;
  cell.actorTimers().startInternalTimer(
    RECEIVE_TIMEOUT_KEY,
    ReceiveTimeout,
    ms - idle,
    ms,
  );
}

/** A message (not a timer's) arrives: the receive timeout's period starts again. */
export function noteMessage(cell: CellPort): void {
  // The timer is not touched: it re-arms itself for the rest of the period
  // when it falls due (`receiveTimeoutDue`).
  cell.extras!.lastMessageAt = cell.now();
}

/**
 * The receive timeout's timer fell due and its ticket came out of the
 * mailbox: `true` if the actor has been idle the whole period (deliver
 * `ReceiveTimeout`); either way the timer is armed for the next due time.
 */
export function receiveTimeoutDue(cell: CellPort): boolean {
  if (!cell.receiveTimeoutSet) return false;
  const extras = cell.extras!;
  const ms = extras.receiveTimeoutMs;
  const now = cell.now();
  const idle = now - extras.lastMessageAt;
  const due = idle >= ms;
  if (due) extras.lastMessageAt = now; // the next period starts now
  cell.actorTimers().startInternalTimer(
    RECEIVE_TIMEOUT_KEY,
    ReceiveTimeout,
    due ? ms : Math.min(ms, ms - idle),
    ms,
  );
  return due;
}
