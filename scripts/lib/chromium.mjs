// Which Chromium the browser run (and any test that drives a browser itself,
// such as tests/websocket/e2e_browser.test.ts) launches. One discovery for
// all of them:
//
//   1. $UNDERSTUDY_CHROMIUM, when set: that file and nothing else;
//   2. otherwise the first of /usr/bin/chromium, /usr/bin/chromium-browser,
//      /usr/bin/google-chrome, /usr/bin/google-chrome-stable, then the same
//      names on $PATH.
//
// The harness calls provisionChromium() (scripts/lib/provision.mjs) when none
// is found, and exports UNDERSTUDY_CHROMIUM to every runner it starts, so a
// test run in Deno launches the very browser the harness found or installed.
// Imports only node:fs, node:path and node:process, so Deno can load it.
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import process from "node:process";

/** Environment variable naming the Chromium (or Chrome) executable to use. */
export const CHROMIUM_ENV = "UNDERSTUDY_CHROMIUM";

/** Where the Debian/Ubuntu and Google packages put it. */
export const CHROMIUM_PATHS = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
];

/** Flags for headless Chromium as root in a container, without background chatter. */
export const LAUNCH_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-sync",
  "--disable-quic",
];

/** What to run when no Chromium can be found or installed (one line). */
export const CHROMIUM_HINT =
  `install Chromium (Debian/Ubuntu: sudo apt-get install -y chromium) or set ${CHROMIUM_ENV}=/path/to/chromium`;

function isExecutableFile(path) {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Looks for Chromium; returns `{ path }` when found, else `{ looked }` (the
 * places tried, for the error message). `env` defaults to the process's.
 */
export function locateChromium(env = process.env) {
  const override = env[CHROMIUM_ENV];
  if (override) {
    return isExecutableFile(override)
      ? { path: override, looked: [override] }
      : { looked: [`${CHROMIUM_ENV}=${override}`] };
  }
  const names = CHROMIUM_PATHS.map((p) => p.slice(p.lastIndexOf("/") + 1));
  const onPath = (env.PATH ?? "").split(delimiter).filter(Boolean)
    .flatMap((dir) => names.map((name) => join(dir, name)));
  const candidates = [...new Set([...CHROMIUM_PATHS, ...onPath])];
  const path = candidates.find(isExecutableFile);
  return path ? { path, looked: candidates } : {
    looked: [...CHROMIUM_PATHS, `${names.join(", ")} on PATH`],
  };
}

/**
 * The Chromium executable to launch. Throws an Error with a one-line message
 * saying what to run when there is none.
 */
export function findChromium(env = process.env) {
  const found = locateChromium(env);
  if (found.path) return found.path;
  throw new Error(
    `Chromium not found (looked for ${
      found.looked.join(", ")
    }): ${CHROMIUM_HINT}`,
  );
}
