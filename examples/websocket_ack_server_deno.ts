// Copyright 2026 the understudy authors. MIT license.

/**
 * The server side of acknowledged mode in Deno: acknowledge every copy of a
 * message, handle each id once. A real server keeps `seen` per client (say,
 * per session id in the URL) and in storage that outlives the process; here
 * it is per connection URL, in memory.
 *
 *     deno run -A examples/websocket_ack_server_deno.ts
 *
 * @module
 */

/** The highest id handled, per client. */
const seen = new Map<string, number>();

/** Handles one frame: `{"id","data"}` is acknowledged, and handled if new. */
export function onFrame(
  client: string,
  text: string,
  handle: (data: unknown) => void,
): string | undefined {
  const { id, data } = JSON.parse(text);
  if (typeof id !== "number") return undefined;
  // Copies come in order after the last one handled: skip those seen.
  if (id > (seen.get(client) ?? 0)) {
    handle(data);
    seen.set(client, id);
  }
  return JSON.stringify({ ack: id }); // every copy, even one already handled
}

if (import.meta.main) {
  Deno.serve({ hostname: "127.0.0.1", port: 8790 }, (request) => {
    const { socket, response } = Deno.upgradeWebSocket(request);
    const client = new URL(request.url).search;
    socket.onmessage = ({ data }) => {
      const ack = onFrame(client, String(data), (d) => console.log(d));
      if (ack) socket.send(ack);
    };
    return response;
  });
}
