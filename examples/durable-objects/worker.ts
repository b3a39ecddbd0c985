// Copyright 2026 the understudy authors. MIT license.

/**
 * A shared word list on Durable Objects: the Worker serves the page, sends
 * each room's sockets to its object, and serves the flaky upstream the
 * rooms look words up in.
 *
 *     GET  /                          the page (?room=lobby)
 *     GET  /page.js                   its script, bundled by build.mjs
 *     GET  /rooms/:room/ws?client=…   a page's socket (WebSocket upgrade)
 *     GET  /rooms/:room/items         the room's list, as JSON
 *     POST /rooms/:room/evict         evicts the room's object (a demo, a test)
 *     GET  /upstream/define?word=…    the flaky upstream: 503 at a seeded rate
 *     GET  /upstream/calls            what the upstream was asked, and when
 *
 * Bindings (`config.capnp`): `ROOM` → {@linkcode RoomObject} (SQLite-backed),
 * `UPSTREAM` → this Worker, `INDEX_HTML` and `PAGE_JS` (text),
 * `UPSTREAM_SEED` and `UPSTREAM_FAILURE_RATE` (text).
 *
 * @module
 */

import type { Item } from "./room.ts";
import type { RoomEnv } from "./room_object.ts";
import { define, noteEviction, upstreamLog } from "./upstream.ts";

export { RoomObject } from "./room_object.ts";

/** The stubs of the room namespace, as far as the Worker uses them. */
interface RoomStub {
  fetch(request: Request): Promise<Response>;
  items(): Promise<Item[]>;
  evict(): Promise<void>;
}

/** What the Worker's `env` holds. */
export interface Env extends RoomEnv {
  ROOM: { idFromName(name: string): unknown; get(id: unknown): RoomStub };
  INDEX_HTML: string;
  PAGE_JS: string;
  UPSTREAM_SEED?: string;
  UPSTREAM_FAILURE_RATE?: string;
}

const ROOM_PATH = /^\/rooms\/([\w-]{1,64})\/(ws|items|evict)$/;

/** The Worker: the page, the rooms, and the upstream. */
export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const get = request.method === "GET";
    if (get && url.pathname === "/") {
      return new Response(env.INDEX_HTML, {
        headers: { "content-type": "text/html; charset=utf-8" },
      });
    }
    if (get && url.pathname === "/page.js") {
      return new Response(env.PAGE_JS, {
        headers: { "content-type": "text/javascript; charset=utf-8" },
      });
    }
    if (get && url.pathname === "/upstream/define") {
      return define(
        url,
        env.UPSTREAM_SEED ?? "1",
        Number(env.UPSTREAM_FAILURE_RATE ?? 0.3),
      );
    }
    if (get && url.pathname === "/upstream/calls") {
      return Response.json(upstreamLog());
    }
    const match = url.pathname.match(ROOM_PATH);
    if (match === null) return new Response("not found", { status: 404 });
    const [, name, what] = match;
    const room = env.ROOM.get(env.ROOM.idFromName(name));
    if (get && what === "ws") return await room.fetch(request);
    if (get && what === "items") return Response.json(await room.items());
    if (request.method === "POST" && what === "evict") {
      noteEviction(name);
      // The object's reset breaks the call that asked for it.
      await room.evict().catch(() => {});
      return new Response("evicted");
    }
    return new Response("not found", { status: 404 });
  },
};
