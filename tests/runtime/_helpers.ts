// Copyright 2026 the understudy authors. MIT license.
// Helpers shared by the runtime tests (not a test file itself).

import * as FakeTimers from "@sinonjs/fake-timers";
import {
  Actor,
  type ActorRef,
  ActorSystem,
  type ActorSystemOptions,
  DeadLetter,
  type LogRecord,
  Props,
} from "../../mod.ts";

// Captured at load time, before any test installs fake timers.
const realSetTimeout = globalThis.setTimeout.bind(globalThis);
const realClearTimeout = globalThis.clearTimeout.bind(globalThis);

/** The clock returned by {@linkcode installClock}. */
export type Clock = ReturnType<typeof FakeTimers.install>;

/**
 * Fakes timers, `Date` and `performance` (not `queueMicrotask`: the
 * dispatcher runs on microtasks). Always `clock.uninstall()` afterwards.
 */
export function installClock(): Clock {
  return FakeTimers.install({
    toFake: [
      "setTimeout",
      "clearTimeout",
      "setInterval",
      "clearInterval",
      "Date",
      "performance",
    ],
  });
}

/** A quiet system named "test"; `options` override the defaults. */
export function createSystem(options: ActorSystemOptions = {}): ActorSystem {
  return ActorSystem.create("test", { logLevel: "off", ...options });
}

/**
 * Lets the dispatcher run everything it can: a few turns of the real event
 * loop (each one drains all microtasks). Works with or without a fake clock,
 * but does not advance fake time.
 */
export async function settle(turns = 4): Promise<void> {
  for (let i = 0; i < turns; i++) {
    await new Promise<void>((resolve) => realSetTimeout(resolve, 0));
  }
}

/** Waits (in real time) until `condition()` holds, failing after `limitMs`. */
export async function waitUntil(
  condition: () => boolean,
  what: string,
  limitMs = 20_000,
): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > limitMs) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await settle(1);
  }
}

/** A promise with its resolve and reject functions. */
export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

/** Makes a {@linkcode Deferred}. */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A real AbortController whose signal counts the abort listeners it holds. */
export function countedController(): {
  controller: AbortController;
  signal: AbortSignal;
  listeners: () => number;
} {
  const controller = new AbortController();
  const signal = controller.signal;
  let live = 0;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((...args: Parameters<typeof add>) => {
    if (args[0] === "abort") live++;
    add(...args);
  }) as typeof signal.addEventListener;
  signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
    if (args[0] === "abort") live--;
    remove(...args);
  }) as typeof signal.removeEventListener;
  return { controller, signal, listeners: () => live };
}

/**
 * Records every event of `eventClass` published on `system`'s event stream,
 * from now on.
 */
export function collect<E extends object>(
  system: ActorSystem,
  // deno-lint-ignore no-explicit-any
  eventClass: abstract new (...args: any[]) => E,
): E[] {
  const events: E[] = [];
  system.eventStream.subscribe(eventClass, (event) => events.push(event));
  return events;
}

/** Records every dead letter published on `system` from now on. */
export function collectDeadLetters(system: ActorSystem): DeadLetter[] {
  return collect(system, DeadLetter);
}

/** A log sink that keeps the records, for `ActorSystem.create(name, { logger })`. */
export function logRecorder(): {
  records: LogRecord[];
  sink: (record: LogRecord) => void;
} {
  const records: LogRecord[] = [];
  return { records, sink: (record) => records.push(record) };
}

/** What a {@linkcode FnActor} does with a message. */
export type Handler<T> = (
  actor: FnActor<T>,
  message: T,
) => void | Promise<void>;

/** An actor whose `onReceive` is a function given at creation. */
export class FnActor<T> extends Actor<T> {
  constructor(readonly handler: Handler<T>) {
    super();
  }
  onReceive(message: T): void | Promise<void> {
    return this.handler(this, message);
  }
}

/** Props of a {@linkcode FnActor} running `handler`. */
export function fnProps<T = unknown>(handler: Handler<T>): Props<T> {
  return Props.create(() => new FnActor(handler));
}

/** Props of an actor that appends every message it receives to `into`. */
export function recorderProps<T = unknown>(into: unknown[] = []): Props<T> {
  return fnProps<T>((_actor, message) => {
    into.push(message);
  });
}

/** An actor that echoes every message back to its sender. */
export function echoProps<T = unknown>(): Props<T> {
  return fnProps<T>((actor, message) =>
    actor.sender?.tell(message, actor.self as ActorRef<never>)
  );
}

/** Rejects with a clear error if `promise` does not settle within `ms` of real time. */
export async function within<T>(
  promise: Promise<T>,
  ms: number,
  what: string,
): Promise<T> {
  let timer: ReturnType<typeof realSetTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = realSetTimeout(
      () => reject(new Error(`${what} did not finish within ${ms} ms`)),
      ms,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    realClearTimeout(timer);
  }
}
