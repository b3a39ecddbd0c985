// Copyright 2026 the understudy authors. MIT license.
// The worker tests/durable/workerd.test.ts serves from workerd (bundled with
// esbuild, `cloudflare:workers` left to workerd). Not a test file itself.
//
// - Peer: three of them exchange pings and pongs through remote refs.
// - Flaky: an actor host whose RPC entry fails on purpose, as the platform
//   can: errors marked `retryable` or `overloaded` (a Durable Object's own
//   errors cross RPC with those properties, as infrastructure errors do).
// - Ticker: an object whose actors keep timers running (a fixed-delay timer
//   and a BackoffSupervisor waiting to restart a crashing child), reset by
//   the helper or evicted with ctx.abort().
//
// The Worker's fetch handler calls any RPC method of any object:
// POST / {"ns": "PEER", "name": "p1", "method": "counts", "args": []}.

import {
  DurableObject,
  type DurableObjectState,
} from "./_cloudflare_workers.ts";
import {
  Actor,
  type ActorRef,
  type ActorSystem,
  DeadLetter,
  Props,
  Terminated,
} from "../../mod.ts";
import { BackoffSupervisor } from "../../src/patterns/backoff_supervisor.ts";
import {
  RemoteDeliveryError,
  RemoteDeliveryFailed,
  RemoteTerminated,
  withActors,
} from "../../src/durable/mod.ts";

/** Fixed 10 ms waits, so that the tests take little time. */
const RETRY = { maxAttempts: 4, policy: { delayFor: () => 10 } };

// ---------------------------------------------------------------- peers

type PeerMessage =
  | { kind: "ping"; from: string; seq: number }
  | { kind: "pong"; from: string; seq: number }
  | { kind: "start"; peers: string[]; count: number }
  | { kind: "count" };

interface Counts {
  pings: Record<string, number>;
  pongs: Record<string, number>;
  outOfOrder: number;
}

class PeerActor extends Actor<PeerMessage> {
  readonly counts: Counts = { pings: {}, pongs: {}, outOfOrder: 0 };
  readonly #lastSeq = new Map<string, number>();
  constructor(
    readonly me: string,
    readonly refTo: (peer: string) => ActorRef<PeerMessage>,
  ) {
    super();
  }
  onReceive(message: PeerMessage): void {
    switch (message.kind) {
      case "start":
        for (const peer of message.peers) {
          const ref = this.refTo(peer);
          for (let seq = 1; seq <= message.count; seq++) {
            ref.tell({ kind: "ping", from: this.me, seq }, this.self);
          }
        }
        break;
      case "ping": {
        const { pings } = this.counts;
        pings[message.from] = (pings[message.from] ?? 0) + 1;
        const last = this.#lastSeq.get(message.from) ?? 0;
        if (message.seq !== last + 1) this.counts.outOfOrder++;
        this.#lastSeq.set(message.from, message.seq);
        this.sender?.tell({ kind: "pong", from: this.me, seq: message.seq });
        break;
      }
      case "pong": {
        const { pongs } = this.counts;
        pongs[message.from] = (pongs[message.from] ?? 0) + 1;
        break;
      }
      case "count":
        this.sender?.tell(this.counts);
        break;
    }
  }
}

/** What a host's dead letters and failed deliveries looked like, for assertions. */
interface Losses {
  deadLetters: { reason: string; message: unknown }[];
  failures: {
    attempts: number;
    retryable: boolean;
    overloaded: boolean;
    error: string;
  }[];
}

function recordLosses(system: ActorSystem, losses: Losses): void {
  system.eventStream.subscribe(DeadLetter, (dead) => {
    let message: unknown = dead.message;
    try {
      message = structuredClone(dead.message);
    } catch {
      message = String(dead.message);
    }
    losses.deadLetters.push({ reason: dead.reason, message });
  });
  system.eventStream.subscribe(RemoteDeliveryFailed, (failed) => {
    const error = failed.error as {
      retryable?: boolean;
      overloaded?: boolean;
      name?: string;
      message?: string;
    };
    losses.failures.push({
      attempts: failed.attempts,
      retryable: error?.retryable === true,
      overloaded: error?.overloaded === true,
      error: `${error?.name}: ${error?.message}`,
    });
  });
}

/** Peer objects whose actor system was created, by name (module state of the isolate). */
const peerSystems = new Set<string>();

/** What each watcher was told, by the Peer object's name (module state of the isolate). */
const watchLog = new Map<
  string,
  { path: string; remote: boolean; reason: string }[]
>();

class Watcher extends Actor<unknown> {
  constructor(
    readonly entries: { path: string; remote: boolean; reason: string }[],
  ) {
    super();
  }
  onReceive(message: unknown): void {
    if (message instanceof Terminated) {
      this.entries.push({
        path: message.ref.path,
        remote: message instanceof RemoteTerminated,
        reason: (message as RemoteTerminated).reason,
      });
    }
  }
}

export class Peer extends withActors(DurableObject, {
  binding: "PEER",
  system: { logLevel: "warn" },
  retry: RETRY,
  watch: { heartbeatMs: 100, unreachableAfterMs: 500 },
}) {
  #peer!: ActorRef<PeerMessage>;
  readonly losses: Losses = { deadLetters: [], failures: [] };

  #hidden: ActorRef<unknown> | undefined;

  override createActors(system: ActorSystem): void {
    peerSystems.add(this.ctx.id.name!);
    this.#hidden = undefined;
    recordLosses(system, this.losses);
    const refTo = (peer: string) =>
      this.actors.ref<PeerMessage>("PEER", peer, "/user/peer");
    this.#peer = this.actors.expose(
      system.actorOf(
        Props.create(() => new PeerActor(this.ctx.id.name!, refTo)),
        "peer",
      ),
    );
  }

  start(peers: string[], count: number): void {
    this.actors.system; // created on first use
    this.#peer.tell({ kind: "start", peers, count });
  }

  counts(): Promise<Counts> {
    this.actors.system;
    return this.#peer.ask<Counts>({ kind: "count" }, 2_000);
  }

  /** Asks a remote peer for its counts through a remote ref. */
  askPeer(peer: string): Promise<Counts> {
    return this.actors.ref<PeerMessage>("PEER", peer, "/user/peer").ask<
      Counts
    >({ kind: "count" }, 2_000);
  }

  /** Tells `target` (of namespace `ns`) `messages`; a `null` is replaced by an instance of a class (which RPC cannot serialize). */
  send(ns: string, target: string, path: string, messages: unknown[]): void {
    const ref = this.actors.ref<unknown>(ns, target, path);
    class NotCloneable {
      readonly x = 1;
    }
    for (const message of messages) {
      ref.tell(message === null ? new NotCloneable() : message, this.#peer);
    }
  }

  /** Asks `target`; resolves with what happened. */
  async ask(ns: string, target: string, path: string, message: unknown) {
    try {
      return {
        reply: await this.actors.ref<unknown>(ns, target, path).ask(
          message,
          2_000,
        ),
      };
    } catch (error) {
      return {
        error: {
          name: (error as Error).name,
          message: (error as Error).message,
          isRemoteDeliveryError: error instanceof RemoteDeliveryError,
          attempts: (error as RemoteDeliveryError).attempts,
          causeRetryable: (error as RemoteDeliveryError).cause !== undefined &&
            ((error as RemoteDeliveryError).cause as { retryable?: boolean })
                .retryable === true,
          causeOverloaded: (error as RemoteDeliveryError).cause !== undefined &&
            ((error as RemoteDeliveryError).cause as { overloaded?: boolean })
                .overloaded === true,
        },
      };
    }
  }

  lossesSoFar(): Losses {
    return this.losses;
  }

  /** A never-exposed actor of this object tells `message` to a remote actor (so it has sent a remote message). */
  sendFromHidden(
    ns: string,
    target: string,
    path: string,
    message: unknown,
  ): void {
    this.actors.system;
    this.#hidden ??= this.actors.system.actorOf(
      Props.create(() => new Inbox(`${this.ctx.id.name!}/hidden`)),
      "hidden",
    );
    this.actors.ref<unknown>(ns, target, path).tell(
      message,
      this.#hidden as ActorRef<never>,
    );
  }

  /** What the hidden actor took. */
  hiddenReceived(): unknown[] {
    return ledger.get(`${this.ctx.id.name!}/hidden`) ?? [];
  }

  /** The names of the Peer objects whose actor system was created. */
  systems(): string[] {
    return [...peerSystems];
  }

  /** Evicts this object. */
  evict(): void {
    this.ctx.abort("evicted by the test");
  }

  /** A local actor watches the remote actor `ns/target/path`. */
  watch(ns: string, target: string, path: string): void {
    const name = this.ctx.id.name!;
    let log = watchLog.get(name);
    if (log === undefined) watchLog.set(name, log = []);
    const watcher = this.actors.system.actorOf(
      Props.create(() => new Watcher(log)),
    );
    this.actors.ref<unknown>(ns, target, path).watchRemote(
      watcher as ActorRef<never>,
    );
  }

  /** What this object's watchers were told. */
  watchLog(): { path: string; remote: boolean; reason: string }[] {
    return watchLog.get(this.ctx.id.name!) ?? [];
  }
}

// ---------------------------------------------------------------- flaky

/** Flaky objects constructed, by name, in this isolate: outlives the objects. */
const constructions = new Map<string, number>();

/** Every message each Flaky object's inbox took, by object name: outlives evictions (module state of the isolate). */
const ledger = new Map<string, unknown[]>();

class Inbox extends Actor<unknown> {
  readonly received: unknown[] = [];
  constructor(readonly name: string) {
    super();
  }
  onReceive(message: unknown): void {
    if (message === "?") this.sender?.tell(this.received);
    else {
      this.received.push(message);
      let taken = ledger.get(this.name);
      if (taken === undefined) ledger.set(this.name, taken = []);
      taken.push(message);
    }
  }
}

/** An actor that takes one message and then waits until released: what follows stays in its mailbox. */
class Stuck extends Actor<unknown> {
  static release: (() => void) | undefined;
  onReceive(): Promise<void> {
    return new Promise((resolve) => Stuck.release = resolve);
  }
}

export class Flaky extends withActors(DurableObject, {
  binding: "FLAKY",
  system: { logLevel: "warn" },
}) {
  /** Calls still to fail, and how. */
  #failing = 0;
  /** Delivery calls still to take and then fail. */
  #losing = 0;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    constructions.set(ctx.id.name!, (constructions.get(ctx.id.name!) ?? 0) + 1);
  }
  #overloaded = false;
  calls = 0;
  #inbox!: ActorRef<unknown>;

  override createActors(system: ActorSystem): void {
    const name = this.ctx.id.name!;
    this.#inbox = this.actors.expose(
      system.actorOf(Props.create(() => new Inbox(name)), "inbox"),
    );
    this.actors.expose(
      system.actorOf(Props.create(() => new Stuck()), "stuck"),
    );
    this.actors.expose(
      system.actorOf(
        Props.create(() => new Inbox(`${name}/guarded`)),
        "guarded",
      ),
      {
        authorize: ({ caller, kind }) =>
          caller?.binding === "PEER" && caller.name.startsWith("friend") &&
          kind === "tell",
      },
    );
  }

  /** Every message this object's inbox took, evictions included. */
  ledger(suffix = ""): unknown[] {
    return ledger.get(`${this.ctx.id.name!}${suffix}`) ?? [];
  }

  /** Releases the stuck actor. */
  release(): void {
    Stuck.release?.();
  }

  /** The next `times` calls fail, marked retryable (or overloaded). */
  failNext(times: number, overloaded: boolean): void {
    this.#failing = times;
    this.#overloaded = overloaded;
    this.calls = 0;
  }

  #maybeFail(): void {
    this.calls++;
    if (this.#failing > 0) {
      this.#failing--;
      throw this.#overloaded
        ? Object.assign(new Error("Durable Object is overloaded (injected)"), {
          overloaded: true,
        })
        : Object.assign(new Error("Network connection lost (injected)"), {
          retryable: true,
        });
    }
  }

  override async understudyDeliver(
    from: unknown,
    first: unknown,
    batch: unknown,
  ): Promise<void> {
    this.#maybeFail();
    await super.understudyDeliver(from, first, batch);
    if (this.#losing > 0) {
      // Taken, but the caller is told the call failed: as when the
      // connection drops after the object received the call.
      this.#losing--;
      throw Object.assign(
        new Error("Network connection lost (injected, after delivery)"),
        {
          retryable: true,
        },
      );
    }
  }

  override understudyWatchCheck(watchIds: unknown): string[] {
    this.#maybeFail();
    return super.understudyWatchCheck(watchIds);
  }

  /** Stops the inbox actor. */
  stopInbox(): void {
    this.actors.system.stop(this.#inbox as ActorRef<never>);
  }

  override understudyAsk(
    from: unknown,
    packet: unknown,
    timeoutMs: unknown,
    askId?: unknown,
  ): Promise<unknown> {
    this.#maybeFail();
    return super.understudyAsk(from, packet, timeoutMs, askId);
  }

  /** The next `times` delivery calls are taken, then fail as if the reply was lost. */
  loseRepliesOfNext(times: number): void {
    this.#losing = times;
    this.calls = 0;
  }

  /** Evicts this object (its memory goes; its storage stays). */
  evict(): void {
    this.ctx.abort("evicted by the test");
  }

  /** How many times this object (by name) was constructed in this isolate. */
  constructions(): number {
    return constructions.get(this.ctx.id.name!) ?? 0;
  }

  async state(): Promise<{ calls: number; received: unknown[] }> {
    this.actors.system;
    return {
      calls: this.calls,
      received: await this.#inbox.ask<unknown[]>("?", 2_000),
    };
  }
}

// ---------------------------------------------------------------- ticker

/**
 * Timers, tracked isolate-wide: every timer this isolate started and has
 * not yet fired or cleared. Wrapping the globals starts no timer, so it is
 * allowed at module level.
 */
const live = new Set<unknown>();
const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;
globalThis.setTimeout = ((fn: () => void, ms?: number) => {
  const id = realSetTimeout(() => {
    live.delete(id);
    fn();
  }, ms);
  live.add(id);
  return id;
}) as typeof setTimeout;
globalThis.clearTimeout = ((id: number) => {
  live.delete(id);
  realClearTimeout(id);
}) as typeof clearTimeout;

/** What each Ticker object did, by its construction number: outlives the object (module state of the isolate). */
const history: Record<
  number,
  { ticks: number; childStarts: number; stops: number }
> = {};
let constructed = 0;

class Ticking extends Actor<"tick"> {
  constructor(readonly record: { ticks: number; stops: number }) {
    super();
  }
  override preStart(): void {
    this.context.timers.startTimerWithFixedDelay("tick", "tick", 10);
  }
  onReceive(): void {
    this.record.ticks++;
  }
  override postStop(): void {
    this.record.stops++;
  }
}

class Crashing extends Actor<unknown> {
  constructor(readonly record: { childStarts: number }) {
    super();
  }
  override preStart(): void {
    this.record.childStarts++;
    throw new Error("crashes at start");
  }
  onReceive(): void {}
}

export class Ticker extends withActors(DurableObject, {
  binding: "TICKER",
  system: { logLevel: "off" },
}) {
  readonly number: number = ++constructed;

  override createActors(system: ActorSystem): void {
    const record = { ticks: 0, childStarts: 0, stops: 0 };
    history[this.number] = record;
    system.actorOf(Props.create(() => new Ticking(record)), "ticking");
    system.actorOf(
      BackoffSupervisor.props({
        childProps: Props.create(() => new Crashing(record)),
        minBackoff: 150,
        maxBackoff: 150,
        randomFactor: 0,
      }),
      "supervisor",
    );
  }

  /** Starts the actors (first use), and says which object this is. */
  start(): { number: number; generations: number } {
    this.actors.system;
    return { number: this.number, generations: this.actors.generations };
  }

  async reset(): Promise<void> {
    await this.actors.reset();
  }

  evict(): void {
    this.ctx.abort("evicted by the test");
  }

  report(): {
    number: number;
    generations: number;
    history: typeof history;
    liveTimers: number;
  } {
    return {
      number: this.number,
      generations: this.actors.generations,
      history,
      liveTimers: live.size,
    };
  }
}

// ---------------------------------------------------------------- worker

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

// ---------------------------------------------------------------- outbox

/** Sends through refs whose undelivered tells are kept in its storage. */
export class Keeper extends withActors(DurableObject, {
  binding: "KEEPER",
  system: { logLevel: "off" },
  retry: { maxAttempts: 100, policy: { delayFor: () => 50 } },
  outbox: true,
}) {
  send(ns: string, target: string, path: string, messages: unknown[]): void {
    const ref = this.actors.ref<unknown>(ns, target, path);
    for (const message of messages) ref.tell(message);
  }

  readonly dead: string[] = [];
  override createActors(system: ActorSystem): void {
    system.eventStream.subscribe(DeadLetter, (d) => this.dead.push(d.reason));
  }

  /** Wakes the object (its outbox is read back when it is made); says what it gave up so far. */
  wake(): string[] {
    this.actors.system;
    return this.dead;
  }

  /** How many stored calls wait in its outbox. */
  async stored(): Promise<number> {
    return (await this.ctx.storage.list({ prefix: "understudy/outbox/" })).size;
  }

  evict(): void {
    this.ctx.abort("evicted by the test");
  }
}
