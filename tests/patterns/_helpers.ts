// Shared fixtures for the BackoffSupervisor tests: a system that records
// every event, and a scriptable child. The fake clock is the runtime tests'.
import type * as FakeTimers from "@sinonjs/fake-timers";
import { Actor, type ActorSystem, DeadLetter, Props } from "../../mod.ts";
import { createSystem } from "../runtime/_helpers.ts";

export { installClock } from "../runtime/_helpers.ts";

/** Lets the dispatcher and promise chains settle without moving fake time. */
export async function settle(clock: FakeTimers.Clock): Promise<void> {
  await clock.tickAsync(0);
}

/** A system whose events (all of them) are recorded in order. */
export function recordingSystem(): { system: ActorSystem; events: object[] } {
  const system = createSystem();
  const events: object[] = [];
  system.eventStream.subscribe((event) => events.push(event));
  return { system, events };
}

/** Events of one class, in order. */
export function eventsOf<E>(
  events: object[],
  cls: abstract new (...args: never[]) => E,
): E[] {
  return events.filter((event): event is E & object =>
    event instanceof cls
  ) as E[];
}

/** The ids of the Job messages that went to dead letters, with their reasons. */
export function deadJobs(events: object[]): { id: number; reason: string }[] {
  return eventsOf(events, DeadLetter)
    .filter((dead) => dead.message instanceof Job)
    .map((dead) => ({ id: (dead.message as Job).id, reason: dead.reason }));
}

/** A unit of work for the scripted child. */
export class Job {
  constructor(
    readonly id: number,
    readonly action: "work" | "crash" | "stop" = "work",
    readonly from = 0,
  ) {}
}

/** What the scripted children share with the test: the script, and what happened. */
export class Script {
  /** How many of the next starts fail in preStart. */
  failStarts = 0;
  /** Fake time at which each child was created, with its path. */
  readonly spawns: { at: number; path: string }[] = [];
  /** Job ids in the order children handled them, with the handler's path. */
  readonly handled: { id: number; path: string; from: number }[] = [];

  props(): Props<Job> {
    return Props.create(() => new ScriptedChild(this));
  }

  handledIds(): number[] {
    return this.handled.map((h) => h.id);
  }
}

/** Fails its preStart while the script says so; crashes, stops or works per Job. */
export class ScriptedChild extends Actor<Job> {
  constructor(private readonly script: Script) {
    super();
    script.spawns.push({ at: Date.now(), path: this.self.path });
  }

  override preStart(): void {
    if (this.script.failStarts > 0) {
      this.script.failStarts--;
      throw new Error("upstream not ready");
    }
  }

  onReceive(job: Job): void {
    if (job.action === "crash") throw new Error(`crash on job ${job.id}`);
    this.script.handled.push({
      id: job.id,
      path: this.self.path,
      from: job.from,
    });
    this.sender?.tell(`done ${job.id}`);
    if (job.action === "stop") this.context.stopSelf();
  }
}
