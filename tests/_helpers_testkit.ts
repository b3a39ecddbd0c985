// Copyright 2026 the understudy authors. MIT license.
// Helpers for tests that run on the testkit's ManualScheduler (not a test
// file itself).

import { type ActorSystem, Props } from "../mod.ts";
import type { ManualScheduler } from "../src/testing/manual_scheduler.ts";
import { createSystem } from "./runtime/_helpers.ts";
import { type Job, Script, ScriptedChild } from "./patterns/_helpers.ts";

/**
 * A quiet system on `scheduler` whose events (all of them) are recorded in
 * order: `recordingSystem()` of the pattern tests, in virtual time.
 */
export function recordingManualSystem(
  scheduler: ManualScheduler,
): { system: ActorSystem; events: object[] } {
  const system = createSystem({ scheduler });
  const events: object[] = [];
  system.eventStream.subscribe((event) => events.push(event));
  return { system, events };
}

/**
 * The pattern tests' {@linkcode Script}, with each spawn's time read from
 * `scheduler` (virtual milliseconds) instead of `Date.now()`.
 */
export class ManualScript extends Script {
  constructor(readonly scheduler: ManualScheduler) {
    super();
  }

  override props(): Props<Job> {
    return Props.create(() => {
      const child = new ScriptedChild(this);
      this.spawns[this.spawns.length - 1].at = this.scheduler.now();
      return child;
    });
  }
}
