// Copyright 2026 the understudy authors. MIT license.
// A Worker that makes its actor system in the global scope, where workerd
// allows no timer, served by tests/workerd/module_scope.test.ts. Not a test
// file itself. It answers with what each attempt led to.

import { Actor, ActorSystem, BackoffSupervisor, Props } from "../../mod.ts";
import { edgeSystem, IdleScheduler } from "../../src/edge/mod.ts";

class Echo extends Actor<string> {
  onReceive(message: string): void {
    this.sender?.tell(message);
  }
}

const describe = (error: unknown) =>
  error instanceof Error
    ? { name: error.name, message: error.message }
    : { name: "?", message: String(error) };

// edgeSystem() refuses the global scope at the call.
let edgeError: unknown;
try {
  edgeSystem("global");
} catch (error) {
  edgeError = describe(error);
}

// A system given an IdleScheduler directly: the first timer (the
// supervisor's) is refused with the same clear error, logged.
const failures: { name: string; message: string }[] = [];
const system = ActorSystem.create("global", {
  scheduler: new IdleScheduler(),
  logger: (record) => {
    if (record.error !== undefined) failures.push(describe(record.error));
  },
});
system.actorOf(
  BackoffSupervisor.props({
    childProps: Props.create(() => new Echo()),
    childName: "echo",
    minBackoff: 50,
    maxBackoff: 200,
  }),
  "supervisor",
);

// ActorSystem.create itself, on the host's timers, refuses the global scope
// at the call, with the platform's error (which says to do it within a
// handler).
let plainError: unknown;
try {
  ActorSystem.create("plain");
} catch (error) {
  plainError = describe(error);
}

export default {
  fetch(): Response {
    return Response.json({ edgeError, plainError, failures });
  },
};
