// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * OTP's restart types: whether an actor may be brought back once it has
 * ended, set per actor on its `Props` (`Props.create(factory, { restart })`).
 * Pure: every supervisor style (classic, typed, the BackoffSupervisor) asks
 * {@linkcode mayRestart} at the point where it decides to restart or
 * respawn. The BackoffSender does not: it exists to deliver every message,
 * so its child always comes back until `maxAttempts` gives a message up.
 *
 * | type          | after a failure | after a normal stop |
 * | ------------- | --------------- | ------------------- |
 * | `"permanent"` | restarted       | restarted           |
 * | `"transient"` | restarted       | not restarted       |
 * | `"temporary"` | not restarted   | not restarted       |
 *
 * What "restarted" means depends on the supervisor:
 * - Classic strategies (`OneForOneStrategy`, `AllForOneStrategy`,
 *   `RestForOneStrategy`) and typed supervision (`supervise(...)`) only ever
 *   restart after a failure (a stopped actor is never revived), so there
 *   `"permanent"` and `"transient"` behave alike, and a `"temporary"` actor
 *   is stopped where the directive says `Restart`, also when a sibling's
 *   failure restarts the group.
 * - The `BackoffSupervisor` respawns its child after it terminates: a
 *   `"permanent"` child after a crash or a stop (as its `triggerOn`
 *   allows), a `"transient"` one only after a crash, a `"temporary"` one
 *   never. When its child will not come back, the supervisor stops.
 *
 * @module
 */

import { fail } from "../validation.ts";

/**
 * Whether an actor is brought back after it ended (OTP's child restart
 * type): `"permanent"` always (the default), `"transient"` only after a
 * failure, `"temporary"` never.
 *
 * @example Usage
 * ```ts
 * import { Actor, Props, type RestartType } from "@understudy/core";
 *
 * class Job extends Actor<string> {
 *   onReceive(): void {}
 * }
 * const restart: RestartType = "transient";
 * Props.create(() => new Job(), { restart });
 * ```
 */
export type RestartType = "permanent" | "transient" | "temporary";

/** How an actor ended, for {@linkcode mayRestart}. Internal. */
export type Ending = "failure" | "stop";

/**
 * Whether an actor of restart type `type` may be brought back after ending
 * by `ending`. Internal.
 */
export function mayRestart(type: RestartType, ending: Ending): boolean {
  return type === "permanent" || (type === "transient" && ending === "failure");
}

/** `value` if it is a restart type; else a `TypeError` naming the option. Internal. */
export function checkRestartType(action: string, value: unknown): RestartType {
  if (
    value !== "permanent" && value !== "transient" && value !== "temporary"
  ) {
    fail(action, "restart", `"permanent", "transient" or "temporary"`, value);
  }
  return value;
}
