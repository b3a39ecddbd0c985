// Copyright 2026 the understudy authors. MIT license.
// Specification of failure containment: no value user code throws, rejects
// with or returns can stop the dispatcher or wedge an actor. Each is a
// failure of that actor, decided by its supervisor, and the rest of the
// system goes on (issue "The kernel never dies", findings 1-6 and 9).

import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  ActorFailed,
  type ActorRef,
  ActorStopped,
  type ActorSystem,
  AllForOneStrategy,
  DeadLetter,
  decideByErrorClass,
  type OneForOneStrategy,
  PoisonPill,
  Props,
  supervise,
  SupervisorStrategy,
  TypedStrategy,
} from "../../mod.ts";
import {
  collect,
  collectDeadLetters,
  createSystem,
  deferred,
  fnProps,
  logRecorder,
  settle,
  waitUntil,
} from "./_helpers.ts";

/** Values that `String()` or a naive error formatter cannot handle. */
function hostileValues(): [string, () => unknown][] {
  return [
    ["a null-prototype object", () => Object.create(null)],
    ["an object whose toString throws", () => ({
      toString() {
        throw new Error("no string for you");
      },
    })],
    ["a revoked Proxy", () => {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return proxy;
    }],
    ["an Error whose name getter throws", () => {
      const error = new Error("named badly");
      Object.defineProperty(error, "name", {
        get() {
          throw new Error("no name");
        },
      });
      return error;
    }],
    ["a bigint", () => 10n],
    ["a symbol", () => Symbol("thrown")],
    ["undefined", () => undefined],
  ];
}

/** A thenable whose `then` throws synchronously. */
const throwingThenable = {
  then() {
    throw new Error("then exploded");
  },
};

/** An actor that answers `ping` and so proves the dispatcher still runs. */
function sentinel(system: ActorSystem): ActorRef<string> {
  return system.actorOf(
    fnProps<string>((actor, message) => actor.sender?.tell(`pong:${message}`)),
    `sentinel-${Math.random().toString(36).slice(2)}`,
  );
}

async function assertAlive(system: ActorSystem): Promise<void> {
  const reply = await sentinel(system).ask<string>("ping", 2_000);
  assert.equal(reply, "pong:ping");
}

describe("failure containment", () => {
  let system: ActorSystem;
  let log: ReturnType<typeof logRecorder>;

  beforeEach(() => {
    log = logRecorder();
    system = createSystem({ logLevel: "debug", logger: log.sink });
  });

  afterEach(async () => {
    await system.terminate();
  });

  for (const [name, make] of hostileValues()) {
    describe(`a handler that fails with ${name}`, () => {
      it("when thrown: the message is a dead letter, the actor restarts and handles the next", async () => {
        const handled: string[] = [];
        const dead = collectDeadLetters(system);
        const ref = system.actorOf(
          fnProps<string>((_actor, message) => {
            if (message === "bad") throw make();
            handled.push(message);
          }),
        );
        ref.tell("bad");
        ref.tell("good");
        await waitUntil(() => handled.length === 1, "the next message");
        assert.deepEqual(handled, ["good"]);
        assert.equal(dead.length, 1);
        assert.equal(dead[0].message, "bad");
        assert.match(dead[0].reason, /^processing failed: /);
        await assertAlive(system);
      });

      it("when rejected: no unhandled rejection, and the actor is not wedged", async () => {
        const handled: string[] = [];
        const dead = collectDeadLetters(system);
        const ref = system.actorOf(
          fnProps<string>(async (_actor, message) => {
            await Promise.resolve();
            if (message === "bad") throw make();
            handled.push(message);
          }),
        );
        ref.tell("bad");
        ref.tell("good");
        await waitUntil(() => handled.length === 1, "the next message");
        assert.deepEqual(dead.map((d) => d.message), ["bad"]);
        await assertAlive(system);
      });

      it("when thrown by preStart, postStop or the Props factory", async () => {
        const failures = collect(system, ActorFailed);
        system.actorOf(Props.create(() => {
          throw make();
        }));
        class BadStart extends Actor<string> {
          override preStart(): void {
            throw make();
          }
          onReceive(): void {}
        }
        class BadStop extends Actor<string> {
          override postStop(): Promise<void> {
            return Promise.reject(make());
          }
          onReceive(): void {
            this.context.stopSelf();
          }
        }
        const stopFailures = log.records;
        system.actorOf(Props.create(() => new BadStart()));
        const stopper = system.actorOf(Props.create(() => new BadStop()));
        await settle();
        stopper.tell("stop");
        await waitUntil(
          () => stopFailures.some((r) => /postStop failed/.test(r.message)),
          "the postStop failure log",
        );
        assert.ok(failures.length >= 2, "both start failures were reported");
        await assertAlive(system);
      });
    });
  }

  it("a thenable whose then() throws is a failure of the handler (finding 2)", async () => {
    const handled: string[] = [];
    const dead = collectDeadLetters(system);
    const ref = system.actorOf(
      fnProps<string>((_actor, message) => {
        if (message === "bad") {
          return throwingThenable as unknown as Promise<void>;
        }
        handled.push(message);
      }),
    );
    ref.tell("bad");
    ref.tell("good");
    await waitUntil(() => handled.length === 1, "the next message");
    assert.deepEqual(dead.map((d) => d.message), ["bad"]);
    assert.match(dead[0].reason, /then exploded/);
    await assertAlive(system);
  });

  for (
    const [kind, hostile, failed] of [
      [
        "an own then() that throws",
        (p: Promise<void>) =>
          Object.defineProperty(p, "then", {
            value: () => {
              throw new Error("then exploded");
            },
          }),
        false,
      ],
      [
        "a constructor that throws",
        (p: Promise<void>) =>
          Object.defineProperty(p, "constructor", {
            get() {
              throw new Error("constructor exploded");
            },
          }),
        true,
      ],
    ] as const
  ) {
    it(
      `a native promise with ${kind}: from a handler, ${
        failed
          ? "a failure of the handler"
          : "as it settled, its own then unasked"
      }; from postStop, the stop still ends`,
      async () => {
        const handled: string[] = [];
        const dead = collectDeadLetters(system);
        const stopped = collect(system, ActorStopped);
        class Hostile extends Actor<string> {
          onReceive(message: string): void | Promise<void> {
            if (message === "bad") return hostile(Promise.resolve());
            handled.push(message);
          }
          override postStop(): Promise<void> {
            return hostile(Promise.resolve());
          }
        }
        const ref = system.actorOf(Props.create(() => new Hostile()));
        ref.tell("bad");
        ref.tell("good");
        await waitUntil(() => handled.length === 1, "the next message");
        assert.deepEqual(dead.map((d) => d.message), failed ? ["bad"] : []);
        if (failed) assert.match(dead[0].reason, /constructor exploded/);
        system.stop(ref);
        await waitUntil(
          () => stopped.some((e) => e.ref === ref),
          "the end of its stop",
        );
        await assertAlive(system);
      },
    );
  }

  it("a parent instance that is a Proxy throwing on symbol keys: a child's stop still ends, and what was queued behind it is a dead letter", async () => {
    const dead = collectDeadLetters(system);
    const stopped = collect(system, ActorStopped);
    const handled: string[] = [];
    const refs: Record<string, ActorRef<string>> = {};
    class Parent extends Actor<string> {
      override preStart(): void {
        refs.child = this.context.actorOf(
          fnProps<string>((_actor, message) => void handled.push(message)),
          "child",
        );
      }
      onReceive(): void {}
    }
    system.actorOf(
      Props.create(() =>
        new Proxy(new Parent(), {
          get(target, key, receiver) {
            if (typeof key === "symbol") throw new TypeError("no symbols");
            return Reflect.get(target, key, receiver);
          },
        })
      ),
    );
    await settle();
    refs.child.tell("a");
    refs.child.tell(PoisonPill);
    refs.child.tell("b"); // behind the pill
    await waitUntil(
      () => stopped.some((e) => e.ref === refs.child),
      "the end of the child's stop",
    );
    assert.deepEqual(handled, ["a"]);
    assert.deepEqual(dead.map((d) => d.message), ["b"]);
    await assertAlive(system);
  });

  it("a thenable from preStart whose then() throws fails the start", async () => {
    const failures = collect(system, ActorFailed);
    class Start extends Actor<string> {
      override preStart(): Promise<void> {
        return throwingThenable as unknown as Promise<void>;
      }
      onReceive(): void {}
    }
    system.actorOf(Props.create(() => new Start()));
    await waitUntil(() => failures.length > 0, "the start failure");
    assert.match(String((failures[0].error as Error).message), /then exploded/);
    await assertAlive(system);
  });

  it("a listener and a log sink that throw hostile values change nothing", async () => {
    const quiet = createSystem({
      logLevel: "debug",
      logger: () => {
        throw Object.create(null);
      },
    });
    try {
      quiet.eventStream.subscribe(() => {
        const { proxy, revoke } = Proxy.revocable({}, {});
        revoke();
        throw proxy;
      });
      const ref = quiet.actorOf(fnProps<string>(() => {
        throw new Error("boom");
      }));
      ref.tell("x");
      await assertAlive(quiet);
    } finally {
      await quiet.terminate();
    }
  });

  it("keeps a hostile thrown value as the log record's error without throwing", async () => {
    const ref = system.actorOf(fnProps<string>(() => {
      throw Object.create(null);
    }));
    ref.tell("x");
    await waitUntil(
      () => log.records.some((r) => r.level === "error"),
      "the failure log",
    );
    const line = log.records.find((r) => r.level === "error")!;
    assert.equal(line.message, "failed (restart)");
    assert.equal(Object.getPrototypeOf(line.error), null);
  });

  it("a runtime fault escaping a turn fails that actor and the dispatcher goes on", async () => {
    const handled: string[] = [];
    const ref = system.actorOf(
      fnProps<string>((_actor, message) => {
        handled.push(message);
      }),
    );
    await settle();
    // Inject a fault where no user code runs: the cell's own turn.
    const cell = ref as unknown as { run(): void };
    const original = cell.run;
    cell.run = function () {
      cell.run = original; // once
      throw Object.create(null);
    };
    ref.tell("handed before the fault");
    await settle();
    ref.tell("after");
    await waitUntil(() => handled.includes("after"), "the actor to go on");
    await assertAlive(system);
    // Its turn had not begun: it stayed first in the mailbox.
    assert.deepEqual(handled, ["handed before the fault", "after"]);
    assert.ok(
      log.records.some((r) =>
        r.level === "error" && /runtime fault/.test(r.message)
      ),
      "the fault was logged",
    );
  });

  it("a runtime fault in the middle of a turn makes that turn's message a dead letter, once", async () => {
    const dead = collectDeadLetters(system);
    const handled: string[] = [];
    const ref = system.actorOf(
      fnProps<string>((actor, message) => {
        // A receive timeout makes the turn note each message's arrival.
        if (message === "first") actor.context.setReceiveTimeout(60_000);
        if (typeof message === "string") handled.push(message);
      }),
    );
    ref.tell("first");
    await waitUntil(() => handled.length === 1, "the first message");
    // Inject a fault where no user code runs, after the turn has taken its
    // message: the cell's own reading of the clock, to note its arrival.
    const cell = ref as unknown as { now(): number };
    const now = cell.now;
    cell.now = function (): number {
      cell.now = now; // once
      throw new Error("injected runtime fault");
    };
    ref.tell("in the faulty turn");
    ref.tell("after");
    await waitUntil(() => handled.includes("after"), "the actor to go on");
    await assertAlive(system);
    assert.deepEqual(handled, ["first", "after"]);
    const letters = dead.filter((d) => d.message === "in the faulty turn");
    assert.equal(letters.length, 1);
    assert.match(
      letters[0].reason,
      /^processing failed: .*injected runtime fault/,
    );
    assert.ok(
      log.records.some((r) =>
        r.level === "error" && /runtime fault/.test(r.message)
      ),
      "the fault was logged",
    );
  });
});

describe("strategies are checked where they are given (findings 1 and 4)", () => {
  it("guardianStrategy must be a strategy", () => {
    assert.throws(
      () =>
        createSystem({
          guardianStrategy: (() => "restart") as unknown as OneForOneStrategy,
        }),
      (e: unknown) =>
        e instanceof TypeError &&
        /"guardianStrategy" must be/.test(e.message) &&
        /function/.test(e.message),
    );
  });

  it("an actor's supervisorStrategy field that is not a strategy fails that actor's start", async () => {
    const system = createSystem();
    try {
      const failures = collect(system, ActorFailed);
      class Parent extends Actor<string> {
        override supervisorStrategy = { decide: () => "restart" } as never;
        onReceive(): void {}
      }
      system.actorOf(Props.create(() => new Parent()));
      await waitUntil(() => failures.length > 0, "the start failure");
      assert.ok(failures[0].error instanceof TypeError);
      assert.match(
        (failures[0].error as Error).message,
        /"supervisorStrategy" must be a OneForOneStrategy, AllForOneStrategy or RestForOneStrategy \(got an object \(Object\)\)/,
      );
      await assertAlive(system);
    } finally {
      await system.terminate();
    }
  });

  it("errors name the option and show bigints, symbols and null-prototype objects safely (finding 9)", () => {
    assert.throws(
      () => createSystem({ logLevel: 10n as never }),
      (e: unknown) =>
        e instanceof RangeError && /"logLevel" .*\(got 10n\)/.test(e.message),
    );
    assert.throws(
      () => new AllForOneStrategy(() => "stop", Symbol("x") as never),
      (e: unknown) =>
        e instanceof TypeError &&
        /"limits" must be an object .*\(got Symbol\(x\)\)/.test(e.message),
    );
    assert.throws(
      () => decideByErrorClass(Object.create(null)),
      (e: unknown) =>
        e instanceof TypeError &&
        /"cases" must be an array .*\(got an object \(no prototype\)\)/.test(
          e.message,
        ),
    );
    assert.throws(
      () => Props.create(() => undefined as never, null as never),
      /"options" must be an object \(got null\)/,
    );
  });

  it("a typed strategy of an unknown kind is rejected", () => {
    assert.throws(
      () => new TypedStrategy("Restart" as never),
      (e: unknown) =>
        e instanceof TypeError && /"kind" must be/.test(e.message) &&
        /"Restart"/.test(e.message),
    );
  });

  it("onFailure rejects an arrow function as error class and a non-strategy", () => {
    const props = supervise(fnProps(() => {}));
    assert.throws(
      () =>
        props.onFailure(
          (() => {}) as never,
          SupervisorStrategy.restart,
        ),
      /"errorClass" must be an error class/,
    );
    assert.throws(
      () => props.onFailure(Error, { kind: "restart" } as never),
      /"strategy" must be a strategy from SupervisorStrategy/,
    );
  });

  it("restartWithBackoff needs a policy with delayFor", () => {
    assert.throws(
      () =>
        SupervisorStrategy.restartWithBackoff({
          minBackoff: 10,
          maxBackoff: 100,
          policy: {} as never,
        }),
      (e: unknown) =>
        e instanceof TypeError &&
        /"policy" must be a BackoffPolicy .*\(got an object \(Object\)\)/.test(
          e.message,
        ),
    );
  });

  it("a backoff policy that throws waits maxBackoff and restarts anyway", async () => {
    const system = createSystem();
    try {
      const handled: string[] = [];
      const props = supervise(fnProps<string>((_actor, message) => {
        if (message === "bad") throw new Error("bad");
        handled.push(message);
      })).onFailure(
        Error,
        SupervisorStrategy.restartWithBackoff({
          minBackoff: 1,
          maxBackoff: 5,
          policy: {
            delayFor() {
              throw Object.create(null);
            },
          },
        }),
      );
      const ref = system.actorOf(props);
      ref.tell("bad");
      ref.tell("good");
      await waitUntil(() => handled.length === 1, "the restarted actor");
      assert.deepEqual(handled, ["good"]);
    } finally {
      await system.terminate();
    }
  });

  it("subscribe(Class, undefined) and a class without prototype are rejected (finding 9)", () => {
    const system = createSystem();
    try {
      assert.throws(
        () => system.eventStream.subscribe(DeadLetter, undefined as never),
        /"listener" must be a function \(got undefined\)/,
      );
      assert.throws(
        () => system.eventStream.subscribe((() => {}) as never, () => {}),
        /"eventClass" must be a class/,
      );
    } finally {
      void system.terminate();
    }
  });
});

/**
 * A parent (AllForOneStrategy: restart) of `worker`, named "worker", and of
 * a child that throws on what it is sent: the parent passes "crash" to that
 * child, whose failure restarts the worker too (leaving a handler of it in
 * flight behind), and anything else to the worker, with its sender.
 */
function restartingParent(
  system: ActorSystem,
  worker: Props<string>,
): ActorRef<string> {
  class Parent extends Actor<string> {
    override supervisorStrategy = new AllForOneStrategy(() => "restart");
    readonly worker = this.context.actorOf(worker, "worker");
    readonly crashing = this.context.actorOf(
      fnProps<string>(() => {
        throw new Error("crash");
      }),
      "crashing",
    );
    onReceive(message: string): void {
      if (message === "crash") this.crashing.tell(message);
      else this.worker.tell(message, this.sender as ActorRef<never>);
    }
  }
  return system.actorOf(Props.create(() => new Parent()));
}

describe("exactly-once accounting across restarts (finding 5)", () => {
  it("a sibling's async handler that rejects after an AllForOne restart dead-letters its message once", async () => {
    const system = createSystem();
    try {
      const dead = collectDeadLetters(system);
      const slow = deferred();
      const started = deferred();
      const parent = restartingParent(
        system,
        fnProps<string>(async () => {
          started.resolve();
          await slow.promise;
        }),
      );
      parent.tell("in flight");
      await started.promise;
      parent.tell("crash"); // restarts both children while "in flight" runs
      await settle();
      slow.reject(new Error("late failure"));
      await waitUntil(
        () => dead.some((d) => d.message === "in flight"),
        "the late failure's dead letter",
      );
      await settle();
      assert.equal(dead.filter((d) => d.message === "in flight").length, 1);
      assert.match(
        dead.find((d) => d.message === "in flight")!.reason,
        /after the actor was restarted/,
      );
    } finally {
      await system.terminate();
    }
  });
});

describe("exactly-once accounting for a message stashed by a handler left behind", () => {
  for (const ending of ["rejects", "never settles"] as const) {
    it(`is delivered again after the restart and, when the old handler ${ending}, not also a dead letter`, async () => {
      const system = createSystem({ shutdownTimeoutMs: 50 });
      const slow = deferred();
      try {
        const dead = collectDeadLetters(system);
        const seen: string[] = [];
        let instances = 0;
        class Worker extends Actor<string> {
          readonly instance = ++instances;
          async onReceive(message: string): Promise<void> {
            seen.push(`${message} (${this.instance})`);
            if (this.instance > 1) return;
            this.context.stash(); // put aside, then still in flight
            await slow.promise;
          }
        }
        const parent = restartingParent(
          system,
          Props.create(() => new Worker()),
        );
        parent.tell("job");
        await waitUntil(() => seen.length === 1, "the first turn");
        parent.tell("crash"); // restarts both children while "job" runs
        await waitUntil(() => seen.length === 2, "the fresh instance's turn");
        assert.deepEqual(seen, ["job (1)", "job (2)"]);
        if (ending === "rejects") slow.reject(new Error("late failure"));
        // Long enough for a left-behind handler to be abandoned (50 ms).
        await new Promise((resolve) => setTimeout(resolve, 120));
        assert.deepEqual(dead.filter((d) => d.message === "job"), []);
      } finally {
        slow.resolve();
        await system.terminate();
      }
    });
  }
});

describe("a handler left behind by a restart", () => {
  for (const caught of [true, false]) {
    it(
      `sees its own message's sender, cannot stash (${
        caught ? "caught" : "uncaught: a dead letter of its own message, once"
      }), and its unstashAll, become, setReceiveTimeout and timers are ignored with a warning`,
      async () => {
        const log = logRecorder();
        const system = createSystem({ logLevel: "warn", logger: log.sink });
        const oldGate = deferred();
        const newGate = deferred();
        try {
          const dead = collectDeadLetters(system);
          const seen: string[] = [];
          const stale: unknown[] = [];
          let instances = 0;
          class Worker extends Actor<string> {
            readonly instance = ++instances;
            async onReceive(message: string): Promise<void> {
              seen.push(`${message} (${this.instance})`);
              if (this.instance > 1) {
                if (message === "second") await newGate.promise;
                return;
              }
              await oldGate.promise; // meanwhile a restart replaces this instance
              stale.push(this.sender);
              if (!caught) {
                stale.push("uncaught");
                this.context.stash(); // throws: the handler rejects
              }
              for (
                const call of [
                  () => this.context.become(() => {}),
                  () => this.context.unstashAll(),
                  () => this.context.setReceiveTimeout(1),
                  () =>
                    this.context.timers.startSingleTimer("late", "timer", 1),
                  () => this.context.stash(),
                ]
              ) {
                try {
                  call();
                  stale.push("no throw");
                } catch (error) {
                  stale.push(error instanceof TypeError && error.message);
                }
              }
            }
          }
          const parent = restartingParent(
            system,
            Props.create(() => new Worker()),
          );
          const jobSender = system.actorOf(fnProps(() => {}), "job-sender");
          const secondSender = system.actorOf(
            fnProps(() => {}),
            "second-sender",
          );
          parent.tell("job", jobSender);
          await waitUntil(() => seen.length === 1, "the first turn");
          parent.tell("crash"); // restarts the worker while "job" runs
          await waitUntil(() => instances === 2, "the fresh instance");
          parent.tell("second", secondSender);
          await waitUntil(() => seen.length === 2, "the fresh instance's turn");
          oldGate.resolve(); // the old handler goes on, during that turn
          await waitUntil(
            () => stale.length === (caught ? 6 : 2),
            "the old handler's calls",
          );
          assert.equal(stale[0], jobSender);
          if (caught) {
            assert.deepEqual(stale.slice(1, 5), [
              "no throw",
              "no throw",
              "no throw",
              "no throw",
            ]);
            assert.match(
              String(stale[5]),
              /^Cannot stash\(\) in \/user\/\$\d+\/worker from an instance a restart replaced/,
            );
            const warnings = log.records
              .filter((record) => record.level === "warn")
              .map((record) => record.message);
            for (
              const call of [
                "become",
                "unstashAll",
                "setReceiveTimeout",
                "timers.startSingleTimer",
              ]
            ) {
              assert.ok(
                warnings.some((w) =>
                  w.startsWith(`ignored ${call}() in /user/`)
                ),
                `a warning for ${call}: ${warnings.join("; ")}`,
              );
            }
          }
          newGate.resolve();
          parent.tell("third");
          await waitUntil(() => seen.length === 3, "the third turn");
          await settle();
          // "second" handled once, not stashed by the old handler; become not
          // installed by it either: "third" reached the fresh onReceive; and
          // no receive timeout or timer armed by it fired.
          await new Promise((resolve) => setTimeout(resolve, 20));
          assert.deepEqual(seen, ["job (1)", "second (2)", "third (2)"]);
          // Caught, the old handler returned: its message counts as handled.
          // Uncaught, it rejected: its message is a dead letter, once.
          assert.deepEqual(
            dead.map((d) => d.message),
            caught ? ["crash"] : ["crash", "job"],
          );
        } finally {
          oldGate.resolve();
          newGate.resolve();
          await system.terminate();
        }
      },
    );
  }
});

describe("a revoked Proxy queued as a message", () => {
  for (const timeout of [false, true]) {
    it(
      `is one dead letter, and the actor goes on${
        timeout ? " (with a receive timeout set, whose check looks first)" : ""
      }`,
      async () => {
        const system = createSystem();
        try {
          const dead = collectDeadLetters(system);
          const seen: unknown[] = [];
          const ref = system.actorOf(fnProps<unknown>((actor, message) => {
            if (message === "arm" && timeout) {
              actor.context.setReceiveTimeout(60_000);
            }
            seen.push(message);
          }));
          ref.tell("arm");
          await waitUntil(() => seen.length === 1, "the first turn");
          const { proxy, revoke } = Proxy.revocable({}, {});
          revoke();
          ref.tell("first"); // handed over: the proxy queues behind it
          ref.tell(proxy as never);
          ref.tell("after");
          await waitUntil(() => seen.includes("after"), "the actor to go on");
          await settle();
          assert.equal(dead.filter((d) => d.message === proxy).length, 1);
        } finally {
          await system.terminate();
        }
      },
    );
  }
});

describe("a frozen actor instance", () => {
  it("left behind by a restart keeps the actor's context, and a warning says so", async () => {
    const log = logRecorder();
    const system = createSystem({ logLevel: "warn", logger: log.sink });
    const gate = deferred();
    try {
      let started = false;
      class Frozen extends Actor<string> {
        constructor() {
          super();
          Object.freeze(this);
        }
        async onReceive(): Promise<void> {
          started = true;
          await gate.promise;
        }
      }
      const parent = restartingParent(
        system,
        Props.create(() => new Frozen()),
      );
      parent.tell("work");
      await waitUntil(() => started, "the handler in flight");
      parent.tell("crash"); // restarts the frozen one, its handler in flight
      await waitUntil(
        () =>
          log.records.some((record) =>
            /\/worker a restart replaced keeps its context/.test(record.message)
          ),
        "the warning",
      );
    } finally {
      gate.resolve();
      await system.terminate();
    }
  });

  it("restarts as any other: once, its hooks called once each", async () => {
    const system = createSystem();
    try {
      const calls: unknown[] = [];
      class Frozen extends Actor<string> {
        constructor() {
          super();
          Object.freeze(this);
        }
        override preStart(): void {
          calls.push("preStart");
        }
        override postStop(): void {
          calls.push("postStop");
        }
        onReceive(message: string): void {
          calls.push(message);
          throw new Error("boom");
        }
      }
      const failed = collect(system, ActorFailed);
      const ref = system.actorOf(Props.create(() => new Frozen()));
      ref.tell("boom");
      await waitUntil(() => calls.length === 4, "the restart");
      await settle();
      assert.deepEqual(calls, ["preStart", "boom", "postStop", "preStart"]);
      assert.equal(failed.length, 1);
      assert.equal((failed[0].error as Error).message, "boom");
    } finally {
      await system.terminate();
    }
  });
});

describe("exactly-once accounting for handlers that never settle", () => {
  it("a handler left behind by an AllForOne restart that never settles is dead-lettered once, at the stop's shutdown timeout", async () => {
    const system = createSystem({ shutdownTimeoutMs: 60_000 });
    const dead = collectDeadLetters(system);
    class Hanging extends Actor<string> {
      onReceive(): Promise<void> {
        return new Promise<void>(() => {});
      }
    }
    const parent = restartingParent(
      system,
      Props.create(() => new Hanging(), { shutdownTimeoutMs: 30 }),
    );
    parent.tell("hang");
    await settle();
    parent.tell("crash"); // restarts the worker too, leaving its handler behind
    await settle();
    assert.deepEqual(dead.map((d) => d.message), ["crash"]);
    await system.terminate();
    assert.deepEqual(dead.map((d) => d.message), ["crash", "hang"]);
    assert.match(dead[1].reason, /did not settle within the 30 ms/);
  });

  it("a stop waits for a handler an AllForOne restart left behind: it ends handled, not also a dead letter, and postStop runs after it", async () => {
    const system = createSystem({ shutdownTimeoutMs: 60_000 });
    const dead = collectDeadLetters(system);
    const journal: string[] = [];
    const gate = deferred<void>();
    class Slow extends Actor<string> {
      async onReceive(message: string): Promise<void> {
        if (message !== "hang") return;
        await gate.promise;
        journal.push("handled hang");
      }
      override postStop(): void {
        journal.push("postStop");
      }
    }
    const parent = restartingParent(system, Props.create(() => new Slow()));
    parent.tell("hang");
    await settle();
    parent.tell("crash"); // a group restart leaves the handler behind
    await settle();
    const terminated = system.terminate(); // the stop waits for it
    await settle();
    assert.deepEqual(journal, ["postStop"]); // the replaced instance's preRestart
    gate.resolve();
    await terminated;
    assert.deepEqual(journal, ["postStop", "handled hang", "postStop"]);
    assert.deepEqual(dead.map((d) => d.message), ["crash"]);
  });
});

describe("stash is one message a turn (finding 6)", () => {
  it("stash() twice in one turn keeps the message once", async () => {
    const system = createSystem();
    try {
      const seen: string[] = [];
      let open = false;
      const ref = system.actorOf(fnProps<string>((actor, message) => {
        if (message === "open") {
          open = true;
          actor.context.unstashAll();
          return;
        }
        if (!open) {
          actor.context.stash();
          actor.context.stash();
          return;
        }
        seen.push(message);
      }));
      ref.tell("a");
      ref.tell("open");
      await waitUntil(() => seen.length > 0, "the unstashed message");
      await settle();
      assert.deepEqual(seen, ["a"]);
    } finally {
      await system.terminate();
    }
  });

  it("stash() outside a message throws a TypeError (preStart fails)", async () => {
    const system = createSystem();
    try {
      const failures = collect(system, ActorFailed);
      const seen: unknown[] = [];
      class Early extends Actor<string> {
        override preStart(): void {
          this.context.stash();
        }
        onReceive(message: string): void {
          seen.push(message);
        }
      }
      system.actorOf(Props.create(() => new Early()));
      await waitUntil(() => failures.length > 0, "the preStart failure");
      assert.ok(failures[0].error instanceof TypeError);
      assert.match(
        (failures[0].error as Error).message,
        /no message is being processed/,
      );
      assert.deepEqual(seen, []);
    } finally {
      await system.terminate();
    }
  });

  it("a message stashed before the handler threw is not also a dead letter", async () => {
    const system = createSystem();
    try {
      const dead = collectDeadLetters(system);
      const seen: string[] = [];
      let first = true;
      const ref = system.actorOf(fnProps<string>((actor, message) => {
        if (first) {
          first = false;
          actor.context.stash();
          throw new Error("after stashing");
        }
        seen.push(message);
      }));
      ref.tell("kept");
      await waitUntil(() => seen.length > 0, "redelivery after the restart");
      assert.deepEqual(seen, ["kept"]);
      assert.equal(dead.length, 0);
    } finally {
      await system.terminate();
    }
  });
});
