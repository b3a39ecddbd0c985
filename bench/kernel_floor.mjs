// Copyright 2026 the understudy authors. MIT license.

/**
 * How small the `tell` program of the size table could get if the actor
 * context's features could be shaken: `node bench/kernel_floor.mjs`.
 *
 * It bundles the size table's `ActorSystem` + `Props` + `Actor` + `tell`
 * program with esbuild (minified ESM for browsers, gzip level 9, as
 * `bench/size.mjs` does) several times, each time replacing more feature
 * modules of `src/runtime/` with stubs that keep only their export names, so
 * what is left is the kernel without them: the lifecycle, the turn,
 * supervision, the mailbox, the dispatcher, the system, events and dead
 * letters. The cell's one-line methods that call into the features stay, so
 * the figures are a floor a shakeable API could approach, not a build anyone
 * could ship. Prints a Markdown table.
 */

import { build } from "esbuild";
import { readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

const program = `import { Actor, ActorSystem, Props } from "./mod.ts";
class Greeter extends Actor { onReceive(message) { console.log(message); } }
const system = ActorSystem.create("app");
system.actorOf(Props.create(() => new Greeter()), "greeter").tell("hello");
await system.terminate();`;

const steps = [
  ["the program as shipped", []],
  ["without ask", ["ask.ts"]],
  ["… and timers", ["timers.ts"]],
  ["… and watch", ["watch.ts"]],
  ["… and stash / become", ["stash.ts"]],
  ["… and receive timeouts", ["receive_timeout.ts"]],
  ["… and async handlers left behind", ["in_flight.ts"]],
  ["… and PoisonPill", ["poison_pill.ts"]],
  ["… and restart types", ["restart_type.ts"]],
];

/** An esbuild plugin replacing the named runtime modules by their export names. */
function stubs(files) {
  return {
    name: "stub-features",
    setup(b) {
      b.onLoad({ filter: /src[\\/].+\.ts$/ }, (args) => {
        if (!files.includes(basename(args.path))) return undefined;
        const source = readFileSync(args.path, "utf8");
        const names = [
          ...source.matchAll(
            /^export (?:const|function|class|let|abstract class) ([A-Za-z_$][\w$]*)/gm,
          ),
        ].map((m) => m[1]);
        return {
          contents: names.map((n) => `export class ${n} {}`).join("\n"),
          loader: "ts",
        };
      });
    },
  };
}

console.log("| kernel | minified B | gzip B |");
console.log("| --- | ---: | ---: |");
const removed = [];
for (const [label, files] of steps) {
  removed.push(...files);
  const result = await build({
    stdin: { contents: program, resolveDir: root, loader: "ts" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    write: false,
    plugins: [stubs([...removed])],
  });
  const code = result.outputFiles[0].contents;
  console.log(
    `| ${label} | ${code.length.toLocaleString("en-US")} | ${
      gzipSync(code, { level: 9 }).length.toLocaleString("en-US")
    } |`,
  );
}
