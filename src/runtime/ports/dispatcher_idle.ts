// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * When a system has run everything made ready so far: for a host that must
 * know its actors have started (a durable host's activation, before it
 * drops the due times no actor took back). Internal: not exported from the
 * package.
 *
 * @module
 */

import type { ActorSystem, SystemCore } from "../actor_system.ts";
import { realScheduler } from "./scheduler.ts";

/**
 * Resolves at the first macrotask at which `system`'s dispatcher is idle,
 * or after `maxTasks` macrotasks (a system whose actors keep each other
 * busy is never idle). The dispatcher yields to the host every few
 * milliseconds, so one macrotask is not enough for a setup of hundreds of
 * actors. (The core is reached through dead letters, whose ref holds it as
 * a cell does: the system keeps its own private.)
 */
export async function whenIdle(
  system: ActorSystem,
  maxTasks: number,
): Promise<void> {
  const { dispatcher } =
    (system.deadLetters as unknown as { core: SystemCore }).core;
  for (let task = 0; task < maxTasks; task++) {
    await new Promise<void>((resolve) =>
      realScheduler.setTimeout(() => resolve(), 0)
    );
    if (dispatcher.idle) return;
  }
}
