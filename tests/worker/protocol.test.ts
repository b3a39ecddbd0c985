// Copyright 2026 the understudy authors. MIT license.
// The worker transport's protocol, end to end through a fake worker (two
// endpoints in one thread passing structured clones): tell, ask, senders
// both ways, watch, spawn, batching, clone failures, transfers, a worker
// dying unsupervised and supervised, the heartbeat, and clean termination.
// Runs in every runtime, workerd included.
import { workerBackoff } from "../../src/worker/worker_backoff.ts";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Actor, Terminated } from "../../src/runtime/actor.ts";
import type { ActorCell } from "../../src/runtime/kernel/cell.ts";
import {
  type ActorRef,
  AskTimeoutError,
  UndeliveredError,
} from "../../src/runtime/actor_ref.ts";
import { ActorSystem } from "../../src/runtime/actor_system.ts";
import { DeadLetter } from "../../src/runtime/event_stream.ts";
import { PoisonPill } from "../../src/runtime/poison_pill.ts";
import { Props } from "../../src/runtime/props.ts";
import { TrackedMessage } from "../../src/runtime/ports/tracked_message.ts";
import { OneForOneStrategy } from "../../src/supervision/strategy.ts";
import { Transfer } from "../../src/worker/transfer.ts";
import { serveWorker } from "../../src/worker/serve_worker.ts";
import { frameLength, STOPPED } from "../../src/worker/wire.ts";
import { ManualScheduler } from "../../src/testing/manual_scheduler.ts";
import {
  LINK_NAME,
  Outgoing,
  ReplyLostError,
  SpawnCommand,
  SpawnInWorker,
  WorkerDown,
} from "../../src/worker/messages.ts";
import {
  spawnInWorker,
  type WorkerOptions,
  workerProps,
} from "../../src/worker/worker_props.ts";
import {
  Answerer,
  AskBack,
  AskThenTell,
  AsyncStasher,
  BadMover,
  BadReplier,
  Caller,
  Chatty,
  ChattyStasher,
  collecting,
  Counter,
  DoubleReplier,
  Echo,
  Holder,
  ImpatientAsker,
  Incrementer,
  Journal,
  LateAnswerer,
  LoggedCounter,
  Measurer,
  NoRefSender,
  Player,
  Recorder,
  SenderKeeper,
  SlowToStopCounter,
  Stasher,
  Stopper,
  SupervisorKeeper,
  Switcher,
  UncloneableAnswerer,
} from "./_actors.ts";
import { FakeEndpoint, fakeWorkers, until } from "./_fake_endpoint.ts";
import { assertEachOnce, jobNumbers, streamJobs } from "./_jobs.ts";

/** What the LoggedCounters of the worker did: `start 1`, `stop 1`, … */
const lifecycle: string[] = [];

function setup(
  options: Partial<WorkerOptions> = {},
  scheduler?: ManualScheduler,
) {
  const fakes = fakeWorkers({
    Echo: () => new Echo(),
    Counter: () => new Counter(),
    SlowToStopCounter: () => new SlowToStopCounter(),
    LoggedCounter: () => new LoggedCounter(lifecycle),
    Incrementer: () => new Incrementer(),
    Journal: () => new Journal(),
    Stopper: () => new Stopper(),
    BadReplier: () => new BadReplier(),
    BadMover: () => new BadMover(),
    Measurer: () => new Measurer(),
    Switcher: () => new Switcher(),
    DoubleReplier: () => new DoubleReplier(),
    Holder: () => new Holder(),
    Caller: () => new Caller(),
    AskThenTell: () => new AskThenTell(),
    AskBack: () => new AskBack(),
    ImpatientAsker: () => new ImpatientAsker(),
    Stasher: () => new Stasher(),
    Chatty: () => new Chatty(),
    ChattyStasher: () => new ChattyStasher(),
    AsyncStasher: () => new AsyncStasher(),
    NoRefSender: () => new NoRefSender(),
    SupervisorKeeper: () => new SupervisorKeeper(),
    Recorder: (dieAt: number) =>
      new Recorder(
        fakes.workers.length === 1 ? dieAt : -1,
        () => fakes.workers[0].crash("killed mid-stream"),
      ),
  });
  const system = ActorSystem.create("main", { logLevel: "off", scheduler });
  const dead: DeadLetter[] = [];
  system.eventStream.subscribe(DeadLetter, (letter) => dead.push(letter));
  const worker = system.actorOf(
    workerProps({ create: fakes.create, ...options }),
    "compute",
  );
  const stop = async () => {
    await system.terminate();
    await fakes.closed();
  };
  return { fakes, system, dead, worker, stop };
}

/** A main-side actor that records the Terminated messages it gets. */
class Watcher extends Actor<Terminated | ActorRef<never>> {
  constructor(readonly ended: ActorRef<never>[]) {
    super();
  }
  onReceive(message: Terminated | ActorRef<never>): void {
    if (message instanceof Terminated) this.ended.push(message.ref);
    else this.context.watch(message);
  }
}

describe("a remote ref", () => {
  it("is told and asked like a local one", async () => {
    const { worker, stop } = setup();
    try {
      const counter = await spawnInWorker<"inc" | "get">(
        worker,
        "counter",
        "Counter",
      );
      assert.equal(counter.path, "/user/compute/counter");
      counter.tell("inc");
      counter.tell("inc");
      assert.equal(await counter.ask<number>("get"), 2);
      const echo = await spawnInWorker<unknown>(worker, "echo", "Echo");
      assert.deepEqual(await echo.ask({ a: [1, "two"] }), { a: [1, "two"] });
    } finally {
      await stop();
    }
  });

  it("gives senders that answer across the boundary, both ways", async () => {
    const { system, worker, stop } = setup();
    try {
      const incrementer = await spawnInWorker<number>(
        worker,
        "incrementer",
        "Incrementer",
      );
      const player = system.actorOf(Props.create(() => new Player(20)));
      // 0 → worker → 1 → main → 2 → … each reply goes to the sender ref.
      assert.equal(await player.ask({ start: incrementer }), 21);
    } finally {
      await stop();
    }
  });

  it("sends every message of one turn in one postMessage", async () => {
    const { system, worker, fakes, stop } = setup();
    try {
      const echo = await spawnInWorker<number>(worker, "echo", "Echo");
      await echo.ask(-1); // the worker runs and the spawn has crossed
      const { seen, collector } = collecting(system);
      const before = fakes.workers[0].main.posts;
      const repliesBefore = fakes.workers[0].inside.posts;
      for (let n = 0; n < 500; n++) echo.tell(n, collector);
      await until(() => seen.length === 500);
      assert.deepEqual(seen, [...Array(500).keys()]);
      assert.equal(fakes.workers[0].main.posts - before, 1);
      // The replies come back batched too (a few slices at most).
      assert.ok(fakes.workers[0].inside.posts - repliesBefore <= 5);
    } finally {
      await stop();
    }
  });

  it("sends a long turn in batches of up to 2,048 slots, in order, a stream to one actor as one run", async () => {
    const { system, worker, fakes, stop } = setup();
    try {
      const echo = await spawnInWorker<number>(worker, "echo", "Echo");
      await echo.ask(-1);
      const { seen, collector } = collecting(system);
      const before = fakes.workers[0].main.posts;
      for (let n = 0; n < 10_000; n++) echo.tell(n, collector);
      await until(() => seen.length === 10_000);
      assert.deepEqual(seen, [...Array(10_000).keys()]);
      // A run's header (5 slots), then a slot a message: 2,043 messages
      // a batch, so five batches (more only if a slice ended early).
      assert.ok(fakes.workers[0].main.posts - before >= 5);
      assert.ok(fakes.workers[0].main.posts - before <= 8);
    } finally {
      await stop();
    }
  });

  it("keeps each sender's order to each actor when targets and senders alternate in a turn", async () => {
    const { system, worker, stop } = setup();
    try {
      const a = await spawnInWorker<number>(worker, "a", "Echo");
      const b = await spawnInWorker<number>(worker, "b", "Echo");
      await Promise.all([a.ask(-1), b.ask(-1)]);
      const { seen: seenX, collector: x } = collecting(system);
      const { seen: seenY, collector: y } = collecting(system);
      // Runs of one, two and three, then a long run to one actor.
      for (let n = 0; n < 300; n++) {
        (n % 3 === 0 ? b : a).tell(n, n % 2 === 0 ? x : y);
      }
      for (let n = 300; n < 600; n++) a.tell(n, x);
      await until(() => seenX.length + seenY.length === 600);
      const sent = (to: number, evens: boolean) =>
        [...Array(600).keys()].filter((n) =>
          (n % 3 === 0 && n < 300 ? 1 : 0) === to &&
          (n >= 300 ? evens : (n % 2 === 0) === evens)
        );
      const from = (seen: number[], to: number) =>
        seen.filter((n) => (n % 3 === 0 && n < 300 ? 1 : 0) === to);
      assert.deepEqual(from(seenX, 0), sent(0, true));
      assert.deepEqual(from(seenX, 1), sent(1, true));
      assert.deepEqual(from(seenY, 0), sent(0, false));
      assert.deepEqual(from(seenY, 1), sent(1, false));
    } finally {
      await stop();
    }
  });

  it("keeps the order of tells and asks sent to it in one turn", async () => {
    const { worker, stop } = setup();
    try {
      const journal = await spawnInWorker<number | "read">(
        worker,
        "journal",
        "Journal",
      );
      // Tells skip the stand-in while nothing waits in its mailbox; an
      // ask goes through it, and no tell sent after it may overtake it.
      const asks: Promise<unknown>[] = [];
      for (let n = 0; n < 50; n++) {
        if (n % 7 === 3) asks.push(journal.ask(n, 100).catch(() => {}));
        else journal.tell(n);
      }
      assert.deepEqual(await journal.ask("read"), [...Array(50).keys()]);
      await Promise.all(asks);
    } finally {
      await stop();
    }
  });

  it("settles each ask with the first reply; a second is a dead letter", async () => {
    const { worker, dead, stop } = setup();
    try {
      const twice = await spawnInWorker<number>(
        worker,
        "twice",
        "DoubleReplier",
      );
      const asks = 1_100; // past the 1,024 asks at which settled ones are swept
      for (let n = 0; n < asks; n++) assert.equal(await twice.ask(n), n);
      await until(() => dead.length === asks);
      assert.deepEqual(
        dead.map((letter) => letter.message),
        [...Array(asks).keys()],
      );
      for (const letter of dead) {
        // In the same run as the first reply: the settled ask refuses it;
        // in a later batch: the ask's number was used by the first.
        assert.match(
          letter.reason,
          /^(ask already completed|the ref it was sent to no longer exists)$/,
        );
      }
    } finally {
      await stop();
    }
  });

  it("opens a tracked message sent to it (a reply from a worker this side serves) as its own turn would, in order with its tells", async () => {
    const { system, worker, fakes, stop } = setup({
      backoff: workerBackoff({ minBackoff: 200, maxBackoff: 200 }),
    });
    try {
      const echo = await spawnInWorker<unknown>(worker, "echo", "Echo");
      await echo.ask("ready"); // the short cut is open
      const { seen, collector } = collecting(system);
      const outcomes: string[] = [];
      class Tracked extends TrackedMessage {
        constructor(readonly message: unknown) {
          super();
        }
        taken(): void {
          outcomes.push(`taken: ${this.message}`);
        }
        undelivered(reason: string): void {
          outcomes.push(reason);
        }
      }
      // By the port's door, as this side's server sends (the ref: its cell).
      const send = (message: unknown) =>
        (echo as unknown as ActorCell<unknown>).enqueueSent(
          new Tracked(message),
          collector,
        );
      send(7);
      await until(() => seen.length === 1);
      assert.deepEqual(seen, [7]); // the message itself crossed, not a wrapper
      assert.deepEqual(outcomes, ["taken: 7"]);
      // With the worker down, the short cut is closed: queued in the
      // stand-in, counted, so that a later tell does not overtake it.
      fakes.workers[0].crash();
      await new Promise((resolve) => setTimeout(resolve, 20)); // seen down
      send(8);
      echo.tell(9, collector);
      await until(() => seen.length === 3);
      assert.deepEqual(seen, [7, 8, 9]);
      assert.deepEqual(outcomes, ["taken: 7", "taken: 8"]);
    } finally {
      await stop();
    }
  });

  it("sends a late answer to an ask in the worker that timed out to dead letters on this side too", async () => {
    const { system, worker, dead, stop } = setup();
    try {
      const answerer = system.actorOf(Props.create(() => new LateAnswerer()));
      const asker = await spawnInWorker(worker, "asker", "ImpatientAsker");
      asker.tell("go", answerer);
      await until(() =>
        dead.some((letter) => letter.message === "late answer")
      );
      const letters = dead.filter((letter) => letter.message === "late answer");
      assert.equal(letters.length, 1);
      assert.equal(letters[0].reason, "ask already completed");
      assert.equal(letters[0].sender, answerer);
      assert.match(letters[0].recipient.path, /\/ask-\d+$/);
    } finally {
      await stop();
    }
  });

  it("as a sender from the worker can be asked; a timeout names that ref, not the way there", async () => {
    const { system, worker, stop } = setup();
    try {
      const senders: ActorRef<unknown>[] = [];
      const keeper = system.actorOf(
        Props.create(() => new SenderKeeper(senders)),
      );
      const caller = await spawnInWorker<string>(worker, "caller", "Caller");
      caller.tell("go", keeper); // it calls back, then holds its turn
      await until(() => senders.length === 1);
      const remote = senders[0];
      await assert.rejects(
        remote.ask("are you there?", 50),
        (error: unknown) =>
          error instanceof AskTimeoutError && error.path === remote.path &&
          /\/worker-\d+\/ref-\d+$/.test(error.path),
      );
      // Released, it takes the question, and holds that turn too.
      Caller.release();
      await until(() => Caller.holding === 1);
    } finally {
      Caller.release();
      await stop();
    }
  });

  it("as a sender from the worker, told with a sender that is no ref, gives a dead letter, not a throw", async () => {
    const { system, worker, dead, stop } = setup();
    try {
      const senders: ActorRef<unknown>[] = [];
      const keeper = system.actorOf(
        Props.create(() => new SenderKeeper(senders)),
      );
      const caller = await spawnInWorker<string>(worker, "caller", "Caller");
      caller.tell("go", keeper);
      await until(() => senders.length === 1);
      const remote = senders[0];
      remote.tell("hello", "not a ref" as never); // must not throw
      await until(() => dead.some((letter) => letter.message === "hello"));
      const letters = dead.filter((letter) => letter.message === "hello");
      assert.equal(letters.length, 1);
      assert.equal(letters[0].recipient, remote);
      assert.match(letters[0].reason, /sender .*not an actor ref/);
    } finally {
      Caller.release();
      await stop();
    }
  });

  it("told from inside the worker with a sender that is no ref: no throw there, nothing here", async () => {
    const { system, worker, stop } = setup();
    try {
      const { seen, collector } = collecting(system);
      const bad = await spawnInWorker(worker, "bad", "NoRefSender");
      bad.tell("go", collector);
      await until(() => seen.length === 1);
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.deepEqual(seen, ["did not throw"]);
    } finally {
      await stop();
    }
  });

  it("receives an ask and a tell from inside the worker in the order they were sent", async () => {
    const { system, worker, stop } = setup();
    try {
      const received: unknown[] = [];
      const answerer = system.actorOf(
        Props.create(() => new Answerer(received)),
      );
      const asker = await spawnInWorker<string>(
        worker,
        "asker",
        "AskThenTell",
      );
      asker.tell("go", answerer);
      await until(() => received.length === 3);
      assert.deepEqual(received, ["first", "second", "answered: answer"]);
    } finally {
      await stop();
    }
  });

  it("is stopped by a PoisonPill, as a local ref is: watchers hear of it, later messages are dead letters", async () => {
    const { system, worker, dead, stop } = setup();
    try {
      const echo = await spawnInWorker<unknown>(worker, "echo", "Echo");
      await echo.ask(-1);
      const ended: ActorRef<never>[] = [];
      const watcher = system.actorOf(Props.create(() => new Watcher(ended)));
      watcher.tell(echo as ActorRef<never>);
      await new Promise((resolve) => setTimeout(resolve, 5));
      echo.tell(PoisonPill);
      await until(() => ended.length === 1);
      assert.equal(ended[0], echo);
      echo.tell("after");
      await until(() => dead.some((letter) => letter.message === "after"));
      const letter = dead.find((letter) => letter.message === "after")!;
      assert.equal(letter.recipient, echo);
    } finally {
      await stop();
    }
  });

  it("stops its actor in the worker too, after what was sent before: the name then spawns a fresh one", async () => {
    const { system, worker, stop } = setup();
    try {
      // Its actor in the worker is still stopping when the name is spawned
      // again: the fresh one comes once the old one has stopped.
      const counter = await spawnInWorker<"inc" | "get">(
        worker,
        "c",
        "SlowToStopCounter",
      );
      const ended: ActorRef<never>[] = [];
      const watcher = system.actorOf(Props.create(() => new Watcher(ended)));
      watcher.tell(counter as ActorRef<never>);
      counter.tell("inc");
      counter.tell("inc");
      const count = counter.ask<number>("get");
      counter.tell(PoisonPill);
      assert.equal(await count, 2, "what came before the PoisonPill");
      await until(() => ended.length === 1);
      const again = await spawnInWorker<"inc" | "get">(
        worker,
        "c",
        "SlowToStopCounter",
      );
      assert.notEqual(again, counter);
      assert.equal(await again.ask("get"), 0, "a fresh actor, not the old one");
    } finally {
      await stop();
    }
  });

  it("moves the objects of a Transfer", async () => {
    const { worker, stop } = setup();
    try {
      const measurer = await spawnInWorker<ArrayBuffer>(
        worker,
        "measurer",
        "Measurer",
      );
      const buffer = new ArrayBuffer(4096);
      const size = measurer.ask<number>(new Transfer(buffer, [buffer]));
      assert.equal(await size, 4096);
      assert.equal(buffer.byteLength, 0); // detached: moved, not copied
    } finally {
      await stop();
    }
  });
});

describe("a remote ref stopped, its name spawned again", () => {
  /** A fresh log, and a watcher recording Terminated. */
  function watching(system: ActorSystem) {
    lifecycle.length = 0;
    LoggedCounter.instances = 0;
    const ended: ActorRef<never>[] = [];
    const watcher = system.actorOf(Props.create(() => new Watcher(ended)));
    return { ended, watch: (ref: unknown) => watcher.tell(ref as never) };
  }

  it("while the old actor still stops: the new one is stopped by its own PoisonPill too", async () => {
    const { system, worker, stop } = setup();
    try {
      const { ended, watch } = watching(system);
      const first = await spawnInWorker<"inc" | "get">(
        worker,
        "c",
        "LoggedCounter",
      );
      watch(first);
      first.tell(PoisonPill);
      await until(() => ended.length === 1); // its actor still stops (30 ms)
      const second = await spawnInWorker<"inc" | "get">(
        worker,
        "c",
        "LoggedCounter",
      );
      watch(second);
      second.tell("inc");
      second.tell(PoisonPill);
      await until(() => ended.length === 2);
      await until(() => lifecycle.includes("stop 2"));
      const third = await spawnInWorker<"inc" | "get">(
        worker,
        "c",
        "LoggedCounter",
      );
      assert.equal(await third.ask("get"), 0, "a fresh actor");
      assert.deepEqual(lifecycle, [
        "start 1",
        "stop 1",
        "start 2",
        "stop 2",
        "start 3",
      ]);
    } finally {
      await stop();
    }
  });

  it("when its actor had ended by itself: the worker's late word of it leaves the new ref alone", async () => {
    const { system, worker, stop } = setup();
    try {
      const first = await spawnInWorker<string>(worker, "s", "Stopper");
      await first.ask("hi");
      // Spawns "s" again the moment its ref is terminated, before the
      // worker's word that its actor ended can arrive.
      const ended: unknown[] = [];
      const refs: unknown[] = [];
      class Respawner extends Actor<unknown> {
        onReceive(message: unknown): void {
          if (message instanceof Terminated) {
            ended.push(message.ref);
            if (refs.length === 0) {
              worker.tell(
                new SpawnInWorker("s", "Stopper") as never,
                this.self,
              );
            }
          } else if (message === first) this.context.watch(first);
          else {
            refs.push(message);
            this.context.watch(message as ActorRef<never>);
          }
        }
      }
      system.actorOf(Props.create(() => new Respawner())).tell(first);
      await new Promise((resolve) => setTimeout(resolve, 5));
      first.tell("stop"); // it stops itself in the worker, which says so
      await Promise.resolve();
      first.tell(PoisonPill); // and its ref is stopped here, first
      await until(() => refs.length === 1);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const second = refs[0] as ActorRef<string>;
      assert.equal(await second.ask("hi"), "ok");
      assert.deepEqual(ended, [first], "the new ref runs on");
    } finally {
      await stop();
    }
  });

  it("on a server that outlives its owner (a worker the page did not start): stopped and spawned again while the link is down, a fresh actor", async () => {
    lifecycle.length = 0;
    LoggedCounter.instances = 0;
    const inside = new FakeEndpoint();
    const server = serveWorker(inside, {
      actors: { LoggedCounter: () => new LoggedCounter(lifecycle) },
    });
    const owners: FakeEndpoint[] = [];
    const create = () => {
      const main = new FakeEndpoint();
      main.other = inside;
      inside.other = main;
      owners.push(main);
      return { endpoint: main, terminate: () => void (main.cut = true) };
    };
    const system = ActorSystem.create("main", { logLevel: "off" });
    const worker = system.actorOf(
      workerProps({
        create,
        backoff: workerBackoff({ minBackoff: 50, maxBackoff: 50 }),
      }),
    );
    try {
      const ended: ActorRef<never>[] = [];
      const watcher = system.actorOf(Props.create(() => new Watcher(ended)));
      const first = await spawnInWorker<"inc" | "get">(
        worker,
        "c",
        "LoggedCounter",
      );
      first.tell("inc");
      assert.equal(await first.ask("get"), 1);
      watcher.tell(first as ActorRef<never>);
      owners[0].fireError("link lost"); // its owner goes; the server stays
      await new Promise((resolve) => setTimeout(resolve, 5));
      first.tell(PoisonPill);
      await until(() => ended.length === 1);
      const second = await spawnInWorker<"inc" | "get">(
        worker,
        "c",
        "LoggedCounter",
      );
      assert.equal(await second.ask("get"), 0, "a fresh actor");
      assert.equal(owners.length, 2);
      await until(() => lifecycle.includes("stop 1"));
      assert.deepEqual(lifecycle, ["start 1", "stop 1", "start 2"]);
    } finally {
      await system.terminate();
      await server.close();
    }
  });

  it("while the worker is down: the next worker starts the new actor once", async () => {
    const { system, fakes, worker, stop } = setup({
      backoff: workerBackoff({ minBackoff: 50, maxBackoff: 50 }),
    });
    try {
      const { ended, watch } = watching(system);
      const first = await spawnInWorker<"inc" | "get">(
        worker,
        "c",
        "LoggedCounter",
      );
      assert.equal(await first.ask("get"), 0);
      watch(first);
      fakes.workers[0].crash("gone");
      await new Promise((resolve) => setTimeout(resolve, 5));
      first.tell(PoisonPill);
      await until(() => ended.length === 1);
      const second = await spawnInWorker<"inc" | "get">(
        worker,
        "c",
        "LoggedCounter",
      );
      second.tell("inc");
      assert.equal(await second.ask("get"), 1);
      assert.equal(fakes.workers.length, 2);
      assert.deepEqual(
        lifecycle.filter((entry) => entry.startsWith("start")),
        ["start 1", "start 2"],
        "one start in each worker",
      );
    } finally {
      await stop();
    }
  });
});

describe("a message that cannot be cloned", () => {
  it("goes to dead letters with the clone error; the others cross", async () => {
    const { system, worker, dead, stop } = setup();
    try {
      const echo = await spawnInWorker<unknown>(worker, "echo", "Echo");
      const { seen, collector } = collecting(system);
      const bad = { run: () => 1 };
      echo.tell(1, collector);
      assert.doesNotThrow(() => echo.tell(bad, collector));
      echo.tell(2, collector);
      await until(() => seen.length === 2);
      assert.deepEqual(seen, [1, 2]);
      const letters = dead.filter((letter) => letter.message === bad);
      assert.equal(letters.length, 1);
      assert.equal(letters[0].recipient, echo);
      assert.equal(letters[0].sender, collector);
      assert.match(letters[0].reason, /^message could not be cloned \(.+\)$/);
      // An ask of one fails at once.
      await assert.rejects(
        echo.ask(Symbol("not cloneable")),
        (error) =>
          error instanceof UndeliveredError &&
          /could not be cloned/.test(error.reason),
      );
    } finally {
      await stop();
    }
  });

  it("never throws into the sender, not even for a revoked proxy", async () => {
    const { worker, dead, stop } = setup();
    try {
      const echo = await spawnInWorker<unknown>(worker, "echo", "Echo");
      await echo.ask("ready"); // the short cut is open
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      echo.tell(proxy); // checked in this turn: must not throw here
      await until(() => dead.some((letter) => letter.message === proxy));
      const letter = dead.find((letter) => letter.message === proxy)!;
      assert.match(letter.reason, /^message could not be cloned/);
      assert.equal(letter.recipient, echo);
    } finally {
      await stop();
    }
  });

  it("in the middle of a run: the rest crosses, each acknowledged", async () => {
    const { system, worker, fakes, dead, stop } = setup({
      backoff: workerBackoff({ minBackoff: 5, maxBackoff: 10 }),
    });
    try {
      const echo = await spawnInWorker<unknown>(worker, "echo", "Echo");
      await echo.ask(-1);
      const { seen, collector } = collecting(system);
      const bad = { run: () => 1 };
      for (let n = 0; n < 10; n++) echo.tell(n === 4 ? bad : n, collector);
      await until(() => seen.length === 9);
      assert.deepEqual(seen, [0, 1, 2, 3, 5, 6, 7, 8, 9]);
      await echo.ask(-2); // the acknowledgements have crossed back
      // Had a seq been shifted, the books would still hold some of them.
      fakes.workers[0].crash();
      await until(() => fakes.workers.length === 2);
      await echo.ask(-3);
      assert.deepEqual(
        dead.filter((letter) => typeof letter.message === "number"),
        [],
      );
      const letters = dead.filter((letter) => letter.message === bad);
      assert.equal(letters.length, 1);
      assert.match(letters[0].reason, /^message could not be cloned/);
    } finally {
      await stop();
    }
  });

  it("nor can a Transfer's objects: a dead letter alone, the other messages of its turn cross", async () => {
    const { system, worker, dead, stop } = setup();
    try {
      const a = await spawnInWorker<unknown>(worker, "a", "Echo");
      const b = await spawnInWorker<unknown>(worker, "b", "Echo");
      await a.ask(0);
      await b.ask(0);
      const { seen, collector } = collecting(system);
      const bad = new Transfer(2, [{}]); // {} is not transferable
      b.tell(1, collector);
      a.tell(bad, collector);
      b.tell(3, collector);
      await until(() => seen.length === 2 && dead.length === 1);
      assert.deepEqual(seen, [1, 3]);
      assert.equal(dead[0].message, bad, "as it was sent");
      assert.equal(dead[0].recipient, a);
      assert.match(dead[0].reason, /^message could not be cloned \(.+\)$/);
    } finally {
      await stop();
    }
  });

  it("nor a reply's Transfer in the worker: the message it answered still counts as handled there, once", async () => {
    const { worker, dead, stop } = setup();
    const mover = await spawnInWorker<unknown>(worker, "mover", "BadMover");
    await mover.ask("ready");
    // The reply's batch carries the acknowledgement of "move" too.
    await assert.rejects(
      mover.ask("move", 10_000),
      (error: unknown) =>
        error instanceof ReplyLostError &&
        /^message could not be cloned/.test(error.reason),
    );
    await stop(); // anything still in the books would be a dead letter now
    assert.deepEqual(
      dead.filter((letter) => letter.message === "move"),
      [],
      "handled, and so no dead letter",
    );
  });

  it("as a reply from the worker is a dead letter on the main side, and its ask fails at once", async () => {
    const { worker, dead, stop } = setup();
    try {
      const bad = await spawnInWorker<string>(worker, "bad", "BadReplier");
      // Not a timeout: the ask learns that its reply was lost.
      await assert.rejects(
        bad.ask("go", 10_000),
        (error: unknown) =>
          error instanceof ReplyLostError &&
          error.path === bad.path &&
          /^message could not be cloned \(.+\)$/.test(error.reason),
      );
      const letters = dead.filter((letter) =>
        /could not be cloned/.test(letter.reason)
      );
      assert.equal(letters.length, 1);
    } finally {
      await stop();
    }
  });

  it("as a reply from the main side to an ask in the worker is a dead letter here, and that ask fails at once", async () => {
    const { system, worker, dead, stop } = setup();
    try {
      const received: unknown[] = [];
      const answerer = system.actorOf(
        Props.create(() => new UncloneableAnswerer(received)),
      );
      const asker = await spawnInWorker(worker, "asker", "AskBack");
      asker.tell("go", answerer);
      await until(() => received.length === 1);
      assert.match(
        received[0] as string,
        /^failed: ReplyLostError at \/main\/ref-\d+ \(message could not be cloned \(.+\)\)$/,
      );
      const letters = dead.filter((letter) =>
        /could not be cloned/.test(letter.reason)
      );
      assert.equal(letters.length, 1);
      assert.equal(
        typeof (letters[0].message as { callback: unknown }).callback,
        "function",
      );
    } finally {
      await stop();
    }
  });
});

describe("spawning in the worker", () => {
  it("under the name of an actor that just ended there: a TypeError to the asker while its ref stops, and the worker goes on", async () => {
    const { system, fakes, worker, stop } = setup();
    try {
      const echo = await spawnInWorker<unknown>(worker, "echo", "Echo");
      const stopper = await spawnInWorker<string>(worker, "s", "Stopper");
      assert.equal(await stopper.ask("hi"), "ok");
      const ended: ActorRef<never>[] = [];
      const watcher = system.actorOf(Props.create(() => new Watcher(ended)));
      watcher.tell(echo);
      watcher.tell(stopper);
      // Asked the moment the worker says "s" ended: behind that news, in
      // the gate's mailbox, while the ref of "s" is still stopping.
      const answers: unknown[] = [];
      fakes.workers[0].main.addEventListener("message", (event) => {
        const batch = event.data as unknown[];
        for (let i = 0; i < batch.length; i += frameLength(batch, i)) {
          if (batch[i] !== STOPPED) continue;
          worker.ask(new SpawnInWorker("s", "Stopper"), 5_000).then(
            (answer) => answers.push(answer),
            (error) => answers.push(error),
          );
        }
      });
      stopper.tell("stop");
      await until(() => answers.length === 1);
      assert.ok(answers[0] instanceof TypeError, String(answers[0]));
      assert.match(answers[0].message, /"s" is still stopping/);
      assert.equal(await echo.ask("still here"), "still here");
      assert.equal(fakes.workers.length, 1, "the same worker");
      // Once its ref has stopped, the name is free again.
      await until(() => ended.includes(stopper as ActorRef<never>));
      const again = await spawnInWorker<string>(worker, "s", "Stopper");
      assert.equal(await again.ask("hi"), "ok");
      assert.deepEqual(
        ended,
        [stopper],
        "the other actor in the worker ran on",
      );
    } finally {
      await stop();
    }
  });

  it("answers the same ref for the same name and factory, a TypeError for another", async () => {
    const { worker, stop } = setup();
    try {
      const first = await spawnInWorker(worker, "twin", "Echo");
      assert.equal(await spawnInWorker(worker, "twin", "Echo"), first);
      await assert.rejects(
        spawnInWorker(worker, "twin", "Counter"),
        (error) =>
          error instanceof TypeError && /already runs/.test(error.message),
      );
      assert.throws(() => new SpawnInWorker("a/b", "Echo"), TypeError);
      assert.throws(() => new SpawnInWorker("ok", ""), TypeError);
    } finally {
      await stop();
    }
  });

  it("delivers what is told to a new ref in the very turn it arrives, under a BackoffSupervisor too", async () => {
    for (const backoff of [undefined, { minBackoff: 1, maxBackoff: 10 }]) {
      const { system, worker, dead, stop } = setup(
        backoff ? { backoff: workerBackoff(backoff) } : {},
      );
      try {
        // A worker already up, so the short cut to it is open.
        await spawnInWorker(worker, "first", "Echo");
        let toldAll!: () => void;
        const told = new Promise<void>((resolve) => (toldAll = resolve));
        class Requester extends Actor<unknown> {
          onReceive(message: unknown): void {
            if (message === "go") {
              worker.tell(
                new SpawnInWorker("counter", "Counter"),
                this.self as ActorRef<never>,
              );
            } else {
              const counter = message as ActorRef<"inc">;
              counter.tell("inc"); // before the spawn has reached the worker
              counter.tell("inc");
              toldAll();
            }
          }
        }
        system.actorOf(Props.create(() => new Requester())).tell("go");
        await told;
        const counter = await spawnInWorker<"inc" | "get">(
          worker,
          "counter",
          "Counter",
        );
        assert.equal(await counter.ask("get"), 2, `backoff: ${!!backoff}`);
        assert.deepEqual(dead, []);
      } finally {
        await stop();
      }
    }
  });

  it("takes a tell with a sender that is no ref as a dead letter, not a throw into the caller", async () => {
    const { worker, dead, stop } = setup();
    try {
      const echo = await spawnInWorker<string>(worker, "echo", "Echo");
      await echo.ask("ready"); // the short cut is open
      assert.doesNotThrow(() =>
        echo.tell("hello", "me" as unknown as ActorRef<never>)
      );
      await until(() => dead.some((letter) => letter.message === "hello"));
      const letter = dead.find((letter) => letter.message === "hello")!;
      assert.equal(letter.recipient, echo);
      assert.equal(
        letter.reason,
        'its sender is not an actor ref (got "me")',
      );
      // The stand-in goes on.
      assert.equal(await echo.ask("still here"), "still here");
    } finally {
      await stop();
    }
  });

  it("from a factory the worker does not know ends the ref, and its messages are dead letters", async () => {
    const { system, worker, dead, stop } = setup();
    try {
      const ended: ActorRef<never>[] = [];
      const watcher = system.actorOf(Props.create(() => new Watcher(ended)));
      const ghost = await spawnInWorker<string>(worker, "ghost", "Nope");
      watcher.tell(ghost as ActorRef<never>);
      ghost.tell("hello?");
      await until(() => ended.length === 1);
      assert.equal(ended[0], ghost);
      await until(() => dead.some((letter) => letter.message === "hello?"));
      const letter = dead.find((letter) => letter.message === "hello?")!;
      assert.match(letter.reason, /no actor named "ghost"|recipient stopped/);
    } finally {
      await stop();
    }
  });
});

describe("watching a remote actor", () => {
  it("gives Terminated when it stops in the worker", async () => {
    const { system, worker, dead, stop } = setup();
    try {
      const ended: ActorRef<never>[] = [];
      const watcher = system.actorOf(Props.create(() => new Watcher(ended)));
      const stopper = await spawnInWorker<string>(worker, "stopper", "Stopper");
      watcher.tell(stopper as ActorRef<never>);
      assert.equal(await stopper.ask("ping"), "ok");
      stopper.tell("stop");
      stopper.tell("after"); // reaches the worker after the stop
      await until(() => ended.length === 1);
      assert.equal(ended[0], stopper);
      await until(() => dead.some((letter) => letter.message === "after"));
    } finally {
      await stop();
    }
  });

  it("gives Terminated for every watched remote actor when an unsupervised worker dies", async () => {
    const { system, worker, fakes, dead, stop } = setup();
    try {
      const ended: ActorRef<never>[] = [];
      const watcher = system.actorOf(Props.create(() => new Watcher(ended)));
      const a = await spawnInWorker(worker, "a", "Echo");
      const b = await spawnInWorker(worker, "b", "Counter");
      watcher.tell(a as ActorRef<never>);
      watcher.tell(b as ActorRef<never>);
      assert.equal(await a.ask("hi"), "hi");
      fakes.workers[0].crash();
      a.tell("lost?");
      await until(() => ended.length === 2);
      assert.deepEqual(new Set(ended), new Set([a, b]));
      assert.equal(fakes.workers[0].terminated, true);
      await until(() => dead.some((letter) => letter.message === "lost?"));
    } finally {
      await stop();
    }
  });
});

describe("a supervised worker", () => {
  it("killed mid-stream: every message is handled once or dead-lettered once, and the actor runs again", async () => {
    const { system, worker, fakes, dead, stop } = setup({
      backoff: workerBackoff({ minBackoff: 10, maxBackoff: 100 }),
    });
    try {
      const { seen, collector } = collecting(system);
      const recorder = await spawnInWorker<{ n: number }>(
        worker,
        "recorder",
        "Recorder",
        [250],
      );
      const total = 1_000;
      await streamJobs(recorder, collector, { total, pauseMs: 2 });
      await until(() => seen.length + jobNumbers(dead).length === total);
      const lost = jobNumbers(dead);
      assertEachOnce(seen, lost, total);
      const handled = new Set(seen);
      assert.ok(handled.has(0), "the first worker handled the first jobs");
      // It died in the turn that handled 250: that turn's replies and
      // acknowledgements never left it, so 250 counts as not handled.
      assert.ok(lost.includes(250));
      assert.ok(handled.has(total - 1), "the new worker handles the rest");
      assert.equal(fakes.workers.length, 2);
      for (
        const letter of dead.filter((l) =>
          lost.includes((l.message as { n: number }).n)
        )
      ) {
        assert.match(letter.reason, /worker died before handling it/);
      }
    } finally {
      await stop();
    }
  });

  it("keeps the order of messages sent before, while and after it is down", async () => {
    const { system, worker, fakes, dead, stop } = setup({
      backoff: workerBackoff({ minBackoff: 5, maxBackoff: 10 }),
    });
    try {
      const { seen, collector } = collecting(system);
      const echo = await spawnInWorker<number>(worker, "echo", "Echo");
      await echo.ask(-1);
      let n = 0;
      for (; n < 100; n++) echo.tell(n, collector);
      await until(() => seen.length === 100);
      fakes.workers[0].crash();
      // Sent while the worker is down, while the next one starts, and after.
      while (fakes.workers.length < 2 || n < 400) {
        for (let i = 0; i < 20; i++, n++) echo.tell(n, collector);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      await until(() => seen.length === n);
      assert.deepEqual(seen, [...Array(n).keys()]);
      assert.deepEqual(
        dead.filter((letter) => typeof letter.message === "number"),
        [],
      );
    } finally {
      await stop();
    }
  });

  /**
   * A supervised worker running an echo, crashed: its supervisor waits out
   * `backoffMs`, stashing at most `maxStashSize` messages.
   */
  async function downWithEcho(maxStashSize: number, backoffMs: number) {
    const env = setup({
      backoff: workerBackoff({
        minBackoff: backoffMs,
        maxBackoff: backoffMs,
        maxStashSize,
      }),
    });
    const { seen, collector } = collecting(env.system);
    const echo = await spawnInWorker<number>(env.worker, "echo", "Echo");
    await echo.ask(-1);
    env.fakes.workers[0].crash();
    // Its owner has stopped; the supervisor waits out the backoff.
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { ...env, seen, collector, echo };
  }

  it("drops what its stash cannot hold while it is down: each a dead letter once, as itself, to the remote ref", async () => {
    const { dead, stop, seen, collector, echo } = await downWithEcho(2, 500);
    try {
      for (let n = 0; n < 5; n++) echo.tell(n, collector);
      const dropped = () =>
        dead.filter((letter) => typeof letter.message === "number");
      await until(() => seen.length + dropped().length === 5);
      assert.deepEqual(seen, [0, 1]);
      assert.deepEqual(dropped().map((letter) => letter.message), [2, 3, 4]);
      assert.ok(dead.every((letter) => !(letter.message instanceof Outgoing)));
      for (const letter of dropped()) {
        assert.equal(letter.recipient, echo);
        assert.equal(letter.sender, collector);
        assert.match(letter.reason, /stash full/);
      }
      // Nothing waits for the dropped ones: the next message crosses.
      assert.equal(await echo.ask(9), 9);
    } finally {
      await stop();
    }
  });

  it("spawns what was asked for while it was down, even past a full stash, with no dead letter for the spawn", async () => {
    const { worker, fakes, dead, stop, seen, collector, echo } =
      await downWithEcho(1, 300);
    try {
      echo.tell(1, collector); // fills the supervisor's stash
      const late = await spawnInWorker<number>(worker, "late", "Echo");
      await until(() => seen.length === 1); // the next worker is up
      assert.equal(await late.ask(42, 5_000), 42);
      assert.equal(fakes.workers.length, 2);
      assert.deepEqual(
        dead.filter((letter) =>
          letter.message instanceof SpawnInWorker ||
          letter.message instanceof SpawnCommand
        ),
        [],
      );
    } finally {
      await stop();
    }
  });

  it("dead-letters every message in flight once, in order, when it dies", async () => {
    const { system, worker, fakes, dead, stop } = setup({
      backoff: workerBackoff({ minBackoff: 5, maxBackoff: 10 }),
    });
    try {
      const { seen, collector } = collecting(system);
      const echo = await spawnInWorker<{ n: number } | number>(
        worker,
        "echo",
        "Echo",
      );
      await echo.ask(-1);
      fakes.workers[0].inside.mute = true; // hung: no acknowledgement
      const total = 3_000; // in flight across several chunks of the books
      for (let n = 0; n < total; n++) echo.tell({ n }, collector);
      await until(() => fakes.workers[0].main.posted.has(total - 1));
      fakes.workers[0].crash("killed");
      const jobs = () =>
        dead.filter((letter) => jobNumbers([letter]).length === 1);
      await until(() => jobs().length >= total);
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.deepEqual(jobNumbers(jobs()), [...Array(total).keys()]);
      for (const letter of jobs()) {
        assert.match(letter.reason, /worker died before handling it/);
        assert.equal(letter.recipient, echo);
      }
      assert.equal(seen.length, 0);
    } finally {
      await stop();
    }
  });

  it("that dies with nothing in flight publishes no dead letter: its owner's failure is nobody's message", async () => {
    const { worker, fakes, dead, stop } = setup({
      backoff: workerBackoff({ minBackoff: 1, maxBackoff: 10 }),
    });
    try {
      const echo = await spawnInWorker<string>(worker, "echo", "Echo");
      assert.equal(await echo.ask("one"), "one");
      fakes.workers[0].crash("killed");
      await until(() => fakes.workers.length === 2);
      assert.equal(await echo.ask("two"), "two");
      assert.deepEqual(dead, []);
    } finally {
      await stop();
    }
  });

  it("that stops answering the heartbeat is replaced, with no dead letter", async () => {
    const { worker, fakes, dead, stop } = setup({
      backoff: workerBackoff({ minBackoff: 1, maxBackoff: 10 }),
      heartbeat: { intervalMs: 10, timeoutMs: 40 },
    });
    try {
      const counter = await spawnInWorker<"inc" | "get">(
        worker,
        "counter",
        "Counter",
      );
      counter.tell("inc");
      assert.equal(await counter.ask("get"), 1);
      fakes.workers[0].inside.mute = true; // hung: nothing comes back
      await until(() => fakes.workers.length === 2);
      assert.equal(fakes.workers[0].terminated, true);
      // Spawned again in the new worker (with a fresh count).
      assert.equal(await counter.ask("get"), 0);
      assert.deepEqual(dead, []);
    } finally {
      await stop();
    }
  });

  it("misses the heartbeat on the system's clock (virtual time moves it too)", async () => {
    const scheduler = new ManualScheduler();
    const { worker, fakes, stop } = setup({
      backoff: workerBackoff({ minBackoff: 1, maxBackoff: 10 }),
      heartbeat: { intervalMs: 1_000, timeoutMs: 5_000 },
    }, scheduler);
    try {
      const counter = await spawnInWorker<"inc" | "get">(
        worker,
        "counter",
        "Counter",
      );
      assert.equal(await counter.ask("get"), 0);
      fakes.workers[0].inside.mute = true; // hung: nothing comes back
      await scheduler.timePasses(5_000); // silent for 5 s: not yet over 5 s
      assert.equal(fakes.workers.length, 1);
      await scheduler.timePasses(1_000 + 10); // the next beat finds it late
      assert.equal(fakes.workers.length, 2);
      assert.equal(fakes.workers[0].terminated, true);
    } finally {
      await stop();
    }
  });

  it("ignores news of a worker death meant for another owner (one a supervisor passed on): its own worker keeps running", async () => {
    const { worker, fakes, dead, stop } = setup();
    try {
      const echo = await spawnInWorker<string>(worker, "echo", "Echo");
      assert.equal(await echo.ask("one"), "one");
      const owner = (worker as unknown as ActorCell<unknown>).child(LINK_NAME)!;
      const stale = new WorkerDown("an earlier worker died", owner, {});
      owner.tell(stale as never);
      assert.equal(await echo.ask("two"), "two");
      assert.equal(fakes.workers.length, 1);
      assert.equal(fakes.workers[0].terminated, false);
      assert.deepEqual(dead, []);
    } finally {
      await stop();
    }
  });

  it("restarted in place by a strategy keeps the messages sent meanwhile", async () => {
    const { worker, fakes, stop } = setup({
      strategy: new OneForOneStrategy(() => "restart", { maxRetries: 3 }),
    });
    try {
      const echo = await spawnInWorker<string>(worker, "echo", "Echo");
      assert.equal(await echo.ask("one"), "one");
      fakes.workers[0].crash();
      assert.equal(await echo.ask("two"), "two");
      assert.equal(fakes.workers.length, 2);
    } finally {
      await stop();
    }
  });
});

describe("acknowledgement", () => {
  it("counts a message handled by a become handler as handled", async () => {
    const { system, worker, fakes, dead, stop } = setup({
      backoff: workerBackoff({ minBackoff: 5, maxBackoff: 10 }),
    });
    try {
      const { seen, collector } = collecting(system);
      const switcher = await spawnInWorker<unknown>(
        worker,
        "switcher",
        "Switcher",
      );
      switcher.tell("switch");
      for (let n = 0; n < 100; n++) switcher.tell(n, collector);
      // Each reply crosses in the batch that acknowledges its message.
      await until(() => seen.length === 100);
      fakes.workers[0].crash();
      await until(() => fakes.workers.length === 2);
      // Handled before the crash: none of them counts as lost.
      assert.deepEqual(
        dead.map((letter) => letter.message).filter((m) =>
          typeof m === "number"
        ),
        [],
      );
    } finally {
      await stop();
    }
  });

  it("counts a reply to a worker-side actor as handled only when its turn comes", async () => {
    const { system, worker, fakes, dead, stop } = setup();
    try {
      const received: unknown[] = [];
      const answerer = system.actorOf(
        Props.create(() => new Answerer(received)),
      );
      const caller = await spawnInWorker<string>(worker, "caller", "Caller");
      // The caller calls the answerer back and holds its turn, so the
      // answer waits in its mailbox in the worker.
      caller.tell("go", answerer);
      await until(() => received.length === 1);
      await new Promise((resolve) => setTimeout(resolve, 10));
      fakes.workers[0].crash("killed");
      await until(() => dead.some((letter) => letter.message === "answer"));
      const answers = dead.filter((letter) => letter.message === "answer");
      assert.equal(answers.length, 1);
      assert.match(answers[0].reason, /worker died before handling it/);
      assert.match(answers[0].recipient.path, /\/worker-\d+\/ref-\d+$/);
    } finally {
      Caller.release();
      await stop();
    }
  });

  it("is not given for a message by an equal one sent inside the worker", async () => {
    const { system, worker, fakes, dead, stop } = setup();
    try {
      const { collector } = collecting(system);
      const holder = await spawnInWorker<unknown>(worker, "holder", "Holder");
      await holder.ask("started");
      // Inside the worker: a turn held, and a 5 queued behind it.
      Holder.ref!.tell("hold");
      Holder.ref!.tell(5);
      // From the main side: an equal 5, queued behind the worker's.
      holder.tell(5, collector);
      await until(() => fakes.workers[0].main.posts >= 3);
      await new Promise((resolve) => setTimeout(resolve, 10));
      Holder.release(); // the worker's 5 is handled, and holds the turn
      await until(() => Holder.handled.length === 3);
      await new Promise((resolve) => setTimeout(resolve, 10));
      fakes.workers[0].crash("killed");
      await until(() => dead.some((letter) => letter.message === 5));
      assert.deepEqual(Holder.handled, ["started", "hold", 5]);
      const fives = dead.filter((letter) => letter.message === 5);
      assert.equal(fives.length, 1);
      assert.match(fives[0].reason, /worker died before handling it/);
      assert.equal(fives[0].recipient, holder);
    } finally {
      Holder.release();
      await stop();
    }
  });
});

describe("a message a worker actor stashes", () => {
  it("stays the main side's until handled: released, each is handled once; the worker dying first, each is a dead letter", async () => {
    const { system, worker, fakes, dead, stop } = setup();
    try {
      const { seen, collector } = collecting(system);
      const stasher = await spawnInWorker<number | string>(
        worker,
        "stasher",
        "Stasher",
      );
      for (let n = 0; n < 3; n++) stasher.tell(n, collector);
      assert.equal(await stasher.ask("ping"), "pong"); // all three stashed
      stasher.tell("release", collector);
      await until(() => seen.length === 3);
      assert.deepEqual(seen, [0, 1, 2]);
      const holding = await spawnInWorker<number | string>(
        worker,
        "holding",
        "Stasher",
      );
      for (let n = 3; n < 6; n++) holding.tell(n, collector);
      assert.equal(await holding.ask("ping"), "pong");
      fakes.workers[0].crash("killed with a full stash");
      await until(() =>
        dead.filter((letter) => typeof letter.message === "number").length ===
          3
      );
      const stashed = dead.filter((letter) =>
        typeof letter.message === "number"
      );
      assert.deepEqual(stashed.map((letter) => letter.message), [3, 4, 5]);
      for (const letter of stashed) {
        assert.match(letter.reason, /worker died before handling it/);
        assert.equal(letter.recipient, holding);
      }
    } finally {
      await stop();
    }
  });

  it("stashed by a BackoffSupervisor in the worker while its child is down stays the main side's: the worker dying, each is a dead letter", async () => {
    const { system, worker, fakes, dead, stop } = setup();
    try {
      const { seen, collector } = collecting(system);
      const senders: ActorRef<unknown>[] = [];
      const keeper = system.actorOf(
        Props.create(() => new SenderKeeper(senders)),
      );
      const holder = await spawnInWorker<unknown>(
        worker,
        "holder",
        "SupervisorKeeper",
      );
      holder.tell("which?", keeper);
      await until(() => senders.length === 1);
      const supervisor = senders[0]; // its ref, from the worker
      supervisor.tell("hello", collector);
      await until(() => seen.length === 1); // handled by its child
      supervisor.tell("crash"); // the child is down for a minute
      for (let n = 0; n < 3; n++) supervisor.tell(n, collector);
      assert.equal(await holder.ask("settled?"), "supervisor");
      fakes.workers[0].crash("killed while the supervisor stashed");
      const lost = () =>
        dead.filter((letter) => typeof letter.message === "number");
      await until(() => lost().length === 3);
      assert.deepEqual(lost().map((letter) => letter.message), [0, 1, 2]);
      for (const letter of lost()) {
        assert.match(letter.reason, /worker died before handling it/);
        assert.equal(letter.recipient, supervisor);
      }
      assert.deepEqual(seen, ["hello"]);
    } finally {
      await stop();
    }
  });

  it("answered in a turn that filled a batch crosses with its acknowledgement: a worker lost after that post never dead-letters it", async () => {
    const { system, worker, fakes, dead, stop } = setup();
    try {
      const { seen, collector } = collecting(system);
      const chatty = await spawnInWorker(worker, "chatty", "Chatty");
      // The worker is lost right after its next post, as a terminate() that
      // lands between two posts: one post is all that crosses, or nothing.
      const inside = fakes.workers[0].inside;
      const post = inside.postMessage.bind(inside);
      inside.postMessage = (batch, transfer) => {
        post(batch, transfer);
        inside.cut = true;
      };
      chatty.tell("go", collector);
      await until(() => seen.length > 0);
      chatty.tell("after the loss"); // never reaches the worker
      fakes.workers[0].crash("lost after one post");
      await until(() =>
        dead.some((letter) => letter.message === "after the loss")
      );
      assert.equal(seen.length, 2_100, "every reply of the turn crossed");
      assert.deepEqual(
        dead.filter((letter) => letter.message === "go"),
        [],
        "answered, so not a dead letter",
      );
    } finally {
      await stop();
    }
  });

  it("late in a turn that filled a batch first is still the main side's", async () => {
    const { system, worker, fakes, dead, stop } = setup();
    try {
      const { seen, collector } = collecting(system);
      const chatty = await spawnInWorker(worker, "chatty", "ChattyStasher");
      chatty.tell("kept", collector);
      await until(() => seen.length === 2_100);
      fakes.workers[0].crash("killed after a long turn");
      await until(() => dead.some((letter) => letter.message === "kept"));
      const letters = dead.filter((letter) => letter.message === "kept");
      assert.equal(letters.length, 1);
      assert.match(letters[0].reason, /worker died before handling it/);
    } finally {
      await stop();
    }
  });

  it("after an await in an async handler is still the main side's, as is one whose handler still runs", async () => {
    const { worker, fakes, dead, stop } = setup();
    try {
      const stasher = await spawnInWorker(worker, "async", "AsyncStasher");
      stasher.tell("kept after an await");
      assert.equal(await stasher.ask("ping"), "pong"); // its turn has ended
      const holder = await spawnInWorker(worker, "holder", "AsyncStasher");
      holder.tell("hold");
      await new Promise((resolve) => setTimeout(resolve, 20));
      fakes.workers[0].crash("killed");
      const lost = ["kept after an await", "hold"];
      await until(() =>
        lost.every((m) => dead.some((letter) => letter.message === m))
      );
      for (const message of lost) {
        const letters = dead.filter((letter) => letter.message === message);
        assert.equal(letters.length, 1, message);
        assert.match(letters[0].reason, /worker died before handling it/);
      }
    } finally {
      AsyncStasher.release();
      await stop();
    }
  });

  it("handled by an async handler counts as handled when it settles: nothing is left owed", async () => {
    const { worker, dead, stop } = setup();
    try {
      const stasher = await spawnInWorker(worker, "async", "AsyncStasher");
      for (let n = 0; n < 3; n++) {
        assert.equal(await stasher.ask("ping"), "pong");
      }
      stasher.tell("hold");
      await new Promise((resolve) => setTimeout(resolve, 10));
      AsyncStasher.release();
      assert.equal(await stasher.ask("ping"), "pong");
    } finally {
      await stop();
    }
    // Had an acknowledgement been missed, terminating would have
    // dead-lettered that message as never handled.
    assert.deepEqual(dead.map((letter) => letter.message), []);
  });

  it("and leaves behind at its stop is a dead letter on the main side too", async () => {
    const { system, worker, dead, stop } = setup();
    try {
      const { collector } = collecting(system);
      const stasher = await spawnInWorker<number | string>(
        worker,
        "stasher",
        "Stasher",
      );
      for (let n = 0; n < 3; n++) stasher.tell(n, collector);
      stasher.tell("stop");
      await until(() =>
        dead.filter((letter) => typeof letter.message === "number").length ===
          3
      );
      const left = dead.filter((letter) => typeof letter.message === "number");
      assert.deepEqual(left.map((letter) => letter.message), [0, 1, 2]);
      for (const letter of left) {
        assert.equal(letter.recipient, stasher);
        assert.equal(letter.sender, collector);
      }
    } finally {
      await stop();
    }
  });
});

describe("terminating", () => {
  it("leaves no listener, and terminates every worker", async () => {
    const { worker, fakes, stop } = setup({
      backoff: workerBackoff({ minBackoff: 1, maxBackoff: 10 }),
      heartbeat: { intervalMs: 10, timeoutMs: 1_000 },
    });
    const echo = await spawnInWorker<string>(worker, "echo", "Echo");
    assert.equal(await echo.ask("hi"), "hi");
    fakes.workers[0].crash();
    await until(() => fakes.workers.length === 2);
    assert.equal(await echo.ask("again"), "again");
    await stop();
    for (const fake of fakes.workers) {
      assert.equal(fake.terminated, true);
      assert.equal(fake.main.listenerCount, 0);
      assert.equal(fake.inside.listenerCount, 0);
    }
  });

  it("checks its options at the call", () => {
    assert.throws(
      () => workerProps({} as WorkerOptions),
      (error) => error instanceof TypeError && /"create"/.test(error.message),
    );
    assert.throws(
      () =>
        workerProps({
          create: () => undefined,
          heartbeat: { intervalMs: -1, timeoutMs: 10 },
        }),
      (error) =>
        error instanceof RangeError &&
        /"heartbeat.intervalMs"/.test(error.message),
    );
    assert.throws(
      () =>
        workerProps({
          create: () => undefined,
          backoff: workerBackoff({ minBackoff: 10, maxBackoff: 1 }),
        }),
      RangeError,
    );
    // The options object itself (the form before workerBackoff) is refused by name.
    assert.throws(
      () =>
        workerProps({
          create: () => undefined,
          backoff: { minBackoff: 10, maxBackoff: 100 } as never,
        }),
      (error) =>
        error instanceof TypeError && /"backoff"/.test(error.message) &&
        /workerBackoff/.test(error.message),
    );
    // Not an object at all: refused by workerBackoff, naming its options.
    for (const value of [null, 5, undefined]) {
      assert.throws(
        () => workerBackoff(value as never),
        (error) =>
          error instanceof TypeError && /workerBackoff/.test(error.message) &&
          /"options"/.test(error.message),
      );
    }
  });

  it("uses the options workerBackoff checked: they cannot be changed afterwards", async () => {
    const given = { minBackoff: 100, maxBackoff: 5_000 };
    const backoff = workerBackoff(given);
    given.minBackoff = -7; // the caller's object is not the one kept
    assert.throws(() => {
      (backoff.options as { minBackoff: number }).minBackoff = -7;
    }, TypeError);
    assert.equal(backoff.options.minBackoff, 100);
    const errors: unknown[] = [];
    const system = ActorSystem.create("kept-options", {
      logLevel: "error",
      logger: (record) => void errors.push(record),
    });
    try {
      system.actorOf(workerProps({ create: () => undefined, backoff }), "w");
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      await system.terminate();
    }
    assert.deepEqual(errors, [], "the worker's supervisor started cleanly");
  });
});
