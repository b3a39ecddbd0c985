// Copyright 2026 the understudy authors. MIT license.
// A fake worker for the protocol tests: two endpoints in one thread that
// pass structured clones to each other in a microtask (so a DataCloneError
// is thrown at postMessage, as by real ports), with a server on the far
// side, and switches to make the "worker" die or hang. Works everywhere,
// workerd included (which has no MessageChannel).

import type { Endpoint, EndpointEvent } from "../../src/worker/endpoint.ts";
import {
  type ActorFactory,
  serveWorker,
  type WorkerServer,
} from "../../src/worker/serve_worker.ts";

type Listener = (event: EndpointEvent) => void;

/** One end of a fake channel. */
export class FakeEndpoint implements Endpoint {
  other!: FakeEndpoint;
  readonly listeners = new Map<string, Set<Listener>>();
  /** postMessage calls that went out. */
  posts = 0;
  /** Set when the channel is cut: nothing more is delivered either way. */
  cut = false;
  /** Set to drop what this end posts (a hung worker). */
  mute = false;
  /** The `n` of every job `{ n }` posted, delivered or not. */
  readonly posted = new Set<number>();

  postMessage(message: unknown, transfer?: object[]): void {
    const copy = structuredClone(
      message,
      transfer === undefined ? undefined : { transfer: transfer as never },
    );
    this.posts++;
    if (Array.isArray(copy)) {
      for (const item of copy) {
        if (typeof item === "object" && item !== null && "n" in item) {
          this.posted.add(item.n as number);
        }
      }
    }
    if (this.cut || this.mute) return;
    const other = this.other;
    queueMicrotask(() => {
      if (other.cut) return;
      for (const listener of other.listeners.get("message") ?? []) {
        listener({ data: copy });
      }
    });
  }

  addEventListener(type: string, listener: Listener): void {
    let set = this.listeners.get(type);
    if (set === undefined) this.listeners.set(type, set = new Set());
    set.add(listener);
  }

  removeEventListener(type: string, listener: Listener): void {
    this.listeners.get(type)?.delete(listener);
  }

  /** How many listeners are attached, of every type. */
  get listenerCount(): number {
    let count = 0;
    for (const set of this.listeners.values()) count += set.size;
    return count;
  }

  /** Fires an `error` event, as a Worker does when its script throws. */
  fireError(message: string): void {
    for (const listener of this.listeners.get("error") ?? []) {
      listener({ data: undefined, message } as EndpointEvent);
    }
  }
}

/** A fake worker: the main side's endpoint, and the server on the other. */
export class FakeWorker {
  readonly main = new FakeEndpoint();
  readonly inside = new FakeEndpoint();
  readonly server: WorkerServer;
  terminated = false;

  constructor(actors: Record<string, ActorFactory>) {
    this.main.other = this.inside;
    this.inside.other = this.main;
    this.server = serveWorker(this.inside, { actors });
  }

  /** The worker dies: its script throws at top level; nothing more crosses. */
  crash(message = "boom"): void {
    this.main.cut = this.inside.cut = true;
    this.main.fireError(message);
  }

  terminate(): Promise<void> {
    this.terminated = true;
    this.main.cut = this.inside.cut = true;
    return this.server.close();
  }
}

/** A `create` for workerProps that makes fake workers, and the list of them. */
export function fakeWorkers(
  actors: Record<string, ActorFactory>,
): {
  create: () => { endpoint: Endpoint; terminate: () => Promise<void> };
  workers: FakeWorker[];
  /** Resolves once every worker's server has closed. */
  closed: () => Promise<void>;
} {
  const workers: FakeWorker[] = [];
  const closing: Promise<void>[] = [];
  return {
    workers,
    create: () => {
      const worker = new FakeWorker(actors);
      workers.push(worker);
      return {
        endpoint: worker.main,
        terminate: () => {
          const done = worker.terminate();
          closing.push(done);
          return done;
        },
      };
    },
    closed: async () => {
      await Promise.all(closing);
    },
  };
}

/** Waits until `condition()` holds, polling every 5 ms, for at most `ms`. */
export async function until(
  condition: () => boolean,
  ms = 5_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
