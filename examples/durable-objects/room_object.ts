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
  type DurableObjectState,
  type HibernatableWebSocket,
} from "./cloudflare_workers.ts";
import { type ActorRef, type ActorSystem, Props } from "../../mod.ts";
import { withActors } from "../../src/durable/mod.ts";
import {
  type Command,
  type Item,
  Room,
  type RoomFrame,
  type RoomMessage,
  type Upstream,
} from "./room.ts";

/** The platform's globals the object uses (workerd has them; `deno check` does not). */
declare const WebSocketPair: new () => {
  0: WebSocket;
  1: HibernatableWebSocket;
};
declare const WebSocketRequestResponsePair: new (
  request: string,
  response: string,
) => unknown;

/** A service binding: the Worker the upstream is served by. */
export interface Fetcher {
  fetch(input: string, init?: RequestInit): Promise<Response>;
}

/** What the object's `env` holds. */
export interface RoomEnv {
  /** The upstream dictionary (here the Worker itself, `GET /upstream/define`). */
  UPSTREAM: Fetcher;
}

/** What a socket remembers across hibernation: whose it is. */
interface Attachment {
  readonly client: string;
}

/** The first character of the frames that are the socket protocol's, not the room's. */
const CONTROL = "\u0006";

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

/** One room: its actors, and the pages connected to it. */
export class RoomObject extends withActors(DurableObject, {
  binding: "ROOM",
  systemName: "room",
  system: { logLevel: "warn" },
  durable: { lateWakeMs: 200 },
}) {
  #room!: ActorRef<RoomMessage>;

  constructor(ctx: DurableObjectState, env: RoomEnv) {
    super(ctx, env);
    // Heartbeats are answered by the platform, without waking the object.
    (ctx as unknown as {
      setWebSocketAutoResponse(pair: unknown): void;
    }).setWebSocketAutoResponse(
      new WebSocketRequestResponsePair("ping", CONTROL),
    );
  }

  override createActors(system: ActorSystem): void {
    const upstream = upstreamOf((this.env as RoomEnv).UPSTREAM);
    this.#room = system.actorOf(
      Props.create(() =>
        new Room(
          this.actors.store,
          upstream,
          (frame) => this.#broadcast(frame),
        )
      ),
      "room",
    );
  }

  /** The room's actor, creating the system on first use. */
  #actor(): ActorRef<RoomMessage> {
    this.actors.system;
    return this.#room;
  }

  #broadcast(frame: RoomFrame): void {
    const text = JSON.stringify(frame);
    for (const socket of this.ctx.getWebSockets()) {
      try {
        socket.send(text);
      } catch {
        // Closing: its page gets the list again when it reconnects.
      }
    }
  }

  /** A page's socket: `GET /rooms/:room/ws?client=…` with `Upgrade: websocket`. */
  async fetch(request: Request): Promise<Response> {
    const client = new URL(request.url).searchParams.get("client");
    if (request.headers.get("upgrade") !== "websocket" || !client) {
      return new Response("expected a WebSocket with ?client=", {
        status: 426,
      });
    }
    const pair = new WebSocketPair();
    const server = pair[1];
    this.ctx.acceptWebSocket(server);
    server.serializeAttachment({ client } satisfies Attachment);
    const room = this.#actor();
    const handled = await room.ask<number>({ type: "handled", client }, 5_000);
    // First the last id handled from this client, then the list.
    server.send(`${CONTROL}r${handled}`);
    server.send(
      JSON.stringify(await room.ask<RoomFrame>({ type: "snapshot" }, 5_000)),
    );
    return new Response(null, {
      status: 101,
      webSocket: pair[0],
    } as ResponseInit);
  }

  /** A frame from a page: `id:command`; acknowledged once the room has handled it. */
  async webSocketMessage(
    socket: HibernatableWebSocket,
    frame: string | ArrayBuffer,
  ): Promise<void> {
    if (typeof frame !== "string") return;
    const colon = frame.indexOf(":");
    const id = Number(frame.slice(0, colon));
    if (colon < 1 || !Number.isSafeInteger(id) || id < 1) return;
    const { client } = socket.deserializeAttachment() as Attachment;
    const command = JSON.parse(frame.slice(colon + 1)) as Command;
    const done = await this.#actor().ask<number>(
      { type: "command", command, from: { client, id } },
      5_000,
    );
    // Sent after the room's write: the output gate holds it until durable.
    socket.send(`${CONTROL}${done}`);
  }

  webSocketClose(
    socket: HibernatableWebSocket,
    code: number,
    reason: string,
  ): void {
    socket.close(code, reason);
  }

  /** RPC: the room's list. */
  async items(): Promise<Item[]> {
    const frame = await this.#actor().ask<RoomFrame>(
      { type: "snapshot" },
      5_000,
    );
    return frame.type === "items" ? frame.items : [];
  }

  /** RPC: an eviction, on demand (what the platform does when it likes). */
  evict(): void {
    this.ctx.abort("evicted on request");
  }
}
