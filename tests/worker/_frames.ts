// Copyright 2026 the understudy authors. MIT license.
// Helpers of the frame tests (not a test file itself): one case injects a
// batch, malformed or not, into one side of a fake worker between two
// streams of real messages, and reports what became of every message.
// Runs inside a worker (_frames.worker.ts), so that a case that hangs its
// thread is seen from outside and ended; in workerd, in the test's thread.

import { workerBackoff } from "../../src/worker/worker_backoff.ts";
import { Actor } from "../../src/runtime/actor.ts";
import type { ActorRef } from "../../src/runtime/actor_ref.ts";
import { ActorSystem } from "../../src/runtime/actor_system.ts";
import { DeadLetter } from "../../src/runtime/event_stream.ts";
import { Props } from "../../src/runtime/props.ts";
import { describeValue } from "../../src/validation.ts";
import { spawnInWorker, workerProps } from "../../src/worker/worker_props.ts";
import { serveWorker } from "../../src/worker/serve_worker.ts";
import { FakeEndpoint } from "./_fake_endpoint.ts";

/** One case: what to inject where, with how many real messages around it. */
export interface FrameCase {
  /** "worker": the batch reaches serveWorker as if from the main side; "main": the reverse. */
  readonly side: "worker" | "main";
  /** What is posted: a batch, or anything else. */
  readonly batch: unknown;
  /** Real messages sent (and handled) before the batch, and after it. */
  readonly before: number;
  readonly after: number;
}

/** What a case observed. */
export interface Outcome {
  /** Each broken rule, described: empty if none. */
  readonly violations: string[];
  /** The error lines logged, of both systems. */
  readonly errors: string[];
  /** Workers started (2 or more: the link was closed, a new one started). */
  readonly workers: number;
  /** Messages of the batch (`{ forged }`) that reached an actor. */
  readonly forged: number;
  /** Reasons of the dead letters of both systems. */
  readonly reasons: string[];
}

/** A real message: `{ real: k }`; the batch's messages are `{ forged: k }`. */
interface Tagged {
  readonly real?: number;
  readonly forged?: number;
}

function tagOf(value: unknown): "real" | "forged" | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 1) return undefined;
  if (keys[0] === "real" && typeof (value as Tagged).real === "number") {
    return "real";
  }
  if (keys[0] === "forged") return "forged";
  return undefined;
}

/** A value's identity across structured clones, near enough. */
function keyOf(value: unknown): string {
  return typeof value === "number" || value === undefined
    ? `${typeof value} ${value}`
    : `${typeof value} ${JSON.stringify(value)}`;
}

/** The worker's actor: records what it gets, and sends it back. */
class Recorder extends Actor<unknown> {
  constructor(readonly seen: unknown[]) {
    super();
  }
  onReceive(message: unknown): void {
    this.seen.push(message);
    this.sender?.tell(message);
  }
}

/** A main-side actor that records what it gets. */
class Collector extends Actor<unknown> {
  constructor(readonly seen: unknown[]) {
    super();
  }
  onReceive(message: unknown): void {
    this.seen.push(message);
  }
}

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs one case: `before` real messages to an actor in a fake worker (each
 * sent back to a collector), the batch, `after` more; then checks that no
 * actor got a value no one sent (a phantom), and each real message was
 * handled once or is a dead letter once.
 */
export async function runCase(c: FrameCase): Promise<Outcome> {
  const handled: unknown[] = [];
  const replies: unknown[] = [];
  const errors: string[] = [];
  const logger = (record: { level: string; message: string }) => {
    if (record.level === "error") errors.push(record.message);
  };
  const workerDead: DeadLetter[] = [];
  // Fake workers whose systems log to `logger` too.
  const workers: { main: FakeEndpoint; inside: FakeEndpoint }[] = [];
  const closing: Promise<void>[] = [];
  const create = () => {
    const main = new FakeEndpoint();
    const inside = new FakeEndpoint();
    main.other = inside;
    inside.other = main;
    const served = ActorSystem.create("worker", { logLevel: "error", logger });
    served.eventStream.subscribe(DeadLetter, (l) => workerDead.push(l));
    const server = serveWorker(inside, {
      actors: { Recorder: () => new Recorder(handled) },
      system: served,
    });
    workers.push({ main, inside });
    return {
      endpoint: main,
      terminate: () => {
        main.cut = inside.cut = true;
        closing.push(server.close().then(() => served.terminate()));
      },
    };
  };
  const system = ActorSystem.create("main", { logLevel: "error", logger });
  const dead: DeadLetter[] = [];
  system.eventStream.subscribe(DeadLetter, (letter) => dead.push(letter));
  const violations: string[] = [];
  try {
    const gate = system.actorOf(
      workerProps({
        create,
        backoff: workerBackoff({ minBackoff: 1, maxBackoff: 1 }),
      }),
      "compute",
    );
    const recorder = await spawnInWorker<Tagged>(gate, "rec", "Recorder");
    const collector = system.actorOf(
      Props.create(() => new Collector(replies)),
    ) as ActorRef<never>;
    const send = (from: number, to: number) => {
      for (let k = from; k < to; k++) recorder.tell({ real: k }, collector);
    };
    const total = c.before + c.after;
    const realHandled = () => handled.filter((m) => tagOf(m) === "real").length;
    const realDead = () =>
      dead.filter((letter) => tagOf(letter.message) === "real").length;
    send(0, c.before);
    await until(() => realHandled() + realDead() >= c.before, 1_000);
    await tick(5); // the acknowledgements are back: nothing in flight
    const worker = workers[workers.length - 1];
    if (c.side === "worker") worker.main.postMessage(c.batch);
    else worker.inside.postMessage(c.batch);
    await tick(10); // read, and acted on (a link closed is closed)
    send(c.before, total);
    if (!await until(() => realHandled() + realDead() >= total, 1_000)) {
      violations.push(
        `not every real message accounted for: ${realHandled()} handled, ${realDead()} dead of ${total}`,
      );
    }
    await tick(5);
    // No phantom: every value an actor got was sent, as a message or as a
    // slot of the batch (a count that runs on into the next frame makes
    // its slots messages: the batch said so).
    const slots = new Set(
      Array.isArray(c.batch) ? c.batch.slice(1).map(keyOf) : [],
    );
    for (const [where, seen] of [["worker", handled], ["main", replies]]) {
      for (const message of seen as unknown[]) {
        if (tagOf(message) === undefined && !slots.has(keyOf(message))) {
          violations.push(
            `phantom message at the ${where} side: ${describeValue(message)}`,
          );
        }
      }
    }
    // Each real message handled once, or a dead letter once; never both.
    const handledOnce = new Map<number, number>();
    for (const m of handled) {
      if (tagOf(m) === "real") {
        const k = (m as Tagged).real!;
        handledOnce.set(k, (handledOnce.get(k) ?? 0) + 1);
      }
    }
    const deadOnce = new Map<number, number>();
    for (const letter of dead) {
      if (tagOf(letter.message) === "real") {
        const k = (letter.message as Tagged).real!;
        deadOnce.set(k, (deadOnce.get(k) ?? 0) + 1);
      }
    }
    for (let k = 0; k < total; k++) {
      const h = handledOnce.get(k) ?? 0;
      const d = deadOnce.get(k) ?? 0;
      if (h + d !== 1) {
        violations.push(`real message ${k}: handled ${h}×, dead ${d}×`);
      }
    }
  } catch (error) {
    violations.push(`the case threw: ${describeValue(error)} ${error}`);
  } finally {
    await system.terminate();
    await Promise.all(closing);
  }
  const forged = handled.filter((m) => tagOf(m) === "forged").length +
    replies.filter((m) => tagOf(m) === "forged").length;
  return {
    violations,
    errors,
    workers: workers.length,
    forged,
    reasons: [...dead, ...workerDead].map((letter) => letter.reason),
  };
}

/** Waits until `condition()` holds (polling), for at most `ms`: whether it did. */
async function until(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await tick(2);
  }
  return true;
}
