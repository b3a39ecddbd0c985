/**
 * `node:test` for the Deno test run, with Deno's sanitizers switched ON.
 *
 * Deno's built-in `node:test` polyfill registers tests with the op and
 * resource sanitizers disabled, so a test that leaks a `setTimeout` would pass
 * under Deno. `scripts/test.mjs` therefore runs `deno test` with an import map
 * (generated into `.build/deno/import_map.json`) that maps `node:test` to this
 * module, and maps it back to Deno's polyfill for this file only, so `mock`
 * can be re-exported.
 *
 * Mapping: every top-level `describe` / `it` of a test file becomes one
 * `Deno.test` with `sanitizeOps`, `sanitizeResources` and `sanitizeExit` on;
 * the tests inside become `t.step`s. Nested suites do not get a step of their
 * own: their tests are steps named "inner suite > test" (hooks still run
 * around them as usual), which keeps Deno's TAP report two levels deep so the
 * harness can count leaf tests. Deno checks the sanitizers per `Deno.test`,
 * so a leak inside a nested test fails its top-level block, and a resource
 * opened in a suite's `before` hook may be closed in its `after` hook. If a
 * file registers `before` / `after` hooks at the top level (outside any
 * `describe`), the whole file becomes a single `Deno.test`.
 *
 * `todo` tests are reported as ignored; `only` is ignored (the harness rejects
 * `.only` in committed tests anyway).
 *
 * @module
 */
import * as denoNodeTest from "node:test";
import {
  type Case,
  eachHooksOf,
  type Executor,
  isSkipped,
  Registry,
  runCase,
  runSuite,
  type Suite,
} from "./node_test_core.ts";

export type {
  HookOptions,
  TestContext,
  TestFn,
  TestOptions,
} from "./node_test_core.ts";

const SANITIZERS = {
  sanitizeOps: true,
  sanitizeResources: true,
  sanitizeExit: true,
} as const;

/**
 * A suite that registered nothing is left out (as Node reports no test for
 * it), rather than becoming a step or test that trivially passes.
 */
function isEmptySuite(node: Suite | Case): boolean {
  return node.kind === "suite" && node.children.length === 0 &&
    node.ready === undefined && node.error === undefined;
}

/** How many leading path names each test/step context already shows. */
const shownDepth = new WeakMap<Deno.TestContext, number>();

const exec: Executor<Deno.TestContext> = {
  async child(t, node, body) {
    if (isEmptySuite(node)) return;
    const depth = shownDepth.get(t) ?? 0;
    const name = node.path.slice(depth).join(" > ");
    if (node.kind === "suite" && !isSkipped(node)) {
      try {
        await body(t);
      } catch (error) {
        // A failing hook or describe body of the nested suite.
        await t.step(`${name} (suite)`, () => {
          throw error;
        });
      }
      return;
    }
    await t.step({
      name,
      ignore: isSkipped(node),
      fn: (step) => {
        shownDepth.set(step, node.path.length);
        return body(step);
      },
    });
  },
};

const registry = new Registry();
let scheduled = false;
let registeredRootChildren = 0;
let wholeFile = false;
let fileLabel: string | undefined;

function callerFile(): string | undefined {
  const stack = new Error().stack ?? "";
  for (const match of stack.matchAll(/(file:\/\/[^\s)]+?):\d+:\d+/g)) {
    const url = match[1];
    if (!url.includes("/tests/_shims/")) {
      return url.replace(/^.*\/tests\//, "tests/");
    }
  }
  return undefined;
}

function runTopLevel(node: Suite | Case, t: Deno.TestContext): Promise<void> {
  const each = eachHooksOf(registry.root);
  return node.kind === "suite"
    ? runSuite(node, t, exec, each)
    : runCase(node, t, exec, each);
}

function flush(): void {
  scheduled = false;
  const root = registry.root;
  if (wholeFile) return; // the single Deno.test reads root.children lazily
  const hasOnceHooks = root.hooks.before.length > 0 ||
    root.hooks.after.length > 0;
  if (hasOnceHooks) {
    if (registeredRootChildren > 0) {
      console.warn(
        `${
          fileLabel ?? "test file"
        }: top-level before/after hooks registered after tests were already scheduled; they only run around later tests`,
      );
    } else {
      wholeFile = true;
      Deno.test({
        name: fileLabel ?? "(top level)",
        ...SANITIZERS,
        fn: (t) => {
          shownDepth.set(t, 0);
          return runSuite(root, t, exec, { beforeEach: [], afterEach: [] });
        },
      });
      return;
    }
  }
  const pending = root.children.slice(registeredRootChildren);
  registeredRootChildren = root.children.length;
  for (const node of pending) {
    if (isEmptySuite(node)) continue;
    Deno.test({
      name: node.name,
      ignore: isSkipped(node),
      ...SANITIZERS,
      fn: (t) => {
        shownDepth.set(t, node.path.length);
        return runTopLevel(node, t);
      },
    });
  }
}

registry.onRootChange = () => {
  fileLabel ??= callerFile();
  if (scheduled) return;
  scheduled = true;
  // Registration happens while the test module evaluates; by the time this
  // microtask runs, the module (if it has no top-level await) has finished
  // registering, so top-level hooks are known before anything is scheduled.
  queueMicrotask(flush);
};

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
/** Deno's own `node:test` `mock` object, passed through. */
export const mock: typeof denoNodeTest.mock = denoNodeTest.mock;

export default test;
