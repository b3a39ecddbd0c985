// Copyright 2026 the understudy authors. MIT license.
// A stateless Worker (no Durable Object) that keeps actor systems across
// requests, served by tests/workerd/stateless_worker.test.ts. Not a test
// file itself.
//
//   GET /kept/crash, /kept/ask   one system per isolate, made by edgeSystem
//                                and kept alive through handle()
//   GET /plain/crash, /plain/ask the same with ActorSystem.create and no
//                                waitUntil: the pitfall the docs describe
//   GET /per-request?grace=...   a system per request: a stashed request
//                                after one failure, its latency measured
//
// `crash` tells the supervised child to throw and answers at once, so the
// respawn timer is started by a request that has already answered.

import {
  Actor,
  type ActorRef,
  ActorSystem,
  BackoffSupervisor,
  Props,
} from "../../mod.ts";
import {
  edgeSystem,
  type ExecutionContextLike,
  handle,
  perRequestBackoff,
} from "../../src/edge/mod.ts";

const BACKOFF_MS = 50;

/** Answers `"ping"` with its incarnation; throws on `"crash"`. */
class Child extends Actor<string> {
  static starts = 0;
  readonly incarnation = ++Child.starts;
  onReceive(message: string): void {
    if (message === "crash") throw new Error("crash requested");
    this.sender?.tell(`pong from incarnation ${this.incarnation}`);
  }
}

const supervisorProps = () =>
  BackoffSupervisor.props({
    childProps: Props.create(() => new Child()),
    childName: "child",
    minBackoff: BACKOFF_MS,
    maxBackoff: BACKOFF_MS,
    randomFactor: 0,
  });

const quiet = { logger: () => {} };

interface Kept {
  system: ActorSystem;
  supervisor: ActorRef<string>;
}
const systems = new Map<string, Kept>();

function kept(kind: "kept" | "plain"): Kept {
  let entry = systems.get(kind);
  if (entry === undefined) {
    const system = kind === "kept"
      ? edgeSystem(kind, quiet)
      : ActorSystem.create(kind, quiet);
    const supervisor = system.actorOf(
      supervisorProps(),
      "supervisor",
    ) as ActorRef<string>;
    entry = { system, supervisor };
    systems.set(kind, entry);
  }
  return entry;
}

async function ask(supervisor: ActorRef<string>): Promise<Response> {
  try {
    return Response.json({ answer: await supervisor.ask("ping", 1_000) });
  } catch (error) {
    return Response.json({ error: String(error) }, { status: 503 });
  }
}

/** One request's system: a stashed request after one failure, timed. */
async function perRequest(grace: string | null): Promise<Response> {
  const system = ActorSystem.create("request", quiet);
  try {
    const options = {
      childProps: Props.create(() => new Child()),
      childName: "child",
      minBackoff: BACKOFF_MS,
      maxBackoff: BACKOFF_MS,
      randomFactor: 0,
    };
    const supervisor = system.actorOf(
      grace === "helper"
        ? perRequestBackoff(options)
        : BackoffSupervisor.props(options),
    ) as ActorRef<string>;
    const started = performance.now();
    supervisor.tell("crash");
    const answer = await supervisor.ask("ping", 2_000);
    return Response.json({ answer, ms: performance.now() - started });
  } finally {
    await system.terminate();
  }
}

export default {
  async fetch(
    request: Request,
    _env: unknown,
    ctx: ExecutionContextLike,
  ): Promise<Response> {
    const url = new URL(request.url);
    const [, kind, action] = url.pathname.split("/");
    if (kind === "per-request") {
      return await perRequest(url.searchParams.get("grace"));
    }
    if (kind !== "kept" && kind !== "plain") {
      return new Response("not found", { status: 404 });
    }
    const { system, supervisor } = kept(kind);
    const work = () => {
      if (action === "crash") {
        supervisor.tell("crash");
        return Response.json({ told: "crash" });
      }
      return ask(supervisor);
    };
    return kind === "kept" ? await handle(ctx, system, work) : await work();
  },
};
