// Copyright 2026 the understudy authors. MIT license.
// The worker socket_workerd*.test.ts and bench/durable_socket.mjs serve from
// workerd: Room, a durable actor host (SQLite-backed) whose SocketServer
// hands each client message to a recorder that writes it to storage, in
// its turn (so the test reads back what was processed, once each, in
// order); and Echo, a bare WebSocket echo through the Hibernation API (with
// a storage write first for frames starting "w:"), the bench's baselines.
// Not a test file itself.
//
// GET /room/<name>?client=<id> (upgrade) reaches room <name>'s server;
// GET /echo (upgrade) the echo; POST /call {"name", "method", "args"} calls
// a method of room <name> (`evict`, `log`, `lives`).

import { DurableObject } from "./_cloudflare_workers.ts";
import { Actor, type ActorSystem, Props } from "../../mod.ts";
import {
  DurableState,
  type DurableStore,
  type HibernatableWebSocketLike,
  type HibernationStateLike,
  type SocketMessage,
  SocketServer,
  withActors,
} from "../../src/durable/mod.ts";

/** What the platform's ctx has here, beyond the stand-in's type. */
type Ctx = HibernationStateLike & {
  abort(reason?: string): void;
  storage: {
    kv: {
      get(key: string): unknown;
      put(key: string, value: unknown): void;
      list(options: { prefix: string }): Iterable<[string, unknown]>;
    };
  };
};

/** Writes each message it processes to storage, in its turn, numbered in the order processed. */
class Recorder extends Actor<SocketMessage> {
  readonly #count: DurableState<number>;
  constructor(readonly store: DurableStore) {
    super();
    this.#count = new DurableState(store, "processed", 0);
  }
  onReceive(message: SocketMessage): void {
    const n = this.#count.value + 1;
    this.store.put!(`log/${String(n).padStart(8, "0")}`, [
      message.clientId,
      message.id,
      String(message.data),
    ]);
    this.#count.set(n);
  }
}

export class Room
  extends withActors(DurableObject, { binding: "ROOM", durable: true }) {
  sockets!: SocketServer;

  get #ctx(): Ctx {
    return this.ctx as unknown as Ctx;
  }

  override createActors(system: ActorSystem): void {
    const store = this.actors.store;
    const kv = this.#ctx.storage.kv;
    kv.put("lives", ((kv.get("lives") as number | undefined) ?? 0) + 1);
    const target = system.actorOf(
      Props.create(() => new Recorder(store)),
      "recorder",
    );
    this.sockets = new SocketServer(this.#ctx, { system, store, target });
  }

  fetch(request: Request): Response {
    return this.sockets.accept(request);
  }

  webSocketMessage(
    ws: HibernatableWebSocketLike,
    message: string | ArrayBuffer,
  ): void {
    this.sockets.webSocketMessage(ws, message);
  }

  webSocketClose(
    ws: HibernatableWebSocketLike,
    code: number,
    reason: string,
    wasClean: boolean,
  ): void {
    this.sockets.webSocketClose(ws, code, reason, wasClean);
  }

  webSocketError(ws: HibernatableWebSocketLike, error: unknown): void {
    this.sockets.webSocketError(ws, error);
  }

  /** The eviction the tests inflict (the caller sees the call fail). */
  evict(): void {
    this.#ctx.abort("evicted by the test");
  }

  /** What the recorder processed, in order: [client, id, data]. */
  log(): unknown[] {
    return [...this.#ctx.storage.kv.list({ prefix: "log/" })].map(([, v]) => v);
  }

  /** How many times the object was activated (its system created). */
  lives(): number {
    return (this.#ctx.storage.kv.get("lives") as number | undefined) ?? 0;
  }
}

/** A bare echo through the Hibernation API: the baseline of the bench. */
export class Echo extends DurableObject {
  fetch(): Response {
    const Pair = (globalThis as unknown as {
      WebSocketPair: new () => Record<0 | 1, HibernatableWebSocketLike>;
    }).WebSocketPair;
    const pair = new Pair();
    (this.ctx as unknown as Ctx).acceptWebSocket(pair[1]);
    return new Response(null, { status: 101, webSocket: pair[0] } as never);
  }

  webSocketMessage(
    ws: HibernatableWebSocketLike,
    message: string | ArrayBuffer,
  ): void {
    // "w:…" is written to storage first: the output gate holds the echo
    // until the write is durable (the bench's second baseline).
    if (typeof message === "string" && message.startsWith("w:")) {
      (this.ctx as unknown as Ctx).storage.kv.put("last", message);
    }
    ws.send(message);
  }

  webSocketClose(ws: HibernatableWebSocketLike): void {
    try {
      ws.close(1000, "");
    } catch {
      // closed
    }
  }
}

interface Namespace {
  idFromName(name: string): unknown;
  get(id: unknown): Record<string, (...args: unknown[]) => Promise<unknown>> & {
    fetch(request: Request): Promise<Response>;
  };
}

export default {
  async fetch(request: Request, env: Record<string, Namespace>) {
    const url = new URL(request.url);
    if (url.pathname === "/echo") {
      return env.ECHO.get(env.ECHO.idFromName("echo")).fetch(request);
    }
    const room = url.pathname.match(/^\/room\/([^/]+)$/);
    if (room) return env.ROOM.get(env.ROOM.idFromName(room[1])).fetch(request);
    const { name, method, args = [] } = await request.json() as {
      name: string;
      method: string;
      args?: unknown[];
    };
    try {
      const stub = env.ROOM.get(env.ROOM.idFromName(name));
      const result = await stub[method](...args);
      return Response.json({ result: result ?? null });
    } catch (error) {
      return Response.json({
        error: {
          name: (error as Error).name,
          message: (error as Error).message,
        },
      }, { status: 500 });
    }
  },
};
