// @runtimes deno
// Copyright 2026 the understudy authors. MIT license.
// End to end in Deno: Deno's own WebSocket against a Deno.serve server on
// 127.0.0.1, killed and restarted on the same port (see _e2e_scenario.ts).

import { describe, it } from "node:test";
import { InProcessClient } from "./_e2e_client.ts";
import { DenoServer } from "./_deno_server.ts";
import { runScenario } from "./_e2e_scenario.ts";
import { runStream } from "./_e2e_stream.ts";

describe("end to end in Deno", () => {
  // The harness runs this file in Deno only (see its first line). Elsewhere
  // it fails loudly rather than skipping: a skipped test proves nothing.
  if (typeof (globalThis as { Deno?: unknown }).Deno === "undefined") {
    throw new Error(
      "this file needs Deno (Deno.serve): run it with node scripts/test.mjs",
    );
  }
  it(
    "delivers 50 messages written while the server was down, in order, after spaced retries",
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
  for (const delivery of ["ack", "default"] as const) {
    it(`streams 1,200 messages through 10 kills of a server process (${delivery} mode): nothing lost unreported`, async () => {
      const client = new InProcessClient();
      try {
        await runStream(client, delivery, "Deno");
      } finally {
        await client.close();
      }
    });
  }
});
