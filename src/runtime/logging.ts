// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Logging with levels; every line carries the path of the actor that wrote
 * it. The sink is pluggable, so logs can go to a structured logger.
 *
 * @module
 */

import { fail } from "../validation.ts";

/**
 * Log levels, least to most severe; `off` silences everything.
 *
 * @example Usage
 * ```ts
 * import { ActorSystem, type LogLevel } from "@understudy/core";
 *
 * const level: LogLevel = "warn";
 * const system = ActorSystem.create("quiet", { logLevel: level });
 * await system.terminate();
 * ```
 */
export type LogLevel = "debug" | "info" | "warn" | "error" | "off";

const SEVERITY: Record<LogLevel, number> = {
  debug: 0,
  info: 1,
  warn: 2,
  error: 3,
  off: 4,
};

/**
 * One log line, as handed to a {@linkcode LogSink}.
 *
 * @example Usage
 * ```ts
 * import type { LogRecord } from "@understudy/core";
 *
 * const record: LogRecord = { level: "info", path: "/user/a", message: "hello", data: [] };
 * ```
 */
export interface LogRecord {
  /** The level it was logged at. */
  readonly level: Exclude<LogLevel, "off">;
  /** The path of the actor that logged it, or the system's name. */
  readonly path: string;
  /** The message. */
  readonly message: string;
  /** Extra values passed after the message (errors, objects). */
  readonly data: readonly unknown[];
  /**
   * At `error` level, the first value passed after the message (also
   * `data[0]`): the runtime always passes the thrown value there, so a
   * record about a failure carries it here. The message says what happened
   * without repeating the error's text.
   */
  readonly error?: unknown;
}

/**
 * Receives every log record at or above the system's level.
 *
 * @example Usage
 * ```ts
 * import { ActorSystem, type LogSink } from "@understudy/core";
 *
 * const lines: string[] = [];
 * const sink: LogSink = (record) => lines.push(`${record.level} ${record.path} ${record.message}`);
 * const system = ActorSystem.create("demo", { logger: sink });
 * await system.terminate();
 * ```
 */
export type LogSink = (record: LogRecord) => void;

/**
 * Writes `[level] path message` to the console method of that level, then
 * the record's data, so the console prints an error (its text and stack)
 * once: `[error] /user/child failed (restart): Error: boom` and the stack.
 *
 * @example Usage
 * ```ts
 * import { consoleSink } from "@understudy/core";
 *
 * consoleSink({ level: "info", path: "/user/a", message: "hello", data: [] });
 * ```
 *
 * @param record The record.
 */
export function consoleSink(record: LogRecord): void {
  const console = globalThis.console;
  if (console === undefined) return;
  const line = `[${record.level}] ${record.path} ${record.message}`;
  console[record.level](
    "error" in record ? `${line}:` : line,
    ...record.data,
  );
}

/**
 * What an actor logs with (`this.log` inside an actor).
 *
 * @example Usage
 * ```ts
 * import { Actor } from "@understudy/core";
 *
 * class Greeter extends Actor<string> {
 *   onReceive(name: string): void {
 *     this.log.info(`hello ${name}`);
 *   }
 * }
 * ```
 */
export class Logger {
  readonly #path: () => string;
  readonly #threshold: number;
  readonly #sink: LogSink;

  /**
   * Creates a `Logger`.
   *
   * @param path Returns the path written on each line.
   * @param level The least severe level written.
   * @param sink Where records go.
   */
  constructor(path: () => string, level: LogLevel, sink: LogSink) {
    this.#path = path;
    this.#threshold = SEVERITY[level];
    this.#sink = sink;
  }

  /**
   * `true` if records at `level` are written, to skip building costly ones.
   *
   * @example Usage
   * ```ts
   * import { Logger, consoleSink } from "@understudy/core";
   *
   * new Logger(() => "/user", "warn", consoleSink).isEnabled("info"); // false
   * ```
   *
   * @param level The level to test.
   * @returns Whether it would be written.
   */
  isEnabled(level: Exclude<LogLevel, "off">): boolean {
    return SEVERITY[level] >= this.#threshold;
  }

  /**
   * Logs at `debug`.
   *
   * @example Usage
   * ```ts
   * import { Logger, consoleSink } from "@understudy/core";
   *
   * new Logger(() => "/user", "debug", consoleSink).debug("details", { n: 1 });
   * ```
   */
  debug(message: string, ...data: unknown[]): void {
    this.#write("debug", message, data);
  }

  /**
   * Logs at `info`.
   *
   * @example Usage
   * ```ts
   * import { Logger, consoleSink } from "@understudy/core";
   *
   * new Logger(() => "/user", "info", consoleSink).info("started");
   * ```
   */
  info(message: string, ...data: unknown[]): void {
    this.#write("info", message, data);
  }

  /**
   * Logs at `warn`.
   *
   * @example Usage
   * ```ts
   * import { Logger, consoleSink } from "@understudy/core";
   *
   * new Logger(() => "/user", "info", consoleSink).warn("slow upstream");
   * ```
   */
  warn(message: string, ...data: unknown[]): void {
    this.#write("warn", message, data);
  }

  /**
   * Logs at `error`. Pass the error after the message rather than in it: it
   * becomes the record's `error`, and the console prints it once.
   *
   * @example Usage
   * ```ts
   * import { Logger, consoleSink } from "@understudy/core";
   *
   * new Logger(() => "/user", "info", consoleSink).error("failed", new Error("boom"));
   * ```
   */
  error(message: string, ...data: unknown[]): void {
    this.#write("error", message, data);
  }

  #write(
    level: Exclude<LogLevel, "off">,
    message: string,
    data: unknown[],
  ): void {
    if (SEVERITY[level] < this.#threshold) return;
    try {
      this.#sink(
        level === "error" && data.length > 0
          ? { level, path: this.#path(), message, data, error: data[0] }
          : { level, path: this.#path(), message, data },
      );
    } catch {
      // A broken sink must not crash the actor that logs.
    }
  }
}

/**
 * Checks a log level option.
 *
 * @param value The value given.
 * @returns The level.
 */
export function checkLogLevel(value: unknown): LogLevel {
  if (typeof value === "string" && value in SEVERITY) return value as LogLevel;
  return fail(
    "create actor system",
    "logLevel",
    '"debug", "info", "warn", "error" or "off"',
    value,
    true,
  );
}
