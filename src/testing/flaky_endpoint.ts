// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * The flaky link's worker adapter: an endpoint (a `Worker`, a
 * `MessagePort`) whose posts, each way, go through a
 * {@linkcode FlakyChannel}; and a wrapper of a worker's `create` that makes
 * every worker's endpoint flaky and can lose a worker.
 *
 * @module
 */

import type { Scheduler } from "../runtime/ports/scheduler.ts";
import { fail } from "../validation.ts";
import type { Endpoint, EndpointEvent } from "../worker/endpoint.ts";
import { FlakyChannel, type LinkFaults } from "./flaky_link.ts";
import { checkRate, type SeededRandom } from "./seeded_random.ts";

/**
 * Options of {@linkcode FlakyEndpoint}.
 *
 * @example Usage
 * ```ts
 * import { type FlakyEndpointOptions, ManualScheduler, seededRandom } from "@understudy/core/testing";
 *
 * const options: FlakyEndpointOptions = {
 *   random: seededRandom(3),
 *   scheduler: new ManualScheduler(),
 *   outbound: { delayMs: [0, 40] },
 *   inbound: { drop: 0.1 },
 * };
 * ```
 */
export interface FlakyEndpointOptions {
  /** Where every fault is drawn from (each direction gets a fork). */
  readonly random: SeededRandom;
  /** Times the deliveries: the actor system's scheduler. */
  readonly scheduler: Scheduler;
  /** What happens to what this side posts. Default: none. */
  readonly outbound?: LinkFaults;
  /** What happens to what the other side posts. Default: none. */
  readonly inbound?: LinkFaults;
  /** Names the channels in their traces. Default `"endpoint"`. */
  readonly name?: string;
  /**
   * Asked as each message, either way, enters its channel: `true` cuts the
   * endpoint there (that message is lost too). Default: never.
   */
  readonly cutWhen?: () => boolean;
  /** Called once when the endpoint is cut, with the reason. */
  readonly onCut?: (reason: string) => void;
}

type Listener = (event: EndpointEvent) => void;

/**
 * An {@linkcode Endpoint} over another whose messages, each way, pass
 * through a {@linkcode FlakyChannel}: lost, late, doubled or out of order
 * at the given rates. A post is structured-cloned at the call (so a
 * `DataCloneError` is thrown there, and later changes to the message do
 * not travel), and the clone goes on after its faults. `error` events and
 * `start()` pass straight through. {@linkcode FlakyEndpoint.cut} models a
 * channel that went away: nothing more crosses either way.
 *
 * @example A port whose messages arrive 0–40 ms late, in order
 * ```ts
 * import { FlakyEndpoint, ManualScheduler, seededRandom } from "@understudy/core/testing";
 *
 * const scheduler = new ManualScheduler();
 * const { port1, port2 } = new MessageChannel();
 * const flaky = new FlakyEndpoint(port1, {
 *   random: seededRandom(8),
 *   scheduler,
 *   outbound: { delayMs: [0, 40] },
 * });
 * const seen: unknown[] = [];
 * port2.onmessage = (event) => seen.push(event.data);
 * flaky.postMessage("a");
 * flaky.postMessage("b");
 * await scheduler.timePasses(40);
 * await new Promise((resolve) => setTimeout(resolve, 10));
 * console.log(seen); // ["a", "b"]
 * flaky.cut();
 * port1.close();
 * port2.close();
 * ```
 */
export class FlakyEndpoint implements Endpoint {
  /** What this side posts, on its way. */
  readonly outbound: FlakyChannel<unknown>;
  /** What the other side posts, on its way. */
  readonly inbound: FlakyChannel<unknown>;
  readonly #inner: Endpoint;
  readonly #listeners = new Set<Listener>();
  #cut = false;
  readonly #cutWhen: (() => boolean) | undefined;
  readonly #onCut: ((reason: string) => void) | undefined;
  readonly #onInner: Listener = (event) => {
    if (this.#entering()) this.inbound.send(event.data);
  };

  /**
   * Wraps `inner`.
   *
   * @example Usage
   * ```ts
   * import { FlakyEndpoint, ManualScheduler, seededRandom } from "@understudy/core/testing";
   *
   * const { port1, port2 } = new MessageChannel();
   * const flaky = new FlakyEndpoint(port1, { random: seededRandom(1), scheduler: new ManualScheduler() });
   * flaky.cut();
   * port1.close();
   * port2.close();
   * ```
   *
   * @param inner The endpoint under it.
   * @param options Random source, scheduler, faults each way.
   */
  constructor(inner: Endpoint, options: FlakyEndpointOptions) {
    const action = "create FlakyEndpoint";
    if (
      typeof inner?.postMessage !== "function" ||
      typeof inner?.addEventListener !== "function" ||
      typeof inner?.removeEventListener !== "function"
    ) {
      fail(
        action,
        "inner",
        "an endpoint (postMessage, addEventListener, removeEventListener)",
        inner,
      );
    }
    if (typeof options !== "object" || options === null) {
      fail(action, "options", "an object", options);
    }
    const { random, scheduler, name = "endpoint", cutWhen, onCut } = options;
    if (typeof random?.fork !== "function") {
      fail(action, "random", "a SeededRandom", random);
    }
    if (cutWhen !== undefined && typeof cutWhen !== "function") {
      fail(action, "cutWhen", "a function", cutWhen);
    }
    if (onCut !== undefined && typeof onCut !== "function") {
      fail(action, "onCut", "a function", onCut);
    }
    this.#inner = inner;
    this.#cutWhen = cutWhen;
    this.#onCut = onCut;
    this.outbound = new FlakyChannel<unknown>({
      name: `${name} ▸`,
      random: random.fork(`${name} ▸`),
      scheduler,
      faults: options.outbound,
      deliver: (message) => {
        if (!this.#cut) inner.postMessage(message);
      },
    });
    this.inbound = new FlakyChannel<unknown>({
      name: `${name} ◂`,
      random: random.fork(`${name} ◂`),
      scheduler,
      faults: options.inbound,
      deliver: (data) => {
        if (this.#cut) return;
        for (const listener of [...this.#listeners]) listener({ data });
      },
    });
  }

  /**
   * Clones `message` now and sends the clone through the outbound faults.
   *
   * @example Usage
   * ```ts
   * import { FlakyEndpoint, ManualScheduler, seededRandom } from "@understudy/core/testing";
   *
   * const { port1, port2 } = new MessageChannel();
   * const flaky = new FlakyEndpoint(port1, { random: seededRandom(1), scheduler: new ManualScheduler() });
   * flaky.postMessage({ hello: "worker" });
   * flaky.cut();
   * port1.close();
   * port2.close();
   * ```
   *
   * @param message The message.
   * @param transfer Objects to move (detached here, as a post would).
   */
  postMessage(message: unknown, transfer?: object[]): void {
    const copy = structuredClone(
      message,
      transfer === undefined ? undefined : { transfer: transfer as never },
    );
    if (this.#entering()) this.outbound.send(copy);
  }

  /** Whether a message may enter a channel: not once cut, nor if `cutWhen` cuts now. */
  #entering(): boolean {
    if (this.#cut) return false;
    if (this.#cutWhen?.() === true) {
      this.cut("cut by cutWhen");
      return false;
    }
    return true;
  }

  /**
   * Listens: `message` listeners hear what comes through the inbound
   * faults; others are the inner endpoint's.
   *
   * @example Usage
   * ```ts
   * import { FlakyEndpoint, ManualScheduler, seededRandom } from "@understudy/core/testing";
   *
   * const { port1, port2 } = new MessageChannel();
   * const flaky = new FlakyEndpoint(port1, { random: seededRandom(1), scheduler: new ManualScheduler() });
   * flaky.addEventListener("message", (event) => console.log(event.data));
   * flaky.cut();
   * port1.close();
   * port2.close();
   * ```
   *
   * @param type The event type.
   * @param listener The listener.
   */
  addEventListener(
    type: string,
    listener: (event: EndpointEvent) => void,
  ): void {
    if (type !== "message") return this.#inner.addEventListener(type, listener);
    if (this.#listeners.size === 0) {
      this.#inner.addEventListener("message", this.#onInner);
    }
    this.#listeners.add(listener);
  }

  /**
   * Removes a listener added with `addEventListener`.
   *
   * @example Usage
   * ```ts
   * import { FlakyEndpoint, ManualScheduler, seededRandom } from "@understudy/core/testing";
   *
   * const { port1, port2 } = new MessageChannel();
   * const flaky = new FlakyEndpoint(port1, { random: seededRandom(1), scheduler: new ManualScheduler() });
   * const listener = () => {};
   * flaky.addEventListener("message", listener);
   * flaky.removeEventListener("message", listener);
   * port1.close();
   * port2.close();
   * ```
   *
   * @param type The event type.
   * @param listener The listener.
   */
  removeEventListener(
    type: string,
    listener: (event: EndpointEvent) => void,
  ): void {
    if (type !== "message") {
      return this.#inner.removeEventListener(type, listener);
    }
    if (!this.#listeners.delete(listener)) return;
    if (this.#listeners.size === 0) {
      this.#inner.removeEventListener("message", this.#onInner);
    }
  }

  /**
   * Starts the inner endpoint, if it has `start` (a `MessagePort`).
   *
   * @example Usage
   * ```ts
   * import { FlakyEndpoint, ManualScheduler, seededRandom } from "@understudy/core/testing";
   *
   * const { port1, port2 } = new MessageChannel();
   * const flaky = new FlakyEndpoint(port1, { random: seededRandom(1), scheduler: new ManualScheduler() });
   * flaky.start();
   * port1.close();
   * port2.close();
   * ```
   */
  start(): void {
    this.#inner.start?.();
  }

  /**
   * Whether {@linkcode FlakyEndpoint.cut} was called.
   *
   * @example Usage
   * ```ts
   * import { FlakyEndpoint, ManualScheduler, seededRandom } from "@understudy/core/testing";
   *
   * const { port1, port2 } = new MessageChannel();
   * const flaky = new FlakyEndpoint(port1, { random: seededRandom(1), scheduler: new ManualScheduler() });
   * console.log(flaky.isCut); // false
   * port1.close();
   * port2.close();
   * ```
   */
  get isCut(): boolean {
    return this.#cut;
  }

  /**
   * The channel goes away: what is in flight is lost, nothing more crosses
   * either way, and no timer is left; `onCut` is told `reason`.
   *
   * @example Usage
   * ```ts
   * import { FlakyEndpoint, ManualScheduler, seededRandom } from "@understudy/core/testing";
   *
   * const { port1, port2 } = new MessageChannel();
   * const flaky = new FlakyEndpoint(port1, { random: seededRandom(1), scheduler: new ManualScheduler() });
   * flaky.cut();
   * console.log(flaky.isCut); // true
   * port1.close();
   * port2.close();
   * ```
   *
   * @param reason Why, for `onCut`. Default `"cut"`.
   */
  cut(reason: string = "cut"): void {
    if (this.#cut) return;
    this.#cut = true;
    this.outbound.close();
    this.inbound.close();
    if (this.#listeners.size > 0) {
      this.#inner.removeEventListener("message", this.#onInner);
    }
    this.#onCut?.(reason);
  }
}

/**
 * Options of {@linkcode flakyWorkers}: those of each worker's
 * {@linkcode FlakyEndpoint}, and how often a worker is lost.
 *
 * @example Usage
 * ```ts
 * import { type FlakyWorkerOptions, ManualScheduler, seededRandom } from "@understudy/core/testing";
 *
 * const options: FlakyWorkerOptions = {
 *   random: seededRandom(3),
 *   scheduler: new ManualScheduler(),
 *   outbound: { delayMs: [0, 40] },
 *   loss: 0.01,
 * };
 * ```
 */
export interface FlakyWorkerOptions extends Omit<FlakyEndpointOptions, "name"> {
  /**
   * Chance, per message either way, that the worker is lost at it: its
   * channel is cut (the message lost) and its owner told it died, as when
   * a worker's script throws or it runs out of memory. Default 0.
   */
  readonly loss?: number;
}

/**
 * What {@linkcode flakyWorkers} returns: the `create` to give
 * `workerProps`, every worker's flaky endpoint, and a way to lose one.
 *
 * @example Usage
 * ```ts
 * import { type FlakyWorkers, flakyWorkers, ManualScheduler, seededRandom } from "@understudy/core/testing";
 *
 * const flaky: FlakyWorkers = flakyWorkers(
 *   () => new Worker(new URL("./worker.ts", import.meta.url), { type: "module" }),
 *   { random: seededRandom(1), scheduler: new ManualScheduler() },
 * );
 * console.log(flaky.endpoints.length); // 0: none started yet
 * ```
 */
export interface FlakyWorkers {
  /** Starts a worker with the given `create`, behind a flaky endpoint. */
  readonly create: (died: (reason: unknown) => void) => {
    endpoint: FlakyEndpoint;
    terminate(): unknown;
  };
  /** Every worker's endpoint, in the order started. */
  readonly endpoints: readonly FlakyEndpoint[];
  /** How many workers were lost (by the `loss` fault or `lose`). */
  readonly lost: number;
  /** Loses the latest worker now, if it still runs. */
  lose(reason?: string): void;
  /** Changes every endpoint's faults, live ones included: `{}` heals. */
  setFaults(
    faults: { outbound?: LinkFaults; inbound?: LinkFaults; loss?: number },
  ): void;
}

/**
 * Wraps a worker transport's `create` (the `create` option of
 * `workerProps`): each worker it starts is reached through a
 * {@linkcode FlakyEndpoint} (named `worker 1`, `worker 2`, … in the
 * traces), and, at the `loss` rate per message, is lost: its channel cut
 * and its owner told it died (the `died` callback `create` is given), so
 * the transport's supervision takes over. Terminating the worker cuts its
 * endpoint too.
 *
 * @example A worker transport over a lossy, slow channel
 * ```ts no-run: needs a worker script file
 * import { ActorSystem } from "@understudy/core";
 * import { workerProps } from "@understudy/core/worker";
 * import { flakyWorkers, ManualScheduler, seededRandom } from "@understudy/core/testing";
 *
 * const scheduler = new ManualScheduler();
 * const system = ActorSystem.create("test", { scheduler });
 * const flaky = flakyWorkers(
 *   () => new Worker(new URL("./worker.ts", import.meta.url), { type: "module" }),
 *   { random: seededRandom(77), scheduler, outbound: { delayMs: [0, 40] }, loss: 0.01 },
 * );
 * const worker = system.actorOf(workerProps({ create: flaky.create }));
 * ```
 *
 * @param create Starts a real (or fake) worker: a `Worker`, or `{ endpoint, terminate }`.
 * @param options Random source, scheduler, faults, loss rate.
 * @returns The wrapped `create`, the endpoints, and the controls.
 */
export function flakyWorkers(
  create: (died: (reason: unknown) => void) => unknown,
  options: FlakyWorkerOptions,
): FlakyWorkers {
  const action = "make flaky workers";
  if (typeof create !== "function") {
    fail(action, "create", "a function", create);
  }
  if (typeof options !== "object" || options === null) {
    fail(action, "options", "an object", options);
  }
  const { random, scheduler } = options;
  if (typeof random?.fork !== "function") {
    fail(action, "random", "a SeededRandom", random);
  }
  let loss = checkRate(action, "loss", options.loss ?? 0);
  let { outbound, inbound } = options;
  const endpoints: FlakyEndpoint[] = [];
  let lost = 0;
  return {
    endpoints,
    get lost() {
      return lost;
    },
    create(died) {
      const started = create(died) as
        & { endpoint?: Endpoint; terminate(): unknown }
        & Endpoint;
      const n = endpoints.length + 1;
      const losses = random.fork(`worker ${n} loss`);
      let terminated = false;
      const endpoint = new FlakyEndpoint(started.endpoint ?? started, {
        random,
        scheduler,
        outbound,
        inbound,
        name: `worker ${n}`,
        cutWhen: () => losses.next() < loss,
        onCut: (reason) => {
          if (terminated) return;
          lost++;
          died(new Error(`worker ${n} lost (${reason})`));
        },
      });
      endpoints.push(endpoint);
      return {
        endpoint,
        terminate: () => {
          terminated = true;
          endpoint.cut("terminated");
          return started.terminate();
        },
      };
    },
    lose(reason = "lost by hand") {
      endpoints.at(-1)?.cut(reason);
    },
    setFaults(faults) {
      if (faults.loss !== undefined) {
        loss = checkRate("set worker faults", "loss", faults.loss);
      }
      outbound = faults.outbound;
      inbound = faults.inbound;
      for (const endpoint of endpoints) {
        endpoint.outbound.setFaults(outbound ?? {});
        endpoint.inbound.setFaults(inbound ?? {});
      }
    },
  };
}
