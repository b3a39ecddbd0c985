// Copyright 2026 the understudy authors. MIT license.
// The runtime's port for transports that must know what became of a
// message (src/runtime/tracked_message.ts): it is taken once, when its turn
// comes, whatever the handler; or it is a dead letter once, and what is
// published is the message inside, never the wrapper. A forwarded message
// passes through actors unopened; dropped on the way, it is published once,
// as the message inside, to the ref it was for.
import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  type ActorRef,
  type ActorSystem,
  BackoffMessageDropped,
  BackoffSupervisor,
  DeadLetter,
  Directive,
  OneForOneStrategy,
  Props,
} from "../../mod.ts";
import {
  ForwardedMessage,
  TrackedMessage,
} from "../../src/runtime/tracked_message.ts";
import {
  collect,
  collectDeadLetters,
  createSystem,
  fnProps,
  settle,
  waitUntil,
} from "./_helpers.ts";

/** Records what became of it. */
class Tracked extends TrackedMessage {
  readonly outcomes: string[] = [];
  constructor(readonly message: unknown) {
    super();
  }
  taken(): void {
    this.outcomes.push("taken");
  }
  undelivered(reason: string): void {
    this.outcomes.push(`undelivered: ${reason}`);
  }
  deferred(): void {
    this.outcomes.push("deferred");
  }
}

describe("a tracked message", () => {
  let system: ActorSystem;
  beforeEach(() => {
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  it("is taken once when its turn comes, handed over or queued, by onReceive or a become handler", async () => {
    const seen: unknown[] = [];
    const ref = system.actorOf(fnProps<unknown>((actor, message) => {
      seen.push(message);
      if (message === "switch") {
        actor.context.become((next) => {
          seen.push(`become: ${String(next)}`);
        });
      }
    }));
    const handed = new Tracked("handed");
    ref.tell(handed); // the actor is idle: handed over with its turn
    await settle();
    const queued = [new Tracked("switch"), new Tracked(1), new Tracked(2)];
    for (const message of queued) ref.tell(message); // through the mailbox
    await settle();
    assert.deepEqual(seen, ["handed", "switch", "become: 1", "become: 2"]);
    for (const message of [handed, ...queued]) {
      assert.deepEqual(message.outcomes, ["taken"]);
    }
  });

  it("sent to a stopped actor is a dead letter once, published as the message inside", async () => {
    const dead = collectDeadLetters(system);
    const ref = system.actorOf(fnProps(() => {}));
    ref.tell("first");
    await settle();
    system.stop(ref);
    await settle();
    const late = new Tracked("late");
    ref.tell(late);
    await settle();
    assert.deepEqual(late.outcomes, ["undelivered: recipient stopped"]);
    assert.deepEqual(dead.map((letter) => letter.message), ["late"]);
  });

  it("queued behind a stop is a dead letter once, and a BackoffSupervisor's event shows the message inside", async () => {
    const dropped = collect(system, BackoffMessageDropped);
    const dead = collect(system, DeadLetter);
    let child: ActorRef<unknown> | undefined;
    const supervisor = system.actorOf(
      BackoffSupervisor.props({
        childProps: fnProps<unknown>((actor, message) => {
          child ??= actor.self;
          if (message === "stop") actor.context.stopSelf();
        }),
        childName: "child",
        minBackoff: 1_000,
        maxBackoff: 1_000,
        forward: "drop",
      }),
    );
    supervisor.tell("hello");
    await waitUntil(() => child !== undefined, "the child");
    // Told to the child itself (as a worker's reply to it as a sender is):
    // the child stops with it still queued, and its supervisor drops it.
    const behind = new Tracked("behind the stop");
    child!.tell("stop");
    child!.tell(behind);
    await waitUntil(() => behind.outcomes.length > 0, "an outcome");
    await settle();
    assert.equal(behind.outcomes.length, 1);
    assert.match(behind.outcomes[0], /^undelivered: /);
    assert.deepEqual(dropped.map((event) => event.message), [
      "behind the stop",
    ]);
    assert.deepEqual(
      dead.map((letter) => letter.message).filter((m) => m !== "stop"),
      ["behind the stop"],
    );
  });

  it("stashed in its turn stays tracked: taken again when unstashed, or a dead letter once if the actor stops", async () => {
    const dead = collectDeadLetters(system);
    const seen: unknown[] = [];
    const ref = system.actorOf(fnProps<unknown>((actor, message) => {
      seen.push(message);
      if (message === "release") actor.context.unstashAll();
      else if (message !== "done") actor.context.stash();
    }));
    const later = new Tracked("later");
    ref.tell(later);
    await settle();
    assert.deepEqual(later.outcomes, ["taken", "deferred"]);
    ref.tell("release");
    await settle();
    // Its second turn stashed it again: still tracked.
    assert.deepEqual(seen, ["later", "release", "later"]);
    assert.deepEqual(later.outcomes, [
      "taken",
      "deferred",
      "taken",
      "deferred",
    ]);
    system.stop(ref);
    await settle();
    assert.deepEqual(later.outcomes, [
      "taken",
      "deferred",
      "taken",
      "deferred",
      "undelivered: recipient stopped",
    ]);
    assert.deepEqual(dead.map((letter) => letter.message), ["later"]);
  });

  it("handled by an async handler is taken when the handler ends, kept if it stashes after an await", async () => {
    const dead = collectDeadLetters(system);
    const ref = system.actorOf(fnProps<unknown>(async (actor, message) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      if (message === "fail") throw new Error("async failure");
      if (message === "stash") actor.context.stash();
    }));
    const done = new Tracked("done");
    const failed = new Tracked("fail");
    const stashed = new Tracked("stash");
    for (const message of [done, failed, stashed]) ref.tell(message);
    await waitUntil(() => stashed.outcomes.length === 3, "the third turn");
    await settle();
    assert.deepEqual(done.outcomes, ["taken", "deferred", "taken"]);
    assert.deepEqual(failed.outcomes, ["taken", "deferred", "taken"]);
    assert.deepEqual(stashed.outcomes, ["taken", "deferred", "deferred"]);
    // The failure is a dead letter as the message inside, once.
    assert.deepEqual(dead.map((letter) => letter.message), ["fail"]);
    system.stop(ref);
    await settle();
    assert.deepEqual(stashed.outcomes, [
      "taken",
      "deferred",
      "deferred",
      "undelivered: recipient stopped",
    ]);
    assert.deepEqual(dead.map((letter) => letter.message), ["fail", "stash"]);
  });

  it("stashed after an await, then its actor restarted with that handler in flight: taken once, by the fresh instance", async () => {
    const dead = collectDeadLetters(system);
    const seen: string[] = [];
    let instances = 0;
    let releaseOld = (): void => {};
    class Worker extends Actor<unknown> {
      readonly #instance = ++instances;
      // A child's failure fails this actor too, which then restarts.
      override readonly supervisorStrategy = new OneForOneStrategy(() =>
        Directive.Escalate
      );
      async onReceive(message: unknown): Promise<void> {
        seen.push(`${message} (instance ${this.#instance})`);
        if (this.#instance > 1) return;
        await new Promise((resolve) => setTimeout(resolve, 1));
        this.context.stash();
        this.context.actorOf(fnProps(() => {
          throw new Error("the child fails");
        })).tell("go");
        await new Promise<void>((resolve) => releaseOld = resolve);
      }
    }
    const ref = system.actorOf(Props.create(() => new Worker()));
    const job = new Tracked("job");
    ref.tell(job);
    await waitUntil(() => seen.length === 2, "the fresh instance's turn");
    assert.deepEqual(seen, ["job (instance 1)", "job (instance 2)"]);
    await settle();
    // Instance 1: taken, deferred (async), deferred (stashed); instance 2:
    // taken, deferred (async), taken (its handler ended).
    const outcomes = ["taken", "deferred", "deferred", "taken", "deferred"];
    assert.deepEqual(job.outcomes, [...outcomes, "taken"]);
    releaseOld(); // the old handler ends: it owes nothing more
    await settle();
    assert.deepEqual(job.outcomes, [...outcomes, "taken"]);
    assert.deepEqual(
      dead.filter((letter) => letter.message === "job"),
      [],
      "redelivered, so no dead letter",
    );
  });

  it("leaves a revoked proxy, which throws at every look, accounted for", async () => {
    const dead = collectDeadLetters(system);
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    // Publishing it as a dead letter must not throw.
    system.deadLetters.tell(proxy as never);
    await settle();
    assert.equal(dead.length, 1);
    assert.equal(dead[0].message, proxy);
    // Handed to an idle actor, whose turn cannot look at it: a dead letter
    // (the turn fails), not a message lost.
    const seen: unknown[] = [];
    const ref = system.actorOf(fnProps<unknown>((_actor, message) => {
      seen.push(message);
    }));
    ref.tell("before");
    await settle();
    ref.tell(proxy as never);
    await waitUntil(() => dead.length === 2, "the second dead letter");
    assert.equal(dead[1].message, proxy);
    ref.tell("after");
    await waitUntil(() => seen.includes("after"), "the actor to go on");
  });
});

/** For `recipient`, on its way; records each time it was dropped. */
class Forwarded extends ForwardedMessage {
  readonly drops: string[] = [];
  constructor(
    readonly message: unknown,
    readonly recipient: ActorRef<never>,
    /** Whether a drop loses it (else its sender sends it again). */
    readonly lost = true,
  ) {
    super();
  }
  undelivered(reason: string): boolean {
    this.drops.push(reason);
    return this.lost;
  }
}

describe("a forwarded message", () => {
  let system: ActorSystem;
  beforeEach(() => {
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  it("reaches the actors it passes through as itself, unopened", async () => {
    const seen: unknown[] = [];
    const ref = system.actorOf(fnProps<unknown>((_actor, message) => {
      seen.push(message);
    }));
    const envelope = new Forwarded("inside", system.deadLetters);
    ref.tell(envelope);
    await settle();
    assert.deepEqual(seen, [envelope]);
    assert.deepEqual(envelope.drops, []);
  });

  it("dropped on the way is one dead letter: the message inside, to its recipient, and a supervisor's event shows it", async () => {
    const dropped = collect(system, BackoffMessageDropped);
    const dead = collect(system, DeadLetter);
    const addressee = system.actorOf(fnProps(() => {}), "addressee");
    const sender = system.actorOf(fnProps(() => {}), "sender");
    const supervisor = system.actorOf(
      BackoffSupervisor.props({
        childProps: fnProps<unknown>(() => {
          throw new Error("down at once");
        }),
        childName: "child",
        minBackoff: 1_000,
        maxBackoff: 1_000,
        maxStashSize: 1,
      }),
    );
    supervisor.tell("crash it");
    await settle();
    const kept = new Forwarded("kept", addressee);
    const envelope = new Forwarded("inside", addressee);
    supervisor.tell(kept, sender); // stashed while the child is down
    supervisor.tell(envelope, sender); // the stash is full
    await waitUntil(() => envelope.drops.length > 0, "the drop");
    await settle();
    assert.equal(envelope.drops.length, 1);
    assert.match(envelope.drops[0], /stash full/);
    assert.deepEqual(kept.drops, []);
    const letters = dead.filter((letter) => letter.message === "inside");
    assert.equal(letters.length, 1);
    assert.equal(letters[0].recipient, addressee);
    assert.equal(letters[0].sender, sender);
    assert.ok(dead.every((letter) => !(letter.message instanceof Forwarded)));
    assert.ok(dropped.some((event) => event.message === "inside"));
  });

  it("dropped on the way but sent again by its sender is no dead letter", async () => {
    const dead = collect(system, DeadLetter);
    const addressee = system.actorOf(fnProps(() => {}), "addressee");
    const gone = system.actorOf(fnProps(() => {}));
    system.stop(gone);
    await settle();
    const again = new Forwarded("sent again", addressee, false);
    gone.tell(again);
    await settle();
    assert.deepEqual(again.drops, ["recipient stopped"]);
    assert.deepEqual(dead, []);
  });
});
