// Copyright 2026 the understudy authors. MIT license.
// The worker tests/durable/workerd_chaos.test.ts serves from workerd, on a
// disk that outlives the workerd process. Each ChaosNode is a durable
// actor host with an outbox: it tells numbered messages to the others'
// sinks, and every sink is the child of a durable BackoffSupervisor that
// crashes on some numbers (so that a stash waits for a respawn on the
// stored schedule), and starts a stored timer with each burst. Everything
// the test checks is written to the object's storage in the turn it
// happens (a sink's record in the turn it takes a message, the numbers
// told in the turn they are told), so the record outlives an eviction and
// a restart of workerd as the library's own state must. Not a test file
// itself.
//
// POST / {"ns": "CHAOS", "name": "n0", "method": "burst", "args": ["n1", 5]}

import { DurableObject } from "./_cloudflare_workers.ts";
import {
  Actor,
  type ActorSystem,
  BackoffSupervisor,
  DeadLetter,
  Props,
} from "../../mod.ts";
import {
  durableBackoff,
  type DurableStore,
  withActors,
} from "../../src/durable/mod.ts";

/** The numbers a sink crashes on (after taking them): one in this many. */
const CRASH_EVERY = 17;

type ChaosMessage = { from: string; seq: number };

/** Appends `value` to the list stored at `key` (one write). */
function append(store: DurableStore, key: string, value: unknown): void {
  const list = (store.get(key) as unknown[] | undefined) ?? [];
  list.push(value);
  store.put!(key, list);
}

/** Takes numbered messages: records each, then crashes on some. */
class Sink extends Actor<ChaosMessage> {
  constructor(readonly store: DurableStore) {
    super();
  }
  onReceive(message: ChaosMessage): void {
    append(this.store, `chaos/taken/${message.from}`, message.seq);
    if (message.seq % CRASH_EVERY === 0) {
      throw new Error(`crashes on ${message.seq} (on purpose)`);
    }
  }
}

/** Records the stored timers that fire. */
class Clock extends Actor<number> {
  constructor(readonly store: DurableStore) {
    super();
  }
  onReceive(timer: number): void {
    append(this.store, "chaos/fired", timer);
  }
}

/** Answers "flushed": asked after a burst, on the same way as its tells. */
class Flush extends Actor<string> {
  onReceive(): void {
    this.sender?.tell("flushed");
  }
}

/** What a node reports: read from its storage. */
export interface NodeReport {
  /** By sender: the numbers its sink took, in order. */
  taken: Record<string, number[]>;
  /** By receiver: the next number this node would tell it. */
  next: Record<string, number>;
  /** Tells this node gave up: to whom, which number, why. */
  givenUp: { to: string; seq: number; reason: string }[];
  /** Stored timers started (numbered 1 … started) and fired. */
  started: number;
  fired: number[];
  /** Stored tells still waiting in its outbox. */
  outbox: number;
  /** Its sink supervisor's stash, as stored, and its restarts so far. */
  stash: number;
  restarts: number;
}

export class ChaosNode extends withActors(DurableObject, {
  binding: "CHAOS",
  system: { logLevel: "off" },
  durable: { lateWakeMs: 100 },
  outbox: true,
  // Long enough to outlast a restart of the receiver; a workerd restart
  // ends the sender too, whose outbox carries the tells on.
  retry: { maxAttempts: 100, policy: { delayFor: () => 50 } },
}) {
  get #me(): string {
    return this.ctx.id.name ?? "?";
  }

  override createActors(system: ActorSystem): void {
    const store = this.actors.store;
    this.actors.expose(system.actorOf(
      BackoffSupervisor.props({
        childProps: Props.create(() => new Sink(store)),
        minBackoff: 40,
        maxBackoff: 40,
        randomFactor: 0,
        drainGraceMs: 0,
        durable: durableBackoff(store, "chaos-sink", { wakeAfterMs: 100 }),
      }),
      "sink",
    ));
    this.actors.expose(
      system.actorOf(Props.create(() => new Clock(store)), "clock"),
    );
    this.actors.expose(
      system.actorOf(Props.create(() => new Flush()), "flush"),
    );
    system.eventStream.subscribe(DeadLetter, (dead) => {
      const message = dead.message as { seq?: unknown } | null;
      // Tells given up on their way (a crash's own dead letter is not one).
      if (typeof message?.seq !== "number") return;
      if (!dead.recipient.path.startsWith("durable://")) return;
      append(store, "chaos/given-up", {
        to: dead.recipient.path,
        seq: message.seq,
        reason: dead.reason,
      });
    });
  }

  /**
   * Tells `to`'s sink the next `count` numbers (the counter stored in the
   * same turn), starts a stored timer, then asks `to` to flush: resolves
   * once the tells were delivered or given up.
   */
  async burst(to: string, count: number, timerMs: number): Promise<string> {
    const store = this.actors.store;
    const key = `chaos/next/${to}`;
    const first = (store.get(key) as number | undefined) ?? 1;
    store.put!(key, first + count);
    const me = this.#me;
    const sink = this.actors.ref<ChaosMessage>("CHAOS", to, "/user/sink");
    for (let seq = first; seq < first + count; seq++) {
      sink.tell({ from: me, seq });
    }
    const timer = ((store.get("chaos/started") as number | undefined) ?? 0) +
      1;
    store.put!("chaos/started", timer);
    this.actors.timers.startSingle("/user/clock", `t${timer}`, timer, timerMs);
    try {
      return await this.actors.ref<string>("CHAOS", to, "/user/flush").ask<
        string
      >("flush", 5_000);
    } catch (error) {
      return `flush failed: ${String(error)}`;
    }
  }

  async report(): Promise<NodeReport> {
    const store = this.actors.store;
    const stored = await this.ctx.storage.list({ prefix: "chaos/" });
    const taken: Record<string, number[]> = {};
    const next: Record<string, number> = {};
    for (const [key, value] of stored) {
      if (key.startsWith("chaos/taken/")) {
        taken[key.slice("chaos/taken/".length)] = value as number[];
      } else if (key.startsWith("chaos/next/")) {
        next[key.slice("chaos/next/".length)] = value as number;
      }
    }
    const outbox = await this.ctx.storage.list({
      prefix: "understudy/outbox/",
    });
    const record = store.get("chaos-sink") as
      | { stash?: unknown[]; restartCount?: number }
      | undefined;
    return {
      taken,
      next,
      givenUp: (stored.get("chaos/given-up") as NodeReport["givenUp"]) ?? [],
      started: (stored.get("chaos/started") as number | undefined) ?? 0,
      fired: (stored.get("chaos/fired") as number[] | undefined) ?? [],
      outbox: outbox.size,
      stash: record?.stash?.length ?? 0,
      restarts: record?.restartCount ?? 0,
    };
  }

  evict(): void {
    this.ctx.abort("evicted by the chaos test");
  }
}

interface Namespace {
  idFromName(name: string): unknown;
  get(id: unknown): Record<string, (...args: unknown[]) => Promise<unknown>>;
}

export default {
  async fetch(request: Request, env: Record<string, Namespace>) {
    const { ns, name, method, args = [] } = await request.json() as {
      ns: string;
      name: string;
      method: string;
      args?: unknown[];
    };
    const namespace = env[ns];
    try {
      const stub = namespace.get(namespace.idFromName(name));
      const result = await stub[method](...args);
      return Response.json({ result: result ?? null });
    } catch (error) {
      return Response.json({
        error: {
          name: (error as Error).name,
          message: (error as Error).message,
        },
      }, { status: 500 });
    }
  },
};
