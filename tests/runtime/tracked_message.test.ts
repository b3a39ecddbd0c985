// Copyright 2026 the understudy authors. MIT license.
// The runtime's port for transports that must know what became of a
// message (src/runtime/ports/tracked_message.ts): it comes in by its own door,
// queued, and is taken once, when the turn that handles it ends, whatever
// the handler; or it is a dead letter once, and what is published is the
// message inside, never the wrapper. A forwarded message
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
import type { ActorCell } from "../../src/runtime/kernel/cell.ts";
import {
  ForwardedMessage,
  TrackedMessage,
} from "../../src/runtime/ports/tracked_message.ts";
import {
  collect,
  collectDeadLetters,
  createSystem,
  FnActor,
  fnProps,
  settle,
  waitUntil,
} from "./_helpers.ts";

/** Records what became of it, in its own list and in `log` if given. */
class Tracked extends TrackedMessage {
  readonly outcomes: string[] = [];
  constructor(readonly message: unknown, readonly log?: unknown[]) {
    super();
  }
  taken(): void {
    this.outcomes.push("taken");
    this.log?.push(`taken: ${String(this.message)}`);
  }
  undelivered(reason: string): void {
    this.outcomes.push(`undelivered: ${reason}`);
  }
}

/** Sends by the port's door, as the worker transport does. */
function sendTracked(
  ref: ActorRef<unknown>,
  message: TrackedMessage,
  sender?: ActorRef<never>,
): void {
  (ref as unknown as ActorCell<unknown>).enqueueSent(message, sender);
}

describe("a tracked message", () => {
  let system: ActorSystem;
  beforeEach(() => {
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  it("is taken once when the turn that handles it ends, by onReceive or a become handler, a throw included", async () => {
    const dead = collectDeadLetters(system);
    const log: unknown[] = [];
    const ref = system.actorOf(fnProps<unknown>((actor, message) => {
      log.push(message);
      if (message === "switch") {
        actor.context.become((next) => {
          log.push(`become: ${String(next)}`);
          if (next === "throw") throw new Error("the handler throws");
        });
      }
    }));
    const idle = new Tracked("idle", log);
    sendTracked(ref, idle); // to an idle actor: queued all the same
    await settle();
    const queued = ["switch", 1, "throw", 2].map((m) => new Tracked(m, log));
    for (const message of queued) sendTracked(ref, message);
    await settle();
    assert.deepEqual(log, [
      "idle",
      "taken: idle",
      "switch",
      "taken: switch",
      "become: 1",
      "taken: 1",
      "become: throw",
      "taken: throw", // handled, and failed: its dead letter is the worker's
      2, // to onReceive: the restart that followed the throw undid become
      "taken: 2",
    ]);
    for (const message of [idle, ...queued]) {
      assert.deepEqual(message.outcomes, ["taken"]);
    }
    assert.deepEqual(dead.map((letter) => letter.message), ["throw"]);
  });

  it("sent to a stopped actor is a dead letter once, published as the message inside", async () => {
    const dead = collectDeadLetters(system);
    const ref = system.actorOf(fnProps(() => {}));
    ref.tell("first");
    await settle();
    system.stop(ref);
    await settle();
    const late = new Tracked("late");
    sendTracked(ref, late);
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
    sendTracked(child!, behind);
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

  it("taken over from a stopping child by a BackoffSupervisor stays tracked: the next child gets the message inside, and its turn takes it", async () => {
    const seen: unknown[] = [];
    let child: ActorRef<unknown> | undefined;
    system.actorOf(
      BackoffSupervisor.props({
        childProps: fnProps<unknown>((actor, message) => {
          child = actor.self;
          seen.push(message);
          if (message === "stop") actor.context.stopSelf();
        }),
        childName: "child",
        minBackoff: 1,
        maxBackoff: 1,
      }),
    ).tell("hello");
    await waitUntil(() => child !== undefined, "the child");
    const first = child!;
    const behind = new Tracked("behind the stop");
    first.tell("stop");
    sendTracked(first, behind); // queued behind the stop: taken over
    await waitUntil(() => behind.outcomes.length > 0, "an outcome");
    await settle();
    assert.deepEqual(seen, ["hello", "stop", "behind the stop"]);
    assert.notEqual(child, first, "handled by the next child");
    assert.deepEqual(behind.outcomes, ["taken"]);
  });

  it("sent to a BackoffSupervisor stays tracked through it: taken when its child's turn ends, kept in its stash while the child is down, dropped from it once", async () => {
    const dead = collectDeadLetters(system);
    const log: unknown[] = [];
    let crashes = 0;
    const supervisor = system.actorOf(
      BackoffSupervisor.props({
        childProps: fnProps<unknown>((_actor, message) => {
          log.push(`child: ${String(message)}`);
          if (message === "crash" && crashes++ === 0) throw new Error("down");
        }),
        childName: "child",
        minBackoff: 50,
        maxBackoff: 50,
        maxStashSize: 1,
      }),
    );
    const first = new Tracked("first", log);
    sendTracked(supervisor, first);
    await waitUntil(() => first.outcomes.length > 0, "the first outcome");
    // Taken when the child's turn ended, not when the supervisor passed it on.
    assert.deepEqual(log, ["child: first", "taken: first"]);
    supervisor.tell("crash");
    await settle(); // the child is down for 50 ms
    const kept = new Tracked("kept", log);
    const dropped = new Tracked("dropped", log);
    sendTracked(supervisor, kept); // stashed by the supervisor
    sendTracked(supervisor, dropped); // its stash is full
    await settle();
    assert.deepEqual(kept.outcomes, [], "still the sender's while stashed");
    assert.equal(dropped.outcomes.length, 1);
    assert.match(dropped.outcomes[0], /^undelivered: stash full/);
    await waitUntil(() => kept.outcomes.length > 0, "the next child's turn");
    assert.deepEqual(log.slice(-2), ["child: kept", "taken: kept"]);
    assert.deepEqual(
      dead.map((letter) => letter.message),
      ["crash", "dropped"],
    );
  });

  it("stashed in its turn stays tracked: taken when a later turn handles it, or a dead letter once if the actor stops", async () => {
    const dead = collectDeadLetters(system);
    const seen: unknown[] = [];
    let stashes = 0;
    const ref = system.actorOf(fnProps<unknown>((actor, message) => {
      seen.push(message);
      if (message === "release") actor.context.unstashAll();
      else if (message === "later" || stashes++ < 1) actor.context.stash();
    }));
    const later = new Tracked("later");
    const handled = new Tracked("handled");
    sendTracked(ref, later);
    sendTracked(ref, handled);
    await settle();
    assert.deepEqual(later.outcomes, []);
    assert.deepEqual(handled.outcomes, []);
    ref.tell("release");
    await settle();
    // The second turns: "later" stashed again, still tracked; "handled" handled.
    assert.deepEqual(seen, ["later", "handled", "release", "later", "handled"]);
    assert.deepEqual(later.outcomes, []);
    assert.deepEqual(handled.outcomes, ["taken"]);
    system.stop(ref);
    await settle();
    assert.deepEqual(later.outcomes, ["undelivered: recipient stopped"]);
    assert.deepEqual(handled.outcomes, ["taken"]);
    assert.deepEqual(dead.map((letter) => letter.message), ["later"]);
  });

  it("dropped by a full stash is a dead letter once, never taken", async () => {
    const dead = collectDeadLetters(system);
    const ref = system.actorOf(
      Props.create(
        () =>
          new FnActor<unknown>((actor) => {
            actor.context.stash();
          }),
        { stashCapacity: 1 },
      ),
    );
    const kept = new Tracked("kept");
    const dropped = new Tracked("dropped");
    sendTracked(ref, kept);
    sendTracked(ref, dropped);
    await settle();
    assert.deepEqual(kept.outcomes, []);
    assert.deepEqual(dropped.outcomes, ["undelivered: stash overflow"]);
    assert.deepEqual(dead.map((letter) => letter.message), ["dropped"]);
  });

  it("handled by an async handler is taken when the handler ends, kept if it stashes after an await", async () => {
    const dead = collectDeadLetters(system);
    const log: unknown[] = [];
    const ref = system.actorOf(fnProps<unknown>(async (actor, message) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      log.push(`ends: ${String(message)}`);
      if (message === "fail") throw new Error("async failure");
      if (message === "stash") actor.context.stash();
    }));
    const done = new Tracked("done", log);
    const failed = new Tracked("fail", log);
    const stashed = new Tracked("stash", log);
    for (const message of [done, failed, stashed]) sendTracked(ref, message);
    await waitUntil(() => log.includes("ends: stash"), "the third turn");
    await settle();
    assert.deepEqual(log, [
      "ends: done",
      "taken: done",
      "ends: fail",
      "taken: fail",
      "ends: stash",
    ]);
    assert.deepEqual(done.outcomes, ["taken"]);
    assert.deepEqual(failed.outcomes, ["taken"]);
    assert.deepEqual(stashed.outcomes, []);
    // The failure is a dead letter as the message inside, once.
    assert.deepEqual(dead.map((letter) => letter.message), ["fail"]);
    system.stop(ref);
    await settle();
    assert.deepEqual(stashed.outcomes, ["undelivered: recipient stopped"]);
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
    sendTracked(ref, job);
    await waitUntil(() => seen.length === 2, "the fresh instance's turn");
    assert.deepEqual(seen, ["job (instance 1)", "job (instance 2)"]);
    await settle();
    // Instance 1 stashed it; instance 2's handler ended with it handled.
    assert.deepEqual(job.outcomes, ["taken"]);
    releaseOld(); // the old handler ends: it owes nothing more
    await settle();
    assert.deepEqual(job.outcomes, ["taken"]);
    assert.deepEqual(
      dead.filter((letter) => letter.message === "job"),
      [],
      "redelivered, so no dead letter",
    );
  });

  it("whose handler threw is taken once even if handling that failure faults in the runtime, and the actor goes on", async () => {
    const handled: unknown[] = [];
    const ref = system.actorOf(fnProps<unknown>((_actor, message) => {
      handled.push(message);
      if (message === "boom") throw new Error("boom");
    }));
    await settle();
    // A fault in the runtime's failure path (the restart), once.
    const cell = ref as unknown as { restart: (...args: unknown[]) => void };
    const restart = cell.restart;
    cell.restart = function (): void {
      cell.restart = restart;
      throw new Error("injected runtime fault");
    };
    const boom = new Tracked("boom");
    sendTracked(ref, boom);
    await settle();
    ref.tell("after");
    await waitUntil(() => handled.includes("after"), "the next message");
    assert.deepEqual(boom.outcomes, ["taken"]);
    assert.deepEqual(handled, ["boom", "after"]);
  });

  it("cut short by a runtime fault while its async handler is being held is taken once, and the actor goes on", async () => {
    const handled: unknown[] = [];
    const ref = system.actorOf(fnProps<unknown>((actor, message) => {
      handled.push(message);
      if (message !== "hold") return;
      // A fault in the runtime as it begins to hold this handler, once.
      const cell = actor.context as unknown as { ensureExtras(): unknown };
      const ensureExtras = cell.ensureExtras;
      cell.ensureExtras = function (): unknown {
        cell.ensureExtras = ensureExtras;
        throw new Error("injected runtime fault");
      };
      return Promise.resolve();
    }));
    const hold = new Tracked("hold");
    sendTracked(ref, hold);
    await waitUntil(() => hold.outcomes.length > 0, "an outcome");
    ref.tell("after");
    await waitUntil(() => handled.includes("after"), "the next message");
    await settle();
    assert.deepEqual(hold.outcomes, ["taken"]);
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
    // Handed over to an idle actor: its handler gets it, unlooked at.
    const seen: unknown[] = [];
    const ref = system.actorOf(fnProps<unknown>((_actor, message) => {
      seen.push(message);
    }));
    ref.tell("before");
    await settle();
    ref.tell(proxy as never);
    await settle();
    assert.equal(seen[1], proxy);
    // Queued behind another message, where the turn opens a message by its
    // type and cannot look at this one: a dead letter (the turn fails), not
    // a message lost, and the actor goes on.
    ref.tell("queued first");
    ref.tell(proxy as never);
    await waitUntil(() => dead.length === 2, "the second dead letter");
    assert.equal(dead[1].message, proxy);
    ref.tell("after");
    await waitUntil(() => seen.includes("after"), "the actor to go on");
    assert.deepEqual(seen.slice(2), ["queued first", "after"]);
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
