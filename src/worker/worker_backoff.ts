// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * `workerBackoff`: a worker supervised with a BackoffSupervisor, as an
 * import of its own, so that a program whose workers are not supervised
 * with backoff does not bundle the supervisor.
 *
 * @module
 */

import { Actor } from "../runtime/actor.ts";
import { Props } from "../runtime/props.ts";
import { BackoffSupervisor } from "../patterns/backoff_supervisor.ts";
import type { BackoffOptions } from "../patterns/backoff_options.ts";
import { type WorkerBackoff, workerBackoffs } from "./worker_props.ts";
import { fail } from "../validation.ts";

/** Never started: stands for the worker's host while the options are checked. */
class Unstarted extends Actor<unknown> {
  onReceive(): void {}
}

/**
 * Supervises a worker with a BackoffSupervisor, for
 * {@linkcode WorkerOptions.backoff}: a worker that dies is terminated and a
 * new one started after a growing delay, and messages wait meanwhile.
 * `options` are those of `BackoffSupervisor.props` except `childProps` and
 * `childName`, checked here (a `RangeError` or `TypeError` now, not when
 * the worker starts).
 *
 * @example A worker that comes back after a crash
 * ```ts no-run: needs a worker script
 * import { ActorSystem } from "@understudy/core";
 * import { workerBackoff, workerProps } from "@understudy/core/worker";
 *
 * const system = ActorSystem.create("app");
 * system.actorOf(
 *   workerProps({
 *     create: () => new Worker(new URL("./worker.ts", import.meta.url), { type: "module" }),
 *     backoff: workerBackoff({ minBackoff: 100, maxBackoff: 5_000 }),
 *   }),
 *   "compute",
 * );
 * ```
 *
 * @param options The BackoffSupervisor's options, without its child.
 * @returns The value for `WorkerOptions.backoff`.
 */
export function workerBackoff(
  options: Omit<BackoffOptions<unknown>, "childProps" | "childName">,
): WorkerBackoff {
  if (typeof options !== "object" || options === null) {
    fail("create workerBackoff", "options", "an object", options);
  }
  const unstarted = Props.create(() => new Unstarted());
  BackoffSupervisor.props({ ...options, childProps: unstarted }); // checks them
  // A copy, frozen: what was checked is what every start uses.
  const settings = Object.freeze({ ...options });
  const backoff: WorkerBackoff = Object.freeze({ options: settings });
  workerBackoffs.set(
    backoff,
    (childProps: Props<unknown>) =>
      BackoffSupervisor.props({ ...settings, childProps, childName: "worker" }),
  );
  return backoff;
}
