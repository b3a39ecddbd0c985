// Copyright 2026 the understudy authors. MIT license.

/**
 * The story of the Akka article "Supervisor strategy using an exponential
 * back off algorithm" (2012), told with a timeline: a `BackoffSender` hands
 * payments to a "dangerous actor" that calls a bank which is down for its
 * first four calls. Each crash is followed by a fresh child, a truncated
 * binary exponential backoff (the article's 10 ms slots), and a re-send of
 * every unacknowledged payment, in order, each answered to the client that
 * asked for it.
 *
 * Then the at-least-once part: the bank applies payment 3, but the child
 * crashes before its `Ack` (the connection dropped after the bank's
 * commit). Payment 3 is sent again with the same id, and the bank, which
 * remembers the ids it has applied, drops the duplicate: every payment is
 * applied exactly once.
 *
 * Run it with `node_modules/.bin/deno run examples/backoff_sender.ts`.
 *
 * @module
 */

import { Actor, ActorSystem, Props } from "../mod.ts";
import { BackoffSender } from "../src/patterns/backoff_sender.ts";
import {
  BackoffSenderAcknowledged,
  BackoffSenderResent,
  BackoffSenderRetryScheduled,
} from "../src/patterns/backoff_sender_protocol.ts";

type Payment = { to: string; amount: number };

const start = performance.now();
function log(line: string): void {
  const ms = String(Math.round(performance.now() - start)).padStart(5);
  console.log(`${ms} ms  ${line}`);
}

/** The flaky resource: down for its first four calls; applies each id once. */
class Bank {
  #calls = 0;
  readonly #applied = new Set<number>();
  readonly balances = new Map<string, number>();

  /** Applies payment `id`, or throws while down. `false`: a duplicate, dropped. */
  apply(id: number, payment: Payment): boolean {
    if (++this.#calls <= 4) throw new Error("bank unavailable");
    if (this.#applied.has(id)) return false; // deduplication by id
    this.#applied.add(id);
    this.balances.set(
      payment.to,
      (this.balances.get(payment.to) ?? 0) + payment.amount,
    );
    return true;
  }
}

const bank = new Bank();
let dropConnectionAfter = 3; // the child crashes after the bank applied payment 3, before its Ack

/** The article's "dangerous actor": does the work, then acks, then replies. */
class PaymentWorker extends Actor<BackoffSender.Tracked<Payment>> {
  onReceive(tracked: BackoffSender.Tracked<Payment>): void {
    const { id, message, attempt } = tracked;
    let applied: boolean;
    try {
      applied = bank.apply(id, message);
    } catch (error) {
      log(
        `  ${this.self.path}: payment ${id} failed: ${
          (error as Error).message
        }`,
      );
      throw error; // crash: the BackoffSender re-sends it later
    }
    log(
      `  ${this.self.path}: payment ${id} (try ${attempt}) ${
        applied ? "applied" : "was a duplicate, dropped by the bank"
      }`,
    );
    if (id === dropConnectionAfter) {
      dropConnectionAfter = 0;
      log(`  ${this.self.path}: connection dropped before the Ack`);
      throw new Error("connection dropped");
    }
    this.context.parent.tell(new BackoffSender.Ack(id));
    tracked.sender?.tell(
      `payment ${id} of ${message.amount} to ${message.to}: ok`,
    );
  }
}

const system = ActorSystem.create("payments", { logLevel: "off" });
system.eventStream.subscribe(BackoffSenderRetryScheduled, (e) => {
  log(
    `sender: child terminated, retry ${
      e.retryCount + 1
    }: re-sending ${e.unacked} unacknowledged in ${e.delayMs} ms`,
  );
});
system.eventStream.subscribe(BackoffSenderResent, (e) => {
  log(`sender: re-sent payment ${e.id} (try ${e.attempt})`);
});
system.eventStream.subscribe(BackoffSenderAcknowledged, (e) => {
  log(
    `sender: payment ${e.id} acknowledged after ${e.attempts} tr${
      e.attempts === 1 ? "y" : "ies"
    }`,
  );
});

const sender = system.actorOf(
  BackoffSender.props<Payment>({
    childProps: Props.create(() => new PaymentWorker()),
    childName: "payments",
    // policy: the article's default, truncatedBinaryBackoff({ slotMs: 10, ceiling: 10 })
  }),
  "sender",
);

const payments: Payment[] = [
  { to: "alice", amount: 10 },
  { to: "bob", amount: 20 },
  { to: "alice", amount: 5 },
  { to: "carol", amount: 7 },
];
log(`client: asking for ${payments.length} payments`);
const replies = await Promise.all(
  payments.map((payment) => sender.ask<string>(payment, 5_000)),
);
for (const reply of replies) log(`client: ${reply}`);
log(
  `bank balances: ${
    [...bank.balances].map(([who, amount]) => `${who} ${amount}`).join(", ")
  } (each payment applied once)`,
);
await system.terminate();
