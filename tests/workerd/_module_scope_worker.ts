// Copyright 2026 the understudy authors. MIT license.
// A Worker that makes its actor system in the global scope, where workerd
// allows no timer, served by tests/workerd/module_scope.test.ts. Not a test
// file itself. It answers with what each attempt led to.

import { ActorSystem } from "../../mod.ts";
import { edgeSystem, IdleScheduler } from "../../src/edge/mod.ts";

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

// ActorSystem.create itself refuses the global scope at the call, with the
// platform's error (which says to do it within a handler), and with an
// IdleScheduler, with that scheduler's own error naming the fix.
let plainError: unknown;
try {
  ActorSystem.create("global");
} catch (error) {
  plainError = describe(error);
}
let idleError: unknown;
try {
  ActorSystem.create("global", { scheduler: new IdleScheduler() });
} catch (error) {
  idleError = describe(error);
}

export default {
  fetch(): Response {
    return Response.json({ edgeError, plainError, idleError });
  },
};
