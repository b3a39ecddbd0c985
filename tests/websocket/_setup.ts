// Copyright 2026 the understudy authors. MIT license.
// Fake time, an actor system and a fake network for the websocket tests
// (not a test file itself).

import * as FakeTimers from "@sinonjs/fake-timers";
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

/** The timers faked: everything but queueMicrotask, on which the dispatcher runs. */
export const FAKED: FakeTimers.FakeMethod[] = [
  "setTimeout",
  "clearTimeout",
  "setInterval",
  "clearInterval",
  "Date",
  "performance",
];

export interface Harness {
  clock: FakeTimers.Clock;
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
  /** Advances fake time, letting actors run between timers. */
  tick(ms?: number): Promise<void>;
  /** Events of one class, in order. */
  of<E extends WebSocketEvent>(
    eventClass: abstract new (...args: never[]) => E,
  ): E[];
  /** Terminates the system and restores real time. */
  done(): Promise<void>;
}

export function harness(): Harness {
  const clock = FakeTimers.install({ toFake: FAKED, now: 0 });
  const logs: LogRecord[] = [];
  const system = ActorSystem.create("ws-test", {
    logLevel: "warn",
    logger: (record) => logs.push(record),
  });
  const network = new FakeNetwork();
  const events: WebSocketEvent[] = [];
  const deadLetters: DeadLetter[] = [];
  system.eventStream.subscribe(WebSocketEvent, (event) => events.push(event));
  system.eventStream.subscribe(DeadLetter, (dead) => deadLetters.push(dead));
  return {
    clock,
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
    tick: async (ms = 0) => {
      await clock.tickAsync(ms);
    },
    of: (eventClass) => events.filter((e) => e instanceof eventClass) as never,
    done: async () => {
      try {
        const terminated = system.terminate();
        await clock.tickAsync(0);
        await terminated;
      } finally {
        clock.uninstall();
      }
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
