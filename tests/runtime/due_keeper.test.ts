// Copyright 2026 the understudy authors. MIT license.
// Specification of the due-keeper port (`Scheduler.dueKeeper`) as a plain
// scheduler sees it, without the durable host: what the runtime keeps, under
// which path and kind, and what it takes back. In virtual time.

import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  type ActorSystem,
  type DueKeeper,
  type EarlierDue,
  Props,
  type Scheduler,
} from "../../mod.ts";
import { ReceiveTimeout } from "../../src/runtime/features/receive_timeout.ts";
import { ManualScheduler } from "../../src/testing/manual_scheduler.ts";
import { createSystem } from "./_helpers.ts";

/** A scheduler on virtual time whose keeper records every call. */
function keepingScheduler(
  manual: ManualScheduler,
  calls: unknown[][],
  earlier: Map<string, EarlierDue>,
): Scheduler {
  const dueKeeper: DueKeeper = {
    keep: (path, kind, delayMs, data) => {
      calls.push(["keep", path, kind, delayMs, data]);
    },
    drop: (path, kind) => {
      calls.push(["drop", path, kind]);
    },
    takeEarlier: (path, kind) => {
      calls.push(["takeEarlier", path, kind]);
      const due = earlier.get(`${kind} ${path}`);
      earlier.delete(`${kind} ${path}`);
      return due;
    },
  };
  return {
    setTimeout: (fn, ms) => manual.setTimeout(fn, ms),
    clearTimeout: (handle) => manual.clearTimeout(handle),
    now: () => manual.now(),
    dueKeeper,
  };
}

/** What the test tells the actor to do. */
type Command =
  | { set: number | undefined }
  | { userTimer: symbol }
  | { cancelUserTimer: symbol };

/** Sets a receive timeout of 1,000 ms as it starts; records what it gets. */
class Idle extends Actor<Command | ReceiveTimeout | string> {
  constructor(readonly seen: string[], readonly manual: ManualScheduler) {
    super();
  }
  override preStart(): void {
    this.context.setReceiveTimeout(1_000);
  }
  onReceive(m: Command | ReceiveTimeout | string): void {
    const now = this.manual.now();
    if (m === ReceiveTimeout) this.seen.push(`${now} ReceiveTimeout`);
    else if (typeof m === "string") this.seen.push(`${now} ${m}`);
    else if ("set" in m) this.context.setReceiveTimeout(m.set);
    else if ("userTimer" in m) {
      this.context.timers.startSingleTimer(m.userTimer, "tick", 50);
    } else if ("cancelUserTimer" in m) {
      this.context.timers.cancel(m.cancelUserTimer);
    }
  }
}

function idleProps(log: string[], manual: ManualScheduler) {
  return Props.create(() => new Idle(log, manual));
}

describe("a scheduler's dueKeeper", () => {
  let manual: ManualScheduler;
  let calls: unknown[][];
  let earlier: Map<string, EarlierDue>;
  let system: ActorSystem;
  beforeEach(() => {
    manual = new ManualScheduler();
    calls = [];
    earlier = new Map();
    system = createSystem({
      scheduler: keepingScheduler(manual, calls, earlier),
    });
  });
  afterEach(async () => {
    await system.terminate();
    assert.equal(manual.pendingTimers, 0, "no timer left after terminate");
  });

  it('keeps a receive timeout as "receive-timeout" under the actor\'s path at each arming, and drops it when cancelled', async () => {
    const log: string[] = [];
    const ref = system.actorOf(idleProps(log, manual), "idle");
    await manual.timePasses(0);
    assert.deepEqual(calls, [
      ["takeEarlier", "/user/idle", "receive-timeout"],
      ["keep", "/user/idle", "receive-timeout", 1_000, 1_000],
    ]);
    await manual.timePasses(1_000);
    assert.deepEqual(log, ["1000 ReceiveTimeout"]);
    assert.deepEqual(calls.slice(2), [
      ["keep", "/user/idle", "receive-timeout", 1_000, 1_000],
    ]);
    ref.tell({ set: undefined });
    await manual.timePasses(0);
    assert.deepEqual(calls.slice(3), [
      ["drop", "/user/idle", "receive-timeout"],
    ]);
  });

  it("keeps none of the user's timers, even one keyed by a symbol like the runtime's", async () => {
    const log: string[] = [];
    const ref = system.actorOf(idleProps(log, manual), "idle");
    await manual.timePasses(0);
    const before = calls.length;
    const key = Symbol("receive-timeout");
    ref.tell({ userTimer: key });
    await manual.timePasses(0);
    ref.tell({ cancelUserTimer: key });
    ref.tell({ userTimer: key });
    await manual.timePasses(50);
    assert.deepEqual(log, ["50 tick"]);
    assert.deepEqual(calls.slice(before), []);
  });

  it("takes back the idle time an earlier life kept: the first ReceiveTimeout comes at the kept due time", async () => {
    // Kept with a period of 1,000 and due in 300: idle for 700 already.
    earlier.set("receive-timeout /user/idle", { inMs: 300, data: 1_000 });
    const log: string[] = [];
    system.actorOf(idleProps(log, manual), "idle");
    await manual.timePasses(0);
    assert.deepEqual(calls.slice(1), [
      ["keep", "/user/idle", "receive-timeout", 300, 1_000],
    ]);
    await manual.timePasses(299);
    assert.deepEqual(log, []);
    await manual.timePasses(1);
    assert.deepEqual(log, ["300 ReceiveTimeout"]);
  });
});
