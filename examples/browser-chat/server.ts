// Copyright 2026 the understudy authors. MIT license.

/**
 * The browser-chat example's server: serves the page, bundles its script at
 * startup with the esbuild binary from node_modules (no network needed), and
 * runs a small chat over WebSocket at /ws.
 *
 *     npm ci                                    # once, for node_modules/.bin/esbuild
 *     deno run -A examples/browser-chat/server.ts [port]
 *
 * Open the printed URL in two windows and chat. Stop the server (Ctrl-C) and
 * start it again, or press "Restart the server": the pages show their
 * retries as they happen, keep what you write meanwhile, and send it in
 * order when the server is back.
 *
 * @module
 */

interface ChatLine {
  type: "chat";
  /** Numbers lines, so a page that reconnects and gets the history again shows each once. */
  id: number;
  from: string;
  text: string;
}

const here = (path: string) => new URL(path, import.meta.url);
const port = Number(Deno.args[0] ?? 8787);
const DOWN_MS = 5_000;

/** The page script, bundled from page.ts with the local esbuild. */
async function bundle(): Promise<string> {
  const esbuild = here("../../node_modules/.bin/esbuild").pathname;
  const output = await new Deno.Command(esbuild, {
    args: [
      here("page.ts").pathname,
      "--bundle",
      "--format=esm",
      "--target=es2022",
      "--minify",
    ],
    stdout: "piped",
    stderr: "piped",
  }).output().catch((error) => {
    throw new Error(
      `cannot run ${esbuild} (run "npm ci" first): ${error.message}`,
    );
  });
  if (!output.success) throw new Error(new TextDecoder().decode(output.stderr));
  return new TextDecoder().decode(output.stdout);
}

const files: Record<string, { type: string; body: string }> = {
  "/": {
    type: "text/html; charset=utf-8",
    body: await Deno.readTextFile(here("index.html")),
  },
  "/page.js": { type: "text/javascript; charset=utf-8", body: await bundle() },
};
const history: ChatLine[] = [];
let lastId = 0;
const clients = new Set<WebSocket>();
let server: Deno.HttpServer | undefined;

function handle(request: Request): Response {
  const { pathname } = new URL(request.url);
  if (pathname === "/ws" && request.headers.get("upgrade") === "websocket") {
    const { socket, response } = Deno.upgradeWebSocket(request);
    socket.onopen = () => {
      clients.add(socket);
      for (const line of history) socket.send(JSON.stringify(line));
    };
    socket.onclose = () => clients.delete(socket);
    socket.onmessage = (event) => {
      const message = JSON.parse(String(event.data));
      if (message.type === "ping") return socket.send('{"type":"pong"}');
      if (message.type !== "chat") return;
      const line: ChatLine = {
        type: "chat",
        id: ++lastId,
        from: String(message.from),
        text: String(message.text),
      };
      history.push(line);
      if (history.length > 50) history.shift();
      for (const client of clients) client.send(JSON.stringify(line));
    };
    return response;
  }
  if (pathname === "/restart" && request.method === "POST") {
    setTimeout(restart, 10); // after this response has gone out
    return new Response(null, { status: 202 });
  }
  const file = files[pathname];
  if (file === undefined) return new Response("not found", { status: 404 });
  return new Response(file.body, { headers: { "content-type": file.type } });
}

function start(): void {
  server = Deno.serve({
    hostname: "127.0.0.1",
    port,
    onListen: ({ hostname, port }) =>
      console.log(
        `understudy chat on http://${hostname}:${port}/ (Ctrl-C to stop)`,
      ),
  }, handle);
}

/** Goes away for DOWN_MS, as a deploy would, then comes back on the same port. */
async function restart(): Promise<void> {
  if (server === undefined) return;
  const stopping = server;
  server = undefined;
  for (const client of clients) client.close(1012, "server restarting");
  await stopping.shutdown();
  console.log(`down for ${DOWN_MS / 1_000} s`);
  setTimeout(start, DOWN_MS);
}

start();
