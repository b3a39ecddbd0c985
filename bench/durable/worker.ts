// Copyright 2026 the understudy authors. MIT license.

/**
 * The worker `bench/durable.mjs` serves from workerd: two Durable Objects,
 * a sender and a receiver, and three ways of getting N messages from the
 * first to the second.
 *
 * - `understudy`: the sender's actor tells a remote ref N times (tells of
 *   one turn leave together, one RPC call per batch of up to 256), then
 *   asks the receiving actor for its count, which arrives after them.
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
import { withActors } from "../../src/durable/mod.ts";

type Msg = { seq: number; body: string } | "count" | "zero";

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
  constructor(readonly host: Sender) {
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
  reset(): Promise<void>;
  count(): Promise<number>;
}

export class Receiver extends withActors(DurableObject, {
  binding: "RECEIVER",
  system: { logLevel: "warn" },
}) {
  #plain = 0;
  override createActors(system: ActorSystem): void {
    this.actors.expose(
      system.actorOf(Props.create(() => new Counter()), "counter"),
    );
  }
  /** Direct RPC: one message. */
  receive(_message: Msg): void {
    this.#plain++;
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
}

export class Sender extends withActors(DurableObject, {
  binding: "SENDER",
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

  async run(kind: string, n: number): Promise<number> {
    const receiver = this.#receiver();
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
      return await this.#blaster.ask<number>({ n }, 60_000);
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
        const batch: Msg[] = [];
        for (let seq = start; seq < Math.min(n, start + 256); seq++) {
          batch.push({ seq, body: "hello" });
        }
        await receiver.receiveBatch(batch);
      }
    } else {
      throw new Error(`unknown kind ${kind}`);
    }
    return await receiver.count();
  }
}

interface SenderStub {
  run(kind: string, n: number): Promise<number>;
}

export default {
  async fetch(
    request: Request,
    env: {
      SENDER: {
        idFromName(name: string): unknown;
        get(id: unknown): SenderStub;
      };
    },
  ): Promise<Response> {
    const url = new URL(request.url);
    const kind = url.searchParams.get("kind") ?? "";
    const n = Number(url.searchParams.get("n"));
    const sender = env.SENDER.get(env.SENDER.idFromName("sender"));
    try {
      return Response.json({ count: await sender.run(kind, n) });
    } catch (error) {
      return Response.json({ error: String(error) }, { status: 500 });
    }
  },
};
