// Copyright 2026 the understudy authors. MIT license.
// The client side of the end-to-end tests (not a test file itself): a
// connection actor whose events are recorded as plain JSON, so the same
// client runs in Deno, Node, Bun and, bundled, in a Chromium page.

import { ActorSystem, exponentialBackoff } from "../../mod.ts";
import {
  Close,
  Send,
  type Sent,
  WebSocketClosed,
  WebSocketConnecting,
  type WebSocketConstructor,
  type WebSocketEvent,
  WebSocketMessage,
  WebSocketOpened,
  websocketProps,
  WebSocketReconnectScheduled,
} from "../../src/websocket/mod.ts";

/** One event, as the scenario reads it. */
export interface EventRecord {
  type: string;
  /** `performance.now()` when it happened. */
  t: number;
  attempt?: number;
  delayMs?: number;
  code?: number;
  /** WebSocketClosed's mayNotHaveArrived. */
  lost?: number;
  data?: string;
}

/** How the streaming tests deliver: the default mode, or acknowledged mode. */
export type Delivery = "default" | "ack";

/** What became of the messages streamed with `stream`. */
export interface Outcomes {
  /** Each answered message: its text, and whether the answer said acknowledged; in order of the answers. */
  answered: [string, boolean][];
  /** Those whose ask failed (a dead letter), with the error. */
  failed: [string, string][];
}

/** What the scenario drives: in this process, or in a page through Playwright. */
export interface E2eClient {
  /** Starts a connection; with `delivery`, as the streaming tests use it. */
  start(url: string, delivery?: Delivery): Promise<void>;
  send(texts: string[]): Promise<void>;
  /** Sends each text with an ask, recording its answer. */
  stream(texts: string[]): Promise<void>;
  outcomes(): Promise<Outcomes>;
  events(): Promise<EventRecord[]>;
  /** Closes the connection, and resolves once every socket it opened is closed. */
  close(): Promise<void>;
}

/** The e2e policy: 100, 200, 400, 800, 1000 ms, ±20%. */
export const E2E_POLICY = { minMs: 100, maxMs: 1_000, randomFactor: 0.2 };
/** The streaming tests' policy: 50 ms doubling up to 400 ms, ±20%. */
const STREAM_POLICY = { minMs: 50, maxMs: 400, randomFactor: 0.2 };

/** Acknowledged mode as the test server speaks it: "ID:TEXT", answered "ack:ID". */
const ACK = {
  encode: (id: number, data: unknown) => `${id}:${data}`,
  decodeAck: (data: unknown) =>
    typeof data === "string" && data.startsWith("ack:")
      ? Number(data.slice(4))
      : undefined,
};

const NAMES: [abstract new (...args: never[]) => WebSocketEvent, string][] = [
  [WebSocketConnecting, "WebSocketConnecting"],
  [WebSocketReconnectScheduled, "WebSocketReconnectScheduled"],
  [WebSocketOpened, "WebSocketOpened"],
  [WebSocketClosed, "WebSocketClosed"],
  [WebSocketMessage, "WebSocketMessage"],
];

function record(event: WebSocketEvent): EventRecord {
  const t = performance.now();
  // By class, not constructor.name, which a minifier may change.
  const type = NAMES.find(([eventClass]) => event instanceof eventClass)?.[1] ??
    "other";
  if (
    event instanceof WebSocketConnecting ||
    event instanceof WebSocketReconnectScheduled
  ) {
    return { type, t, attempt: event.attempt, delayMs: event.delayMs };
  }
  if (event instanceof WebSocketClosed) {
    return { type, t, code: event.code, lost: event.mayNotHaveArrived };
  }
  if (event instanceof WebSocketMessage) {
    return { type, t, data: String(event.data) };
  }
  return { type, t };
}

/** Runs the connection actor here, with `WebSocket` (default: the global one). */
export class InProcessClient implements E2eClient {
  readonly #WebSocket: WebSocketConstructor;
  readonly #closed: Promise<void>[] = [];
  readonly #events: EventRecord[] = [];
  readonly #outcomes: Outcomes = { answered: [], failed: [] };
  #system: ActorSystem | undefined;
  #connection: ReturnType<ActorSystem["actorOf"]> | undefined;

  constructor(WebSocket?: WebSocketConstructor) {
    this.#WebSocket = WebSocket ??
      (globalThis as unknown as { WebSocket: WebSocketConstructor }).WebSocket;
  }

  start(url: string, delivery?: Delivery): Promise<void> {
    const Base = this.#WebSocket;
    const closed = this.#closed;
    // Every socket is tracked until closed: a test must not end with one open.
    const Tracked = function (url: string, protocols?: string | string[]) {
      const socket = protocols === undefined
        ? new Base(url)
        : new Base(url, protocols);
      closed.push(
        new Promise<void>((resolve) =>
          (socket as unknown as EventTarget).addEventListener(
            "close",
            () => resolve(),
          )
        ),
      );
      return socket;
    } as unknown as WebSocketConstructor;
    this.#system = ActorSystem.create("e2e", { logLevel: "warn" });
    this.#connection = this.#system.actorOf(
      websocketProps({
        url,
        WebSocket: Tracked,
        policy: exponentialBackoff(delivery ? STREAM_POLICY : E2E_POLICY),
        minUptimeMs: delivery ? 150 : 50,
        ack: delivery === "ack" ? ACK : undefined,
        page: false,
        subscriber: (event) => this.#events.push(record(event)),
      }),
      "e2e",
    );
    return Promise.resolve();
  }

  send(texts: string[]): Promise<void> {
    for (const text of texts) this.#connection!.tell(new Send(text));
    return Promise.resolve();
  }

  stream(texts: string[]): Promise<void> {
    const { answered, failed } = this.#outcomes;
    for (const text of texts) {
      this.#connection!.ask<Sent>(new Send(text), 120_000).then(
        (reply) => answered.push([text, reply.acknowledged]),
        (error) => failed.push([text, String(error)]),
      );
    }
    return Promise.resolve();
  }

  outcomes(): Promise<Outcomes> {
    const { answered, failed } = this.#outcomes;
    return Promise.resolve({ answered: [...answered], failed: [...failed] });
  }

  events(): Promise<EventRecord[]> {
    return Promise.resolve([...this.#events]);
  }

  async close(): Promise<void> {
    this.#connection?.tell(new Close(1000, "done"));
    await this.#system?.terminate();
    await Promise.all(this.#closed);
  }
}
