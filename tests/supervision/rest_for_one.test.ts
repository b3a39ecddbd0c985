// Copyright 2026 the understudy authors. MIT license.
// Specification of RestForOneStrategy (OTP's rest_for_one): a failed child
// and the siblings started after it are restarted (or stopped) in start
// order; the ones started before it keep running.

import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  type ActorRef,
  ActorStopped,
  type ActorSystem,
  AllForOneStrategy,
  type Directive,
  type FaultHandlingStrategy,
  OneForOneStrategy,
  Props,
} from "../../mod.ts";
import { RestForOneStrategy } from "../../src/supervision/strategy.ts";
import type { RestartType } from "../../src/supervision/restart_type.ts";
import { collect, createSystem, settle } from "../runtime/_helpers.ts";

/**
 * A child that counts "inc", answers "get" with its count, fails on
 * "fail", and logs "<name>#<incarnation> <event>" to the shared journal.
 * With `grandchild`, it starts a child of its own (which a restart stops
 * first, so its fresh instance has to wait for that).
 */
class Member extends Actor<string> {
  static incarnations = new Map<string, number>();
  readonly id: number;
  count = 0;
  constructor(
    readonly name: string,
    readonly journal: string[],
    readonly grandchild: boolean,
  ) {
    super();
    this.id = (Member.incarnations.get(name) ?? 0) + 1;
    Member.incarnations.set(name, this.id);
  }
  override preStart(): void {
    this.journal.push(`${this.name}#${this.id} start`);
    if (this.grandchild) {
      this.context.actorOf(
        Props.create(() => new Member(`${this.name}.kid`, this.journal, false)),
        "kid",
      );
    }
  }
  onReceive(message: string): void {
    if (message === "inc") this.count++;
    else if (message === "get") this.sender?.tell(this.count);
    else if (message === "fail") throw new Error(`${this.name} failed`);
  }
  override preRestart(
    reason: unknown,
    message?: unknown,
  ): void | Promise<void> {
    this.journal.push(`${this.name}#${this.id} preRestart`);
    return super.preRestart(reason, message);
  }
}

interface Spec {
  name: string;
  restart?: RestartType;
  grandchild?: boolean;
}

class Supervisor extends Actor<string> {
  constructor(
    override readonly supervisorStrategy: FaultHandlingStrategy,
    readonly specs: Spec[],
    readonly kids: Record<string, ActorRef<string>>,
    readonly journal: string[],
  ) {
    super();
  }
  override preStart(): void {
    for (
      const { name, restart = "permanent", grandchild = false } of this.specs
    ) {
      this.kids[name] = this.context.actorOf(
        Props.create(() => new Member(name, this.journal, grandchild), {
          restart,
        }),
        name,
      );
    }
  }
  onReceive(): void {}
}

/** A supervisor with these children, all started. */
async function group(
  system: ActorSystem,
  strategy: FaultHandlingStrategy,
  specs: Spec[],
) {
  const kids: Record<string, ActorRef<string>> = {};
  const journal: string[] = [];
  system.actorOf(
    Props.create(() => new Supervisor(strategy, specs, kids, journal)),
    "supervisor",
  );
  await settle();
  return { kids, journal };
}

const names = (...xs: string[]): Spec[] => xs.map((name) => ({ name }));
const restForOne = (directive: Directive = "restart", maxRetries = Infinity) =>
  new RestForOneStrategy(() => directive, {
    maxRetries,
    loggingEnabled: false,
  });

describe("RestForOneStrategy", () => {
  let system: ActorSystem;
  beforeEach(() => {
    Member.incarnations.clear();
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  it("affects the failed child and the ones started after it (affectedChildren)", () => {
    const s = restForOne();
    assert.deepEqual(s.affectedChildren("b", ["a", "b", "c", "d"]), [
      "b",
      "c",
      "d",
    ]);
    assert.deepEqual(s.affectedChildren("d", ["a", "b", "c", "d"]), ["d"]);
    assert.deepEqual(s.affectedChildren("a", ["a", "b"]), ["a", "b"]);
    assert.deepEqual(s.affectedChildren("x", ["a", "b"]), ["x"]);
    assert.equal(s.appliesToAllChildren, false);
  });

  it("restarts the failed child and its younger siblings, in start order; the elder keep running, state kept", async () => {
    const { kids, journal } = await group(
      system,
      restForOne(),
      names("a", "b", "c", "d"),
    );
    for (const kid of Object.values(kids)) kid.tell("inc");
    await settle();
    journal.length = 0;
    kids.b.tell("fail");
    await settle();
    assert.deepEqual(journal, [
      "b#1 preRestart",
      "c#1 preRestart",
      "d#1 preRestart",
      "b#2 start",
      "c#2 start",
      "d#2 start",
    ]);
    const counts = await Promise.all(
      ["a", "b", "c", "d"].map((n) => kids[n].ask<number>("get")),
    );
    assert.deepEqual(counts, [1, 0, 0, 0]); // a untouched; the rest fresh
  });

  it("keeps start order when the failed child must first wait for its own children to stop", async () => {
    const { kids, journal } = await group(system, restForOne(), [
      { name: "a" },
      { name: "b", grandchild: true },
      { name: "c" },
      { name: "d", grandchild: true },
    ]);
    await settle();
    journal.length = 0;
    kids.b.tell("fail");
    await settle(8);
    const starts = journal.filter((line) =>
      line.endsWith(" start") && !line.includes(".kid")
    );
    assert.deepEqual(starts, ["b#2 start", "c#2 start", "d#2 start"]);
    assert.ok(
      journal.indexOf("b#2 start") < journal.indexOf("b.kid#2 start"),
      journal.join(", "),
    );
  });

  it("restarting the last child restarts it alone", async () => {
    const { kids, journal } = await group(
      system,
      restForOne(),
      names("a", "b", "c"),
    );
    await settle();
    journal.length = 0;
    kids.c.tell("fail");
    await settle();
    assert.deepEqual(journal, ["c#1 preRestart", "c#2 start"]);
  });

  it("Stop stops the failed child and its younger siblings; the elder keep running", async () => {
    const stopped = collect(system, ActorStopped);
    const { kids } = await group(
      system,
      restForOne("stop"),
      names("a", "b", "c"),
    );
    await settle();
    kids.b.tell("fail");
    await settle();
    assert.deepEqual(
      stopped.map((e) => e.ref.path).sort(),
      ["/user/supervisor/b", "/user/supervisor/c"],
    );
    kids.a.tell("inc");
    assert.equal(await kids.a.ask("get"), 1);
  });

  it("Resume resumes the failed child only", async () => {
    const { kids, journal } = await group(
      system,
      restForOne("resume"),
      names("a", "b", "c"),
    );
    for (const kid of Object.values(kids)) kid.tell("inc");
    kids.b.tell("fail");
    await settle();
    assert.deepEqual(journal, ["a#1 start", "b#1 start", "c#1 start"]);
    const counts = await Promise.all(
      ["a", "b", "c"].map((n) => kids[n].ask<number>("get")),
    );
    assert.deepEqual(counts, [1, 1, 1]);
  });

  it("once the restart limit is used up, stops the failed child and its younger siblings", async () => {
    const stopped = collect(system, ActorStopped);
    const { kids, journal } = await group(
      system,
      restForOne("restart", 1),
      names("a", "b", "c"),
    );
    kids.b.tell("fail");
    await settle();
    kids.b.tell("fail");
    await settle();
    assert.deepEqual(
      journal.filter((l) => l.endsWith(" start")),
      ["a#1 start", "b#1 start", "c#1 start", "b#2 start", "c#2 start"],
    );
    assert.deepEqual(
      stopped.map((e) => e.ref.path).sort(),
      ["/user/supervisor/b", "/user/supervisor/c"],
    );
  });

  it("stops a temporary younger sibling instead of restarting it", async () => {
    const stopped = collect(system, ActorStopped);
    const { kids, journal } = await group(system, restForOne(), [
      { name: "a" },
      { name: "b" },
      { name: "c", restart: "temporary" },
      { name: "d", restart: "transient" },
    ]);
    await settle();
    journal.length = 0;
    kids.b.tell("fail");
    await settle();
    assert.deepEqual(journal.filter((l) => l.endsWith(" start")), [
      "b#2 start",
      "d#2 start",
    ]);
    assert.deepEqual(stopped.map((e) => e.ref.path), ["/user/supervisor/c"]);
  });
});

describe("Group restarts in start order", () => {
  let system: ActorSystem;
  beforeEach(() => {
    Member.incarnations.clear();
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  it("AllForOneStrategy restarts every child in start order, whichever failed", async () => {
    const { kids, journal } = await group(
      system,
      new AllForOneStrategy(() => "restart", { loggingEnabled: false }),
      names("a", "b", "c"),
    );
    await settle();
    journal.length = 0;
    kids.c.tell("fail");
    await settle();
    assert.deepEqual(journal.filter((l) => l.endsWith(" start")), [
      "a#2 start",
      "b#2 start",
      "c#2 start",
    ]);
  });

  it("OneForOneStrategy leaves the siblings alone", async () => {
    const { kids, journal } = await group(
      system,
      new OneForOneStrategy(() => "restart", { loggingEnabled: false }),
      names("a", "b", "c"),
    );
    await settle();
    journal.length = 0;
    kids.a.tell("fail");
    await settle();
    assert.deepEqual(journal, ["a#1 preRestart", "a#2 start"]);
  });
});
