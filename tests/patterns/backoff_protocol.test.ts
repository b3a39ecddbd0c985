// Copyright 2026 the understudy authors. MIT license.
/**
 * The supervisors' asks declare their replies (`GetRestartCount` extends
 * `Query<RestartCount>`, `GetCurrentChild` extends
 * `Query<CurrentChild>`), so `ask` infers them with no type argument, on a
 * BackoffSupervisor and on a BackoffSender alike; an explicit type argument
 * still works. The type-level checks are enforced by `deno check` in the
 * static checks (a wrong reply type, or a `@ts-expect-error` that no longer
 * errs, fails the run); the run-time checks that the replies are the ones
 * declared.
 */
import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  type ActorRef,
  type ActorSystem,
  AskTimeoutError,
  BackoffSender,
  BackoffSupervisor,
  CurrentChild,
  GetCurrentChild,
  GetRestartCount,
  Props,
  Query,
  type ReplyOf,
  RestartCount,
} from "../../mod.ts";
import { ManualScheduler } from "../../src/testing/manual_scheduler.ts";
import { createSystem } from "../runtime/_helpers.ts";

let scheduler: ManualScheduler;
let system: ActorSystem;

beforeEach(() => {
  scheduler = new ManualScheduler();
  system = createSystem({ scheduler });
});

afterEach(async () => {
  await system.terminate();
});

type Work = { readonly job: string };

class Worker extends Actor<Work> {
  onReceive(): void {}
}

class TrackedWorker extends Actor<BackoffSender.Tracked<Work>> {
  onReceive(): void {}
}

/** Settles the actors, then gives the ask's answer. */
async function answer<R>(reply: Promise<R>): Promise<R> {
  await scheduler.timePasses(0);
  return await reply;
}

describe("the supervisors' asks infer their replies", () => {
  it("BackoffSupervisor: GetRestartCount → RestartCount, GetCurrentChild → CurrentChild", async () => {
    const supervisor = system.actorOf(
      BackoffSupervisor.props({
        childProps: Props.create(() => new Worker()),
        minBackoff: 100,
        maxBackoff: 1_000,
      }),
      "supervisor",
    );
    const count: Promise<RestartCount> = supervisor.ask(
      BackoffSupervisor.GetRestartCount,
    );
    const child: Promise<CurrentChild> = supervisor.ask(
      BackoffSupervisor.GetCurrentChild,
    );
    // @ts-expect-error the reply to GetRestartCount is a RestartCount
    const wrong: Promise<CurrentChild> = supervisor.ask(
      BackoffSupervisor.GetRestartCount,
    );
    // @ts-expect-error the reply to GetCurrentChild is a CurrentChild
    const notANumber: Promise<number> = supervisor.ask(
      BackoffSupervisor.GetCurrentChild,
    );
    // @ts-expect-error a string is neither the child's message nor the protocol
    const stray = supervisor.ask("count?", 1);
    const counted = await answer(count);
    assert.ok(counted instanceof RestartCount);
    assert.equal(counted.count, 0);
    const current = await answer(child);
    assert.ok(current instanceof CurrentChild);
    assert.equal(current.ref?.path, "/user/supervisor/child-1");
    assert.ok((await wrong as unknown) instanceof RestartCount);
    assert.ok((await notANumber as unknown) instanceof CurrentChild);
    const timedOut = assert.rejects(stray, AskTimeoutError);
    await scheduler.timePasses(1); // the child never answers a stray ask
    await timedOut;
  });

  it("BackoffSender: the same asks, the same replies", async () => {
    const sender = system.actorOf(
      BackoffSender.props({
        childProps: Props.create(() => new TrackedWorker()),
      }),
      "sender",
    );
    const count: Promise<RestartCount> = sender.ask(
      BackoffSender.GetRestartCount,
    );
    const child: Promise<CurrentChild> = sender.ask(
      BackoffSender.GetCurrentChild,
    );
    // @ts-expect-error the reply to GetRestartCount is a RestartCount
    const wrong: Promise<string> = sender.ask(BackoffSender.GetRestartCount);
    assert.equal((await answer(count)).count, 0);
    assert.equal((await answer(child)).ref?.path, "/user/sender/worker-1");
    assert.ok((await wrong as unknown) instanceof RestartCount);
  });

  it("keeps explicit type arguments working, also on an untyped ref", async () => {
    const supervisor: ActorRef<unknown> = system.actorOf(
      BackoffSupervisor.props({
        childProps: Props.create(() => new Worker()),
        minBackoff: 100,
        maxBackoff: 1_000,
      }),
      "supervisor",
    );
    const explicit = supervisor.ask<RestartCount>(
      BackoffSupervisor.GetRestartCount,
    );
    const inferred: Promise<RestartCount> = supervisor.ask(
      BackoffSupervisor.GetRestartCount,
    );
    const child = supervisor.ask<CurrentChild>(
      BackoffSupervisor.GetCurrentChild,
    );
    assert.equal((await answer(explicit)).count, 0);
    assert.equal((await answer(inferred)).count, 0);
    assert.equal((await answer(child)).ref?.path, "/user/supervisor/child-1");
  });

  it("declares the replies on the classes, adding nothing at run time", () => {
    const count: ReplyOf<GetRestartCount> = new RestartCount(3);
    const child: ReplyOf<GetCurrentChild> = new CurrentChild(undefined);
    // @ts-expect-error ReplyOf<GetRestartCount> is no CurrentChild
    const mixedUp: ReplyOf<GetRestartCount> = new CurrentChild(undefined);
    assert.equal(count.count, 3);
    assert.equal(child.ref, undefined);
    assert.ok(mixedUp instanceof CurrentChild);
    for (const ask of [new GetRestartCount(), new GetCurrentChild()]) {
      assert.ok(ask instanceof Query);
      assert.deepEqual(Object.keys(ask), []);
    }
    assert.ok(BackoffSupervisor.GetRestartCount instanceof GetRestartCount);
    assert.ok(BackoffSender.GetCurrentChild instanceof GetCurrentChild);
  });
});
