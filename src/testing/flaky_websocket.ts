// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The flaky link's socket adapter: a WebSocket class whose sockets pass
 * every frame through two {@linkcode FlakyChannel}s (one each way), and
 * may break the connection at a given rate.
 *
 * @module
 */

import type { Scheduler } from "../runtime/ports/scheduler.ts";
import { fail } from "../validation.ts";
import type {
  WebSocketConstructor,
  WebSocketData,
  WebSocketLike,
} from "../websocket/websocket_like.ts";
import { checkFaults, FlakyChannel, type LinkFaults } from "./flaky_link.ts";
import { checkRate, type SeededRandom } from "./seeded_random.ts";

/**
 * The faults of a flaky socket: what each direction does to frames, and
 * how often a frame (either way) breaks the connection instead.
 *
 * @example Usage
 * ```ts
 * import type { SocketFaults } from "@understudy/core/testing";
 *
 * const faults: SocketFaults = {
 *   toServer: { drop: 0.2, delayMs: [0, 40] },
 *   toClient: { drop: 0.2, delayMs: [0, 40] },
 *   disconnect: 0.01,
 * };
 * ```
 */
export interface SocketFaults {
  /** What happens to the frames the client sends. */
  readonly toServer?: LinkFaults;
  /** What happens to the frames the server sends. */
  readonly toClient?: LinkFaults;
  /**
   * Chance, per frame either way, that the connection breaks at that frame
   * (the frame is lost): the client sees an abnormal close (1006), in a
   * later timer, and the server's socket is closed.
   */
  readonly disconnect?: number;
}

/**
 * Options of {@linkcode flakyWebSockets}.
 *
 * @example Usage
 * ```ts
 * import { type FlakyWebSocketOptions, ManualScheduler, seededRandom } from "@understudy/core/testing";
 *
 * const options: FlakyWebSocketOptions = {
 *   random: seededRandom(7),
 *   scheduler: new ManualScheduler(),
 *   faults: { toServer: { drop: 0.1 } },
 * };
 * ```
 */
export interface FlakyWebSocketOptions {
  /** Where every fault is drawn from (each socket gets forks of it). */
  readonly random: SeededRandom;
  /** Times the deliveries: the actor system's scheduler. */
  readonly scheduler: Scheduler;
  /** The faults of every socket made. Default: none. */
  readonly faults?: SocketFaults;
}

/**
 * One socket's link: the two channels, the socket under them, and a way to
 * break the connection by hand.
 *
 * @example Usage
 * ```ts
 * import { flakyWebSockets, ManualScheduler, seededRandom } from "@understudy/core/testing";
 *
 * const scheduler = new ManualScheduler();
 * const flaky = flakyWebSockets(globalThis.WebSocket, { random: seededRandom(1), scheduler });
 * for (const link of flaky.links) console.log(link.toServer.stats.dropped);
 * ```
 */
export interface FlakySocketLink {
  /** The client's frames, on their way. */
  readonly toServer: FlakyChannel<WebSocketData>;
  /** The server's frames, on their way. */
  readonly toClient: FlakyChannel<unknown>;
  /** The socket under the link. */
  readonly socket: WebSocketLike;
  /** Whether the link broke (the `disconnect` fault, or `breakConnection`). */
  readonly broken: boolean;
  /** Breaks the connection now, as the `disconnect` fault does. */
  breakConnection(): void;
}

/**
 * What {@linkcode flakyWebSockets} returns: the class to give the
 * connection (`websocketProps({ WebSocket })`), its sockets' links, and
 * the faults, which can be changed (`heal()` for the end of a test).
 *
 * @example Usage
 * ```ts
 * import { type FlakyWebSockets, flakyWebSockets, ManualScheduler, seededRandom } from "@understudy/core/testing";
 *
 * const flaky: FlakyWebSockets = flakyWebSockets(globalThis.WebSocket, {
 *   random: seededRandom(1),
 *   scheduler: new ManualScheduler(),
 * });
 * flaky.heal();
 * ```
 */
export interface FlakyWebSockets {
  /** The WebSocket class whose sockets are flaky. */
  readonly WebSocket: WebSocketConstructor;
  /** Every socket's link, in the order made. */
  readonly links: readonly FlakySocketLink[];
  /** The faults in force. */
  readonly faults: SocketFaults;
  /** Changes the faults of every socket, live ones included, from the next frame on. */
  setFaults(faults: SocketFaults): void;
  /** No more faults: `setFaults({})`. */
  heal(): void;
  /**
   * Closes every link's channels (what is in flight is lost) and cancels a
   * break's close not yet reported: no timer is left.
   */
  close(): void;
}

type Handler = ((event: unknown) => void) | null;

/** Calls a handler property the way a socket fires an event. */
function fire(handler: unknown, event: unknown): void {
  if (typeof handler === "function") (handler as Handler)!(event);
}

/**
 * A WebSocket class whose sockets are flaky: each wraps a socket made by
 * `WebSocket`, and passes the client's frames to it, and its frames to the
 * client, through two {@linkcode FlakyChannel}s, each drawing from its own
 * fork of `options.random` (`socket 1 ▸ server`, `socket 1 ◂ server`, …),
 * so that a seed replays every socket's faults. Frames still on the way
 * when a connection closes are lost, as on a real connection. The open,
 * error and close events pass straight through; `readyState`,
 * `bufferedAmount` and `protocol` are the socket's.
 *
 * Made for the connection's acknowledged mode (`ack`), whose ids make a
 * lost or doubled frame visible: by default a connection counts a message
 * as sent once its bytes left the socket's buffer, which a frame lost on a
 * connection that stays up does not show.
 *
 * @example A connection that loses a fifth of its frames each way
 * ```ts no-run: needs a WebSocket server
 * import { ActorSystem } from "@understudy/core";
 * import { websocketProps } from "@understudy/core/websocket";
 * import { flakyWebSockets, ManualScheduler, seededRandom } from "@understudy/core/testing";
 *
 * const scheduler = new ManualScheduler();
 * const system = ActorSystem.create("test", { scheduler });
 * const flaky = flakyWebSockets(globalThis.WebSocket, {
 *   random: seededRandom(2024),
 *   scheduler,
 *   faults: { toServer: { drop: 0.2 }, toClient: { drop: 0.2 }, disconnect: 0.02 },
 * });
 * const connection = system.actorOf(websocketProps({
 *   url: "ws://localhost:8080/",
 *   WebSocket: flaky.WebSocket,
 *   ack: {
 *     encode: (id, data) => JSON.stringify({ id, data }),
 *     decodeAck: (data) => typeof data === "string" && data.startsWith("ack:") ? Number(data.slice(4)) : undefined,
 *   },
 * }));
 * ```
 *
 * @param WebSocket The class of the real (or fake) sockets.
 * @param options Random source, scheduler, faults.
 * @returns The flaky class, the links, and the faults' controls.
 */
export function flakyWebSockets(
  WebSocket: WebSocketConstructor,
  options: FlakyWebSocketOptions,
): FlakyWebSockets {
  const action = "make flaky WebSockets";
  if (typeof WebSocket !== "function") {
    fail(action, "WebSocket", "a WebSocket class", WebSocket);
  }
  if (typeof options !== "object" || options === null) {
    fail(action, "options", "an object", options);
  }
  const { random, scheduler } = options;
  if (typeof random?.fork !== "function") {
    fail(action, "random", "a SeededRandom", random);
  }
  let faults = checkSocketFaults(action, options.faults ?? {});
  const links: SocketLink[] = [];

  class FlakySocket implements WebSocketLike {
    onopen: unknown = null;
    onmessage: unknown = null;
    onclose: unknown = null;
    onerror: unknown = null;
    readonly #link: SocketLink;

    constructor(url: string, protocols?: string | string[]) {
      const socket = new WebSocket(url, protocols);
      const n = links.length + 1;
      this.#link = new SocketLink(n, socket, random, scheduler, faults, this);
      links.push(this.#link);
    }

    get readyState(): number {
      const link = this.#link;
      if (link.broken) return link.closeFired ? 3 : 2;
      return link.socket.readyState;
    }
    get bufferedAmount(): number {
      return this.#link.socket.bufferedAmount;
    }
    get protocol(): string {
      return this.#link.socket.protocol;
    }
    get binaryType(): string {
      return this.#link.socket.binaryType;
    }
    set binaryType(type: string) {
      this.#link.socket.binaryType = type;
    }

    send(data: WebSocketData): void {
      const link = this.#link;
      // A broken link discards, as a closing socket does; otherwise the
      // socket's own rules apply (it throws unless open).
      if (link.broken) return;
      if (link.socket.readyState !== 1) link.socket.send(data);
      else link.frame(() => link.toServer.send(data));
    }

    close(code?: number, reason?: string): void {
      this.#link.socket.close(code, reason);
    }
  }

  return {
    WebSocket: FlakySocket,
    links,
    get faults() {
      return faults;
    },
    setFaults(next: SocketFaults): void {
      faults = checkSocketFaults("set socket faults", next);
      for (const link of links) link.setFaults(faults);
    },
    heal(): void {
      this.setFaults({});
    },
    close(): void {
      for (const link of links) link.dispose();
    },
  };
}

function checkSocketFaults(action: string, faults: unknown): SocketFaults {
  if (typeof faults !== "object" || faults === null) {
    fail(
      action,
      "faults",
      "an object { toServer, toClient, disconnect }",
      faults,
    );
  }
  const f = faults as SocketFaults;
  if (f.toServer !== undefined) {
    checkFaults(action, "faults.toServer", f.toServer);
  }
  if (f.toClient !== undefined) {
    checkFaults(action, "faults.toClient", f.toClient);
  }
  if (f.disconnect !== undefined) {
    checkRate(action, "faults.disconnect", f.disconnect);
  }
  return f;
}

/** The two channels of one socket, and its break. */
class SocketLink implements FlakySocketLink {
  readonly toServer: FlakyChannel<WebSocketData>;
  readonly toClient: FlakyChannel<unknown>;
  broken = false;
  /** The client was told of the break (its `onclose` ran). */
  closeFired = false;
  readonly #breaks: SeededRandom;
  readonly #scheduler: Scheduler;
  /** The timer that reports a break's close to the client, until it fires. */
  #closeReport: unknown = undefined;
  #disconnect: number;

  constructor(
    n: number,
    readonly socket: WebSocketLike,
    random: SeededRandom,
    scheduler: Scheduler,
    faults: SocketFaults,
    /** The socket the client holds: its handlers get the events. */
    readonly client: WebSocketLike,
  ) {
    this.#breaks = random.fork(`socket ${n} breaks`);
    this.#scheduler = scheduler;
    this.#disconnect = faults.disconnect ?? 0;
    this.toServer = new FlakyChannel<WebSocketData>({
      name: `socket ${n} ▸ server`,
      random: random.fork(`socket ${n} ▸ server`),
      scheduler,
      faults: faults.toServer,
      deliver: (data) => {
        // Lost with the connection if it went down meanwhile.
        if (!this.broken && socket.readyState === 1) socket.send(data);
      },
    });
    this.toClient = new FlakyChannel<unknown>({
      name: `socket ${n} ◂ server`,
      random: random.fork(`socket ${n} ◂ server`),
      scheduler,
      faults: faults.toClient,
      deliver: (data) => {
        if (!this.broken) fire(client.onmessage, { type: "message", data });
      },
    });
    socket.onopen = (event: unknown) => {
      if (!this.broken) fire(client.onopen, event);
    };
    socket.onerror = (event: unknown) => {
      if (!this.broken) fire(client.onerror, event);
    };
    socket.onmessage = (event: unknown) => {
      this.frame(() => this.toClient.send((event as { data: unknown }).data));
    };
    socket.onclose = (event: unknown) => {
      this.closeChannels();
      if (!this.broken) fire(client.onclose, event);
    };
  }

  /** One frame either way: the connection may break at it instead. */
  frame(pass: () => void): void {
    if (this.broken) return;
    if (this.#breaks.next() < this.#disconnect) this.breakConnection();
    else pass();
  }

  setFaults(faults: SocketFaults): void {
    this.#disconnect = faults.disconnect ?? 0;
    this.toServer.setFaults(faults.toServer ?? {});
    this.toClient.setFaults(faults.toClient ?? {});
  }

  breakConnection(): void {
    if (this.broken || this.socket.readyState >= 2) return;
    this.broken = true;
    this.closeChannels();
    try {
      this.socket.close(1000, "flaky link: connection broken");
    } catch {
      // The socket refused; it is abandoned either way.
    }
    // In a later task, as a socket reports its close: never inside send().
    this.#closeReport = this.#scheduler.setTimeout(() => {
      this.#closeReport = undefined;
      this.closeFired = true;
      fire(this.client.onclose, {
        type: "close",
        code: 1006,
        reason: "flaky link: connection broken",
        wasClean: false,
      });
    }, 0);
  }

  closeChannels(): void {
    this.toServer.close();
    this.toClient.close();
  }

  /** The end of a test: the channels closed, a pending close report cancelled. */
  dispose(): void {
    this.closeChannels();
    if (this.#closeReport !== undefined) {
      this.#scheduler.clearTimeout(this.#closeReport);
      this.#closeReport = undefined;
    }
  }
}
