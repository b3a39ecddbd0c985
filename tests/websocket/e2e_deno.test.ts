// @runtimes deno
// Copyright 2026 the understudy authors. MIT license.
// End to end in Deno: Deno's own WebSocket against a Deno.serve server on
// 127.0.0.1, killed and restarted on the same port (see _e2e_scenario.ts).

import { describe, it } from "node:test";
import { InProcessClient } from "./_e2e_client.ts";
import { DenoServer } from "./_deno_server.ts";
import { runScenario } from "./_e2e_scenario.ts";

describe("end to end in Deno", () => {
  // The harness runs this file in Deno only; a direct `bun test` skips it.
  const skip = typeof (globalThis as { Deno?: unknown }).Deno === "undefined" &&
    "needs Deno.serve";
  it(
    "delivers 50 messages written while the server was down, in order, after spaced retries",
    {
      skip,
    },
    async () => {
      const server = new DenoServer();
      const client = new InProcessClient();
      try {
        await runScenario(server, client);
      } finally {
        await client.close();
        await server.kill();
      }
    },
  );
});
