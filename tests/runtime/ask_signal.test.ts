// Copyright 2026 the understudy authors. MIT license.
// Specification of ask's options object: { timeoutMs, signal }. An aborted
// signal rejects the ask at once with its reason and frees its timer; a
// signal already aborted sends nothing; the ask stops listening to the
// signal however it settles.

import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type ActorSystem,
  AskTimeoutError,
  DEFAULT_ASK_TIMEOUT_MS,
  UndeliveredError,
} from "../../mod.ts";
import {
  type Clock,
  collectDeadLetters,
  countedController,
  createSystem,
  fnProps,
  installClock,
  recorderProps,
  settle,
} from "./_helpers.ts";

describe("ask with a signal: aborting", () => {
  let clock: Clock;
  let system: ActorSystem;
  beforeEach(() => {
    clock = installClock();
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
    clock.uninstall();
  });

  it("rejects at once with the signal's reason, without waiting for the timeout", async () => {
    const silent = system.actorOf(fnProps(() => {}), "silent");
    const controller = new AbortController();
    const outcome: unknown[] = [];
    silent.ask("anyone?", { timeoutMs: 60_000, signal: controller.signal })
      .then((v) => outcome.push(v), (e) => outcome.push(e));
    await clock.tickAsync(10);
    assert.deepEqual(outcome, []);
    const reason = new Error("user gave up");
    controller.abort(reason);
    await Promise.resolve();
    assert.equal(outcome.length, 1);
    assert.equal(outcome[0], reason, "the very reason, not a wrapper");
    assert.equal(Date.now(), 10, "no fake time passed");
  });

  it("rejects with the AbortError DOMException when aborted without a reason", async () => {
    const silent = system.actorOf(fnProps(() => {}), "silent");
    const controller = new AbortController();
    const asked = silent.ask("q", { signal: controller.signal });
    controller.abort();
    await assert.rejects(
      asked,
      (e: unknown) =>
        e === controller.signal.reason && e instanceof Error &&
        e.name === "AbortError",
    );
  });

  it("frees its timer: none is left once the only pending ask is aborted", async () => {
    const silent = system.actorOf(fnProps(() => {}), "silent");
    await clock.tickAsync(0);
    const controller = new AbortController();
    const asked = silent.ask("q", {
      timeoutMs: 60_000,
      signal: controller.signal,
    }).catch((e: unknown) => e);
    assert.equal(clock.countTimers(), 1, "the ask's timeout is armed");
    controller.abort(new Error("stop"));
    assert.equal(((await asked) as Error).message, "stop");
    await Promise.resolve();
    assert.equal(clock.countTimers(), 0);
  });

  it("leaves the other asks with its timeout to time out at their own deadlines", async () => {
    const silent = system.actorOf(fnProps(() => {}), "silent");
    const controller = new AbortController();
    const settledAt: Record<string, unknown> = {};
    const track = (name: string, answer: Promise<unknown>) =>
      answer.then(
        () => (settledAt[name] = "resolved"),
        (e) => (settledAt[name] = [Date.now(), e instanceof AskTimeoutError]),
      );
    track(
      "aborted",
      silent.ask("a", { timeoutMs: 1_000, signal: controller.signal }),
    );
    await clock.tickAsync(100);
    track("other", silent.ask("b", { timeoutMs: 1_000 }));
    controller.abort();
    await clock.tickAsync(2_000);
    assert.deepEqual(settledAt, {
      aborted: [100, false],
      other: [1_100, true],
    });
    assert.equal(clock.countTimers(), 0);
  });

  it("sends a reply that comes after the abort to dead letters ('ask already completed')", async () => {
    const dead = collectDeadLetters(system);
    let reply!: () => void;
    const slow = system.actorOf(
      fnProps((a, m) => {
        const sender = a.sender!;
        reply = () => sender.tell(`re: ${m}`);
      }),
      "slow",
    );
    const controller = new AbortController();
    const asked = slow.ask("q", { signal: controller.signal }).catch((
      e: unknown,
    ) => e);
    await clock.tickAsync(0);
    controller.abort(new Error("gone"));
    assert.equal(((await asked) as Error).message, "gone");
    reply();
    await clock.tickAsync(0);
    assert.equal(dead.length, 1);
    assert.equal(dead[0].message, "re: q");
    assert.equal(dead[0].reason, "ask already completed");
  });
});

describe("ask with a signal already aborted", () => {
  let clock: Clock;
  let system: ActorSystem;
  beforeEach(() => {
    clock = installClock();
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
    clock.uninstall();
  });

  it("rejects at once with its reason and never delivers the message", async () => {
    const received: unknown[] = [];
    const dead = collectDeadLetters(system);
    const ref = system.actorOf(recorderProps(received), "r");
    const { controller, signal, listeners } = countedController();
    const reason = new Error("cancelled before asking");
    controller.abort(reason);
    let outcome: unknown = "pending";
    ref.ask("never sent", { signal }).catch((e: unknown) => (outcome = e));
    await Promise.resolve();
    assert.equal(outcome, reason);
    assert.equal(clock.countTimers(), 0, "no timeout was armed");
    assert.equal(listeners(), 0, "no listener was added");
    await clock.tickAsync(DEFAULT_ASK_TIMEOUT_MS);
    assert.deepEqual(received, []);
    assert.deepEqual(
      dead,
      [],
      "the message was not sent, so it is no dead letter",
    );
  });
});

describe("ask with a signal: the listener goes when the ask settles", () => {
  let clock: Clock;
  let system: ActorSystem;
  beforeEach(() => {
    clock = installClock();
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
    clock.uninstall();
  });

  it("on a reply, and a later abort changes nothing", async () => {
    const echo = system.actorOf(fnProps((a, m) => a.sender?.tell(m)), "echo");
    const { controller, signal, listeners } = countedController();
    const asked = echo.ask("hi", { signal });
    assert.equal(listeners(), 1);
    assert.equal(await asked, "hi");
    assert.equal(listeners(), 0);
    controller.abort();
    assert.equal(await asked, "hi");
  });

  it("on a timeout", async () => {
    const silent = system.actorOf(fnProps(() => {}), "silent");
    const { signal, listeners } = countedController();
    const asked = silent.ask("q", { timeoutMs: 500, signal }).catch((
      e: unknown,
    ) => e);
    await clock.tickAsync(500);
    assert.ok((await asked) instanceof AskTimeoutError);
    assert.equal(listeners(), 0);
  });

  it("when the message goes to dead letters", async () => {
    const shortLived = system.actorOf(
      fnProps((a) => a.context.stopSelf()),
      "short-lived",
    );
    shortLived.tell("stop");
    await clock.tickAsync(0);
    const { signal, listeners } = countedController();
    await assert.rejects(shortLived.ask("q", { signal }), UndeliveredError);
    assert.equal(listeners(), 0);
  });

  it("when the system terminates", async () => {
    const silent = system.actorOf(fnProps(() => {}), "silent");
    const { signal, listeners } = countedController();
    const asked = silent.ask("q", { signal }).catch((e: unknown) => e);
    await clock.tickAsync(0);
    assert.equal(listeners(), 1);
    await system.terminate();
    assert.ok((await asked) instanceof UndeliveredError);
    assert.equal(listeners(), 0);
  });
});

describe("ask's options object", () => {
  let clock: Clock;
  let system: ActorSystem;
  beforeEach(() => {
    clock = installClock();
    system = createSystem();
  });
  afterEach(async () => {
    await system.terminate();
    clock.uninstall();
  });

  it("times out after its timeoutMs, and after DEFAULT_ASK_TIMEOUT_MS without one", async () => {
    const silent = system.actorOf(fnProps(() => {}), "silent");
    const settledAt: Record<string, number> = {};
    silent.ask("a", { timeoutMs: 250 }).catch(() => (settledAt.a = Date.now()));
    silent.ask("b", {}).catch(() => (settledAt.b = Date.now()));
    await clock.tickAsync(DEFAULT_ASK_TIMEOUT_MS);
    assert.deepEqual(settledAt, { a: 250, b: DEFAULT_ASK_TIMEOUT_MS });
  });

  it("rejects a signal that is not an AbortSignal with a TypeError naming it, and sends nothing", async () => {
    const received: unknown[] = [];
    const ref = system.actorOf(recorderProps(received), "r");
    const cases: [unknown, string][] = [
      [{}, "an object (Object)"],
      ["abort", '"abort"'],
      [null, "null"],
      [{ aborted: false }, "an object (Object)"],
      [new EventTarget(), "an object (EventTarget)"],
    ];
    for (const [bad, shown] of cases) {
      assert.throws(
        () => ref.ask("x", { signal: bad as AbortSignal }),
        (e: unknown) =>
          e instanceof TypeError &&
          e.message ===
            `Cannot ask: "signal" must be an AbortSignal (got ${shown})`,
      );
    }
    await settle();
    assert.deepEqual(received, []);
    assert.equal(clock.countTimers(), 0);
  });

  it("checks timeoutMs inside the object as it does a bare timeout", () => {
    const ref = system.actorOf(recorderProps([]), "r");
    assert.throws(
      () => ref.ask("x", { timeoutMs: -1 }),
      (e: unknown) =>
        e instanceof RangeError && /"timeoutMs"/.test(e.message) &&
        e.message.includes("(got -1)"),
    );
    assert.throws(
      () => ref.ask("x", { timeoutMs: "5" as unknown as number }),
      (e: unknown) =>
        e instanceof TypeError && /"timeoutMs"/.test(e.message) &&
        e.message.includes('(got "5")'),
    );
  });
});

describe("ask on a scheduler that refuses its timer", () => {
  it("throws out of the ask and leaves nothing behind: no listener, no ask that terminate() rejects unheld", async () => {
    // A host's limit on timers (as an edge scheduler's maxDelayMs): a
    // delay over 1 s is refused.
    const scheduler = {
      setTimeout(fn: () => void, ms: number): unknown {
        if (ms > 1_000) throw new RangeError(`refused a ${ms} ms timer`);
        return setTimeout(fn, ms);
      },
      clearTimeout(handle: unknown): void {
        clearTimeout(handle as ReturnType<typeof setTimeout>);
      },
      now: () => Date.now(),
    };
    const system = createSystem({ scheduler, shutdownTimeoutMs: 500 });
    const unhandled: unknown[] = [];
    const onUnhandled = (event: PromiseRejectionEvent) => {
      unhandled.push(event.reason);
      event.preventDefault();
    };
    globalThis.addEventListener?.("unhandledrejection", onUnhandled);
    try {
      const ref = system.actorOf(recorderProps(), "r");
      const controller = new AbortController();
      assert.throws(
        () => ref.ask("q", { timeoutMs: 5_000, signal: controller.signal }),
        /refused a \d+ ms timer/, // the deadline less the time already passed
      );
      controller.abort(); // no listener of the refused ask is left to run
      await system.terminate();
      await settle();
      assert.deepEqual(unhandled, []);
    } finally {
      globalThis.removeEventListener?.("unhandledrejection", onUnhandled);
    }
  });
});
