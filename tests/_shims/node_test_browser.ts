/**
 * A web-platform stand-in for `node:test`, used by the Chromium and workerd
 * runs of `scripts/test.mjs` (esbuild aliases `node:test` to this file). It
 * shares its registration and hook semantics with the Deno adapter (see
 * `node_test_core.ts`) and reports one result per test.
 *
 * The harness bundles each test file behind an entry that imports the test
 * file and then awaits {@linkcode runBrowserTests}, which runs every
 * registered test in order, hands the report to the page's `__understudyDone`
 * binding if there is one (installed by the harness through Playwright) and
 * returns it (the workerd fetch handler answers with it).
 * Uncaught errors and unhandled rejections that happen while a test runs fail
 * that test; ones outside any test are reported as their own failures.
 *
 * @module
 */
import {
  type Case,
  type Executor,
  isSkipped,
  Registry,
  runSuite,
  type Suite,
} from "./node_test_core.ts";

export type {
  HookOptions,
  TestContext,
  TestFn,
  TestOptions,
} from "./node_test_core.ts";

/** One reported result. */
export interface BrowserTestResult {
  /** Suite names and the test name joined with " > ". */
  name: string;
  status: "pass" | "fail" | "skip";
  durationMs: number;
  /** Error text (stack or message) for failures. */
  error?: string;
}

/** What {@linkcode runBrowserTests} reports. */
export interface BrowserRunReport {
  results: BrowserTestResult[];
}

// Captured at load time, before a test can install fake timers.
const now = performance.now.bind(performance);
const realSetTimeout = globalThis.setTimeout.bind(globalThis);

function describeError(err: unknown): string {
  if (err instanceof Error) {
    const stack = err.stack ?? "";
    const head = `${err.name}: ${err.message}`;
    return stack.includes(err.message) ? stack : `${head}\n${stack}`;
  }
  try {
    return `thrown non-Error value: ${JSON.stringify(err)}`;
  } catch {
    return `thrown non-Error value: ${String(err)}`;
  }
}

const results: BrowserTestResult[] = [];
let currentErrors: unknown[] | undefined;
const strayErrors: unknown[] = [];

function recordUncaught(err: unknown): void {
  (currentErrors ?? strayErrors).push(err);
}

interface ErrorLikeEvent {
  error?: unknown;
  message?: string;
  promise?: Promise<unknown>;
  reason?: unknown;
  preventDefault(): void;
}
const events = globalThis as unknown as {
  addEventListener?: (
    type: string,
    listener: (event: ErrorLikeEvent) => void,
  ) => void;
};
events.addEventListener?.("error", (event) => {
  recordUncaught(event.error ?? new Error(event.message ?? "uncaught error"));
});

/**
 * Rejections reported as unhandled and not handled since. Browsers report
 * one once the task that rejected it has ended; workerd reports every
 * rejection that has no handler yet at once, even one that gets a handler
 * a microtask later (then fires `rejectionhandled`). To judge both alike, a
 * rejection counts as unhandled if it still is one macrotask after the
 * report, as in Node and Deno, which check when the microtasks have run.
 */
const unhandled = new Map<Promise<unknown>, unknown>();
const verdicts = new Set<Promise<void>>();
events.addEventListener?.("unhandledrejection", (event) => {
  event.preventDefault();
  const { promise, reason } = event;
  if (promise === undefined) {
    recordUncaught(reason);
    return;
  }
  const errors = currentErrors ?? strayErrors;
  unhandled.set(promise, reason);
  const verdict = new Promise<void>((resolve) =>
    realSetTimeout(() => {
      if (unhandled.delete(promise)) errors.push(reason);
      verdicts.delete(verdict);
      resolve();
    }, 0)
  );
  verdicts.add(verdict);
});
events.addEventListener?.("rejectionhandled", (event) => {
  if (event.promise !== undefined) unhandled.delete(event.promise);
});

/** One macrotask turn. */
const macrotask = (): Promise<void> => {
  if (typeof MessageChannel !== "function") {
    return new Promise<void>((resolve) => realSetTimeout(resolve, 0));
  }
  return new Promise<void>((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
};

/**
 * Yields one macrotask so queued error events land, then waits for the
 * verdict on every rejection reported as unhandled. A MessageChannel is not
 * clamped like nested `setTimeout(0)` (4ms) and is never faked by
 * fake-timers; `setTimeout` is the fallback.
 */
const settle = async (): Promise<void> => {
  await macrotask();
  while (verdicts.size > 0) await Promise.all(verdicts);
};

const exec: Executor<string[]> = {
  async child(_parent, node: Suite | Case, body) {
    const name = node.path.join(" > ");
    if (isSkipped(node)) {
      results.push({ name, status: "skip", durationMs: 0 });
      return;
    }
    if (node.kind === "suite") {
      // Tests inside report themselves; an error here comes from the suite
      // itself (its describe body, or a before/after hook).
      try {
        await body(node.path);
      } catch (err) {
        results.push({
          name: `${name} (suite)`,
          status: "fail",
          durationMs: 0,
          error: describeError(err),
        });
      }
      return;
    }
    const errors: unknown[] = [];
    const outer = currentErrors;
    currentErrors = errors;
    const start = now();
    try {
      await body(node.path);
    } catch (err) {
      errors.unshift(err);
    }
    await settle();
    currentErrors = outer;
    const durationMs = now() - start;
    results.push(
      errors.length === 0 ? { name, status: "pass", durationMs } : {
        name,
        status: "fail",
        durationMs,
        error: errors.map(describeError).join("\n\nand then:\n"),
      },
    );
  },
};

const registry = new Registry();
const api = registry.api();

/** `describe(name?, options?, fn?)`, with `.skip`, `.todo`, `.only`. */
export const describe = api.describe;
/** Alias of {@linkcode describe}. */
export const suite = api.suite;
/** `it(name?, options?, fn?)`, with `.skip`, `.todo`, `.only`. */
export const it = api.it;
/** Alias of {@linkcode it}. */
export const test = api.test;
/** Runs once before the tests of the enclosing suite (or file). */
export const before = api.before;
/** Runs once after the tests of the enclosing suite (or file). */
export const after = api.after;
/** Runs before each test of the enclosing suite (or file). */
export const beforeEach = api.beforeEach;
/** Runs after each test of the enclosing suite (or file). */
export const afterEach = api.afterEach;

export default test;

/**
 * Runs everything registered so far and reports it. Called once by the
 * harness-generated entry module, after the test module has evaluated.
 */
export async function runBrowserTests(): Promise<BrowserRunReport> {
  const hooks = globalThis as {
    __understudyStarted?: unknown;
    __understudyDone?: unknown;
  };
  if (typeof hooks.__understudyStarted === "function") {
    await hooks.__understudyStarted();
  }
  try {
    await runSuite(registry.root, [], exec, { beforeEach: [], afterEach: [] });
  } catch (err) {
    results.push({
      name: "(top-level hooks)",
      status: "fail",
      durationMs: 0,
      error: describeError(err),
    });
  }
  await settle();
  for (const err of strayErrors.splice(0)) {
    results.push({
      name: "(uncaught error outside any test)",
      status: "fail",
      durationMs: 0,
      error: describeError(err),
    });
  }
  const report: BrowserRunReport = { results };
  if (typeof hooks.__understudyDone === "function") {
    await hooks.__understudyDone(report);
  }
  return report;
}
