// Copyright 2026 the understudy authors. MIT license.
// Specification of the system's `inspect` option (issue 28, item 5): one
// listener that sees every send, receive, lifecycle step, supervision
// decision and dead letter, as XState's `inspect` gives devtools.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  ActorFailed,
  type ActorRef,
  ActorRestarted,
  ActorStarted,
  ActorStopped,
  DeadLetter,
  MessageReceived,
  MessageSent,
  Props,
} from "../../mod.ts";
import { createSystem, logRecorder, settle } from "./_helpers.ts";

class Echo extends Actor<string> {
  onReceive(message: string): void {
    if (message === "crash") throw new Error("boom");
    this.sender?.tell(`echo ${message}` as never);
  }
}

/** What an inspector saw, one line an event. */
function describeEvent(event: object): string | undefined {
  const path = (ref: ActorRef<never> | undefined) => ref?.path ?? "-";
  if (event instanceof MessageSent) {
    return `sent ${String(event.message)} to ${path(event.recipient)}`;
  }
  if (event instanceof MessageReceived) {
    return `received ${String(event.message)} at ${path(event.ref)}`;
  }
  if (event instanceof ActorStarted) return `started ${path(event.ref)}`;
  if (event instanceof ActorFailed) {
    return `failed ${path(event.ref)} (${event.directive})`;
  }
  if (event instanceof ActorRestarted) return `restarted ${path(event.ref)}`;
  if (event instanceof ActorStopped) return `stopped ${path(event.ref)}`;
  if (event instanceof DeadLetter) {
    return `dead letter ${String(event.message)} (${event.reason})`;
  }
  return undefined;
}

describe("ActorSystemOptions.inspect", () => {
  it("sees sends, receives, lifecycle steps, supervision decisions and dead letters, in order", async () => {
    const seen: string[] = [];
    const system = createSystem({
      inspect: (event) => {
        const line = describeEvent(event);
        if (line !== undefined) seen.push(line);
      },
    });
    const echo = system.actorOf(Props.create(() => new Echo()), "echo");
    await settle();
    echo.tell("a");
    echo.tell("crash");
    await settle();
    await system.terminate();
    assert.deepEqual(seen, [
      "started /user",
      "started /user/echo",
      "sent a to /user/echo",
      "sent crash to /user/echo",
      "received a at /user/echo",
      "received crash at /user/echo",
      "dead letter crash (processing failed: Error: boom)",
      "failed /user/echo (restart)",
      "restarted /user/echo",
      "stopped /user/echo",
      "stopped /user",
    ]);
  });

  it("sees a reply sent to an actor, and the message an idle actor gets (never handed past the inspector)", async () => {
    const seen: string[] = [];
    const system = createSystem({
      inspect: (event) => {
        if (event instanceof MessageSent || event instanceof MessageReceived) {
          seen.push(describeEvent(event)!);
        }
      },
    });
    class Asker extends Actor<string> {
      onReceive(message: string): void {
        if (message === "go") echo.tell("ping", this.self as ActorRef<never>);
      }
    }
    const echo = system.actorOf(Props.create(() => new Echo()), "echo");
    const asker = system.actorOf(Props.create(() => new Asker()), "asker");
    await settle();
    asker.tell("go");
    await settle();
    await system.terminate();
    assert.deepEqual(seen, [
      "sent go to /user/asker",
      "received go at /user/asker",
      "sent ping to /user/echo",
      "received ping at /user/echo",
      "sent echo ping to /user/asker",
      "received echo ping at /user/asker",
    ]);
  });

  it("an inspector that throws is logged, and the system goes on", async () => {
    const { records, sink } = logRecorder();
    const system = createSystem({
      logLevel: "error",
      logger: sink,
      inspect: (event) => {
        if (event instanceof MessageReceived) throw new Error("inspector bug");
      },
    });
    const echo = system.actorOf(Props.create(() => new Echo()), "echo");
    assert.equal(await echo.ask("x"), "echo x");
    await system.terminate();
    assert.ok(
      records.some((r) =>
        /listener threw/.test(r.message) &&
        (r.error as Error).message === "inspector bug"
      ),
    );
  });

  it("without it, no MessageSent or MessageReceived is made, even for a subscriber to every event", async () => {
    const system = createSystem();
    const kinds = new Set<string>();
    system.eventStream.subscribe((event) => kinds.add(event.constructor.name));
    const echo = system.actorOf(Props.create(() => new Echo()), "echo");
    assert.equal(await echo.ask("x"), "echo x");
    await system.terminate();
    assert.ok(!kinds.has("MessageSent") && !kinds.has("MessageReceived"));
    assert.ok(kinds.has("ActorStarted"));
  });

  it("rejects an inspect that is not a function, naming the option", () => {
    assert.throws(
      () => createSystem({ inspect: "yes" as never }),
      /create actor system: "inspect" must be a function \(got "yes"\)/,
    );
  });
});
