// Copyright 2026 the understudy authors. MIT license.
// Specification of bad input: every public entry point rejects a bad argument
// at the call, with a TypeError or RangeError whose message names the
// argument, the value given and what was expected.

import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  ActorFailed,
  type ActorRef,
  type ActorSystem,
  AllForOneStrategy,
  OneForOneStrategy,
  Props,
  SupervisorStrategy,
} from "../../mod.ts";
import {
  collect,
  createSystem,
  fnProps,
  recorderProps,
  settle,
} from "./_helpers.ts";
import { ActorTimers } from "../../src/runtime/features/timers.ts";
import { realScheduler } from "../../src/runtime/ports/scheduler.ts";

interface BadCall {
  what: string;
  call: () => unknown;
  error: typeof TypeError | typeof RangeError;
  /** Must all appear in the message: the argument, the value, what is expected. */
  mentions: RegExp[];
}

describe("Bad input is rejected at the call", () => {
  let system: ActorSystem;
  let ref: ActorRef<string>;
  const timers = new ActorTimers(realScheduler, () => {}, { path: "/user/a" });
  beforeEach(() => {
    system = createSystem();
    ref = system.actorOf(recorderProps<string>(), "existing");
  });
  afterEach(async () => {
    await system.terminate();
  });

  const cases: BadCall[] = [
    {
      what: "Props.create with a non-function factory",
      call: () =>
        Props.create({ create: () => 1 } as unknown as () => Actor<string>),
      error: TypeError,
      mentions: [
        /"factory"/,
        /must be a function returning a new Actor/,
        /got an object \(Object\)/,
      ],
    },
    {
      what: "Props.create with a string factory",
      call: () => Props.create("Idle" as unknown as () => Actor<string>),
      error: TypeError,
      mentions: [/"factory"/, /must be a function/, /got "Idle"/],
    },
    {
      what: "actorOf with a name containing /",
      call: () => system.actorOf(recorderProps(), "a/b"),
      error: TypeError,
      mentions: [
        /^Cannot create actor: "name" must be/,
        /a non-empty string without "\/"/,
        /\(got "a\/b"\)/,
      ],
    },
    {
      what: "actorOf with a duplicate sibling name",
      call: () => system.actorOf(recorderProps(), "existing"),
      error: TypeError,
      mentions: [
        /the name "existing"/,
        /already taken/,
        /expected a name unique among its children/,
      ],
    },
    {
      what: "ask with a negative timeout",
      call: () => ref.ask("x", -1),
      error: RangeError,
      mentions: [
        /"timeoutMs"/,
        /\(got -1\)/,
        /finite number of milliseconds from 0 to 2147483647/,
      ],
    },
    {
      what: "ask with an infinite timeout",
      call: () => ref.ask("x", Infinity),
      error: RangeError,
      mentions: [/"timeoutMs"/, /\(got Infinity\)/, /finite number/],
    },
    {
      what: "ask with a NaN timeout",
      call: () => ref.ask("x", NaN),
      error: RangeError,
      mentions: [/"timeoutMs"/, /\(got NaN\)/, /finite number/],
    },
    {
      what: "startSingleTimer with a negative delay",
      call: () => timers.startSingleTimer("k", "m", -10),
      error: RangeError,
      mentions: [/"delayMs"/, /\(got -10\)/, /finite number of milliseconds/],
    },
    {
      what: "startTimerWithFixedDelay with an infinite delay",
      call: () => timers.startTimerWithFixedDelay("k", "m", Infinity),
      error: RangeError,
      mentions: [
        /"delayMs"/,
        /\(got Infinity\)/,
        /finite number of milliseconds/,
      ],
    },
    {
      what: "startTimerWithFixedDelay with a NaN initial delay",
      call: () => timers.startTimerWithFixedDelay("k", "m", 10, NaN),
      error: RangeError,
      mentions: [
        /"initialDelayMs"/,
        /\(got NaN\)/,
        /finite number of milliseconds/,
      ],
    },
    {
      what: "OneForOneStrategy with maxRetries below 0",
      call: () => new OneForOneStrategy(() => "restart", { maxRetries: -1 }),
      error: RangeError,
      mentions: [/"maxRetries"/, /\(got -1\)/, /whole number >= 0 or Infinity/],
    },
    {
      what: "AllForOneStrategy with a fractional maxRetries",
      call: () => new AllForOneStrategy(() => "restart", { maxRetries: 2.5 }),
      error: RangeError,
      mentions: [
        /"maxRetries"/,
        /\(got 2\.5\)/,
        /whole number >= 0 or Infinity/,
      ],
    },
    {
      what: "restartWithLimit with maxRetries below 0",
      call: () => SupervisorStrategy.restartWithLimit(-3),
      error: RangeError,
      mentions: [/"maxRetries"/, /\(got -3\)/, /whole number >= 0/],
    },
    {
      what: "restartWithBackoff with a negative minBackoff",
      call: () =>
        SupervisorStrategy.restartWithBackoff({
          minBackoff: -1,
          maxBackoff: 10,
        }),
      error: RangeError,
      mentions: [
        /"minBackoff"/,
        /\(got -1\)/,
        /must be a number of milliseconds > 0/,
      ],
    },
  ];

  for (const { what, call, error, mentions } of cases) {
    it(what, () => {
      assert.throws(call, (e: unknown) => {
        assert.ok(
          e instanceof error,
          `expected ${error.name}, got ${String(e)}`,
        );
        for (const mention of mentions) assert.match(e.message, mention);
        return true;
      });
    });
  }
});

describe("Bad values that only show when an actor starts", () => {
  it("a factory that returns something other than a new Actor fails the actor", async () => {
    const system = createSystem();
    try {
      const failed = collect(system, ActorFailed);
      class Holder extends Actor<string> {
        override supervisorStrategy = new OneForOneStrategy(() => "stop");
        override preStart(): void {
          this.context.actorOf(
            Props.create(() => ({}) as unknown as Actor<string>),
            "bogus",
          );
        }
        onReceive(): void {}
      }
      system.actorOf(Props.create(() => new Holder()), "holder");
      await settle();
      assert.equal(failed.length, 1);
      assert.ok(failed[0].error instanceof TypeError);
      assert.match(
        (failed[0].error as TypeError).message,
        /Props factory for \/user\/holder\/bogus must return a new Actor instance \(got an object \(Object\)\)/,
      );
    } finally {
      await system.terminate();
    }
  });

  it("a factory that returns its first instance again fails the restart", async () => {
    const system = createSystem();
    try {
      const failed = collect(system, ActorFailed);
      let only: Actor<string> | undefined;
      class Once extends Actor<string> {
        onReceive(): void {
          throw new Error("crash");
        }
      }
      const ref = system.actorOf(
        Props.create(() => only ??= new Once()),
        "once",
      );
      ref.tell("crash");
      await settle();
      // The crash, then each restart the default strategy allows.
      assert.ok(failed.length > 1, `${failed.length} failures`);
      assert.ok(failed[1].error instanceof TypeError);
      assert.match(
        (failed[1].error as TypeError).message,
        /Props factory for \/user\/once must return a new Actor instance/,
      );
    } finally {
      await system.terminate();
    }
  });

  it("context.stop of an actor that is neither self nor a child throws a TypeError", async () => {
    const system = createSystem();
    try {
      const errors: unknown[] = [];
      const stranger = system.actorOf(recorderProps(), "stranger");
      const ref = system.actorOf(
        fnProps((a) => {
          try {
            a.context.stop(stranger as ActorRef<never>);
          } catch (error) {
            errors.push(error);
          }
        }),
        "meddler",
      );
      ref.tell("go");
      await settle();
      assert.equal(errors.length, 1);
      assert.ok(errors[0] instanceof TypeError);
      assert.match(
        errors[0].message,
        /an actor can stop only itself and its own children/,
      );
    } finally {
      await system.terminate();
    }
  });
});
