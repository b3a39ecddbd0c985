// Property: under any schedule of sends, failing calls, crashes after the
// work but before the Ack, children that cannot start, time, and a stop of
// the BackoffSender, with any bounds, every message sent to it is
// acknowledged exactly once or dead-lettered exactly once, never silently
// lost; an acknowledged message's reply reached its original sender; no
// message is tried more than maxAttempts times, and one given up for it was
// tried exactly that often; acknowledgements come in id
// order; the retry count and the delays follow the seeded policy; and no
// timer is left once the system has terminated.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  Actor,
  type ActorRef,
  DeadLetter,
  Props,
  truncatedBinaryBackoff,
} from "../../mod.ts";
import { BackoffSender } from "../../src/patterns/backoff_sender.ts";
import {
  BackoffSenderAcknowledged,
  BackoffSenderGaveUp,
  BackoffSenderRetryScheduled,
} from "../../src/patterns/backoff_sender_protocol.ts";
import { installClock, recordingSystem, settle } from "./_helpers.ts";

/** One message; compared by identity. */
class Msg {
  constructor(readonly n: number) {}
}

type Command =
  | { kind: "send"; to: number }
  | { kind: "fail-calls"; count: number }
  | { kind: "crash-before-ack" }
  | { kind: "fail-starts"; count: number }
  | { kind: "advance"; ms: number }
  | { kind: "stop-sender" };

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant("send" as const),
      to: fc.integer({ min: 0, max: 2 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("fail-calls" as const),
      count: fc.integer({ min: 1, max: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "crash-before-ack" as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("fail-starts" as const),
      count: fc.integer({ min: 1, max: 2 }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("advance" as const),
      ms: fc.integer({ min: 0, max: 300 }),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: "stop-sender" as const }) },
);

const scenario = fc.record({
  commands: fc.array(command, { maxLength: 40 }),
  maxUnacked: fc.constantFrom(1, 2, 5, 1000),
  maxAttempts: fc.constantFrom(1, 2, 3, Infinity),
  seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
});

const SLOT_MS = 25;
const CEILING = 4;

/** mulberry32: a small seeded generator of numbers in [0, 1). */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What the test scripts and what the children did. */
class Resource {
  failCalls = 0;
  crashBeforeAck = 0;
  failStarts = 0;
  /** The try number of every delivery a child began to process, by message. */
  readonly tries = new Map<Msg, number[]>();
}

class Worker extends Actor<BackoffSender.Tracked<Msg>> {
  constructor(private readonly resource: Resource) {
    super();
  }
  override preStart(): void {
    if (this.resource.failStarts > 0) {
      this.resource.failStarts--;
      throw new Error("cannot start");
    }
  }
  onReceive(tracked: BackoffSender.Tracked<Msg>): void {
    const r = this.resource;
    const tries = r.tries.get(tracked.message) ?? [];
    tries.push(tracked.attempt);
    r.tries.set(tracked.message, tries);
    if (r.failCalls > 0) {
      r.failCalls--;
      throw new Error("call failed");
    }
    tracked.sender?.tell(tracked.message);
    if (r.crashBeforeAck > 0) {
      r.crashBeforeAck--;
      throw new Error("crashed before the ack");
    }
    this.context.parent.tell(new BackoffSender.Ack(tracked.id));
  }
}

/** An original sender: records every reply. */
class Receiver extends Actor<Msg> {
  constructor(private readonly replies: Msg[]) {
    super();
  }
  onReceive(reply: Msg): void {
    this.replies.push(reply);
  }
}

/** Owns the BackoffSender so the test can stop it, as a parent would. */
class Owner extends Actor<"stop"> {
  constructor(
    private readonly props: Props<unknown>,
    private readonly expose: (ref: ActorRef<unknown>) => void,
  ) {
    super();
  }
  #sender!: ActorRef<unknown>;
  override preStart(): void {
    this.#sender = this.context.actorOf(this.props, "sender");
    this.expose(this.#sender);
  }
  onReceive(): void {
    this.context.stop(this.#sender as ActorRef<never>);
  }
}

async function run(
  s: {
    commands: Command[];
    maxUnacked: number;
    maxAttempts: number;
    seed: number;
  },
): Promise<void> {
  const clock = installClock();
  const { system, events } = recordingSystem();
  const resource = new Resource();
  try {
    const props = BackoffSender.props<Msg>({
      childProps: Props.create(() => new Worker(resource)),
      policy: truncatedBinaryBackoff({
        slotMs: SLOT_MS,
        ceiling: CEILING,
        random: seeded(s.seed),
      }),
      maxUnacked: s.maxUnacked,
      maxAttempts: s.maxAttempts,
    }) as Props<unknown>;
    let sender!: ActorRef<unknown>;
    const owner = system.actorOf(
      Props.create(() => new Owner(props, (ref) => (sender = ref))),
      "owner",
    );
    const replies: Msg[] = [];
    const receivers = [0, 1, 2].map((i) =>
      system.actorOf(Props.create(() => new Receiver(replies)), `receiver-${i}`)
    );
    await settle(clock);
    const sent: Msg[] = [];
    for (const c of s.commands) {
      switch (c.kind) {
        case "send": {
          const message = new Msg(sent.length + 1);
          sent.push(message);
          sender.tell(message, receivers[c.to] as ActorRef<never>);
          break;
        }
        case "fail-calls":
          resource.failCalls += c.count;
          break;
        case "crash-before-ack":
          resource.crashBeforeAck++;
          break;
        case "fail-starts":
          resource.failStarts += c.count;
          break;
        case "advance":
          await clock.tickAsync(c.ms);
          break;
        case "stop-sender":
          owner.tell("stop");
          break;
      }
      await settle(clock);
    }
    // Longer than any wait: (2^CEILING - 1) slots, a few times over.
    await clock.tickAsync(20 * 2 ** CEILING * SLOT_MS);
    await system.terminate();
    assert.equal(clock.countTimers(), 0, "no timer left after terminate");

    const acked = events.filter((e): e is BackoffSenderAcknowledged =>
      e instanceof BackoffSenderAcknowledged
    );
    const gaveUp = events.filter((e): e is BackoffSenderGaveUp =>
      e instanceof BackoffSenderGaveUp
    );
    const dead = events.filter((e): e is DeadLetter =>
      e instanceof DeadLetter && e.message instanceof Msg
    );

    // Every message: acknowledged once or dead-lettered once.
    for (const message of sent) {
      const ackCount = acked.filter((e) => e.message === message).length;
      const deadCount = dead.filter((e) => e.message === message).length;
      assert.equal(
        ackCount + deadCount,
        1,
        `message ${message.n}: ${ackCount} acks, ${deadCount} dead letters`,
      );
      if (ackCount === 1) {
        assert.ok(
          replies.includes(message),
          `message ${message.n} acknowledged, and its sender got the reply`,
        );
      }
    }
    // The sender's give-ups are exactly its dead letters, reason for reason.
    const deadFromSender = dead.filter((d) =>
      d.recipient === (sender as ActorRef<never>) &&
      d.reason !== "recipient stopped"
    );
    assert.deepEqual(
      deadFromSender.map((d) => [d.message, d.reason]),
      gaveUp.map((g) => [g.message, g.reason]),
    );
    // Ids: one per message, in arrival order.
    for (const e of [...acked, ...gaveUp]) {
      assert.equal(e.id, (e.message as Msg).n, "id = arrival number");
    }
    // Acknowledgements come in id order.
    const ackIds = acked.map((e) => e.id);
    assert.deepEqual(ackIds, [...ackIds].sort((a, b) => a - b), "ack order");
    // No message was tried more than maxAttempts times.
    for (const [message, tries] of resource.tries) {
      assert.ok(
        tries.length <= s.maxAttempts,
        `message ${message.n} tried ${tries.length} times`,
      );
      for (let i = 1; i < tries.length; i++) {
        assert.ok(tries[i] > tries[i - 1], "try numbers grow");
      }
    }
    // A message given up for its attempts was tried exactly maxAttempts times.
    for (const g of gaveUp) {
      if (g.reason.startsWith("not acknowledged")) {
        assert.equal(
          resource.tries.get(g.message as Msg)?.length,
          s.maxAttempts,
          `message ${g.id} tried maxAttempts times before giving up`,
        );
      }
    }
    // The retry count grows by one per termination and goes back to 0 at an
    // Ack; each delay is the seeded policy's.
    const replica = seeded(s.seed);
    let expected = 0;
    for (const e of events) {
      if (e instanceof BackoffSenderAcknowledged) expected = 0;
      if (e instanceof BackoffSenderRetryScheduled) {
        assert.equal(e.retryCount, expected, "retry count");
        assert.equal(
          e.delayMs,
          Math.floor(replica() * 2 ** Math.min(expected, CEILING)) * SLOT_MS,
          "delay",
        );
        expected++;
      }
    }
  } finally {
    await system.terminate();
    clock.uninstall();
  }
}

describe("BackoffSender properties", () => {
  it("acknowledges every message once or dead-letters it once, never loses one, follows the policy, leaks no timer", async () => {
    await fc.assert(fc.asyncProperty(scenario, run), { numRuns: 200 });
  });
});
