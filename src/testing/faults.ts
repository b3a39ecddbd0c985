// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Fault injectors for actors: props whose actors crash on a chosen or a
 * random message, have hooks that throw, handlers that never settle, and
 * stop at a random point, every random decision drawn from a
 * {@linkcode SeededRandom}.
 *
 * @module
 */

import type { Actor } from "../runtime/actor.ts";
import { Props, SupervisedProps } from "../runtime/props.ts";
import { fail } from "../validation.ts";
import { checkRate, type SeededRandom } from "./seeded_random.ts";

/** The hooks a fault can make throw. */
export type FaultyHook = "preStart" | "postStop" | "preRestart" | "postRestart";

/**
 * What one injected fault was.
 *
 * @example Usage
 * ```ts
 * import type { FaultKind } from "@understudy/core/testing";
 *
 * const kinds: FaultKind[] = ["crash", "hang", "stop", "hook"];
 * ```
 */
export type FaultKind = "crash" | "hang" | "stop" | "hook";

/**
 * The error an injected crash or hook throws: tell it apart from your own
 * code's errors with `instanceof`.
 *
 * @example Usage
 * ```ts
 * import { InjectedFault } from "@understudy/core/testing";
 *
 * const error = new InjectedFault("crash", "onReceive", "job 3");
 * console.log(error.message); // "injected crash in onReceive (job 3)"
 * ```
 */
export class InjectedFault extends Error {
  /** `"InjectedFault"`. */
  override name = "InjectedFault";
  /** Which fault. */
  readonly kind: FaultKind;
  /** Where: `onReceive` or the hook's name. */
  readonly where: string;

  /**
   * Creates an `InjectedFault`.
   *
   * @param kind Which fault.
   * @param where Where it struck.
   * @param detail What it struck (a message), for the message.
   */
  constructor(kind: FaultKind, where: string, detail?: string) {
    super(
      `injected ${kind} in ${where}${
        detail === undefined ? "" : ` (${detail})`
      }`,
    );
    this.kind = kind;
    this.where = where;
  }
}

/**
 * A fault as it struck: its kind, where, the message it struck (for the
 * handler's faults), and which instance of the actor (1 for the first,
 * 2 after the first restart or respawn, …).
 *
 * @example Usage
 * ```ts
 * import type { StruckFault } from "@understudy/core/testing";
 *
 * const log: StruckFault[] = [];
 * const onFault = (fault: StruckFault) => log.push(fault);
 * ```
 */
export interface StruckFault {
  /** Which fault. */
  readonly kind: FaultKind;
  /** `onReceive`, or the hook. */
  readonly where: string;
  /** The message, for a fault in the handler. */
  readonly message?: unknown;
  /** Which instance (1, 2, …) of the props' actors. */
  readonly instance: number;
}

/**
 * The faults of {@linkcode faultyProps}. Rates are chances per message
 * (handler faults: at most one a message, tried in the order crash, hang,
 * stop) or per call (hooks).
 *
 * @example Usage
 * ```ts
 * import { type ActorFaults, seededRandom } from "@understudy/core/testing";
 *
 * const faults: ActorFaults<string> = {
 *   random: seededRandom(12),
 *   crash: 0.1,
 *   crashOn: (message) => message === "poison",
 *   hang: 0.01,
 *   stop: 0.02,
 *   hooks: { preStart: 0.2 },
 * };
 * ```
 *
 * @typeParam T The actor's messages.
 */
export interface ActorFaults<T> {
  /** Where every fault is drawn from. */
  readonly random: SeededRandom;
  /** Chance that the handler throws an {@linkcode InjectedFault} instead of handling a message. */
  readonly crash?: number;
  /** The handler throws instead of handling each message this picks. */
  readonly crashOn?: (message: T) => boolean;
  /**
   * Chance that the handler, instead of handling a message, returns a
   * promise that never settles: the actor is stuck on it until it stops
   * (the message is then abandoned: a dead letter).
   */
  readonly hang?: number;
  /** Chance that the actor, having handled a message, stops itself. */
  readonly stop?: number;
  /** Chance, per call, that a hook throws an {@linkcode InjectedFault} before it runs. */
  readonly hooks?: { readonly [hook in FaultyHook]?: number };
  /** Told of every fault as it strikes. */
  readonly onFault?: (fault: StruckFault) => void;
}

const HOOKS: readonly FaultyHook[] = [
  "preStart",
  "postStop",
  "preRestart",
  "postRestart",
];

/** A promise that never settles: the `hang` fault's result. */
const NEVER: Promise<never> = new Promise<never>(() => {});

/**
 * Props like `props` whose actors misbehave as `faults` say: the handler
 * (`onReceive`) may throw on a chosen or a random message, never settle,
 * or stop the actor after its work; hooks may throw. What the actor does
 * otherwise is its own code, called as usual; its supervision (typed
 * clauses, restart type, stash capacity, shutdown timeout) is kept. Every
 * decision draws from `faults.random` (one number per message, one per
 * hook call), so a seed replays the same faults at the same messages.
 * Behaviours installed with `become` are not wrapped.
 *
 * @example A BackoffSupervisor over a child that crashes on 20% of its jobs
 * ```ts
 * import { Actor, ActorSystem, BackoffSupervisor, Props } from "@understudy/core";
 * import { faultyProps, ManualScheduler, seededRandom } from "@understudy/core/testing";
 *
 * let done = 0;
 * class Worker extends Actor<number> {
 *   onReceive(): void {
 *     done++;
 *   }
 * }
 * const scheduler = new ManualScheduler();
 * const system = ActorSystem.create("test", { scheduler, logLevel: "off" });
 * const supervisor = system.actorOf(BackoffSupervisor.props({
 *   childProps: faultyProps(Props.create(() => new Worker()), {
 *     random: seededRandom(5),
 *     crash: 0.2,
 *   }),
 *   minBackoff: 10,
 *   maxBackoff: 100,
 * }));
 * for (let i = 0; i < 20; i++) supervisor.tell(i);
 * await scheduler.timePasses(5_000);
 * console.log(done < 20); // true: some jobs crashed the child
 * await system.terminate();
 * ```
 *
 * @typeParam T The actor's messages.
 * @param props The props to wrap.
 * @param faults What goes wrong, how often, drawn from where.
 * @returns The faulty props.
 */
export function faultyProps<T>(
  props: Props<T>,
  faults: ActorFaults<T>,
): Props<T> {
  const action = "make faulty props";
  if (!(props instanceof Props)) fail(action, "props", "Props", props);
  if (typeof faults !== "object" || faults === null) {
    fail(action, "faults", "an object", faults);
  }
  const { random, crashOn, onFault, hooks = {} } = faults;
  if (typeof random?.next !== "function") {
    fail(action, "faults.random", "a SeededRandom", random);
  }
  const crash = checkRate(action, "faults.crash", faults.crash ?? 0);
  const hang = checkRate(action, "faults.hang", faults.hang ?? 0);
  const stop = checkRate(action, "faults.stop", faults.stop ?? 0);
  if (crashOn !== undefined && typeof crashOn !== "function") {
    fail(action, "faults.crashOn", "a function", crashOn);
  }
  if (onFault !== undefined && typeof onFault !== "function") {
    fail(action, "faults.onFault", "a function", onFault);
  }
  if (typeof hooks !== "object" || hooks === null) {
    fail(action, "faults.hooks", "an object of rates by hook", hooks);
  }
  for (const hook of HOOKS) {
    if (hooks[hook] !== undefined) {
      checkRate(action, `faults.hooks.${hook}`, hooks[hook]);
    }
  }
  let instances = 0;
  const factory = props.factory;

  const wrapped = Props.create<T>(() => {
    const actor = factory();
    const instance = ++instances;
    const strike = (kind: FaultKind, where: string, message?: unknown) => {
      onFault?.({ kind, where, message, instance });
    };
    const onReceive = actor.onReceive;
    own(actor, "onReceive", function (this: Actor<T>, message: T) {
      const draw = random.next();
      if (crashOn?.(message) === true || draw < crash) {
        strike("crash", "onReceive", message);
        throw new InjectedFault("crash", "onReceive", describe(message));
      }
      if (draw < crash + hang) {
        strike("hang", "onReceive", message);
        return NEVER;
      }
      const result = onReceive.call(this, message);
      if (draw < crash + hang + stop) {
        strike("stop", "onReceive", message);
        this.context.stop(this.self);
      }
      return result;
    });
    for (const hook of HOOKS) {
      const rate = hooks[hook] ?? 0;
      if (rate === 0) continue;
      const original = actor[hook] as (...args: unknown[]) => unknown;
      own(actor, hook, function (this: Actor<T>, ...args: unknown[]) {
        if (random.next() < rate) {
          strike("hook", hook);
          throw new InjectedFault("hook", hook);
        }
        return original.apply(this, args);
      });
    }
    return actor;
  }, {
    stashCapacity: props.stashCapacity,
    shutdownTimeoutMs: props.shutdownTimeoutMs,
    restart: props.restart,
  });
  return props.failureClauses.length === 0
    ? wrapped
    : new SupervisedProps(wrapped, props.failureClauses);
}

/** Sets an own method on one instance (its class's stays as it is). */
function own(actor: object, name: string, method: unknown): void {
  Object.defineProperty(actor, name, {
    value: method,
    writable: true,
    configurable: true,
  });
}

function describe(message: unknown): string {
  try {
    return typeof message === "string" ? message : String(message);
  } catch {
    return `a ${typeof message}`;
  }
}
