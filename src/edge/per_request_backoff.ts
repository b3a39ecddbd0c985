// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * A BackoffSupervisor for a system that lives for one request: no grace
 * window after a respawn (`drainGraceMs: 0`), so a request stashed while
 * the child was down reaches the new child as soon as it is spawned,
 * instead of `drainGraceMs` (50 ms by default) later.
 *
 * The grace window holds the stash back until a fresh child has proved
 * itself, which pays off for a long-lived supervisor with many messages
 * waiting. A per-request supervisor has one request waiting and nothing to
 * protect: should the new child fail again, what reached its mailbox comes
 * back to the stash all the same.
 *
 * @module
 */

import type { Props } from "../runtime/props.ts";
import { BackoffSupervisor } from "../patterns/backoff_supervisor.ts";
import type { BackoffOptions } from "../patterns/backoff_options.ts";
import type { BackoffProtocol } from "../patterns/backoff_protocol.ts";
import { fail } from "../validation.ts";

/**
 * `BackoffSupervisor.props(options)` with `drainGraceMs` 0 unless
 * `options` sets it: the supervisor for one request's actor system.
 *
 * @example Retrying the upstream call of one request
 * ```ts
 * import { Actor, ActorSystem, Props } from "@understudy/core";
 * import { perRequestBackoff } from "@understudy/core/edge";
 *
 * let calls = 0;
 * class Upstream extends Actor<string> {
 *   onReceive(q: string): void {
 *     if (++calls === 1) throw new Error("upstream flapped");
 *     this.sender?.tell(q.toUpperCase());
 *   }
 * }
 *
 * const system = ActorSystem.create("request");
 * try {
 *   const upstream = system.actorOf(perRequestBackoff({
 *     childProps: Props.create(() => new Upstream()),
 *     childName: "upstream",
 *     minBackoff: 20,
 *     maxBackoff: 200,
 *   }));
 *   upstream.tell("warm-up"); // fails the first child
 *   console.log(await upstream.ask<string>("hello", 1_000)); // HELLO, 20 ms later
 * } finally {
 *   await system.terminate();
 * }
 * ```
 */
export function perRequestBackoff<T>(
  options: BackoffOptions<T>,
): Props<T | BackoffProtocol> {
  if (typeof options !== "object" || options === null) {
    fail("create BackoffSupervisor", "options", "an object", options);
  }
  return BackoffSupervisor.props({ drainGraceMs: 0, ...options });
}
