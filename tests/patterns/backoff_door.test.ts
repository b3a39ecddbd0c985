// The BackoffSupervisor's door (runtime/ports/undelivered.ts, openDoor): a message
// told to an idle supervisor whose child runs goes straight to the child,
// without a turn of the supervisor's; everything else waits for its turn.
import { afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  type ActorRef,
  ActorSystem,
  BackoffSupervisor,
  type CurrentChild,
  MessageReceived,
  PoisonPill,
  Props,
  Terminated,
} from "../../mod.ts";
import { ManualScheduler } from "../../src/testing/manual_scheduler.ts";

class Recorder extends Actor<unknown> {
  constructor(readonly into: Array<[unknown, ActorRef<never> | undefined]>) {
    super();
  }
  onReceive(message: unknown): void {
    this.into.push([message, this.sender as ActorRef<never> | undefined]);
  }
}

let system: ActorSystem | undefined;
afterEach(async () => {
  await system?.terminate();
  system = undefined;
});

function setUp(inspect?: (event: object) => void) {
  const scheduler = new ManualScheduler();
  system = ActorSystem.create("door", {
    scheduler,
    logLevel: "off",
    ...(inspect === undefined ? {} : { inspect }),
  });
  const got: Array<[unknown, ActorRef<never> | undefined]> = [];
  const supervisor = system.actorOf(
    BackoffSupervisor.props({
      childProps: Props.create(() => new Recorder(got)),
      minBackoff: 100,
      maxBackoff: 1_000,
      drainGraceMs: 0,
    }),
    "sup",
  );
  return { scheduler, supervisor, got };
}

describe("a BackoffSupervisor's door", () => {
  it("hands a running child's messages to it without a turn of its own, sender kept", async () => {
    const received: MessageReceived[] = [];
    const { scheduler, supervisor, got } = setUp((event) => {
      if (event instanceof MessageReceived) received.push(event);
    });
    await scheduler.timePasses(10); // the child runs, steady
    const from = system!.actorOf(Props.create(() => new Recorder([])), "from");
    received.length = 0;
    supervisor.tell("one", from as ActorRef<never>);
    supervisor.tell("two", from as ActorRef<never>);
    await scheduler.timePasses(0);
    assert.deepEqual(got.map(([m]) => m), ["one", "two"]);
    assert.ok(got.every(([, sender]) => sender === from));
    // The child's turn saw them; the supervisor's never did.
    const { ref: child } = await supervisor.ask<CurrentChild>(
      BackoffSupervisor.GetCurrentChild,
    );
    const seen = received.filter((r) =>
      r.message === "one" || r.message === "two"
    );
    assert.deepEqual(seen.map((r) => r.message), ["one", "two"]);
    assert.ok(seen.every((r) => r.ref === child), "only the child's turns");
  });

  it("lets its protocol, a Terminated and a PoisonPill wait for its own turn", async () => {
    const { scheduler, supervisor, got } = setUp();
    await scheduler.timePasses(10);
    const current = await supervisor.ask<CurrentChild>(
      BackoffSupervisor.GetCurrentChild,
    );
    assert.ok(current.ref !== undefined, "the protocol reached the supervisor");
    supervisor.tell(new Terminated(supervisor as ActorRef<never>));
    supervisor.tell(PoisonPill);
    await scheduler.timePasses(10);
    assert.deepEqual(got, [], "the child got none of them");
    assert.ok(current.ref!.toString().length > 0);
    // The PoisonPill stopped the supervisor (and with it the child).
    supervisor.tell("after");
    await scheduler.timePasses(10);
    assert.deepEqual(got, []);
  });

  it("never lets a message overtake one still queued for the supervisor", async () => {
    const { scheduler, supervisor, got } = setUp();
    await scheduler.timePasses(10);
    // Queued first (its protocol goes through its mailbox), the next ones
    // may not skip ahead of it: with the supervisor scheduled, the door is shut.
    supervisor.tell(BackoffSupervisor.Reset);
    for (let i = 0; i < 5; i++) supervisor.tell(i);
    await scheduler.timePasses(0);
    for (let i = 5; i < 10; i++) supervisor.tell(i);
    await scheduler.timePasses(0);
    assert.deepEqual(got.map(([m]) => m), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("does not throw at the tell of a message that throws when looked at", async () => {
    const { scheduler, supervisor } = setUp();
    await scheduler.timePasses(10);
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    assert.doesNotThrow(() => supervisor.tell(proxy));
    await scheduler.timePasses(10);
    supervisor.tell("still here");
    const current = await supervisor.ask<CurrentChild>(
      BackoffSupervisor.GetCurrentChild,
    );
    assert.ok(current.ref !== undefined, "the supervisor goes on");
  });
});
