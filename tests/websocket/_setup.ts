// Copyright 2026 the understudy authors. MIT license.
// Virtual time (the testkit's ManualScheduler), an actor system and a fake
// network for the websocket tests (not a test file itself).

import type * as FakeTimers from "@sinonjs/fake-timers";
import {
  type ActorRef,
  ActorSystem,
  DeadLetter,
  type LogRecord,
} from "../../mod.ts";
import {
  type WebSocketCommand,
  WebSocketEvent,
  type WebSocketOptions,
  websocketProps,
} from "../../src/websocket/mod.ts";
import { ManualScheduler } from "../../src/testing/manual_scheduler.ts";
import { FakeNetwork } from "./_fake_websocket.ts";

/** A seeded generator of numbers in [0, 1) (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** The timers `_herd.ts` fakes (it runs 1,000 connections on `@sinonjs/fake-timers`): everything but queueMicrotask, on which the dispatcher runs. */
export const FAKED: FakeTimers.FakeMethod[] = [
  "setTimeout",
  "clearTimeout",
  "setInterval",
  "clearInterval",
  "Date",
  "performance",
];

export interface Harness {
  /** The system's scheduler, which the fake network answers on too: no global is faked. */
  scheduler: ManualScheduler;
  system: ActorSystem;
  network: FakeNetwork;
  /** Every WebSocketEvent on the event stream, in order. */
  events: WebSocketEvent[];
  deadLetters: DeadLetter[];
  /** Every record logged at warn or error, in order (nothing is printed). */
  logs: LogRecord[];
  /** Starts a connection on the fake network (page: false unless given). */
  connect(
    options?: Partial<WebSocketOptions>,
    name?: string,
  ): ActorRef<WebSocketCommand>;
  /** Advances virtual time, letting actors run between timers. */
  tick(ms?: number): Promise<void>;
  /** Timers pending: the actors' and the fake network's. */
  pendingTimers(): number;
  /** Events of one class, in order. */
  of<E extends WebSocketEvent>(
    eventClass: abstract new (...args: never[]) => E,
  ): E[];
  /** Terminates the system. */
  done(): Promise<void>;
}

export function harness(): Harness {
  const scheduler = new ManualScheduler();
  const logs: LogRecord[] = [];
  const system = ActorSystem.create("ws-test", {
    scheduler,
    logLevel: "warn",
    logger: (record) => logs.push(record),
  });
  const network = new FakeNetwork(scheduler);
  const events: WebSocketEvent[] = [];
  const deadLetters: DeadLetter[] = [];
  system.eventStream.subscribe(WebSocketEvent, (event) => events.push(event));
  system.eventStream.subscribe(DeadLetter, (dead) => deadLetters.push(dead));
  return {
    scheduler,
    system,
    network,
    events,
    deadLetters,
    logs,
    connect: (options = {}, name) =>
      system.actorOf(
        websocketProps({
          url: "ws://example.test/ws",
          page: false,
          WebSocket: network.WebSocket,
          ...options,
        }),
        name,
      ),
    tick: (ms = 0) => scheduler.timePasses(ms),
    pendingTimers: () => scheduler.pendingTimers,
    of: (eventClass) => events.filter((e) => e instanceof eventClass) as never,
    done: async () => {
      const terminated = system.terminate();
      await scheduler.timePasses(0);
      await terminated;
    },
  };
}

/** Event names and their main numbers, for compact assertions. */
export function describeEvents(events: readonly WebSocketEvent[]): string[] {
  return events.map((e) => {
    const name = e.constructor.name.replace(/^WebSocket/, "");
    const fields = Object.entries(e).filter(([key, v]) =>
      key !== "connection" && !(key === "mayNotHaveArrived" && v === 0)
    )
      .map(([, v]) =>
        typeof v === "object" && v !== null
          ? (v.constructor?.name ?? "object")
          : String(v)
      );
    return fields.length ? `${name}(${fields.join(", ")})` : name;
  });
}
