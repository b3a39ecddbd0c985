// Copyright 2026 the understudy authors. MIT license.

/**
 * The room's Durable Object: one per room, hosting the room's actors
 * (`room.ts`) in a durable actor system (`withActors(DurableObject, {
 * durable: true })`: its timers ride on the object's alarm, its state and
 * the lookups' supervisor live in the object's storage), and serving the
 * pages' supervised sockets through the WebSocket Hibernation API.
 *
 * @module
 */

// With wrangler: import { DurableObject } from "cloudflare:workers";
import {
  DurableObject,
  type HibernatableWebSocket,
} from "./cloudflare_workers.ts";
import { type ActorRef, type ActorSystem, Props } from "../../mod.ts";
import { SocketServer, withActors } from "../../src/durable/mod.ts";
import {
  type Item,
  Room,
  type RoomFrame,
  type RoomMessage,
  type Upstream,
} from "./room.ts";

/** A service binding: the Worker the upstream is served by. */
export interface Fetcher {
  fetch(input: string, init?: RequestInit): Promise<Response>;
}

/** What the object's `env` holds. */
export interface RoomEnv {
  /** The upstream dictionary (here the Worker itself, `GET /upstream/define`). */
  UPSTREAM: Fetcher;
}

/** The upstream's answer, or a throw for anything but 200. */
function upstreamOf(service: Fetcher): Upstream {
  return async (word) => {
    const response = await service.fetch(
      `https://upstream/upstream/define?word=${encodeURIComponent(word)}`,
      { signal: AbortSignal.timeout(5_000) },
    );
    if (!response.ok) {
      throw new Error(`upstream answered ${response.status} for "${word}"`);
    }
    return ((await response.json()) as { definition: string }).definition;
  };
}

/**
 * One room: its actors, and the pages connected to it. A page's socket is
 * served by the library's `SocketServer`: each page (its `client` id) is
 * a connection actor, what it sends reaches the room's actor once, in
 * order, across reconnects, hibernation and evictions, and is
 * acknowledged only after the room's turn that handled it.
 */
export class RoomObject extends withActors(DurableObject, {
  binding: "ROOM",
  systemName: "room",
  system: { logLevel: "warn" },
  durable: { lateWakeMs: 200 },
}) {
  #room!: ActorRef<RoomMessage>;
  #sockets!: SocketServer;

  override createActors(system: ActorSystem): void {
    const upstream = upstreamOf((this.env as RoomEnv).UPSTREAM);
    const store = this.actors.store;
    this.#room = system.actorOf(
      Props.create(() =>
        new Room(store, upstream, (frame) => this.#broadcast(frame))
      ),
      "room",
    );
    // Heartbeats ("ping") are answered by the platform, without waking the object.
    this.#sockets = new SocketServer(this.ctx, {
      system,
      store,
      target: this.#room,
    });
  }

  /** The socket server, creating the system on first use. */
  get #server(): SocketServer {
    this.actors.system;
    return this.#sockets;
  }

  #broadcast(frame: RoomFrame): void {
    const text = JSON.stringify(frame);
    for (const client of this.#sockets.clients) {
      this.#sockets.connection(client).tell(text);
    }
  }

  /** A page's socket: `GET /rooms/:room/ws?client=…` with `Upgrade: websocket`. */
  fetch(request: Request): Response {
    const response = this.#server.accept(request);
    const client = new URL(request.url).searchParams.get("client");
    if (response.status === 101 && client !== null) {
      // After the server's word on what it handled: the list as it is.
      this.#room.tell({ type: "join" }, this.#sockets.connection(client));
    }
    return response;
  }

  webSocketMessage(
    socket: HibernatableWebSocket,
    message: string | ArrayBuffer,
  ): void {
    this.#server.webSocketMessage(socket, message);
  }

  webSocketClose(
    socket: HibernatableWebSocket,
    code: number,
    reason: string,
    wasClean: boolean,
  ): void {
    this.#server.webSocketClose(socket, code, reason, wasClean);
  }

  webSocketError(socket: HibernatableWebSocket, error: unknown): void {
    this.#server.webSocketError(socket, error);
  }

  /** RPC: the room's list. */
  async items(): Promise<Item[]> {
    this.actors.system;
    const frame = await this.#room.ask<RoomFrame>({ type: "snapshot" }, 5_000);
    return frame.type === "items" ? frame.items : [];
  }

  /** RPC: an eviction, on demand (what the platform does when it likes). */
  evict(): void {
    this.ctx.abort("evicted on request");
  }
}
