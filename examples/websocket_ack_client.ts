// Copyright 2026 the understudy authors. MIT license.

/**
 * A client in acknowledged mode, for the servers in
 * `websocket_ack_server_deno.ts`, `websocket_ack_server_node.ts` and
 * `websocket_ack_server_cloudflare.ts`: each message is sent as
 * `{"id","data"}` and counts as delivered when `{"ack": id}` comes back;
 * unacknowledged messages are sent again after every reconnect.
 *
 *     deno run -A examples/websocket_ack_server_deno.ts &
 *     deno run -A examples/websocket_ack_client.ts
 *
 * Kill and restart the server while it runs: every message is still
 * acknowledged, once.
 *
 * @module
 */

import { ActorSystem } from "../mod.ts";
import {
  type AckOptions,
  Close,
  Send,
  type Sent,
  websocketProps,
} from "../src/websocket/mod.ts";

/** `{"id","data"}` out, `{"ack"}` in: the protocol of the example servers. */
export const jsonAck: AckOptions = {
  encode: (id, data) => JSON.stringify({ id, data }),
  decodeAck: (data) => {
    if (typeof data !== "string" || !data.startsWith('{"ack":')) {
      return undefined;
    }
    const { ack } = JSON.parse(data);
    return typeof ack === "number" ? ack : undefined;
  },
};

if (import.meta.main) {
  const system = ActorSystem.create("ack-client", { logLevel: "warn" });
  const url = Deno.env.get("URL") ?? "ws://127.0.0.1:8790/";
  const connection = system.actorOf(
    websocketProps({ url, ack: jsonAck, page: false }),
  );
  const replies: Promise<Sent>[] = [];
  for (let i = 0; i < 100; i++) {
    replies.push(connection.ask<Sent>(new Send(`message ${i}`), 60_000));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const acknowledged = (await Promise.all(replies)).filter((r) =>
    r.acknowledged
  );
  console.log(`${acknowledged.length} of 100 acknowledged`);
  connection.tell(new Close());
  await system.terminate();
}
