// Copyright 2026 the understudy authors. MIT license.
/// <reference lib="dom" />

/**
 * The worker example's page script (bundled with primes.ts by the command
 * in index.html): the same program as deno.ts, printing into the page.
 *
 * @module
 */

import { run } from "./app.ts";

const log = document.querySelector("#log")!;
document.querySelector("#start")!.addEventListener("click", () => {
  run(
    new URL("./primes.js", import.meta.url),
    [200_000, 400_000, 800_000],
    (line) => log.append(`${line}\n`),
  ).catch((error) => log.append(`failed: ${error}\n`));
});
