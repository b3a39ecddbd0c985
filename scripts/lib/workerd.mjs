// Starting Cloudflare's workerd (the npm package `workerd`, whose platform
// binary comes from its optionalDependencies, e.g. @cloudflare/workerd-linux-64)
// on a generated Cap'n Proto config, listening on an ephemeral port of
// 127.0.0.1 reported through --control-fd.
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { basename, dirname } from "node:path";
import process from "node:process";
import { childEnv, stripAnsi, track } from "./util.mjs";

/**
 * Pinned, so that a workerd upgrade does not silently change semantics. No
 * nodejs_compat: the plain Workers platform.
 */
export const COMPATIBILITY_DATE = "2025-09-01";

/**
 * Since 2025-08-15 workerd exposes a global MessageChannel; workers with an
 * older compatibility date (most deployed ones) have none, and the test run
 * is there to exercise the dispatcher's fallback for them, so it turns it off.
 */
export const TEST_COMPATIBILITY_FLAGS = ["no_expose_global_message_channel"];

const START_TIMEOUT_MS = 30_000;

/** The workerd executable from node_modules; throws if `npm ci` did not install it. */
export async function workerdBinary() {
  let bin;
  try {
    bin = (await import("workerd")).default.default;
  } catch (error) {
    throw new Error(
      `the workerd npm package is missing (${error.message}): run "npm ci"`,
    );
  }
  if (!bin || !existsSync(bin)) {
    throw new Error(`workerd binary not found at ${bin}: run "npm ci"`);
  }
  return bin;
}

const capnpString = (s) => JSON.stringify(String(s));

/**
 * A config with one worker service "main" (ES modules embedded from files
 * next to the config) served on socket "http" at 127.0.0.1:0.
 *
 * - `modules`: `[{ name, path }]`, the first being the main module; `path`
 *   relative to the config's directory.
 * - `bindings`: `{ NAME: "text" }` text bindings (the worker's `env`).
 * - `durableObjects`: `{ NAME: "ClassName" }` Durable Object namespaces
 *   (classes exported by the main module), bound as NAME, kept in memory.
 * - `outbound`: network classes the worker may connect to (default: workerd's
 *   own, public addresses only), e.g. `["public", "private", "local"]`.
 * - `compatibilityFlags`: e.g. {@link TEST_COMPATIBILITY_FLAGS}.
 *
 * @param {{
 *   modules: { name: string, path: string }[],
 *   bindings?: Record<string, string>,
 *   durableObjects?: Record<string, string>,
 *   outbound?: string[],
 *   compatibilityFlags?: string[],
 * }} options
 * @returns {string}
 */
export function capnpConfig(
  {
    modules,
    bindings = {},
    durableObjects = {},
    outbound,
    compatibilityFlags = [],
  },
) {
  const objects = Object.entries(durableObjects);
  const services = [`(name = "main", worker = .worker)`];
  if (outbound) {
    services.push(
      `(name = "outbound", network = (allow = [${
        outbound.map(capnpString).join(", ")
      }]))`,
    );
  }
  return [
    `using Workerd = import "/workerd/workerd.capnp";`,
    `const config :Workerd.Config = (`,
    `  services = [${services.join(", ")}],`,
    `  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "main")],`,
    `);`,
    `const worker :Workerd.Worker = (`,
    `  modules = [${
      modules.map((m) =>
        `(name = ${capnpString(m.name)}, esModule = embed ${
          capnpString(m.path)
        })`
      ).join(", ")
    }],`,
    `  bindings = [${
      [
        ...Object.entries(bindings).map(([name, text]) =>
          `(name = ${capnpString(name)}, text = ${capnpString(text)})`
        ),
        ...objects.map(([name, className]) =>
          `(name = ${capnpString(name)}, durableObjectNamespace = ${
            capnpString(className)
          })`
        ),
      ].join(", ")
    }],`,
    objects.length > 0
      ? `  durableObjectNamespaces = [${
        objects.map(([, className]) =>
          `(className = ${capnpString(className)}, uniqueKey = ${
            capnpString(`understudy-${className}`)
          })`
        ).join(", ")
      }],\n  durableObjectStorage = (inMemory = void),`
      : "",
    `  compatibilityDate = ${capnpString(COMPATIBILITY_DATE)},`,
    `  compatibilityFlags = [${
      compatibilityFlags.map(capnpString).join(", ")
    }],`,
    outbound ? `  globalOutbound = "outbound",` : "",
    `);`,
    "",
  ].filter((l) => l !== "").join("\n") + "\n";
}

/**
 * Writes `config` to `configPath` and starts `workerd serve` on it. Resolves
 * to `{ url, output(), stop(), pid }` once it listens; rejects (with workerd's
 * output) if it exits or stays silent for 30 s first.
 */
export async function startWorkerd(configPath, config) {
  writeFileSync(configPath, config);
  const bin = await workerdBinary();
  const child = track(spawn(
    bin,
    ["serve", basename(configPath), "--control-fd=3"],
    {
      cwd: dirname(configPath),
      env: childEnv(),
      stdio: ["ignore", "pipe", "pipe", "pipe"],
      detached: true,
    },
  ));
  const chunks = [];
  child.stdout.on("data", (d) => chunks.push(d));
  child.stderr.on("data", (d) => chunks.push(d));
  const output = () => stripAnsi(Buffer.concat(chunks).toString("utf8"));
  const exited = new Promise((resolve) => {
    child.once("error", (error) => {
      chunks.push(Buffer.from(`${error.message}\n`));
      resolve(127);
    });
    child.once("close", (code, signal) => resolve(code ?? signal));
  });
  const stop = async () => {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
    await exited;
  };
  let control = "";
  const listening = new Promise((resolve) => {
    child.stdio[3].on("data", (d) => {
      control += d.toString("utf8");
      for (const line of control.split("\n")) {
        try {
          const msg = JSON.parse(line);
          if (msg.event === "listen" && msg.socket === "http") {
            resolve(msg.port);
          }
        } catch {
          // partial line
        }
      }
    });
  });
  let timer;
  const outcome = await Promise.race([
    listening.then((port) => ({ port })),
    exited.then((code) => ({ code })),
    new Promise((resolve) => {
      timer = setTimeout(() => resolve({ timeout: true }), START_TIMEOUT_MS);
    }),
  ]);
  clearTimeout(timer);
  if (outcome.port === undefined) {
    await stop();
    const why = outcome.timeout
      ? `did not listen within ${START_TIMEOUT_MS / 1000}s`
      : `exited (${outcome.code}) before listening`;
    throw new Error(`workerd ${why}:\n${output()}`);
  }
  return {
    url: `http://127.0.0.1:${outcome.port}`,
    output,
    stop,
    pid: child.pid,
  };
}
