// Shared helpers for scripts/test.mjs: paths, child processes, small parsers.
import { spawn } from "node:child_process";
import {
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { parseJsonc } from "./jsonc.mjs";

export { parseJsonc };

/** Repository root (the directory holding deno.json and package.json). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** Scratch space for bundles, reports and logs (gitignored). */
export const BUILD = join(ROOT, ".build");
/**
 * This run's bundles and reports. Per process, because several people (or
 * agents) may run the suite in the same checkout at once; removed at exit.
 */
export const RUN_DIR = join(BUILD, `run-${process.pid}`);

/** Removes run directories left behind by runs that no longer exist. */
export function removeStaleRunDirs() {
  if (!existsSync(BUILD)) return;
  for (const name of readdirSync(BUILD)) {
    const m = /^run-(\d+)$/.exec(name);
    if (!m || Number(m[1]) === process.pid) continue;
    let alive = true;
    try {
      process.kill(Number(m[1]), 0);
    } catch (error) {
      alive = error.code === "EPERM";
    }
    if (!alive) rmSync(join(BUILD, name), { recursive: true, force: true });
  }
}

export function removeRunDir() {
  rmSync(RUN_DIR, { recursive: true, force: true });
}

export const BIN = {
  deno: join(ROOT, "node_modules", ".bin", "deno"),
  bun: join(ROOT, "node_modules", ".bin", "bun"),
  node: process.execPath,
};

/** Environment for every child: no colours, no update checks, no backtraces. */
export function childEnv(extra = {}) {
  const env = {
    ...process.env,
    NO_COLOR: "1",
    DENO_NO_UPDATE_CHECK: "1",
    RUST_BACKTRACE: "0",
    ...extra,
  };
  delete env.FORCE_COLOR;
  return env;
}

/** Repo-relative path with forward slashes. */
export function rel(path) {
  return relative(ROOT, path).split(sep).join("/");
}

/** Recursively lists files under `dir` (skipping dot dirs and node_modules). */
export function walk(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith(".") || name === "node_modules") continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...walk(full));
    else out.push(full);
  }
  return out;
}

export function readDenoJson() {
  return parseJsonc(readFileSync(join(ROOT, "deno.json"), "utf8"));
}

const children = new Set();

/**
 * Registers a child started in its own process group (`detached: true`)
 * outside {@link run}, so that Ctrl-C kills it too.
 */
export function track(child) {
  children.add(child);
  child.once("close", () => children.delete(child));
  return child;
}

/** Kills every still-running child process group (used on Ctrl-C). */
export function killAllChildren() {
  for (const child of children) {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

/**
 * Runs a command in its own process group and collects stdout and stderr
 * interleaved in arrival order. Never rejects: spawn failures and timeouts
 * are reported in the result.
 */
export function run(cmd, args, options = {}) {
  const { cwd = ROOT, env = childEnv(), timeoutMs = 0, echo = false } = options;
  const started = Date.now();
  return new Promise((resolvePromise) => {
    const chunks = [];
    let timedOut = false;
    let child;
    try {
      child = spawn(cmd, args, {
        cwd,
        env,
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
    } catch (error) {
      resolvePromise({
        code: 127,
        output: `failed to start ${cmd}: ${error.message}\n`,
        timedOut,
        durationMs: 0,
      });
      return;
    }
    children.add(child);
    const onData = (data) => {
      chunks.push(data);
      if (echo) process.stdout.write(data);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    let timer;
    if (timeoutMs > 0) {
      timer = setTimeout(() => {
        timedOut = true;
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }, timeoutMs);
    }
    const finish = (code, extra = "") => {
      clearTimeout(timer);
      children.delete(child);
      // Some tools colour parts of their output even with NO_COLOR set.
      let output = stripAnsi(Buffer.concat(chunks).toString("utf8") + extra);
      if (timedOut) {
        output += `\n[harness] killed after ${timeoutMs / 1000}s timeout\n`;
      }
      resolvePromise({
        code: timedOut ? 124 : code,
        output,
        timedOut,
        durationMs: Date.now() - started,
      });
    };
    child.on("error", (error) => finish(127, `\n${error.message}\n`));
    child.on("close", (code, signal) => finish(code ?? (signal ? 128 : 1)));
  });
}

/** Runs async `tasks` with at most `limit` in flight, keeping result order. */
export async function pool(tasks, limit) {
  const results = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]();
    }
  };
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(limit, tasks.length)) }, worker),
  );
  return results;
}

/** Removes ANSI escape sequences. */
export function stripAnsi(text) {
  // deno-lint-ignore no-control-regex
  return text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");
}

/** Keeps the first `max` lines of `text`, saying how many were cut. */
export function head(text, max, where) {
  const lines = text.replace(/\s+$/, "").split("\n");
  if (lines.length <= max) return lines.join("\n");
  return `${lines.slice(0, max).join("\n")}\n... (${
    lines.length - max
  } more lines in ${where})`;
}

/** Indents every line of `text`. */
export function indent(text, prefix = "    ") {
  return text.replace(/\s+$/, "").split("\n").map((l) => prefix + l).join(
    "\n",
  );
}

export function seconds(ms) {
  return `${(ms / 1000).toFixed(1)}s`;
}
