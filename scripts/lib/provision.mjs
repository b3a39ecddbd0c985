// Provisioning what a test run needs from outside node_modules: Chromium, for
// the browser run and for tests that drive it (they import playwright-core).
// When none is found (scripts/lib/chromium.mjs), the harness installs it the
// way .ci/run does, `apt-get update && apt-get install -y chromium`, if it can:
// as root, or through passwordless sudo, with apt-get on PATH. Otherwise, or
// if that fails, the run fails with one line saying what to run.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import {
  CHROMIUM_ENV,
  CHROMIUM_HINT,
  CHROMIUM_PATHS,
  locateChromium,
} from "./chromium.mjs";
import { BUILD, childEnv, run } from "./util.mjs";

const INSTALL_TIMEOUT_MS = 15 * 60_000;

/**
 * How to run apt-get here: `{ prefix }` (empty as root, `["sudo", "-n"]`
 * with passwordless sudo), or `{ reason }` when it cannot be done.
 * `facts`: `{ uid, aptGet, sudo }`, where `aptGet` is whether apt-get is on
 * PATH and `sudo` whether `sudo -n true` succeeds (only asked when not root).
 *
 * @param {{ uid: number, aptGet: boolean, sudo: boolean }} facts
 * @returns {{ prefix?: string[], reason?: string }}
 */
export function aptPlan(facts) {
  if (!facts.aptGet) return { reason: "apt-get is not available" };
  if (facts.uid === 0) return { prefix: [] };
  if (facts.sudo) return { prefix: ["sudo", "-n"] };
  return { reason: "not root and no passwordless sudo" };
}

async function aptFacts() {
  const uid = typeof process.getuid === "function" ? process.getuid() : -1;
  const aptGet =
    (await run("sh", ["-c", "command -v apt-get"], { timeoutMs: 10_000 }))
      .code === 0;
  const sudo = uid !== 0 && aptGet &&
    (await run("sudo", ["-n", "true"], { timeoutMs: 10_000 })).code === 0;
  return { uid, aptGet, sudo };
}

/**
 * Finds Chromium, or installs it with apt-get when possible. Returns
 * `{ path }`, or `{ error }` (one line). Prints one line before installing.
 */
export async function ensureChromium(log) {
  const found = locateChromium();
  if (found.path) return { path: found.path };
  const missing = `Chromium not found (looked for ${found.looked.join(", ")})`;
  const plan = aptPlan(await aptFacts());
  if (plan.reason) {
    return {
      error: `${missing}; cannot install it (${plan.reason}): ${CHROMIUM_HINT}`,
    };
  }
  const apt = [...plan.prefix, "apt-get"];
  log(
    `${missing}; installing it: ${apt.join(" ")} update && ${
      apt.join(" ")
    } install -y chromium`,
  );
  const env = childEnv({ DEBIAN_FRONTEND: "noninteractive" });
  const logFile = join(BUILD, "logs", "chromium-install.log");
  let output = "";
  for (const args of [["update"], ["install", "-y", "chromium"]]) {
    const res = await run(apt[0], [...apt.slice(1), ...args], {
      env,
      timeoutMs: INSTALL_TIMEOUT_MS,
    });
    output += `$ ${[...apt, ...args].join(" ")}\n${res.output}\n`;
    writeFileSync(logFile, output);
    if (res.code !== 0) {
      return {
        error: `${apt.join(" ")} ${
          args.join(" ")
        } failed (exit ${res.code}; see .build/logs/chromium-install.log): ${CHROMIUM_HINT}`,
      };
    }
  }
  // apt puts it in /usr/bin; an override that names a missing file is
  // reported, not obeyed.
  const installed = locateChromium({ ...process.env, [CHROMIUM_ENV]: "" });
  if (!installed.path) {
    return {
      error: `apt-get install -y chromium succeeded but none of ${
        CHROMIUM_PATHS.join(", ")
      } exists: ${CHROMIUM_HINT}`,
    };
  }
  if (process.env[CHROMIUM_ENV]) {
    log(
      `(${CHROMIUM_ENV}=${
        process.env[CHROMIUM_ENV]
      } does not exist; using ${installed.path})`,
    );
  }
  return { path: installed.path };
}
