// Copyright 2026 the understudy authors. MIT license.
// Helpers of the chaos property test (not a test file itself): hostile
// values, described as plain data so that fast-check can print and shrink
// them and made fresh each time they are used, and a trap for uncaught
// errors and unhandled rejections in every runtime.

import fc from "fast-check";

/** A hostile value that is not a thenable. */
export type Basic =
  | { readonly kind: "anything"; readonly value: unknown }
  | {
    readonly kind:
      | "null-proto"
      | "throwing-coercion"
      | "revoked-proxy"
      | "trapping-proxy"
      | "error-bad-name"
      | "error"
      | "chaos-error";
  };

/** A hostile value: a {@linkcode Basic} or a hostile thenable. */
export type Hostile =
  | Basic
  /** `then` throws `inner` synchronously. */
  | { readonly kind: "thenable-throws"; readonly inner: Basic }
  /** Reading `then` throws `inner`. */
  | { readonly kind: "then-getter-throws"; readonly inner: Basic }
  /** `then` calls its reject callback with `inner`, synchronously. */
  | { readonly kind: "thenable-rejects"; readonly inner: Basic }
  /** `then` calls resolve, then reject with `inner`, then throws `inner`. */
  | { readonly kind: "thenable-settles-twice"; readonly inner: Basic }
  /** `then` never calls back. */
  | { readonly kind: "thenable-never" };

/** An Error subclass that typed clauses may name. */
export class ChaosError extends Error {
  override name = "ChaosError";
}

const BASIC_KINDS = [
  "null-proto",
  "throwing-coercion",
  "revoked-proxy",
  "trapping-proxy",
  "error-bad-name",
  "error",
  "chaos-error",
] as const;

/** Any value fast-check makes, plus the hand-made hostile ones. */
export const basic: fc.Arbitrary<Basic> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.anything({
      maxDepth: 2,
      withBoxedValues: true,
      withMap: true,
      withSet: true,
      withObjectString: true,
      withNullPrototype: true,
      withBigInt: true,
      withDate: true,
      withTypedArray: true,
      withSparseArray: true,
    }).map((value): Basic => ({ kind: "anything", value })),
  },
  {
    weight: 5,
    arbitrary: fc.constantFrom(...BASIC_KINDS).map((kind): Basic => ({
      kind,
    })),
  },
);

/** A hostile value or a hostile thenable. */
export const hostile: fc.Arbitrary<Hostile> = fc.oneof(
  { weight: 3, arbitrary: basic },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constantFrom(
        "thenable-throws" as const,
        "then-getter-throws" as const,
        "thenable-rejects" as const,
        "thenable-settles-twice" as const,
      ),
      inner: basic,
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "thenable-never" as const }) },
);

function coercionThrows(): never {
  throw new Error("coercion refused");
}

function trap(): never {
  throw new Error("proxy trap refused");
}

/** Makes a fresh instance of a {@linkcode Basic} value. */
export function makeBasic(spec: Basic): unknown {
  switch (spec.kind) {
    case "anything":
      return spec.value;
    case "null-proto":
      return Object.create(null);
    case "throwing-coercion":
      return {
        toString: coercionThrows,
        valueOf: coercionThrows,
        toJSON: coercionThrows,
        [Symbol.toPrimitive]: coercionThrows,
      };
    case "revoked-proxy": {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return proxy;
    }
    case "trapping-proxy":
      return new Proxy({}, {
        get: trap,
        set: trap,
        has: trap,
        getPrototypeOf: trap,
        setPrototypeOf: trap,
        ownKeys: trap,
        getOwnPropertyDescriptor: trap,
        defineProperty: trap,
        deleteProperty: trap,
        isExtensible: trap,
        preventExtensions: trap,
      });
    case "error-bad-name": {
      const error = new Error("an error whose name and message throw");
      Object.defineProperty(error, "name", { get: coercionThrows });
      Object.defineProperty(error, "message", { get: coercionThrows });
      return error;
    }
    case "error":
      return new Error("plain error");
    case "chaos-error":
      return new ChaosError("chaos");
  }
}

/**
 * Callbacks a hostile thenable runs when it settles, so the test knows what
 * the runtime saw.
 */
export interface ThenableWitness {
  /** The runtime called `then` (or read it) and the thenable failed. */
  failed(): void;
  /** The thenable fulfilled. */
  fulfilled(): void;
}

const NO_WITNESS: ThenableWitness = { failed() {}, fulfilled() {} };

/** Makes a fresh instance of a {@linkcode Hostile} value. */
export function makeHostile(
  spec: Hostile,
  witness: ThenableWitness = NO_WITNESS,
): unknown {
  switch (spec.kind) {
    case "thenable-throws":
      return {
        then(): never {
          witness.failed();
          throw makeBasic(spec.inner);
        },
      };
    case "then-getter-throws":
      return {
        get then(): never {
          witness.failed();
          throw makeBasic(spec.inner);
        },
      };
    case "thenable-rejects":
      return {
        then(_resolve: unknown, reject: (error: unknown) => void): void {
          witness.failed();
          reject(makeBasic(spec.inner));
        },
      };
    case "thenable-settles-twice":
      return {
        then(
          resolve: (value: unknown) => void,
          reject: (error: unknown) => void,
        ): never {
          witness.fulfilled();
          resolve(undefined);
          reject(makeBasic(spec.inner));
          throw makeBasic(spec.inner);
        },
      };
    case "thenable-never":
      return { then(): void {} };
    default:
      return makeBasic(spec);
  }
}

/**
 * What awaiting `spec` does, as an `async` function returning it would:
 * reading `then` of a revoked or trapping Proxy throws, so it rejects.
 */
export function awaitOutcome(spec: Hostile): "fulfil" | "reject" | "never" {
  switch (spec.kind) {
    case "revoked-proxy":
    case "trapping-proxy":
    case "thenable-throws":
    case "then-getter-throws":
    case "thenable-rejects":
      return "reject";
    case "thenable-never":
      return "never";
    default:
      return "fulfil";
  }
}

/** Uncaught errors and unhandled rejections seen while the trap is set. */
export interface ErrorTrap {
  readonly errors: { kind: string; error: unknown }[];
  restore(): void;
}

interface EventTargetLike {
  addEventListener(type: string, listener: (event: Event) => void): void;
  removeEventListener(type: string, listener: (event: Event) => void): void;
}

interface ProcessLike {
  on(event: string, listener: (error: unknown) => void): void;
  off(event: string, listener: (error: unknown) => void): void;
}

/**
 * Records uncaught errors and unhandled rejections: in Deno and browsers
 * through the global `error` and `unhandledrejection` events (cancelled, so
 * the run goes on and the property reports them), in Node and Bun through
 * `process`.
 */
export function trapGlobalErrors(): ErrorTrap {
  const errors: { kind: string; error: unknown }[] = [];
  const g = globalThis as unknown as {
    Deno?: unknown;
    process?: ProcessLike;
    addEventListener?: unknown;
  };
  if (g.Deno === undefined && typeof g.process?.on === "function") {
    const process = g.process;
    const onRejection = (error: unknown) =>
      errors.push({ kind: "unhandled rejection", error });
    const onException = (error: unknown) =>
      errors.push({ kind: "uncaught exception", error });
    process.on("unhandledRejection", onRejection);
    process.on("uncaughtException", onException);
    return {
      errors,
      restore() {
        process.off("unhandledRejection", onRejection);
        process.off("uncaughtException", onException);
      },
    };
  }
  const target = globalThis as unknown as EventTargetLike;
  const onRejection = (event: Event) => {
    event.preventDefault();
    errors.push({
      kind: "unhandled rejection",
      error: (event as PromiseRejectionEvent).reason,
    });
  };
  const onError = (event: Event) => {
    event.preventDefault();
    errors.push({
      kind: "uncaught exception",
      error: (event as ErrorEvent).error,
    });
  };
  target.addEventListener("unhandledrejection", onRejection);
  target.addEventListener("error", onError);
  return {
    errors,
    restore() {
      target.removeEventListener("unhandledrejection", onRejection);
      target.removeEventListener("error", onError);
    },
  };
}

/** Describes a value without running any of its code (for assertion messages). */
export function safeDescribe(value: unknown): string {
  try {
    if (value instanceof Error) return `${value.name}: ${value.message}`;
    return String(value);
  } catch {
    return `<${typeof value} that cannot be shown>`;
  }
}
