/**
 * A tiny browser stand-in for Node's `util` module, used by the Chromium run
 * of `scripts/test.mjs`: `@sinonjs/fake-timers` contains
 * `require("util").promisify` (only reached when a `process` global exists),
 * so esbuild needs something to bundle for `util` / `node:util`.
 *
 * @module
 */
import { inspect, isDeepStrictEqual } from "./assert_strict_browser.ts";

export { inspect, isDeepStrictEqual };

/** The `util.promisify.custom` symbol. */
const custom: symbol = Symbol.for("nodejs.util.promisify.custom");

type Callback = (err: unknown, value?: unknown) => void;

/** Turns a Node-style callback function into a promise-returning one. */
export const promisify: {
  (fn: (...args: never[]) => unknown): (...args: unknown[]) => Promise<unknown>;
  custom: symbol;
} = Object.assign(
  (fn: (...args: never[]) => unknown) => {
    const customFn = (fn as unknown as Record<symbol, unknown>)[custom];
    if (typeof customFn === "function") {
      return customFn as (...args: unknown[]) => Promise<unknown>;
    }
    return (...args: unknown[]) =>
      new Promise<unknown>((resolve, reject) => {
        const cb: Callback = (err, value) => err ? reject(err) : resolve(value);
        (fn as unknown as (...a: unknown[]) => unknown)(...args, cb);
      });
  },
  { custom },
);

/** Returns `fn` unchanged (no deprecation warnings in the browser run). */
export function deprecate<T>(fn: T, _message?: string): T {
  return fn;
}

/** Minimal `util.format`: joins the arguments with spaces. */
export function format(...args: unknown[]): string {
  return args.map((a) => typeof a === "string" ? a : inspect(a)).join(" ");
}

export default { promisify, deprecate, format, inspect, isDeepStrictEqual };
