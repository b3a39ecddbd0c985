// Copyright 2026 the understudy authors. MIT license.
// The worker tests/durable/durable_workerd.test.ts serves from workerd:
// Keeper, a durable actor host (SQLite-backed, alarm-driven) whose actors
// keep a stored timer, a periodic in-memory tick and a durable
// BackoffSupervisor. What they do is recorded in module state (the
// isolate's, which outlives an evicted object), read by `GET /events`
// without touching any object, so that a test can watch the alarm wake an
// evicted object with no call of its own. Not a test file itself.
//
// POST / {"ns": "KEEPER", "name": "k1", "method": "startTimer", "args": []}
// calls a method of an object; GET /events returns the record.

import { DurableObject } from "./_cloudflare_workers.ts";
import {
  Actor,
  type ActorSystem,
  BackoffSender,
  BackoffSupervisor,
  Props,
  ReceiveTimeout,
  restartWithBackoff,
  supervise,
} from "../../mod.ts";
import {
  durableBackoff,
  durableSender,
  DurableState,
  type DurableStore,
  withActors,
} from "../../src/durable/mod.ts";

/** What happened, by object name: ["constructed"], ["alarm", retryCount], ["log", message], ["tick"], ["start", n]. */
const events: Record<string, unknown[][]> = {};
/** Alarm runs still to fail, by object name. */
const failing: Record<string, number> = {};

function record(name: string, ...event: unknown[]): void {
  (events[name] ??= []).push(event);
}

/** Records what it receives. */
class Log extends Actor<unknown> {
  constructor(readonly name: string) {
    super();
  }
  onReceive(message: unknown): void {
    record(this.name, "log", message);
  }
}

/** Ticks every 100 ms, from its start (as an actor's timers are). */
class Ticking extends Actor<"tick"> {
  constructor(readonly name: string) {
    super();
  }
  override preStart(): void {
    this.context.timers.startTimerWithFixedDelay("tick", "tick", 100);
  }
  onReceive(): void {
    record(this.name, "tick");
  }
}

/** Sets a 2 s receive timeout at its start; records each ReceiveTimeout. */
class Idle extends Actor<unknown> {
  constructor(readonly name: string) {
    super();
  }
  override preStart(): void {
    this.context.setReceiveTimeout(2_000);
  }
  onReceive(message: unknown): void {
    if (message === ReceiveTimeout) record(this.name, "timeout");
  }
}

/** Fails on "fail" (a typed backoff restarts it); records its starts and messages. */
class Flaky extends Actor<string> {
  constructor(readonly name: string) {
    super();
  }
  override preStart(): void {
    record(this.name, "start", "preStart");
  }
  override postRestart(): void {
    record(this.name, "start", "postRestart");
  }
  onReceive(message: string): void {
    if (message === "fail") throw new Error("fails on purpose");
    record(this.name, "flaky", message);
  }
}

/** Fails its first start (counted in storage), then records what it receives. */
class Child extends Actor<unknown> {
  readonly #starts: DurableState<number>;
  constructor(readonly name: string, store: DurableStore) {
    super();
    this.#starts = new DurableState(store, "child-starts", 0);
  }
  override preStart(): void {
    const n = this.#starts.update((n) => n + 1);
    record(this.name, "start", n);
    if (n === 1) throw new Error("first start fails");
  }
  onReceive(message: unknown): void {
    record(this.name, "child", message);
  }
}

/** Acknowledges a message from its second delivery on (deliveries counted in storage). */
class LateAcker extends Actor<BackoffSender.Tracked<string>> {
  constructor(readonly name: string, readonly store: DurableStore) {
    super();
  }
  onReceive(tracked: BackoffSender.Tracked<string>): void {
    const deliveries = new DurableState(this.store, `got-${tracked.id}`, 0)
      .update((n) => n + 1);
    record(this.name, "sender", tracked.message, tracked.attempt);
    if (deliveries >= 2) {
      this.context.parent.tell(new BackoffSender.Ack(tracked.id));
    }
  }
}

export class Keeper extends withActors(DurableObject, {
  binding: "KEEPER",
  system: { logLevel: "off" },
  durable: { lateWakeMs: 200 },
}) {
  get #name(): string {
    return this.ctx.id.name ?? "?";
  }

  override createActors(system: ActorSystem): void {
    const name = this.#name;
    record(name, "constructed");
    this.actors.expose(
      system.actorOf(Props.create(() => new Log(name)), "log"),
    );
    if (name.startsWith("idle")) {
      system.actorOf(Props.create(() => new Idle(name)), "idle");
    }
    if (name.startsWith("typed")) {
      this.actors.expose(system.actorOf(
        supervise(Props.create(() => new Flaky(name))).onFailure(
          Error,
          restartWithBackoff({
            minBackoff: 1_500,
            maxBackoff: 60_000,
            randomFactor: 0,
          }),
        ),
        "flaky",
      ));
    }
    if (name.startsWith("tick")) {
      system.actorOf(Props.create(() => new Ticking(name)), "ticking");
    }
    if (name.startsWith("sender")) {
      const store = this.actors.store;
      this.actors.expose(system.actorOf(
        BackoffSender.props({
          childProps: Props.create(() => new LateAcker(name, store)),
          durable: durableSender(store, "sender"),
        }),
        "sender",
      ));
    }
    if (name.startsWith("sup")) {
      const store = this.actors.store;
      this.actors.expose(system.actorOf(
        BackoffSupervisor.props({
          childProps: Props.create(() => new Child(name, store)),
          minBackoff: 1_000,
          maxBackoff: 1_000,
          randomFactor: 0,
          drainGraceMs: 0,
          durable: durableBackoff(store, "sup"),
        }),
        "sup",
      ));
    }
  }

  override alarm(alarmInfo?: unknown): Promise<void> {
    const name = this.#name;
    record(name, "alarm", (alarmInfo as { retryCount?: number })?.retryCount);
    if ((failing[name] ?? 0) > 0) {
      failing[name]--;
      return Promise.reject(new Error("alarm failure (injected)"));
    }
    return super.alarm(alarmInfo);
  }

  /** A stored timer: `message` to /user/log in `delayMs`. */
  startTimer(delayMs: number, message: unknown): void {
    this.actors.timers.startSingle("/user/log", "t", message, delayMs);
  }

  /** The next `times` alarm runs fail. */
  failAlarms(times: number): void {
    failing[this.#name] = times;
  }

  /** Tells the actor at `path` each message. */
  send(messages: unknown[], path = "/user/sup"): void {
    for (const message of messages) {
      void this.actors.deliver(null, 1, [[path, message]]);
    }
  }

  /** What the supervisor (or the sender) stored. */
  stored(key = "sup"): unknown {
    return this.actors.store.get(key) ?? null;
  }

  evict(): void {
    this.ctx.abort("evicted by the test");
  }
}

interface Namespace {
  idFromName(name: string): unknown;
  get(id: unknown): Record<string, (...args: unknown[]) => Promise<unknown>>;
}

export default {
  async fetch(request: Request, env: Record<string, Namespace>) {
    if (request.method === "GET") return Response.json(events);
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
