// Copyright 2026 the understudy authors. MIT license.
// (The run of one seed, not a test file itself: the test beside it and
// bench/soak.mjs run it.)
// Akka's reliable-delivery random spec, against the BackoffSender: its
// child writes each message to a flaky store, 0–40 ms away. Per seed, 10–30%
// of the writes fail on the way in (the child crashes, nothing written) and
// 10–30% of the acknowledgements are lost on the way back (written, then
// the child crashes before its Ack), and 10% of the children fail in
// preStart (faultyProps over the seed). Every message must be acknowledged
// once (maxAttempts Infinity: none given up); the store sees each message
// under one id and each id carrying one message (so a store that skips the
// ids it has seen applies each message once); messages are first written,
// and acknowledged, in the order sent. A failure names its seed;
// UNDERSTUDY_SEED=<seed> replays it alone.
import assert from "node:assert/strict";
import { Actor, ActorSystem, BackoffSender, Props } from "../../mod.ts";
import {
  BackoffSenderAcknowledged,
  BackoffSenderRetryScheduled,
} from "../../src/patterns/backoff_sender_protocol.ts";
import {
  faultyProps,
  ManualScheduler,
  MessageLedger,
  type SeededRandom,
  seededRandom,
} from "../../src/testing/mod.ts";

/** The first seed the suite runs (bench/soak.mjs goes on from there). */
export const BASE_SEED = 10_000;
const MESSAGES = 30;

/** The flaky store: 0–40 ms per write; a write may fail, or its ack be lost. */
class Store {
  /** The message each id carried, and the id each message came under. */
  readonly byId = new Map<number, string>();
  readonly idOf = new Map<string, number>();
  /** Ids in the order first written. */
  readonly firstWrites: number[] = [];
  readonly breaches: string[] = [];

  constructor(
    readonly random: SeededRandom,
    readonly scheduler: ManualScheduler,
    readonly failIn: number,
    readonly loseAck: number,
  ) {}

  /** Resolves `"written"` or `"ack lost"`, or rejects (nothing written). */
  write(id: number, message: string): Promise<"written" | "ack lost"> {
    const delay = this.random.int(0, 40);
    const fails = this.random.chance(this.failIn);
    const ackLost = this.random.chance(this.loseAck);
    return new Promise((resolve, reject) => {
      this.scheduler.setTimeout(() => {
        if (fails) return reject(new Error(`store refused ${message}`));
        this.#apply(id, message);
        resolve(ackLost ? "ack lost" : "written");
      }, delay);
    });
  }

  #apply(id: number, message: string): void {
    const known = this.byId.get(id);
    if (known !== undefined && known !== message) {
      this.breaches.push(`id ${id} carried ${known} and then ${message}`);
    }
    const knownId = this.idOf.get(message);
    if (knownId !== undefined && knownId !== id) {
      this.breaches.push(
        `${message} came as ids ${knownId} and ${id}: applied twice`,
      );
    }
    if (known === undefined) this.firstWrites.push(id);
    this.byId.set(id, message);
    this.idOf.set(message, id);
  }
}

class Writer extends Actor<BackoffSender.Tracked<string>> {
  constructor(private readonly store: Store) {
    super();
  }
  async onReceive(tracked: BackoffSender.Tracked<string>): Promise<void> {
    const outcome = await this.store.write(tracked.id, tracked.message);
    if (outcome === "ack lost") throw new Error("crashed before the ack");
    this.context.parent.tell(new BackoffSender.Ack(tracked.id));
  }
}

/** One seeded run; throws with the seed on any breach. */
export async function backoffSenderRandomRun(
  seed: number,
): Promise<{ retries: number }> {
  const random = seededRandom(seed);
  const scheduler = new ManualScheduler();
  const system = ActorSystem.create("random", { scheduler, logLevel: "off" });
  const ledger = new MessageLedger<string>({ seed, clock: scheduler });
  const store = new Store(
    random.fork("store"),
    scheduler,
    random.between(0.1, 0.3),
    random.between(0.1, 0.3),
  );
  const acked: number[] = [];
  let retries = 0;
  try {
    system.eventStream.subscribe(BackoffSenderAcknowledged, (event) => {
      acked.push(event.id);
      ledger.handled(event.message as string);
    });
    system.eventStream.subscribe(BackoffSenderRetryScheduled, () => retries++);
    ledger.watchDeadLetters(
      system,
      (m) => (typeof m === "string" ? m : undefined),
    );
    const sender = system.actorOf(
      BackoffSender.props<string>({
        childProps: faultyProps(Props.create(() => new Writer(store)), {
          random: random.fork("child"),
          hooks: { preStart: 0.1 },
        }),
        policy: { delayFor: (n) => Math.min(10 * 2 ** n, 200) },
        maxAttempts: Infinity,
      }),
      "sender",
    );
    for (let i = 1; i <= MESSAGES; i++) {
      sender.tell(ledger.sent(`m${i}`));
      await scheduler.timePasses(random.int(0, 15));
    }
    await scheduler.timePasses(30_000);
    ledger.check();
    const where = `seed ${seed}`;
    assert.deepEqual(store.breaches, [], where);
    assert.equal(ledger.counts.handled, MESSAGES, `${where}: all acknowledged`);
    const inOrder = (ids: number[]) =>
      ids.every((id, i) => i === 0 || id > ids[i - 1]);
    assert.ok(
      inOrder(store.firstWrites),
      `${where}: first writes ${store.firstWrites}`,
    );
    assert.ok(inOrder(acked), `${where}: acks ${acked}`);
    assert.equal(store.idOf.size, MESSAGES, `${where}: all written`);
  } finally {
    await system.terminate();
  }
  assert.equal(scheduler.pendingTimers, 0, `seed ${seed}: timers left`);
  return { retries };
}
