// Copyright 2026 the understudy authors. MIT license.
// Specification of classic supervision: a parent's supervisorStrategy decides
// what happens to a failed child (Resume, Restart, Stop, Escalate).

import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  ActorFailed,
  type ActorRef,
  ActorRestarted,
  ActorStarted,
  ActorStopped,
  type ActorSystem,
  AllForOneStrategy,
  decideByErrorClass,
  defaultStrategy,
  Directive,
  type FaultHandlingStrategy,
  OneForOneStrategy,
  Props,
  RestForOneStrategy,
  stoppingStrategy,
} from "../../mod.ts";
import {
  type Clock,
  collect,
  collectDeadLetters,
  createSystem,
  installClock,
  logRecorder,
  settle,
} from "./_helpers.ts";

class Special extends TypeError {}

const errorsByName: Record<string, () => unknown> = {
  Error: () => new Error("plain"),
  TypeError: () => new TypeError("type"),
  RangeError: () => new RangeError("range"),
  Special: () => new Special("special"),
  string: () => "not an Error object",
};

/**
 * A counting child. "inc" counts, "get" replies with the count, "throw:<kind>"
 * throws (see errorsByName). Logs its lifecycle as "<name>#<incarnation> <event>".
 */
class Worker extends Actor<string> {
  static incarnations = new Map<string, number>();
  readonly id: number;
  count = 0;
  constructor(
    readonly name: string,
    readonly journal: string[],
    readonly childName?: string,
  ) {
    super();
    this.id = (Worker.incarnations.get(name) ?? 0) + 1;
    Worker.incarnations.set(name, this.id);
  }
  #note(event: string): void {
    this.journal.push(`${this.name}#${this.id} ${event}`);
  }
  override preStart(): void {
    this.#note("preStart");
    if (this.childName !== undefined) {
      this.context.actorOf(
        Props.create(() => new Worker(this.childName!, this.journal)),
        this.childName,
      );
    }
  }
  onReceive(message: string): void {
    if (message === "inc") this.count++;
    else if (message === "get") this.sender?.tell(this.count);
    else if (message.startsWith("throw:")) {
      throw errorsByName[message.slice(6)]();
    } else {this.context.child(message.split(">")[0])?.tell(
        message.split(">")[1],
      );}
  }
  override preRestart(reason: unknown, message?: unknown): void {
    this.#note(`preRestart ${String(reason)} ${String(message)}`);
    super.preRestart(reason, message);
  }
  override postRestart(reason: unknown): void {
    this.#note(`postRestart ${String(reason)}`);
    super.postRestart(reason);
  }
  override postStop(): void {
    this.#note("postStop");
  }
}

/** A parent with a given strategy and named Worker children (each optionally with a child). */
class Parent extends Actor<string> {
  constructor(
    override readonly supervisorStrategy: FaultHandlingStrategy,
    readonly kids: Record<string, ActorRef<string>>,
    readonly names: string[],
    readonly journal: string[],
    readonly grandchild?: string,
  ) {
    super();
  }
  override preStart(): void {
    for (const name of this.names) {
      this.kids[name] = this.context.actorOf(
        Props.create(() => new Worker(name, this.journal, this.grandchild)),
        name,
      );
    }
  }
  onReceive(message: string): void {
    if (message.startsWith("throw:")) throw errorsByName[message.slice(6)]();
  }
}

interface Family {
  kids: Record<string, ActorRef<string>>;
  log: string[];
  parent: ActorRef<string>;
}

function family(
  system: ActorSystem,
  strategy: FaultHandlingStrategy,
  names: string[] = ["child"],
  grandchild?: string,
): Family {
  const kids: Record<string, ActorRef<string>> = {};
  const log: string[] = [];
  const parent = system.actorOf(
    Props.create(() => new Parent(strategy, kids, names, log, grandchild)),
    "parent",
  );
  return { kids, log, parent };
}

/**
 * top (resumes every failure) → group (`AllForOneStrategy`, escalates) →
 * "failing" (throws at any message) and "sibling" (from `sibling`); their
 * refs once started.
 */
async function escalatingGroup(
  system: ActorSystem,
  sibling: () => Actor<string>,
): Promise<{ failing: ActorRef<string>; sibling: ActorRef<string> }> {
  const refs = {} as { failing: ActorRef<string>; sibling: ActorRef<string> };
  class Failing extends Actor<string> {
    onReceive(): void {
      throw new Error("boom");
    }
  }
  class Group extends Actor<string> {
    override readonly supervisorStrategy = new AllForOneStrategy(() =>
      Directive.Escalate
    );
    override preStart(): void {
      refs.failing = this.context.actorOf(
        Props.create(() => new Failing()),
        "failing",
      );
      refs.sibling = this.context.actorOf(Props.create(sibling), "sibling");
    }
    onReceive(): void {}
  }
  class Resuming extends Actor<string> {
    override readonly supervisorStrategy = new OneForOneStrategy(() =>
      Directive.Resume
    );
    override preStart(): void {
      this.context.actorOf(Props.create(() => new Group()), "group");
    }
    onReceive(): void {}
  }
  system.actorOf(Props.create(() => new Resuming()), "top");
  await settle();
  return refs;
}

describe("Classic supervision directives", () => {
  let system: ActorSystem;
  beforeEach(() => {
    Worker.incarnations.clear();
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  for (const hook of ["preStart", "async preStart"] as const) {
    it(`Resume of a child whose ${hook} failed starts a fresh instance: its start runs again, and is published`, async () => {
      const started = collect(system, ActorStarted);
      const instances: number[] = [];
      const handled: string[] = [];
      const refs: Record<string, ActorRef<string>> = {};
      class Child extends Actor<string> {
        readonly n = instances.push(instances.length + 1);
        override preStart(): void | Promise<void> {
          if (this.n > 1) return;
          if (hook === "preStart") throw new Error("cannot start");
          return Promise.reject(new Error("cannot start"));
        }
        onReceive(m: string): void {
          handled.push(`${m} by ${this.n}`);
        }
      }
      class Parent extends Actor<string> {
        override readonly supervisorStrategy = new OneForOneStrategy(() =>
          Directive.Resume
        );
        override preStart(): void {
          refs.child = this.context.actorOf(
            Props.create(() => new Child()),
            "child",
          );
        }
        onReceive(): void {}
      }
      system.actorOf(Props.create(() => new Parent()), "parent");
      await settle();
      refs.child.tell("hello");
      await settle();
      assert.deepEqual(instances, [1, 2]);
      assert.deepEqual(handled, ["hello by 2"]);
      assert.equal(started.filter((e) => e.ref === refs.child).length, 1);
    });
  }

  it("Resume of a group whose sibling escalated while a child's async preStart ran: that start ends once, and is published", async () => {
    const started = collect(system, ActorStarted);
    const instances: number[] = [];
    const handled: string[] = [];
    let finishStart!: () => void;
    const starting = new Promise<void>((resolve) => (finishStart = resolve));
    class SlowStart extends Actor<string> {
      readonly n = instances.push(instances.length + 1);
      override preStart(): Promise<void> {
        return starting;
      }
      onReceive(m: string): void {
        handled.push(`${m} by ${this.n}`);
      }
    }
    const refs = await escalatingGroup(system, () => new SlowStart());
    refs.failing.tell("fail"); // escalated while it still starts; resumed
    refs.sibling.tell("hello");
    await settle();
    finishStart();
    await settle();
    assert.deepEqual(instances, [1], "started once");
    assert.deepEqual(handled, ["hello by 1"]);
    assert.equal(started.filter((e) => e.ref === refs.sibling).length, 1);
  });

  it("Resume keeps the child's instance and state; the failing message goes to dead letters", async () => {
    const dead = collectDeadLetters(system);
    const failed = collect(system, ActorFailed);
    const { kids, log } = family(
      system,
      new OneForOneStrategy(() => Directive.Resume),
    );
    await settle();
    const child = kids.child;
    for (const m of ["inc", "inc", "throw:Error", "inc"]) child.tell(m);
    assert.equal(await child.ask("get"), 3);
    assert.deepEqual(log, ["child#1 preStart"]);
    assert.deepEqual(failed.map((f) => [f.ref, f.directive]), [[
      child,
      "resume",
    ]]);
    assert.deepEqual(dead.map((d) => [d.message, d.recipient, d.reason]), [
      ["throw:Error", child, "processing failed: Error: plain"],
    ]);
  });

  it("Restart makes a fresh instance behind the same ref, keeping the queued messages", async () => {
    const dead = collectDeadLetters(system);
    const restarted = collect(system, ActorRestarted);
    const { kids, log } = family(
      system,
      new OneForOneStrategy(() => Directive.Restart),
    );
    await settle();
    const child = kids.child;
    for (const m of ["inc", "inc", "throw:Error", "inc"]) child.tell(m);
    assert.equal(await child.ask("get"), 1);
    assert.deepEqual(log, [
      "child#1 preStart",
      "child#1 preRestart Error: plain throw:Error",
      "child#1 postStop",
      "child#2 postRestart Error: plain",
      "child#2 preStart",
    ]);
    assert.deepEqual(restarted.map((r) => r.ref), [child]);
    assert.match(String(restarted[0].reason), /plain/);
    assert.deepEqual(dead.map((d) => [d.message, d.reason]), [
      ["throw:Error", "processing failed: Error: plain"],
    ]);
  });

  it("Restart stops the failed child's own children (default preRestart) before the new instance starts", async () => {
    const dead = collectDeadLetters(system);
    const { kids, log } = family(
      system,
      new OneForOneStrategy(() => Directive.Restart),
      ["child"],
      "grandchild",
    );
    await settle();
    const child = kids.child;
    child.tell("throw:Error");
    await settle();
    assert.deepEqual(log, [
      "child#1 preStart",
      "grandchild#1 preStart",
      "child#1 preRestart Error: plain throw:Error",
      "child#1 postStop",
      "grandchild#1 postStop",
      "child#2 postRestart Error: plain",
      "child#2 preStart",
      "grandchild#2 preStart",
    ]);
    // The new instance finds the fresh grandchild under the old name: no dead letter.
    child.tell("grandchild>inc");
    await settle();
    assert.equal(dead.length, 1); // only the failing message
  });

  it("Stop stops the child for good: postStop runs, later messages are dead letters", async () => {
    const dead = collectDeadLetters(system);
    const stopped = collect(system, ActorStopped);
    const failed = collect(system, ActorFailed);
    const { kids, log } = family(
      system,
      new OneForOneStrategy(() => Directive.Stop),
    );
    await settle();
    const child = kids.child;
    child.tell("throw:Error");
    child.tell("queued");
    await settle();
    child.tell("later");
    assert.deepEqual(log, ["child#1 preStart", "child#1 postStop"]);
    assert.deepEqual(stopped.map((s) => s.ref), [child]);
    assert.deepEqual(failed.map((f) => f.directive), ["stop"]);
    assert.deepEqual(dead.map((d) => [d.message, d.reason]), [
      ["throw:Error", "processing failed: Error: plain"],
      ["queued", "recipient stopped"],
      ["later", "recipient stopped"],
    ]);
  });

  it("stoppingStrategy stops any failing child", async () => {
    const stopped = collect(system, ActorStopped);
    const { kids } = family(system, stoppingStrategy);
    await settle();
    kids.child.tell("throw:RangeError");
    await settle();
    assert.deepEqual(stopped.map((s) => s.ref), [kids.child]);
  });

  it("a decider that throws or returns nonsense escalates", () => {
    const throwing = new OneForOneStrategy(() => {
      throw new Error("broken decider");
    });
    const nonsense = new OneForOneStrategy(() => "retry" as Directive);
    assert.equal(throwing.decide(new Error("x")), "escalate");
    assert.equal(nonsense.decide(new Error("x")), "escalate");
  });
});

describe("Escalate", () => {
  let system: ActorSystem;
  beforeEach(() => {
    Worker.incarnations.clear();
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  /** grandparent → parent (escalates every failure) → child. */
  function threeGenerations(grandStrategy: FaultHandlingStrategy) {
    const kids: Record<string, ActorRef<string>> = {};
    const log: string[] = [];
    const parents: Record<string, ActorRef<string>> = {};
    const escalating = new OneForOneStrategy(() => Directive.Escalate);
    class Grandparent extends Actor<string> {
      override readonly supervisorStrategy = grandStrategy;
      override preStart(): void {
        parents.parent = this.context.actorOf(
          Props.create(() =>
            new LoggingParent(escalating, kids, ["child"], log)
          ),
          "parent",
        );
      }
      onReceive(): void {}
    }
    class LoggingParent extends Parent {
      override preRestart(reason: unknown, message?: unknown): void {
        log.push(`parent preRestart ${String(reason)} ${String(message)}`);
        super.preRestart(reason, message);
      }
      override postStop(): void {
        log.push("parent postStop");
      }
    }
    system.actorOf(Props.create(() => new Grandparent()), "grandparent");
    return { kids, log, parents };
  }

  it("fails the parent with the child's own error, and the grandparent decides", async () => {
    const seen: unknown[] = [];
    const failed = collect(system, ActorFailed);
    const { kids, log, parents } = threeGenerations(
      new OneForOneStrategy((error) => {
        seen.push(error);
        return Directive.Restart;
      }),
    );
    await settle();
    const oldChild = kids.child;
    oldChild.tell("throw:Special");
    await settle();
    assert.equal(seen.length, 1);
    assert.ok(seen[0] instanceof Special);
    assert.deepEqual(
      failed.map((f) => [f.ref.path, f.directive, f.error]),
      [
        ["/user/grandparent/parent/child", "escalate", seen[0]],
        ["/user/grandparent/parent", "restart", seen[0]],
      ],
    );
    // The parent restarted, stopping the old child and creating a new one.
    assert.deepEqual(log, [
      "child#1 preStart",
      "parent preRestart TypeError: special undefined",
      "parent postStop", // the default preRestart asks the children to stop, then runs postStop
      "child#1 postStop",
      "child#2 preStart", // the new instance starts once the old children are gone
    ]);
    assert.notEqual(kids.child, oldChild);
    assert.equal(kids.child.path, oldChild.path);
    assert.equal(parents.parent.path, "/user/grandparent/parent");
  });

  it("stops parent and child when the grandparent decides Stop", async () => {
    const stopped = collect(system, ActorStopped);
    const { kids, parents } = threeGenerations(
      new OneForOneStrategy(() => Directive.Stop),
    );
    await settle();
    kids.child.tell("throw:Error");
    await settle();
    assert.deepEqual(stopped.map((s) => s.ref), [kids.child, parents.parent]);
  });

  it("resumes parent and child, state kept, when the grandparent decides Resume", async () => {
    const { kids } = threeGenerations(
      new OneForOneStrategy(() => Directive.Resume),
    );
    await settle();
    for (const m of ["inc", "inc", "throw:Error", "inc"]) kids.child.tell(m);
    assert.equal(await kids.child.ask("get"), 3);
  });

  it("a sibling already stopping stays stopping when its group escalates and is resumed: what it is sent is a dead letter", async () => {
    const dead = collectDeadLetters(system);
    const stopped = collect(system, ActorStopped);
    const handled: string[] = [];
    let releaseStop!: () => void;
    const stopping = new Promise<void>((r) => (releaseStop = r));
    class SlowToStop extends Actor<string> {
      onReceive(m: string): void {
        handled.push(m);
      }
      override postStop(): Promise<void> {
        return stopping; // still stopping when the sibling fails
      }
    }
    const refs = await escalatingGroup(system, () => new SlowToStop());
    system.stop(refs.sibling);
    await settle();
    refs.failing.tell("fail"); // the group escalates; its parent resumes it
    await settle();
    refs.sibling.tell("after its stop began");
    await settle();
    releaseStop();
    await settle();
    assert.deepEqual(handled, []);
    assert.deepEqual(
      dead.map((d) => d.message),
      ["fail", "after its stop began"],
    );
    assert.ok(stopped.some((e) => e.ref === refs.sibling), "its stop ended");
  });

  for (const handler of ["sync", "async"] as const) {
    it(`a parent whose supervisorStrategy getter throws escalates its child's failure (${handler} handler): nothing wedged, nothing lost`, async () => {
      const dead = collectDeadLetters(system);
      const restarted = collect(system, ActorRestarted);
      const refs: Record<string, ActorRef<string>> = {};
      const handled: string[] = [];
      class Failing extends Actor<string> {
        onReceive(m: string): void | Promise<void> {
          if (m !== "boom") return void handled.push(m);
          if (handler === "async") return Promise.reject(new Error("boom"));
          throw new Error("boom");
        }
      }
      class BrokenGetter extends Actor<string> {
        constructor() {
          super();
          // Good when the runtime checks it at the start, then it throws.
          let reads = 0;
          Object.defineProperty(this, "supervisorStrategy", {
            get: () => {
              if (reads++ === 0) return new OneForOneStrategy(() => "restart");
              throw new Error("strategy getter");
            },
          });
        }
        override preStart(): void {
          refs.child = this.context.actorOf(
            Props.create(() => new Failing()),
            "child",
          );
        }
        onReceive(): void {}
      }
      refs.parent = system.actorOf(
        Props.create(() => new BrokenGetter()),
        "parent",
      );
      await settle();
      refs.child.tell("boom");
      await settle();
      refs.child.tell("after");
      await settle();
      assert.ok(
        restarted.some((e) => e.ref === refs.parent),
        "the parent failed, and its own parent restarted it",
      );
      // The child restarted with its parent, and handles what comes next.
      assert.deepEqual(dead.map((d) => d.message), ["boom"]);
      assert.deepEqual(handled, ["after"]);
    });
  }
});

describe("decideByErrorClass", () => {
  let system: ActorSystem;
  beforeEach(() => {
    Worker.incarnations.clear();
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  it("picks the directive of the most specific matching error class, in any order", async () => {
    const failed = collect(system, ActorFailed);
    const decider = decideByErrorClass(
      [[Error, Directive.Stop], [Special, Directive.Restart], [
        TypeError,
        Directive.Resume,
      ]],
      Directive.Resume,
    );
    const { kids } = family(system, new OneForOneStrategy(decider), [
      "a",
      "b",
      "c",
      "d",
    ]);
    await settle();
    kids.a.tell("throw:Special");
    kids.b.tell("throw:TypeError");
    kids.c.tell("throw:RangeError");
    kids.d.tell("throw:string");
    await settle();
    const byPath = Object.fromEntries(
      failed.map((f) => [f.ref.path.slice(-1), f.directive]),
    );
    assert.deepEqual(byPath, {
      a: "restart",
      b: "resume",
      c: "stop",
      d: "resume",
    });
  });

  it("escalates an error no class matches, unless told otherwise", () => {
    const decider = decideByErrorClass([[TypeError, Directive.Resume]]);
    assert.equal(decider(new RangeError("x")), "escalate");
    assert.equal(decider(new TypeError("x")), "resume");
    assert.equal(decideByErrorClass([], "stop")(new Error("x")), "stop");
  });

  it("rejects a case that is not an error class or not a directive, naming the value", () => {
    assert.throws(
      () => decideByErrorClass([["Error" as unknown as typeof Error, "stop"]]),
      (e: unknown) =>
        e instanceof TypeError &&
        e.message ===
          'Cannot build decideByErrorClass: "cases[0][0]" must be an error class, such as TypeError (got "Error")',
    );
    assert.throws(
      () => decideByErrorClass([[Error, "retry" as Directive]]),
      (e: unknown) =>
        e instanceof TypeError &&
        e.message ===
          'Cannot build decideByErrorClass: "cases[0][1]" must be "resume", "restart", "stop" or "escalate" (got "retry")',
    );
  });
});

describe("AllForOneStrategy", () => {
  let system: ActorSystem;
  beforeEach(() => {
    Worker.incarnations.clear();
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  it("restarts every child when one fails", async () => {
    const restarted = collect(system, ActorRestarted);
    const { kids } = family(
      system,
      new AllForOneStrategy(() => Directive.Restart),
      ["a", "b", "c"],
    );
    await settle();
    for (const kid of Object.values(kids)) kid.tell("inc");
    await settle();
    kids.b.tell("throw:Error");
    await settle();
    assert.deepEqual(restarted.map((r) => r.ref.path).sort(), [
      "/user/parent/a",
      "/user/parent/b",
      "/user/parent/c",
    ]);
    for (const kid of Object.values(kids)) {
      assert.equal(await kid.ask("get"), 0);
    }
  });

  it("a sibling restarted before it ran keeps its waiting messages, in order, for the fresh instance", async () => {
    const { kids } = family(
      system,
      new AllForOneStrategy(() => Directive.Restart),
      ["a", "b"],
    );
    await settle();
    // a fails before b gets its turn: b's three messages are still waiting
    // (the first sent to b while it was idle, the rest behind it).
    kids.a.tell("throw:Error");
    for (const m of ["inc", "inc", "inc"]) kids.b.tell(m);
    await settle();
    assert.equal(Worker.incarnations.get("b"), 2);
    assert.equal(await kids.b.ask("get"), 3);
  });

  it("stops every child when one fails with Stop", async () => {
    const stopped = collect(system, ActorStopped);
    const { kids } = family(
      system,
      new AllForOneStrategy(() => Directive.Stop),
      ["a", "b"],
    );
    await settle();
    kids.a.tell("throw:Error");
    await settle();
    assert.deepEqual(stopped.map((s) => s.ref.path).sort(), [
      "/user/parent/a",
      "/user/parent/b",
    ]);
  });

  it("resumes only the failed child", async () => {
    const { kids } = family(
      system,
      new AllForOneStrategy(() => Directive.Resume),
      ["a", "b"],
    );
    await settle();
    for (const m of ["inc", "throw:Error", "inc"]) kids.a.tell(m);
    kids.b.tell("inc");
    assert.equal(await kids.a.ask("get"), 2);
    assert.equal(await kids.b.ask("get"), 1);
  });

  it("counts a group restart against the group: maxRetries 2 and failures of a, b, b stop at the third (Akka, OTP)", async () => {
    const restarted = collect(system, ActorRestarted);
    const stopped = collect(system, ActorStopped);
    const { kids } = family(
      system,
      new AllForOneStrategy(() => Directive.Restart, { maxRetries: 2 }),
      ["a", "b"],
    );
    await settle();
    for (const failing of ["a", "b", "b"]) {
      kids[failing].tell("throw:Error");
      await settle();
    }
    // Two group restarts of both children, then the limit stops the group.
    assert.equal(restarted.length, 4);
    assert.deepEqual(stopped.map((s) => s.ref.path).sort(), [
      "/user/parent/a",
      "/user/parent/b",
    ]);
  });

  it("RestForOneStrategy charges each child it restarts: a failure of a spends b's one restart too", async () => {
    const stopped = collect(system, ActorStopped);
    const { kids } = family(
      system,
      new RestForOneStrategy(() => Directive.Restart, { maxRetries: 1 }),
      ["a", "b"],
    );
    await settle();
    kids.a.tell("throw:Error"); // restarts a and b: each has used its one
    await settle();
    kids.b.tell("throw:Error"); // b's limit: b stops; a runs on
    await settle();
    assert.deepEqual(stopped.map((s) => s.ref.path), ["/user/parent/b"]);
    kids.a.tell("inc");
    assert.equal(await kids.a.ask("get"), 1);
  });

  it("OneForOneStrategy restarts only the failed child", async () => {
    const restarted = collect(system, ActorRestarted);
    const { kids } = family(
      system,
      new OneForOneStrategy(() => Directive.Restart),
      ["a", "b"],
    );
    await settle();
    kids.b.tell("inc");
    kids.a.tell("throw:Error");
    await settle();
    assert.deepEqual(restarted.map((r) => r.ref), [kids.a]);
    assert.equal(await kids.b.ask("get"), 1);
  });
});

describe("Restart limits", () => {
  let system: ActorSystem;
  let clock: Clock;
  beforeEach(() => {
    Worker.incarnations.clear();
    clock = installClock();
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
    clock.uninstall();
  });

  /** Fails the child `failures` times, `spacingMs` apart; returns restarts granted and whether it stopped. */
  async function failRepeatedly(
    strategy: FaultHandlingStrategy | undefined,
    failures: number,
    spacingMs = 0,
  ): Promise<{ restarts: number; stopped: boolean }> {
    const restarted = collect(system, ActorRestarted);
    const stopped = collect(system, ActorStopped);
    let child!: ActorRef<string>;
    class DefaultParent extends Actor<string> {
      override preStart(): void {
        child = this.context.actorOf(
          Props.create(() => new Worker("child", [])),
          "child",
        );
      }
      onReceive(): void {}
    }
    if (strategy === undefined) {
      system.actorOf(Props.create(() => new DefaultParent()), "parent");
    } else {
      const f = family(system, strategy);
      await clock.tickAsync(0);
      child = f.kids.child;
    }
    await clock.tickAsync(0);
    for (let i = 0; i < failures; i++) {
      if (i > 0 && spacingMs > 0) await clock.tickAsync(spacingMs);
      child.tell("throw:Error");
      await clock.tickAsync(0);
    }
    return {
      restarts: restarted.filter((r) => r.ref === child).length,
      stopped: stopped.some((s) => s.ref === child),
    };
  }

  for (const maxRetries of [0, 1, 3]) {
    it(`maxRetries: ${maxRetries} grants exactly ${maxRetries} restart(s) within the window, then stops`, async () => {
      const strategy = new OneForOneStrategy(() => Directive.Restart, {
        maxRetries,
        withinTimeRangeMs: 60_000,
      });
      assert.deepEqual(await failRepeatedly(strategy, maxRetries + 3), {
        restarts: maxRetries,
        stopped: true,
      });
    });
  }

  it("maxRetries without a window counts forever", async () => {
    const strategy = new OneForOneStrategy(() => Directive.Restart, {
      maxRetries: 2,
    });
    assert.deepEqual(await failRepeatedly(strategy, 3, 3_600_000), {
      restarts: 2,
      stopped: true,
    });
  });

  it("no limits at all restarts every time", async () => {
    const strategy = new OneForOneStrategy(() => Directive.Restart);
    assert.deepEqual(await failRepeatedly(strategy, 50), {
      restarts: 50,
      stopped: false,
    });
  });

  it("defaultStrategy is what an actor uses unless it overrides supervisorStrategy", async () => {
    assert.equal(defaultStrategy.maxRetries, 10);
    assert.equal(defaultStrategy.withinTimeRangeMs, 60_000);
    assert.deepEqual(await failRepeatedly(undefined, 11), {
      restarts: 10,
      stopped: true,
    });
  });

  it("defaultStrategy: 10 failures in a minute are restarted, the 11th stops", async () => {
    assert.deepEqual(await failRepeatedly(defaultStrategy, 11), {
      restarts: 10,
      stopped: true,
    });
  });

  it("defaultStrategy: an 11th failure exactly at the end of the window still counts in it", async () => {
    const restarted = collect(system, ActorRestarted);
    const stopped = collect(system, ActorStopped);
    const { kids } = family(system, defaultStrategy);
    await clock.tickAsync(0);
    for (let i = 0; i < 10; i++) kids.child.tell("throw:Error");
    await clock.tickAsync(60_000);
    kids.child.tell("throw:Error");
    await clock.tickAsync(0);
    assert.equal(restarted.length, 10);
    assert.deepEqual(stopped.map((s) => s.ref), [kids.child]);
  });

  it("defaultStrategy: a failure after the window opens a new one", async () => {
    const restarted = collect(system, ActorRestarted);
    const stopped = collect(system, ActorStopped);
    const { kids } = family(system, defaultStrategy);
    await clock.tickAsync(0);
    for (let i = 0; i < 10; i++) kids.child.tell("throw:Error");
    await clock.tickAsync(60_001);
    for (let i = 0; i < 10; i++) kids.child.tell("throw:Error");
    await clock.tickAsync(0);
    assert.equal(restarted.length, 20);
    assert.equal(stopped.length, 0);
  });

  it("defaultStrategy: failures spread beyond the window keep restarting", async () => {
    assert.deepEqual(await failRepeatedly(defaultStrategy, 30, 6_100), {
      restarts: 30,
      stopped: false,
    });
  });

  it("counts failures of the start itself: an actor whose preStart always throws is stopped", async () => {
    let constructed = 0;
    const stopped = collect(system, ActorStopped);
    class NeverStarts extends Actor<string> {
      constructor() {
        super();
        constructed++;
      }
      override preStart(): void {
        throw new Error("cannot start");
      }
      onReceive(): void {}
    }
    class Holder extends Actor<string> {
      override supervisorStrategy = new OneForOneStrategy(
        () => Directive.Restart,
        {
          maxRetries: 3,
          withinTimeRangeMs: 60_000,
        },
      );
      override preStart(): void {
        this.context.actorOf(Props.create(() => new NeverStarts()), "never");
      }
      onReceive(): void {}
    }
    system.actorOf(Props.create(() => new Holder()), "holder");
    await clock.tickAsync(0);
    await settle();
    assert.equal(constructed, 4);
    assert.deepEqual(stopped.map((s) => s.ref.path), ["/user/holder/never"]);
  });
});

describe("Strategy options", () => {
  it("reject maxRetries below 0 or not whole, naming the option, the value and what is expected", () => {
    for (
      const [bad, shown] of [[-1, "-1"], [1.5, "1.5"], [NaN, "NaN"], [
        "3",
        '"3"',
      ], [-Infinity, "-Infinity"]] as const
    ) {
      for (const Strategy of [OneForOneStrategy, AllForOneStrategy]) {
        assert.throws(
          () => new Strategy(() => "restart", { maxRetries: bad as number }),
          (e: unknown) =>
            // A number out of range is a RangeError, a string a TypeError.
            e instanceof (typeof bad === "number" ? RangeError : TypeError) &&
            e.message ===
              `Cannot create ${Strategy.name}: "maxRetries" must be a whole number >= 0 or Infinity (got ${shown})`,
        );
      }
    }
  });

  it("reject a window that is not a positive number, naming it and the value", () => {
    for (const [bad, shown] of [[0, "0"], [-5, "-5"], [NaN, "NaN"]] as const) {
      assert.throws(
        () =>
          new OneForOneStrategy(() => "restart", { withinTimeRangeMs: bad }),
        (e: unknown) =>
          e instanceof RangeError &&
          e.message.includes(
            `"withinTimeRangeMs" must be a number of milliseconds > 0 or Infinity (got ${shown})`,
          ),
      );
    }
  });

  it("reject a decider that is not a function", () => {
    assert.throws(
      () => new OneForOneStrategy("restart" as unknown as () => Directive),
      (e: unknown) =>
        e instanceof TypeError &&
        /"decider" must be a function/.test(e.message) &&
        /got "restart"/.test(e.message),
    );
  });

  it("loggingEnabled: false keeps failures out of the log; by default they are logged with the child's path", async () => {
    for (const loggingEnabled of [true, false]) {
      Worker.incarnations.clear();
      const { records, sink } = logRecorder();
      const system = createSystem({ logLevel: "info", logger: sink });
      try {
        const { kids } = family(
          system,
          new OneForOneStrategy(() => Directive.Restart, { loggingEnabled }),
        );
        await settle();
        kids.child.tell("throw:Error");
        await settle();
        const errors = records.filter((r) => r.level === "error");
        if (loggingEnabled) {
          assert.equal(errors.length, 1);
          assert.equal(errors[0].path, "/user/parent/child");
          assert.equal(errors[0].message, "failed (restart)");
          assert.equal((errors[0].error as Error).message, "plain");
        } else {
          assert.equal(errors.length, 0);
        }
      } finally {
        await system.terminate();
      }
    }
  });
});
