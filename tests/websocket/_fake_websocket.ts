// Copyright 2026 the understudy authors. MIT license.
// A scripted WebSocket and the network it talks to, for the websocket tests
// (not a test file itself). Sockets are answered in a later timer of the
// network's clock (the harness's ManualScheduler: on the next
// `timePasses(0)`), as a real socket answers in a later task.

import type {
  CloseInfo,
  WebSocketConstructor,
  WebSocketData,
} from "../../src/websocket/mod.ts";

type Handler = ((event: unknown) => void) | null;

/** The clock the network answers on: the host's timers by default, or a test scheduler. */
export interface NetworkClock {
  setTimeout(callback: () => void, delayMs: number): unknown;
  now(): number;
}

const HOST_CLOCK: NetworkClock = {
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs),
  now: () => Date.now(),
};

/** How the fake network answers a new socket. */
export type Answer = "accept" | "refuse" | "hang";

/** One fake socket; the test plays the server through its methods. */
export class FakeWebSocket {
  readyState = 0;
  protocol = "";
  /** Bytes "not yet on the network": the test sets it (0: everything left at once). */
  bufferedAmount = 0;
  binaryType = "blob";
  onopen: unknown = null;
  onmessage: unknown = null;
  onclose: unknown = null;
  onerror: unknown = null;
  /** What the client sent, in order. */
  readonly sent: WebSocketData[] = [];
  /** The client's close() calls. */
  readonly closeCalls: { code?: number; reason?: string }[] = [];

  constructor(
    readonly network: FakeNetwork,
    readonly url: string,
    readonly protocols: string | string[] | undefined,
    readonly openedAt: number,
  ) {}

  send(data: WebSocketData): void {
    if (this.readyState !== 1) {
      throw new Error(`send() while readyState is ${this.readyState}`);
    }
    this.sent.push(data);
    this.network.onSend?.(this, data);
  }

  close(code?: number, reason?: string): void {
    this.closeCalls.push({ code, reason });
    if (
      code !== undefined && code !== 1000 && !(code >= 3000 && code <= 4999)
    ) {
      throw new Error(`InvalidAccessError: close code ${code}`);
    }
    if (this.readyState >= 2) return;
    this.readyState = 2;
    this.network.clock.setTimeout(
      () =>
        this.end({ code: code ?? 1005, reason: reason ?? "", wasClean: true }),
      0,
    );
  }

  // ── the server's side ──

  /** The handshake succeeds. */
  accept(protocol = ""): void {
    if (this.readyState !== 0) return;
    this.readyState = 1;
    this.protocol = protocol;
    this.#fire(this.onopen, { type: "open" });
  }

  /** The connection fails (refused, DNS, TLS...): error, then close 1006. */
  refuse(): void {
    if (this.readyState >= 2) return;
    this.#fire(this.onerror, { type: "error" });
    this.end({ code: 1006, reason: "", wasClean: false });
  }

  /** A frame from the server. */
  message(data: unknown): void {
    if (this.readyState === 1) {
      this.#fire(this.onmessage, { type: "message", data });
    }
  }

  /** The connection ends. */
  end(close: CloseInfo): void {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.#fire(this.onclose, { type: "close", ...close });
  }

  #fire(handler: unknown, event: unknown): void {
    (handler as Handler)?.(event);
  }
}

/** The fake network: every socket made with its `WebSocket`, and how new ones are answered. */
export class FakeNetwork {
  readonly sockets: FakeWebSocket[] = [];
  answer: Answer = "accept";
  /** Called with each frame a client sends. */
  onSend: ((socket: FakeWebSocket, data: WebSocketData) => void) | undefined =
    undefined;
  readonly WebSocket: WebSocketConstructor;

  constructor(readonly clock: NetworkClock = HOST_CLOCK) {
    // deno-lint-ignore no-this-alias
    const network = this;
    this.WebSocket = class extends FakeWebSocket {
      constructor(url: string, protocols?: string | string[]) {
        // As a real WebSocket does, refuse what is no WebSocket URL.
        if (!/^(wss?|https?):$/.test(new URL(url).protocol)) {
          throw new SyntaxError(`not a WebSocket URL: ${url}`);
        }
        super(network, url, protocols, network.clock.now());
        network.sockets.push(this);
        const answer = network.answer;
        if (answer !== "hang") {
          network.clock.setTimeout(
            () => answer === "accept" ? this.accept() : this.refuse(),
            0,
          );
        }
      }
    };
  }

  /** The newest socket. */
  get last(): FakeWebSocket {
    const socket = this.sockets.at(-1);
    if (socket === undefined) throw new Error("no socket was opened");
    return socket;
  }

  /** Sockets not closed yet. */
  get live(): FakeWebSocket[] {
    return this.sockets.filter((s) => s.readyState < 2);
  }

  /** The server goes away: every open or connecting socket ends with `code`, and new ones are refused. */
  crash(code = 1006): void {
    this.answer = "refuse";
    for (const socket of this.sockets) {
      if (socket.readyState < 2) {
        socket.end({ code, reason: "", wasClean: false });
      }
    }
  }
}
