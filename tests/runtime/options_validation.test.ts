// Copyright 2026 the understudy authors. MIT license.
// Specification of bad options to the runtime's constructors and
// registrations: each is rejected at the call with the one message shape,
// `Cannot <action>: "<option>" must be <expected> (got <value>)`, a
// RangeError for a number out of range and a TypeError for anything else.

import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  ActorSystem,
  DeadLetter,
  Props,
  supervise,
  SupervisorStrategy,
} from "../../mod.ts";
import { createSystem, deferred } from "./_helpers.ts";

class Idle extends Actor<string> {
  onReceive(): void {}
}
const factory = () => new Idle();

interface BadCall {
  what: string;
  call: () => unknown;
  error: typeof TypeError | typeof RangeError;
  /** The whole message. */
  message: string;
}

describe("Bad runtime options are rejected at the call, in the one message shape", () => {
  let system: ActorSystem;
  beforeEach(() => {
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
  });

  const cases = (): BadCall[] => [
    {
      what: "Props.create with null options",
      call: () => Props.create(factory, null as unknown as object),
      error: TypeError,
      message: 'Cannot create Props: "options" must be an object (got null)',
    },
    {
      what: "supervise with something that is not Props",
      call: () => supervise(factory as unknown as Props<string>),
      error: TypeError,
      message:
        'Cannot supervise: "props" must be Props, as made by Props.create (got function factory)',
    },
    {
      what: "onFailure with an error class given as a string",
      call: () =>
        supervise(Props.create(factory)).onFailure(
          "Error" as unknown as typeof Error,
          SupervisorStrategy.restart,
        ),
      error: TypeError,
      message:
        'Cannot add failure clause: "errorClass" must be an error class such as Error (got "Error")',
    },
    {
      what: "onFailure with a strategy of its own making",
      call: () =>
        supervise(Props.create(factory)).onFailure(
          Error,
          { kind: "restart" } as unknown as typeof SupervisorStrategy.restart,
        ),
      error: TypeError,
      message:
        'Cannot add failure clause: "strategy" must be a strategy from SupervisorStrategy, such as SupervisorStrategy.restart (got an object (Object))',
    },
    {
      what: "subscribe with a listener that is not a function",
      call: () => system.eventStream.subscribe(42 as unknown as () => void),
      error: TypeError,
      message: 'Cannot subscribe: "listener" must be a function (got 42)',
    },
    {
      what: "subscribe with an event class that is not a class",
      call: () =>
        system.eventStream.subscribe(
          "DeadLetter" as unknown as typeof DeadLetter,
          () => {},
        ),
      error: TypeError,
      message:
        'Cannot subscribe: "eventClass" must be a class, such as DeadLetter (got "DeadLetter")',
    },
    {
      what: "subscribe with an event class and an undefined listener",
      call: () => system.eventStream.subscribe(DeadLetter, undefined!),
      error: TypeError,
      message:
        'Cannot subscribe: "listener" must be a function (got undefined)',
    },
    {
      what: "ActorSystem.create with null options",
      call: () => ActorSystem.create("x", null as unknown as object),
      error: TypeError,
      message:
        'Cannot create actor system: "options" must be an object (got null)',
    },
    {
      what: "ActorSystem.create with a scheduler missing now()",
      call: () =>
        ActorSystem.create("x", {
          scheduler: { setTimeout, clearTimeout } as never,
        }),
      error: TypeError,
      message:
        'Cannot create actor system: "scheduler" must be an object with setTimeout, clearTimeout and now functions (got an object (Object))',
    },
    {
      what: "ActorSystem.create with a guardianStrategy of its own making",
      call: () => ActorSystem.create("x", { guardianStrategy: {} as never }),
      error: TypeError,
      message:
        'Cannot create actor system: "guardianStrategy" must be a OneForOneStrategy, AllForOneStrategy or RestForOneStrategy (got an object (Object))',
    },
  ];

  for (const index of cases().keys()) {
    it(`rejects ${cases()[index].what}`, () => {
      const { call, error, message } = cases()[index];
      assert.throws(call, (e: unknown) => {
        assert.ok(e instanceof error, `a ${error.name}, got ${e}`);
        assert.equal((e as Error).message, message);
        return true;
      });
    });
  }

  it("rejects startTimerWithFixedDelay with a delay of 0, in the actor's turn", async () => {
    const caught = deferred<unknown>();
    class Ticker extends Actor<string> {
      onReceive(): void {
        try {
          this.context.timers.startTimerWithFixedDelay("k", "tick", 0);
          caught.resolve(undefined);
        } catch (error) {
          caught.resolve(error);
        }
      }
    }
    system.actorOf(Props.create(() => new Ticker()), "ticker").tell("go");
    const error = await caught.promise;
    assert.ok(error instanceof RangeError);
    assert.equal(
      error.message,
      'Cannot startTimerWithFixedDelay: "delayMs" must be > 0, or the timer would flood the mailbox (got 0)',
    );
  });
});
