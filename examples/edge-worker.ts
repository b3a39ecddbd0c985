// Copyright 2026 the understudy authors. MIT license.

/**
 * The shape of an edge function that talks to an upstream service over one
 * long-lived WebSocket: the isolate keeps a supervised connection actor
 * between requests, and each request asks a gateway actor, which correlates
 * replies by id. When the upstream flaps, requests wait (bounded by the ask
 * timeout) while the connection is retried with backoff, instead of each
 * request failing or opening its own socket.
 *
 *     deno run -A examples/edge-worker.ts
 *     curl 'http://127.0.0.1:8788/?q=hello'
 *
 * Without UPSTREAM set it also starts a demo upstream on 127.0.0.1:8789 that
 * goes away for 2 s every 10 s; curl in a loop and watch requests ride
 * through the restarts. Set UPSTREAM=wss://... for a real one (it must
 * answer `{"id", "q"}` with `{"id", "answer"}`).
 *
 * The default export is a Workers-style `{ fetch(request, env) }` handler.
 * On Cloudflare Workers (workerd), an I/O object such as the upstream
 * WebSocket belongs to the request that opened it, and a later request
 * cannot use it; one connection serving every request has to live in a
 * Durable Object. Bind a Durable Object namespace `GATEWAY` to the class
 * {@linkcode EdgeGateway} and set `UPSTREAM` as a variable: each request is
 * then forwarded to that one object. Without `GATEWAY` (a runtime whose
 * isolates share I/O between requests) it answers in place.
 * docs/edge-lifetimes.md says which lifetime (per request, per isolate,
 * per Durable Object) keeps what; a connection has to be the last.
 * `tests/workerd/edge_worker.test.ts` runs it in workerd that way.
 *
 * @module
 */

import { Actor, type ActorRef, ActorSystem, Props } from "../mod.ts";
import {
  Send,
  type WebSocketCommand,
  type WebSocketEvent,
  WebSocketMessage,
  websocketProps,
  WebSocketReconnectScheduled,
} from "../src/websocket/mod.ts";

/** A request for the upstream. */
class Query {
  constructor(readonly text: string) {}
}

const ASK_TIMEOUT_MS = 10_000;

/** Sends queries upstream with an id, and routes each answer to whoever asked. */
class Gateway extends Actor<Query | WebSocketEvent> {
  readonly #pending = new Map<
    number,
    { replyTo: ActorRef<unknown>; since: number }
  >();
  #upstream!: ActorRef<WebSocketCommand>;
  #lastId = 0;

  constructor(readonly url: string) {
    super();
  }

  override preStart(): void {
    this.#upstream = this.context.actorOf(
      websocketProps({
        url: this.url,
        subscriber: this.self as ActorRef<WebSocketEvent>,
        heartbeat: {
          intervalMs: 10_000,
          timeoutMs: 5_000,
          message: '{"ping":true}',
        },
        maxQueued: 10_000,
      }),
      "upstream",
    );
  }

  onReceive(message: Query | WebSocketEvent): void {
    if (message instanceof Query) {
      this.#forgetExpired();
      const id = ++this.#lastId;
      this.#pending.set(id, { replyTo: this.sender!, since: Date.now() });
      this.#upstream.tell(new Send(JSON.stringify({ id, q: message.text })));
    } else if (message instanceof WebSocketMessage) {
      const { id, answer } = JSON.parse(String(message.data));
      this.#pending.get(id)?.replyTo.tell(answer);
      this.#pending.delete(id);
    } else if (message instanceof WebSocketReconnectScheduled) {
      this.log.info(
        `upstream down: retry ${message.attempt} in ${
          Math.round(message.delayMs)
        } ms`,
      );
    }
  }

  /** Whoever asked more than ASK_TIMEOUT_MS ago has given up waiting. */
  #forgetExpired(): void {
    const cutoff = Date.now() - ASK_TIMEOUT_MS;
    for (const [id, { since }] of this.#pending) {
      if (since < cutoff) this.#pending.delete(id);
    }
  }
}

const DEMO_UPSTREAM = "ws://127.0.0.1:8789/";

/** One system and gateway per isolate (or Durable Object), made on first use. */
let gateway: ActorRef<Query> | undefined;
function gatewayFor(upstreamUrl: string): ActorRef<Query> {
  if (gateway === undefined) {
    // Made here, not at module level: Workers allow no timers or I/O in a
    // module's global scope.
    const system = ActorSystem.create("edge", { logLevel: "info" });
    gateway = system.actorOf(
      Props.create(() => new Gateway(upstreamUrl)),
      "gateway",
    );
  }
  return gateway;
}

/** The edge function: `GET /?q=...` answers with what the upstream said. */
export async function handler(
  request: Request,
  upstreamUrl: string = DEMO_UPSTREAM,
): Promise<Response> {
  const q = new URL(request.url).searchParams.get("q") ?? "ping";
  const started = performance.now();
  try {
    const answer = await gatewayFor(upstreamUrl).ask<string>(
      new Query(q),
      ASK_TIMEOUT_MS,
    );
    return Response.json({
      answer,
      ms: Math.round(performance.now() - started),
    });
  } catch (error) {
    return Response.json({ error: String(error) }, { status: 504 });
  }
}

/** What a Workers runtime passes as `env`. */
export interface Env {
  /** The upstream's `ws://` or `wss://` URL. */
  UPSTREAM?: string;
  /** A Durable Object namespace bound to {@linkcode EdgeGateway}. */
  GATEWAY?: {
    idFromName(name: string): unknown;
    get(id: unknown): { fetch(request: Request): Promise<Response> };
  };
}

/**
 * The Durable Object that owns the gateway (and so the upstream connection)
 * on Cloudflare Workers, where every request reaches this one object.
 */
export class EdgeGateway {
  constructor(readonly state: unknown, readonly env: Env) {}
  fetch(request: Request): Promise<Response> {
    return handler(request, this.env.UPSTREAM);
  }
}

/** The Workers entry point. */
export default {
  fetch(request: Request, env: Env = {}): Promise<Response> {
    if (env.GATEWAY) {
      return env.GATEWAY.get(env.GATEWAY.idFromName("gateway")).fetch(request);
    }
    return handler(request, env.UPSTREAM);
  },
};

/** A demo upstream that answers in capitals and goes away for 2 s every 10 s. */
function startFlakyUpstream(port: number): void {
  let server: Deno.HttpServer | undefined;
  const sockets = new Set<WebSocket>();
  const start = () => {
    server = Deno.serve(
      { hostname: "127.0.0.1", port, onListen: () => {} },
      (request) => {
        const { socket, response } = Deno.upgradeWebSocket(request);
        sockets.add(socket);
        socket.onclose = () => sockets.delete(socket);
        socket.onmessage = (event) => {
          const { id, q } = JSON.parse(String(event.data));
          if (id !== undefined) {
            socket.send(
              JSON.stringify({ id, answer: String(q).toUpperCase() }),
            );
          }
        };
        return response;
      },
    );
  };
  start();
  setInterval(async () => {
    console.log("demo upstream: restarting (down for 2 s)");
    for (const socket of sockets) socket.close(1012, "restarting");
    await server?.shutdown();
    setTimeout(start, 2_000);
  }, 10_000);
}

if (import.meta.main) {
  const upstream = Deno.env.get("UPSTREAM");
  if (!upstream) startFlakyUpstream(8789);
  Deno.serve(
    { hostname: "127.0.0.1", port: 8788 },
    (request) => handler(request, upstream ?? DEMO_UPSTREAM),
  );
}
