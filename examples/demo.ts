// Copyright 2026 the understudy authors. MIT license.

/**
 * The demo behind `npm run demo`: real actors, real timers.
 *
 * 1. A parent supervises a child that crashes on some messages: the child is
 *    restarted with a fresh instance (same ref, mailbox kept), up to a limit.
 * 2. A BackoffSupervisor wraps a connection that fails to start three times:
 *    it waits 200, 400, 800 ms (jittered) between attempts, while the
 *    messages sent meanwhile wait in its stash and arrive in order.
 *
 * Run it with `deno run examples/demo.ts` (or `npm run demo`).
 *
 * @module
 */

import {
  Actor,
  ActorFailed,
  type ActorRef,
  ActorRestarted,
  ActorSystem,
  BackoffChildFailed,
  BackoffChildStarted,
  BackoffScheduled,
  BackoffSupervisor,
  DeadLetter,
  OneForOneStrategy,
  Props,
} from "../mod.ts";

const start = performance.now();
function say(line: string): void {
  console.log(
    `${String(Math.round(performance.now() - start)).padStart(5)} ms  ${line}`,
  );
}

// ── 1. Classic supervision ────────────────────────────────────────────────
class Worker extends Actor<string> {
  #handled = 0; // private state: lost on restart, which the output shows
  override preStart(): void {
    say(`${this.self.path} started`);
  }
  onReceive(job: string): void {
    if (job.startsWith("bad")) throw new Error(`cannot do "${job}"`);
    this.#handled++;
    say(
      `${this.self.path} did "${job}" (${this.#handled} since its last start)`,
    );
  }
}

class Manager extends Actor<string> {
  override supervisorStrategy = new OneForOneStrategy(() => "restart", {
    maxRetries: 2,
    withinTimeRangeMs: 60_000,
  });
  #worker!: ActorRef<string>;
  override preStart(): void {
    this.#worker = this.context.actorOf(
      Props.create(() => new Worker()),
      "worker",
    );
  }
  onReceive(job: string): void {
    this.#worker.tell(job, this.self);
  }
}

// ── 2. Backoff supervision ────────────────────────────────────────────────
let connectAttempts = 0;
class Connection extends Actor<string> {
  override preStart(): void {
    connectAttempts++;
    if (connectAttempts <= 3) throw new Error("upstream not ready");
  }
  onReceive(message: string): void {
    say(`${this.self.path} sent "${message}"`);
  }
}

const system = ActorSystem.create("demo", { logLevel: "off" });
system.eventStream.subscribe(ActorFailed, (event) => {
  say(
    `${event.ref.path} failed: ${
      (event.error as Error).message
    } -> ${event.directive}`,
  );
});
system.eventStream.subscribe(
  ActorRestarted,
  (event) => say(`${event.ref.path} restarted`),
);
system.eventStream.subscribe(DeadLetter, (dead) => {
  say(
    `dead letter: ${
      JSON.stringify(dead.message)
    } to ${dead.recipient.path} (${dead.reason})`,
  );
});
system.eventStream.subscribe(BackoffScheduled, (event) => {
  say(
    `backoff: respawn in ${Math.round(event.delayMs)} ms (restart #${
      event.restartCount + 1
    })`,
  );
});
system.eventStream.subscribe(
  BackoffChildStarted,
  (event) => say(`backoff: ${event.child.path} is up`),
);
system.eventStream.subscribe(BackoffChildFailed, (event) => {
  say(
    `backoff: ${event.child.path} crashed: ${(event.error as Error).message}`,
  );
});

console.log(
  "── 1. a parent restarts its crashing child (at most 2 restarts a minute) ──",
);
const manager = system.actorOf(Props.create(() => new Manager()), "manager");
for (const job of ["a", "b", "bad-1", "c", "bad-2", "d", "bad-3", "e"]) {
  manager.tell(job);
}
await new Promise((resolve) => setTimeout(resolve, 50));

console.log(
  "\n── 2. a BackoffSupervisor waits longer after each failed start ──",
);
const connection = system.actorOf(
  BackoffSupervisor.props({
    childProps: Props.create(() => new Connection()),
    childName: "connection",
    minBackoff: 200,
    maxBackoff: 5_000,
  }),
  "connection-supervisor",
);
for (const message of ["hello", "how are you?", "bye"]) {
  say(`tell "${message}" to ${connection.path}`);
  connection.tell(message);
}
await new Promise((resolve) => setTimeout(resolve, 2_500));
await system.terminate();
say("system terminated: every actor stopped, every timer cleared");
