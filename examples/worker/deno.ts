// Copyright 2026 the understudy authors. MIT license.

/**
 * The worker example under Deno:
 *
 *     deno run --allow-read examples/worker/deno.ts
 *
 * @module
 */

import { run } from "./app.ts";

await run(
  new URL("./primes.ts", import.meta.url),
  [200_000, 400_000, 800_000],
  (line) => console.log(line),
);
