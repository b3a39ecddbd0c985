// Copyright 2026 the understudy authors. MIT license.
// The connection's message types catch mistakes: a value that is not a
// Send, Close or Reconnect does not compile, though Reconnect has no field
// and Send and Close look like plain objects. `deno check` in the static
// checks enforces each `@ts-expect-error` (one that no longer errs fails the
// run); at run time, the brands add nothing to the messages.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ActorRef } from "../../mod.ts";
import {
  Close,
  Reconnect,
  Send,
  type WebSocketCommand,
} from "../../src/websocket/mod.ts";

/** Every line compiles or fails to as its comment says; never called. */
function typeChecks(chat: ActorRef<WebSocketCommand>): void {
  chat.tell(new Send("hello"));
  chat.tell(new Close(1000, "bye"));
  chat.tell(new Reconnect());
  // @ts-expect-error a string is no message of the connection
  chat.tell("hello");
  // @ts-expect-error a number neither: Reconnect, with no field, used to accept any value
  chat.tell(42);
  // @ts-expect-error an empty object is no Reconnect
  chat.tell({});
  // @ts-expect-error an object shaped like a Send is no Send (the actor matches by class)
  chat.tell({ data: "hello" });
  // @ts-expect-error an object shaped like a Close is no Close
  chat.tell({ code: 1000, reason: "" });
}

describe("the connection's message types", () => {
  it("brand the messages at the type level only", () => {
    assert.equal(typeof typeChecks, "function");
    assert.deepEqual(Object.keys(new Reconnect()), []);
    assert.deepEqual(Object.keys(new Send("x")), ["data"]);
    assert.deepEqual(Object.keys(new Close()), ["code", "reason"]);
  });
});
