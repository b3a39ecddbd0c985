/**
 * Runtime-neutral core of the `node:test` stand-ins used by the test harness
 * (`scripts/test.mjs`):
 *
 * - `node_test_deno.ts` maps this model onto `Deno.test` / `t.step` so that
 *   Deno's op and resource sanitizers apply (Deno's own `node:test` polyfill
 *   turns them off);
 * - `node_test_browser.ts` runs the same model inside a Chromium page.
 *
 * Test files never import this module: they import `node:test`, and the
 * harness redirects that specifier (an import map for Deno, an esbuild alias
 * for the browser). Node and Bun use their own `node:test`.
 *
 * Supported surface: `describe`/`suite`, `it`/`test` (each with `.skip`,
 * `.todo`, `.only`), `before`, `after`, `beforeEach`, `afterEach`; the
 * `(name?, options?, fn?)` argument forms; options `skip`, `todo`, `only`,
 * `timeout`; async functions and `(t, done)` callback-style functions; and a
 * test context with `name`, `fullName`, `signal`, `diagnostic()`, `skip()`,
 * `todo()` and `test()` (subtests).
 *
 * @module
 */

// Captured at load time, before any test can install fake timers.
const realSetTimeout = globalThis.setTimeout.bind(globalThis);
const realClearTimeout = globalThis.clearTimeout.bind(globalThis);

/** Options accepted by `describe` / `it` (a subset of Node's). */
export interface TestOptions {
  /** Skip the test or suite; a string is the reason. */
  skip?: boolean | string;
  /** Mark as to-do (reported as skipped here); a string is the reason. */
  todo?: boolean | string;
  /** Accepted but ignored: the harness rejects `.only` in committed tests. */
  only?: boolean;
  /** Fail the test (or hook) if it has not settled after this many ms. */
  timeout?: number;
  /** Accepted and ignored (tests always run one at a time here). */
  concurrency?: unknown;
}

/** Options accepted by hooks. */
export interface HookOptions {
  /** Fail the hook if it has not settled after this many ms. */
  timeout?: number;
}

/** The `t` argument passed to tests and hooks. */
export interface TestContext {
  /** The test's own name. */
  readonly name: string;
  /** Suite names and the test name joined with " > ". */
  readonly fullName: string;
  /** Aborted once the test has finished. */
  readonly signal: AbortSignal;
  /** Prints a diagnostic line. */
  diagnostic(message: string): void;
  /**
   * Node marks the running test as skipped. Here the test simply continues
   * and is reported as passed (the message is printed).
   */
  skip(message?: string): void;
  /** Like {@linkcode TestContext.skip}, for to-do. */
  todo(message?: string): void;
  /** Runs a subtest. Resolves when it has finished (even if it failed). */
  test(...args: unknown[]): Promise<void>;
}

/** A test or hook body, optionally using a `done` callback. */
export type TestFn = (
  t: TestContext,
  done: (err?: unknown) => void,
) => unknown;

/** Hook kinds. */
export type HookKind = "before" | "after" | "beforeEach" | "afterEach";

/** A registered hook. */
export interface Hook {
  fn: TestFn;
  options: HookOptions;
}

/** A registered `describe` block. */
export class Suite {
  readonly kind = "suite";
  readonly children: (Suite | Case)[] = [];
  readonly hooks: Record<HookKind, Hook[]> = {
    before: [],
    after: [],
    beforeEach: [],
    afterEach: [],
  };
  /** Settles when an async `describe` body has finished. */
  ready: Promise<unknown> | undefined;
  /** An error thrown while the `describe` body ran. */
  error: unknown;
  constructor(
    readonly name: string,
    readonly options: TestOptions,
    readonly parent: Suite | undefined,
  ) {}
  /** Names from the outermost named suite down to this one. */
  get path(): string[] {
    return this.parent ? [...this.parent.path, this.name] : [];
  }
}

/** A registered `it` / `test`. */
export class Case {
  readonly kind = "case";
  constructor(
    readonly name: string,
    readonly options: TestOptions,
    readonly fn: TestFn | undefined,
    readonly parentPath: string[],
  ) {}
  /** Suite names and this test's name. */
  get path(): string[] {
    return [...this.parentPath, this.name];
  }
}

/** Whether a node is registered as skipped or to-do. */
export function isSkipped(node: Suite | Case): boolean {
  return Boolean(node.options.skip) || Boolean(node.options.todo);
}

interface ParsedArgs {
  name: string;
  options: TestOptions;
  fn: TestFn | undefined;
}

function parseArgs(args: unknown[], fallback: string): ParsedArgs {
  let name: string | undefined;
  let options: TestOptions = {};
  let fn: TestFn | undefined;
  for (const arg of args) {
    if (typeof arg === "string") name = arg;
    else if (typeof arg === "function") fn = arg as TestFn;
    else if (arg !== null && typeof arg === "object") {
      options = { ...(arg as TestOptions) };
    }
  }
  return { name: name ?? (fn?.name || fallback), options, fn };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null &&
    (typeof value === "object" || typeof value === "function") &&
    typeof (value as { then?: unknown }).then === "function";
}

/** Calls a test or hook body, supporting promises and `done` callbacks. */
export function callFn(fn: TestFn, t: TestContext): Promise<void> {
  if (fn.length >= 2) {
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const done = (err?: unknown) => {
        if (settled) return;
        settled = true;
        if (err !== undefined && err !== null) reject(err);
        else resolve();
      };
      try {
        const result = fn(t, done);
        if (isThenable(result)) {
          settled = true;
          reject(
            new Error(
              "test or hook received a `done` callback and also returned a promise",
            ),
          );
        }
      } catch (err) {
        settled = true;
        reject(err);
      }
    });
  }
  try {
    return Promise.resolve(fn(t, () => {})).then(() => {});
  } catch (err) {
    return Promise.reject(err);
  }
}

/** Runs `body`, failing if it takes longer than `ms` (real time). */
export async function withTimeout(
  body: () => Promise<void>,
  ms: number | undefined,
  what: string,
): Promise<void> {
  if (ms === undefined || !Number.isFinite(ms) || ms <= 0) return await body();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = realSetTimeout(
      () => reject(new Error(`${what} timed out after ${ms}ms`)),
      ms,
    );
  });
  try {
    await Promise.race([body(), timeout]);
  } finally {
    realClearTimeout(timer);
  }
}

/**
 * How a runner turns suites and cases into reported units. `H` is the
 * runner's handle for "the unit currently running" (a `Deno.TestContext`,
 * or a name path in the browser).
 */
export interface Executor<H> {
  /** Runs `body` as a child unit of `parent`; must not reject. */
  child(
    parent: H,
    node: Suite | Case,
    body: (handle: H) => Promise<void>,
  ): Promise<void>;
}

interface EachHooks {
  beforeEach: Hook[];
  afterEach: Hook[];
}

const NO_EACH_HOOKS: EachHooks = { beforeEach: [], afterEach: [] };

function makeContext<H>(
  name: string,
  path: string[],
  handle: H,
  exec: Executor<H> | undefined,
  signal: AbortSignal,
): TestContext {
  return {
    name,
    fullName: path.join(" > "),
    signal,
    diagnostic(message: string) {
      console.log(`# ${message}`);
    },
    skip(message?: string) {
      console.log(
        `# ${path.join(" > ")}: t.skip(${
          message ?? ""
        }) is not supported by this runner; the test continues`,
      );
    },
    todo(message?: string) {
      console.log(
        `# ${path.join(" > ")}: t.todo(${
          message ?? ""
        }) is not supported by this runner; the test continues`,
      );
    },
    async test(...args: unknown[]) {
      if (!exec) throw new Error("t.test() is only available inside a test");
      const parsed = parseArgs(args, "<anonymous>");
      const sub = new Case(parsed.name, parsed.options, parsed.fn, path);
      await exec.child(
        handle,
        sub,
        (h) => runCase(sub, h, exec, NO_EACH_HOOKS),
      );
    },
  };
}

async function runHooks<H>(
  hooks: Hook[],
  name: string,
  path: string[],
  handle: H,
  signal: AbortSignal,
  label: string,
): Promise<void> {
  for (const hook of hooks) {
    const t = makeContext(name, path, handle, undefined, signal);
    await withTimeout(
      () => callFn(hook.fn, t),
      hook.options.timeout,
      `${label} hook of "${path.join(" > ") || "<file>"}"`,
    );
  }
}

/** Runs one test with its inherited `beforeEach` / `afterEach` hooks. */
export async function runCase<H>(
  test: Case,
  handle: H,
  exec: Executor<H>,
  each: EachHooks,
): Promise<void> {
  const controller = new AbortController();
  const path = test.path;
  const t = makeContext(test.name, path, handle, exec, controller.signal);
  let failure: { error: unknown } | undefined;
  try {
    await runHooks(
      each.beforeEach,
      test.name,
      path,
      handle,
      controller.signal,
      "beforeEach",
    );
    if (test.fn) {
      const fn = test.fn;
      await withTimeout(
        () => callFn(fn, t),
        test.options.timeout,
        `test "${path.join(" > ")}"`,
      );
    }
  } catch (error) {
    failure = { error };
  }
  try {
    await runHooks(
      each.afterEach,
      test.name,
      path,
      handle,
      controller.signal,
      "afterEach",
    );
  } catch (error) {
    failure ??= { error };
  }
  controller.abort();
  if (failure) throw failure.error;
}

/** Runs a suite: `before`, each child, then `after` (always). */
export async function runSuite<H>(
  suite: Suite,
  handle: H,
  exec: Executor<H>,
  inherited: EachHooks,
): Promise<void> {
  if (suite.ready) await suite.ready;
  if (suite.error !== undefined) throw suite.error;
  const each: EachHooks = {
    beforeEach: [...inherited.beforeEach, ...suite.hooks.beforeEach],
    afterEach: [...suite.hooks.afterEach, ...inherited.afterEach],
  };
  const controller = new AbortController();
  const path = suite.path;
  let failure: { error: unknown } | undefined;
  try {
    await runHooks(
      suite.hooks.before,
      suite.name,
      path,
      handle,
      controller.signal,
      "before",
    );
    for (const child of suite.children) {
      await exec.child(
        handle,
        child,
        (h) =>
          child.kind === "suite"
            ? runSuite(child, h, exec, each)
            : runCase(child, h, exec, each),
      );
    }
  } catch (error) {
    failure = { error };
  }
  try {
    await runHooks(
      suite.hooks.after,
      suite.name,
      path,
      handle,
      controller.signal,
      "after",
    );
  } catch (error) {
    failure ??= { error };
  }
  controller.abort();
  if (failure) throw failure.error;
}

/** Hook-inheritance view of a suite, for runners that run children directly. */
export function eachHooksOf(suite: Suite): EachHooks {
  return {
    beforeEach: [...suite.hooks.beforeEach],
    afterEach: [...suite.hooks.afterEach],
  };
}

/** A `describe`-like registration function with modifiers. */
export interface DescribeFn {
  (...args: unknown[]): void;
  skip(...args: unknown[]): void;
  todo(...args: unknown[]): void;
  only(...args: unknown[]): void;
}

/** An `it`-like registration function with modifiers. */
export interface ItFn {
  (...args: unknown[]): void;
  skip(...args: unknown[]): void;
  todo(...args: unknown[]): void;
  only(...args: unknown[]): void;
}

/** A hook registration function. */
export type HookFn = (fn: TestFn, options?: HookOptions) => void;

/** The registration API bound to one {@linkcode Registry}. */
export interface NodeTestApi {
  describe: DescribeFn;
  suite: DescribeFn;
  it: ItFn;
  test: ItFn;
  before: HookFn;
  after: HookFn;
  beforeEach: HookFn;
  afterEach: HookFn;
}

/** Collects suites, tests and hooks as test modules register them. */
export class Registry {
  readonly root: Suite = new Suite("", {}, undefined);
  #current: Suite = this.root;
  /** Called whenever something is registered directly on the root. */
  onRootChange: (() => void) | undefined;

  #add(node: Suite | Case): void {
    this.#current.children.push(node);
    if (this.#current === this.root) this.onRootChange?.();
  }

  describe(args: unknown[], extra: TestOptions): void {
    const parsed = parseArgs(args, "<anonymous suite>");
    const suite = new Suite(
      parsed.name,
      { ...parsed.options, ...extra },
      this.#current,
    );
    this.#add(suite);
    if (!parsed.fn) return;
    const previous = this.#current;
    this.#current = suite;
    try {
      const result = parsed.fn(
        makeContext(
          suite.name,
          suite.path,
          undefined,
          undefined,
          new AbortController().signal,
        ),
        () => {},
      );
      if (isThenable(result)) {
        suite.ready = Promise.resolve(result).catch((error) => {
          suite.error = error;
        });
      }
    } catch (error) {
      suite.error = error;
    } finally {
      this.#current = previous;
    }
  }

  it(args: unknown[], extra: TestOptions): void {
    const parsed = parseArgs(args, "<anonymous>");
    const options = { ...parsed.options, ...extra };
    // Node treats a test without a body as a passing no-op; so do we.
    this.#add(new Case(parsed.name, options, parsed.fn, this.#current.path));
  }

  hook(kind: HookKind, fn: TestFn, options: HookOptions | undefined): void {
    if (typeof fn !== "function") {
      throw new TypeError(`${kind}() expects a function`);
    }
    this.#current.hooks[kind].push({ fn, options: options ?? {} });
    if (this.#current === this.root) this.onRootChange?.();
  }

  /** Builds `describe`, `it`, hooks, etc. bound to this registry. */
  api(): NodeTestApi {
    const describe = Object.assign(
      (...args: unknown[]) => this.describe(args, {}),
      {
        skip: (...args: unknown[]) => this.describe(args, { skip: true }),
        todo: (...args: unknown[]) => this.describe(args, { todo: true }),
        only: (...args: unknown[]) => this.describe(args, { only: true }),
      },
    );
    const it = Object.assign(
      (...args: unknown[]) => this.it(args, {}),
      {
        skip: (...args: unknown[]) => this.it(args, { skip: true }),
        todo: (...args: unknown[]) => this.it(args, { todo: true }),
        only: (...args: unknown[]) => this.it(args, { only: true }),
      },
    );
    const hook = (kind: HookKind): HookFn => (fn, options) =>
      this.hook(kind, fn, options);
    return {
      describe,
      suite: describe,
      it,
      test: it,
      before: hook("before"),
      after: hook("after"),
      beforeEach: hook("beforeEach"),
      afterEach: hook("afterEach"),
    };
  }
}
