// Copyright 2026 the understudy authors. MIT license.

/**
 * The worker `bench/durable.mjs` serves from workerd: Durable Objects that
 * send (`Sender`, and `AnonSender`, which does not know its own binding)
 * and one that receives, and several ways of getting N messages from a
 * sender to the receiver.
 *
 * - `understudy`: the sender's actor tells a remote ref N times (tells of
 *   one turn leave together, one RPC call per batch of up to 256), then
 *   asks the receiving actor for its count, which arrives after them. The
 *   tells are numbered (the sender knows itself), so the receiver drops
 *   copies and stores its high-water mark once per batch: the cost of
 *   exactly-once delivery.
 * - `understudy-unnumbered`: the same from `AnonSender`, whose tells carry
 *   no identity: no numbering, no storage write (what durability costs is
 *   the difference).
 * - `rpc-batched-to-actor`: batches of 256 by hand, each message told to
 *   the receiving actor by the receiver's RPC method: the floor under
 *   understudy's tells (RPC plus the actor), without their wire format,
 *   routing and numbering.
 * - `rpc-batched-to-actor-marked`: the same, and the receiver stores the
 *   batch's last number (one storage write a batch, not awaited: the
 *   output gate holds the reply): exactly-once by hand, the floor under
 *   understudy's numbered tells.
 * - `rpc-packets-to-actor`: the same in understudy's wire format
 *   (`[path, message, senderPath]` a message): what that format costs.
 * - `rpc-runs-to-actor`: the same in the runs format understudy's refs
 *   send (the paths once a run, then the messages).
 * - `rpc-queued-to-actor`: the same, all N messages made before the
 *   first call (as a queue holds the tells of one turn), then sent in
 *   batches of 256: what holding them costs.
 * - `rpc-deliver`: the same batches handed to the receiver's
 *   `understudyDeliver` by hand (no identity): what the receiving host
 *   costs, without the sending side.
 * - `rpc-deliver-runs`: the same in the runs format a remote ref sends:
 *   the receiving host's cost against `rpc-runs-to-actor`, and the
 *   sending side's against `understudy-unnumbered`.
 * - `latency` / `latency-unnumbered`: N / 100 rounds of one tell and one
 *   ask, each awaited: the round trip a tell adds, numbered or not.
 * - `rpc-awaited`: one RPC call per message, each awaited before the next.
 * - `rpc-pipelined`: one RPC call per message, all made at once (delivered
 *   in order on one stub), then awaited together.
 * - `rpc-batched`: batches of 256 messages by hand, one awaited RPC call
 *   each (what understudy does for you, without actors).
 *
 * Each run returns the count the receiver saw, which must be N.
 *
 * @module
 */

import { DurableObject } from "./cloudflare_workers.ts";
import { Actor, type ActorRef, type ActorSystem, Props } from "../../mod.ts";
import { type ActorHost, withActors } from "../../src/durable/mod.ts";

type Msg = { seq: number; body: string } | "count" | "zero";

/** Messages `start` up to 256 more (not past `n`): one hand-made batch. */
function batchFrom(start: number, n: number): Msg[] {
  const batch: Msg[] = [];
  for (let seq = start; seq < Math.min(n, start + 256); seq++) {
    batch.push({ seq, body: "hello" });
  }
  return batch;
}

class Counter extends Actor<Msg> {
  #count = 0;
  onReceive(message: Msg): void {
    if (message === "count") this.sender?.tell(this.#count);
    else if (message === "zero") {
      this.#count = 0;
      this.sender?.tell(0);
    } else this.#count++;
  }
}

class Blaster extends Actor<{ n: number }> {
  constructor(readonly host: { actors: ActorHost }) {
    super();
  }
  onReceive({ n }: { n: number }): void {
    const target = this.host.actors.ref<Msg>(
      "RECEIVER",
      "receiver",
      "/user/counter",
    );
    const replyTo = this.sender;
    for (let seq = 0; seq < n; seq++) target.tell({ seq, body: "hello" });
    target.ask<number>("count", 60_000).then(
      (count) => replyTo?.tell(count),
      (error) => replyTo?.tell(String(error)),
    );
  }
}

interface ReceiverStub {
  receive(message: Msg): Promise<void>;
  receiveBatch(messages: Msg[]): Promise<void>;
  receiveBatchToActor(messages: Msg[]): Promise<void>;
  receiveBatchToActorMarked(messages: Msg[], last: number): Promise<void>;
  receivePacketsToActor(packets: [string, Msg, string][]): Promise<void>;
  receiveRunsToActor(
    batch: { runs: (string | number)[]; messages: Msg[] },
  ): Promise<void>;
  understudyDeliver(
    from: null,
    first: number,
    batch: [string, Msg, string][] | {
      runs: (string | number)[];
      messages: Msg[];
    },
  ): Promise<void>;
  actorCount(): Promise<number>;
  actorZero(): Promise<void>;
  reset(): Promise<void>;
  count(): Promise<number>;
  storageWrites(): Promise<number>;
}

export class Receiver extends withActors(DurableObject, {
  binding: "RECEIVER",
  system: { logLevel: "warn" },
}) {
  #plain = 0;
  #marks = 0;
  #counter: ActorRef<Msg> | undefined;
  override createActors(system: ActorSystem): void {
    this.#counter = this.actors.expose(
      system.actorOf(Props.create(() => new Counter()), "counter"),
    );
  }
  /** Direct RPC: one message. */
  receive(_message: Msg): void {
    this.#plain++;
  }
  /** Direct RPC: a batch of messages, each told to the receiving actor (what the receiver of understudy's tells does, without the rest). */
  receiveBatchToActor(messages: Msg[]): void {
    const counter = this.#counter!;
    for (const message of messages) counter.tell(message);
  }
  /** Direct RPC: a batch of messages, each told to the receiving actor, and the batch's last number stored (one write a batch, as a high-water mark by hand). */
  receiveBatchToActorMarked(messages: Msg[], last: number): void {
    const counter = this.#counter!;
    for (const message of messages) counter.tell(message);
    this.ctx.storage.put("bench/mark", last).catch(() => {});
    this.#marks++;
  }
  /** Direct RPC: a batch in understudy's wire format (`[path, message, senderPath]`), each message told to the receiving actor: what the wire format costs, without the rest. */
  receivePacketsToActor(packets: [string, Msg, string][]): void {
    const counter = this.#counter!;
    for (const packet of packets) counter.tell(packet[1]);
  }
  /** Direct RPC: a batch as understudy's refs send it (runs of paths, then the messages), each message told to the receiving actor. */
  receiveRunsToActor(
    batch: { runs: (string | number)[]; messages: Msg[] },
  ): void {
    const counter = this.#counter!;
    for (const message of batch.messages) counter.tell(message);
  }
  /** The receiving actor's count. */
  actorCount(): Promise<number> {
    return this.#counter!.ask<number>("count", 60_000);
  }
  /** Zeroes the receiving actor's count. */
  async actorZero(): Promise<void> {
    this.actors.system;
    await this.#counter!.ask("zero", 60_000);
  }
  /** Direct RPC: a batch of messages. */
  receiveBatch(messages: Msg[]): void {
    this.#plain += messages.length;
  }
  reset(): void {
    this.#plain = 0;
  }
  count(): number {
    return this.#plain;
  }
  /** Storage writes made for high-water marks so far (by the host, and by hand). */
  storageWrites(): number {
    return this.actors.storageWrites + this.#marks;
  }
}

/** The sending side, with its binding (`SENDER`) or without (tells unnumbered). */
function senderClass(binding: string | undefined) {
  return class extends withActors(DurableObject, {
    binding,
    system: { logLevel: "warn" },
  }) {
    declare protected env: {
      RECEIVER: {
        idFromName(name: string): unknown;
        get(id: unknown): ReceiverStub;
      };
    };

    #blaster: ActorRef<{ n: number }> | undefined;

    #receiver(): ReceiverStub {
      const ns = this.env.RECEIVER;
      return ns.get(ns.idFromName("receiver"));
    }

    async run(
      kind: string,
      n: number,
    ): Promise<{ count: number; writes: number }> {
      const receiver = this.#receiver();
      const writesBefore = await receiver.storageWrites();
      const counted = async (count: number) => ({
        count,
        writes: (await receiver.storageWrites()) - writesBefore,
      });
      if (kind === "understudy") {
        const counter = this.actors.ref<Msg>(
          "RECEIVER",
          "receiver",
          "/user/counter",
        );
        await counter.ask("zero", 60_000);
        this.#blaster ??= this.actors.system.actorOf(
          Props.create(() => new Blaster(this)),
          "blaster",
        );
        return counted(await this.#blaster.ask<number>({ n }, 60_000));
      }
      if (kind === "latency") {
        const counter = this.actors.ref<Msg>(
          "RECEIVER",
          "receiver",
          "/user/counter",
        );
        await counter.ask("zero", 60_000);
        const rounds = n / 100;
        let count = 0;
        for (let seq = 0; seq < rounds; seq++) {
          counter.tell({ seq, body: "hello" });
          count = await counter.ask<number>("count", 60_000);
        }
        return counted(count * 100);
      }
      if (
        kind === "rpc-batched-to-actor" ||
        kind === "rpc-batched-to-actor-marked"
      ) {
        await receiver.actorZero();
        for (let start = 0; start < n; start += 256) {
          const batch = batchFrom(start, n);
          if (kind === "rpc-batched-to-actor") {
            await receiver.receiveBatchToActor(batch);
          } else {
            await receiver.receiveBatchToActorMarked(
              batch,
              start + batch.length,
            );
          }
        }
        return counted(await receiver.actorCount());
      }
      if (kind === "rpc-runs-to-actor") {
        await receiver.actorZero();
        for (let start = 0; start < n; start += 256) {
          const messages = batchFrom(start, n);
          await receiver.receiveRunsToActor({
            runs: ["/user/counter", "/user/b", messages.length],
            messages,
          });
        }
        return counted(await receiver.actorCount());
      }
      if (kind === "rpc-queued-to-actor") {
        await receiver.actorZero();
        // All N made first, as a queue holds what was told in one turn.
        const queued: Msg[] = [];
        for (let seq = 0; seq < n; seq++) queued.push({ seq, body: "hello" });
        for (let start = 0; start < n; start += 256) {
          const messages = queued.slice(start, start + 256);
          await receiver.receiveRunsToActor({
            runs: ["/user/counter", "", messages.length],
            messages,
          });
        }
        return counted(await receiver.actorCount());
      }
      if (kind === "rpc-deliver-runs") {
        await receiver.actorZero();
        for (let start = 0; start < n; start += 256) {
          const messages = batchFrom(start, n);
          await receiver.understudyDeliver(null, 0, {
            runs: ["/user/counter", "", messages.length],
            messages,
          });
        }
        return counted(await receiver.actorCount());
      }
      if (kind === "rpc-packets-to-actor" || kind === "rpc-deliver") {
        await receiver.actorZero();
        for (let start = 0; start < n; start += 256) {
          const batch: [string, Msg, string][] = [];
          for (let seq = start; seq < Math.min(n, start + 256); seq++) {
            batch.push(["/user/counter", { seq, body: "hello" }, "/user/b"]);
          }
          if (kind === "rpc-deliver") {
            await receiver.understudyDeliver(null, 0, batch);
          } else await receiver.receivePacketsToActor(batch);
        }
        return counted(await receiver.actorCount());
      }
      await receiver.reset();
      if (kind === "rpc-awaited") {
        for (let seq = 0; seq < n; seq++) {
          await receiver.receive({ seq, body: "hello" });
        }
      } else if (kind === "rpc-pipelined") {
        const calls: Promise<void>[] = [];
        for (let seq = 0; seq < n; seq++) {
          calls.push(receiver.receive({ seq, body: "hello" }));
        }
        await Promise.all(calls);
      } else if (kind === "rpc-batched") {
        for (let start = 0; start < n; start += 256) {
          const batch = batchFrom(start, n);
          await receiver.receiveBatch(batch);
        }
      } else {
        throw new Error(`unknown kind ${kind}`);
      }
      return counted(await receiver.count());
    }
  };
}

/** Sends numbered tells: it knows its own binding. */
export class Sender extends senderClass("SENDER") {}
/** Sends unnumbered tells: it does not know its own binding. */
export class AnonSender extends senderClass(undefined) {}
/**
 * Makes the raw RPC calls, in an object of its own: 20,000 pipelined calls
 * leave an object slower for a while (understudy's numbered tells from the
 * same object took 45 ms in the first round and 1,106 ms by the ninth), so
 * no variant runs in an object another variant has loaded.
 */
export class RawSender extends senderClass(undefined) {}

interface SenderStub {
  run(kind: string, n: number): Promise<{ count: number; writes: number }>;
}

export default {
  async fetch(
    request: Request,
    env: {
      SENDER: {
        idFromName(name: string): unknown;
        get(id: unknown): SenderStub;
      };
      ANON_SENDER: {
        idFromName(name: string): unknown;
        get(id: unknown): SenderStub;
      };
      RAW_SENDER: {
        idFromName(name: string): unknown;
        get(id: unknown): SenderStub;
      };
    },
  ): Promise<Response> {
    const url = new URL(request.url);
    let kind = url.searchParams.get("kind") ?? "";
    const n = Number(url.searchParams.get("n"));
    const anon = kind.endsWith("-unnumbered");
    if (anon) kind = kind.slice(0, -"-unnumbered".length);
    const ns = kind.startsWith("rpc-")
      ? env.RAW_SENDER
      : anon
      ? env.ANON_SENDER
      : env.SENDER;
    const sender = ns.get(ns.idFromName("sender"));
    try {
      return Response.json(await sender.run(kind, n));
    } catch (error) {
      return Response.json({ error: String(error) }, { status: 500 });
    }
  },
};
