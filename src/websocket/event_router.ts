// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * One event-stream listener per actor system, shared by all its WebSocket
 * connections and routing each event to the connection it concerns, by
 * ref. A listener per connection would make every event in the system cost
 * as many calls as there are connections (a server with a thousand
 * upstream sockets would spend most of its time there).
 *
 * @module
 */

import type { ActorSystem } from "../runtime/actor_system.ts";
import { DeadLetter } from "../runtime/event_stream.ts";
import { BackoffEvent } from "../patterns/backoff_supervisor.ts";

interface Routes {
  readonly handlers: Map<unknown, (event: object) => void>;
  readonly unsubscribe: () => void;
}

const routesBySystem = new WeakMap<ActorSystem, Routes>();

/**
 * Sends `handler` the dead letters addressed to any of `refs` and the
 * BackoffSupervisor events published by any of them, until the returned
 * function is called.
 */
export function routeEvents(
  system: ActorSystem,
  refs: readonly unknown[],
  handler: (event: object) => void,
): () => void {
  let routes = routesBySystem.get(system);
  if (routes === undefined) {
    const handlers = new Map<unknown, (event: object) => void>();
    const unsubscribe = system.eventStream.subscribe((event) => {
      const key = event instanceof DeadLetter
        ? event.recipient
        : event instanceof BackoffEvent
        ? event.supervisor
        : undefined;
      if (key !== undefined) handlers.get(key)?.(event);
    });
    routesBySystem.set(system, routes = { handlers, unsubscribe });
  }
  const { handlers, unsubscribe } = routes;
  for (const ref of refs) handlers.set(ref, handler);
  return () => {
    for (const ref of refs) handlers.delete(ref);
    if (handlers.size === 0) {
      unsubscribe();
      routesBySystem.delete(system);
    }
  };
}
