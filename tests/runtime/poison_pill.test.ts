// Copyright 2026 the understudy authors. MIT license.
// Specification of stopping an actor from outside: PoisonPill (in mailbox
// order) and system.stop(ref) (after the message in flight).

import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  ActorStopped,
  type ActorSystem,
  AskTimeoutError,
  Props,
  Terminated,
  UndeliveredError,
} from "../../mod.ts";
import type { ActorRef } from "../../src/runtime/actor_ref.ts";
import { PoisonPill } from "../../src/runtime/poison_pill.ts";
import {
  collect,
  collectDeadLetters,
  createSystem,
  deferred,
  FnActor,
  fnProps,
  installClock,
  recorderProps,
  settle,
} from "./_helpers.ts";

/**
 * `ref.tell(PoisonPill)`: every ref takes it whatever its message type once
 * `ActorRef.tell` accepts `T | PoisonPill`; until then the cast says so.
 */
function poison(ref: ActorRef<never>, sender?: ActorRef<never>): void {
  ref.tell(PoisonPill as never, sender);
}

describe("PoisonPill", () => {
  let system: ActorSystem;
  beforeEach(() => {
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  it("is processed in mailbox order: the messages before it are handled, then the actor stops", async () => {
    const seen: unknown[] = [];
    const stopped = collect(system, ActorStopped);
    const ref = system.actorOf(recorderProps<string>(seen), "worker");
    ref.tell("a");
    ref.tell("b");
    poison(ref);
    await settle();
    assert.deepEqual(seen, ["a", "b"]); // never the pill itself
    assert.deepEqual(stopped.map((e) => e.ref), [ref]);
  });

  it("turns the messages queued behind it into dead letters, in order", async () => {
    const seen: unknown[] = [];
    const dead = collectDeadLetters(system);
    const ref = system.actorOf(recorderProps<string>(seen), "worker");
    ref.tell("a");
    poison(ref);
    ref.tell("b");
    ref.tell("c");
    await settle();
    ref.tell("d"); // after the stop
    await settle();
    assert.deepEqual(seen, ["a"]);
    assert.deepEqual(
      dead.map((d) => [d.message, d.reason]),
      [
        ["b", "recipient stopped"],
        ["c", "recipient stopped"],
        ["d", "recipient stopped"],
      ],
    );
    assert.ok(dead.every((d) => d.recipient === ref));
  });

  it("stops an idle actor (the pill handed over with its turn)", async () => {
    const seen: unknown[] = [];
    const ref = system.actorOf(recorderProps<string>(seen), "idle");
    await settle(); // started, idle, nothing queued
    const stopped = collect(system, ActorStopped);
    poison(ref);
    await settle();
    assert.deepEqual(stopped.map((e) => e.ref), [ref]);
    assert.deepEqual(seen, []);
  });

  it("waits behind an async handler, like any message", async () => {
    const gate = deferred();
    const log: string[] = [];
    const ref = system.actorOf(
      fnProps<string>(async (_a, m) => {
        log.push(`start ${m}`);
        if (m === "slow") await gate.promise;
        log.push(`end ${m}`);
      }),
      "async",
    );
    ref.tell("slow");
    poison(ref);
    const stopped = collect(system, ActorStopped);
    await settle();
    assert.deepEqual(stopped, []);
    gate.resolve();
    await settle();
    assert.deepEqual(log, ["start slow", "end slow"]);
    assert.equal(stopped.length, 1);
  });

  it("runs postStop and notifies watchers (Terminated), as any stop", async () => {
    const log: unknown[] = [];
    class Mortal extends FnActor<string> {
      override postStop(): void {
        log.push("postStop");
      }
    }
    const target = system.actorOf(
      Props.create(() => new Mortal(() => {})),
      "target",
    );
    system.actorOf(
      fnProps<unknown>((a, m) => {
        if (m === "watch") a.context.watch(target);
        if (m instanceof Terminated) log.push(`terminated ${m.ref.path}`);
      }),
      "watcher",
    ).tell("watch");
    await settle();
    poison(target);
    await settle();
    assert.deepEqual(log, ["postStop", "terminated /user/target"]);
  });

  it("stops the actor's children too", async () => {
    const stopped = collect(system, ActorStopped);
    const parent = system.actorOf(
      fnProps<string>((a) => {
        a.context.actorOf(recorderProps(), "kid");
      }),
      "parent",
    );
    parent.tell("spawn");
    await settle();
    poison(parent);
    await settle();
    assert.deepEqual(stopped.map((e) => e.ref.path), [
      "/user/parent/kid",
      "/user/parent",
    ]);
  });

  it("sent to a stopped actor, is a dead letter like any message", async () => {
    const ref = system.actorOf(recorderProps(), "gone");
    system.stop(ref);
    await settle();
    const dead = collectDeadLetters(system);
    poison(ref);
    assert.deepEqual(
      dead.map((d) => [d.message, d.reason]),
      [[PoisonPill, "recipient stopped"]],
    );
  });

  it("counts by identity: an object that looks like it is an ordinary message", async () => {
    const seen: unknown[] = [];
    const ref = system.actorOf(recorderProps(seen), "worker");
    const lookalike = { kind: "PoisonPill" };
    ref.tell(lookalike);
    ref.tell("after");
    await settle();
    assert.deepEqual(seen, [lookalike, "after"]);
  });

  it("sent to the /user guardian (a top-level actor's parent), is a dead letter and stops nothing", async () => {
    const dead = collectDeadLetters(system);
    const ref = system.actorOf(
      fnProps<string>((a, m) => {
        if (m === "poison parent") {
          poison(
            a.context.parent as ActorRef<never>,
            a.self as ActorRef<never>,
          );
        }
      }),
      "rebel",
    );
    ref.tell("poison parent");
    await settle();
    assert.equal(dead.length, 1);
    assert.equal(dead[0].message, PoisonPill);
    assert.equal(dead[0].recipient.path, "/user");
    assert.match(dead[0].reason, /system\.terminate\(\)/);
    // The system still works.
    const echo = system.actorOf(
      fnProps<string>((a, m) => a.sender?.tell(m)),
      "echo",
    );
    assert.equal(await echo.ask("still here"), "still here");
  });
});

describe("PoisonPill sent with ask", () => {
  it("still goes through the mailbox; it gets no reply and times out, and asks behind it fail at once", async () => {
    const clock = installClock();
    const system = createSystem();
    try {
      const seen: unknown[] = [];
      const ref = system.actorOf(recorderProps<string>(seen), "worker");
      ref.tell("before");
      const pill = ref.ask(PoisonPill as never, 1_000);
      const behind = ref.ask("behind", 1_000);
      const outcomes: string[] = [];
      pill.catch((error) =>
        outcomes.push(`pill: ${(error as Error).constructor.name}`)
      );
      behind.catch((error) => {
        assert.ok(error instanceof UndeliveredError);
        outcomes.push(`behind: ${error.reason}`);
      });
      await clock.tickAsync(0);
      assert.deepEqual(seen, ["before"]);
      assert.deepEqual(outcomes, ["behind: recipient stopped"]);
      await clock.tickAsync(1_000);
      assert.deepEqual(outcomes, [
        "behind: recipient stopped",
        `pill: ${AskTimeoutError.name}`,
      ]);
    } finally {
      await system.terminate();
      clock.uninstall();
    }
  });
});

describe("system.stop", () => {
  let system: ActorSystem;
  beforeEach(() => {
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  it("stops a top-level actor after the message in flight; what is queued becomes dead letters", async () => {
    const gate = deferred();
    const seen: string[] = [];
    const dead = collectDeadLetters(system);
    const ref = system.actorOf(
      fnProps<string>(async (_a, m) => {
        seen.push(m);
        if (m === "slow") await gate.promise;
      }),
      "worker",
    );
    ref.tell("slow");
    ref.tell("queued");
    await settle();
    system.stop(ref);
    gate.resolve();
    await settle();
    assert.deepEqual(seen, ["slow"]);
    assert.deepEqual(dead.map((d) => d.message), ["queued"]);
  });

  it("stops any actor of the system, not only top-level ones (as in Akka)", async () => {
    const stopped = collect(system, ActorStopped);
    let kid: ActorRef<never> | undefined;
    system.actorOf(
      fnProps<string>((a) => {
        kid = a.context.actorOf(recorderProps(), "kid") as ActorRef<never>;
      }),
      "parent",
    ).tell("spawn");
    await settle();
    system.stop(kid!);
    await settle();
    assert.deepEqual(stopped.map((e) => e.ref.path), ["/user/parent/kid"]);
  });

  it("does nothing for an actor that has stopped already", async () => {
    const ref = system.actorOf(recorderProps(), "worker");
    system.stop(ref);
    await settle();
    const stopped = collect(system, ActorStopped);
    system.stop(ref);
    await settle();
    assert.deepEqual(stopped, []);
  });

  it("rejects a ref that is not an actor of this system with a TypeError naming it", async () => {
    const other = createSystem();
    try {
      const foreign = other.actorOf(recorderProps(), "foreign");
      assert.throws(
        () => system.stop(foreign),
        (error: unknown) =>
          error instanceof TypeError &&
          /Cannot stop .*\/user\/foreign.*must be an actor of actor system "test"/
            .test(error.message),
      );
      assert.throws(() => system.stop(system.deadLetters), TypeError);
      assert.throws(
        () => system.stop("worker" as unknown as ActorRef<never>),
        /Cannot stop "worker"/,
      );
      await settle();
      // The foreign actor still runs.
      const seen: unknown[] = [];
      const probe = other.actorOf(recorderProps(seen), "probe");
      probe.tell("ok");
      await settle();
      assert.deepEqual(seen, ["ok"]);
    } finally {
      await other.terminate();
    }
  });

  it("leaves context.stop working for children and self, and refusing others", async () => {
    const stopped = collect(system, ActorStopped);
    const errors: unknown[] = [];
    const stranger = system.actorOf(recorderProps(), "stranger");
    const parent = system.actorOf(
      fnProps<string>((a, m) => {
        if (m === "spawn") a.context.actorOf(recorderProps(), "kid");
        if (m === "stop kid") a.context.stop(a.context.child("kid")! as never);
        if (m === "stop stranger") {
          try {
            a.context.stop(stranger);
          } catch (error) {
            errors.push(error);
          }
        }
        if (m === "stop self") a.context.stop(a.self as ActorRef<never>);
      }),
      "parent",
    );
    for (const m of ["spawn", "stop kid", "stop stranger", "stop self"]) {
      parent.tell(m);
    }
    await settle();
    assert.deepEqual(stopped.map((e) => e.ref.path), [
      "/user/parent/kid",
      "/user/parent",
    ]);
    assert.equal(errors.length, 1);
    assert.ok(errors[0] instanceof TypeError);
  });
});
