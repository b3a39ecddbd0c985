// Copyright 2026 the understudy authors. MIT license.

/**
 * An order and its payment, two Durable Object classes talking through
 * understudy refs. Each object hosts one actor system (`withActors`); the
 * order's actor tells the payment actor, in the payment object of the same
 * name, to charge it, with itself as the sender, and the payment actor's
 * reply comes back over RPC to `this.sender`. Calls that fail with a
 * retryable error are retried with backoff; what finally fails is a dead
 * letter, which the order logs.
 *
 *     POST /orders/42/items?amount=30   add an item
 *     POST /orders/42/pay               charge the order (declined above 1000)
 *     GET  /orders/42                   {"status", "total", "payment"}
 *
 * Bindings: `ORDER` → {@linkcode OrderObject}, `PAYMENT` →
 * {@linkcode PaymentObject}; compatibility date 2024-04-03 or later (RPC on
 * Durable Object stubs). `tests/durable/example.test.ts` serves it from
 * workerd.
 *
 * @module
 */

// With wrangler: import { DurableObject } from "cloudflare:workers";
import { DurableObject } from "./cloudflare_workers.ts";
import {
  Actor,
  type ActorRef,
  type ActorSystem,
  DeadLetter,
  Props,
} from "../../mod.ts";
import { withActors } from "../../src/durable/mod.ts";

/** What the order actor accepts: commands from its object, and the payment's answers. */
export type OrderMessage =
  | { type: "add"; amount: number }
  | { type: "pay" }
  | { type: "status" }
  | { type: "paid"; receipt: string }
  | { type: "declined"; reason: string };

/** What the payment actor accepts. */
export type PaymentMessage = { type: "charge"; order: string; amount: number };

/** The order's state, as `GET /orders/:id` shows it. */
export interface OrderStatus {
  status: "open" | "paying" | "paid" | "declined";
  total: number;
  payment?: string;
}

/** One order: items, then one payment, whose answer comes back as a message. */
class Order extends Actor<OrderMessage> {
  readonly #state: OrderStatus = { status: "open", total: 0 };

  constructor(
    readonly name: string,
    readonly payment: ActorRef<PaymentMessage>,
  ) {
    super();
  }

  onReceive(message: OrderMessage): void {
    const state = this.#state;
    switch (message.type) {
      case "add":
        if (state.status === "open") state.total += message.amount;
        break;
      case "pay":
        if (state.status !== "open") break;
        state.status = "paying";
        this.payment.tell(
          { type: "charge", order: this.name, amount: state.total },
          this.self,
        );
        break;
      case "paid":
        state.status = "paid";
        state.payment = message.receipt;
        break;
      case "declined":
        state.status = "declined";
        state.payment = message.reason;
        break;
      case "status":
        this.sender?.tell({ ...state });
        break;
    }
  }
}

/** Charges orders; declines any above 1000. */
class Payment extends Actor<PaymentMessage> {
  #charged = 0;
  onReceive(charge: PaymentMessage): void {
    if (charge.amount > 1_000) {
      this.sender?.tell({ type: "declined", reason: "amount above limit" });
      return;
    }
    this.#charged++;
    this.sender?.tell({
      type: "paid",
      receipt: `${charge.order}-${this.#charged}:${charge.amount}`,
    });
  }
}

/** The order object: one `Order` actor, at `/user/order`. */
export class OrderObject extends withActors(DurableObject, {
  binding: "ORDER",
  system: { logLevel: "warn" },
  retry: { maxAttempts: 4 },
}) {
  #order!: ActorRef<OrderMessage>;

  override createActors(system: ActorSystem): void {
    const name = this.ctx.id.name ?? "order";
    const payment = this.actors.ref<PaymentMessage>(
      "PAYMENT",
      name,
      "/user/payment",
    );
    system.eventStream.subscribe(DeadLetter, (dead) => {
      system.log.warn(`undelivered to ${dead.recipient.path}: ${dead.reason}`);
    });
    this.#order = this.actors.expose(
      system.actorOf(
        Props.create(() => new Order(name, payment)),
        "order",
      ),
    );
  }

  /** The order actor, creating the system on first use. */
  #actor(): ActorRef<OrderMessage> {
    this.actors.system;
    return this.#order;
  }

  /** RPC: adds an item. */
  add(amount: number): void {
    this.#actor().tell({ type: "add", amount });
  }

  /** RPC: starts the payment. */
  pay(): void {
    this.#actor().tell({ type: "pay" });
  }

  /** RPC: the order's state. */
  status(): Promise<OrderStatus> {
    return this.#actor().ask<OrderStatus>({ type: "status" }, 2_000);
  }
}

/** The payment object: one `Payment` actor, at `/user/payment`. */
export class PaymentObject extends withActors(DurableObject, {
  binding: "PAYMENT",
  system: { logLevel: "warn" },
}) {
  override createActors(system: ActorSystem): void {
    this.actors.expose(
      system.actorOf(Props.create(() => new Payment()), "payment"),
    );
  }
}

/** The stubs of the order namespace, as far as the Worker uses them. */
interface OrderStub {
  add(amount: number): Promise<void>;
  pay(): Promise<void>;
  status(): Promise<OrderStatus>;
}

/** What the Worker's `env` holds. */
export interface Env {
  /** Bound to {@linkcode OrderObject}. */
  ORDER: { idFromName(name: string): unknown; get(id: unknown): OrderStub };
}

/** The Worker: routes each request to its order's object. */
export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const match = url.pathname.match(/^\/orders\/([\w-]+)(\/items|\/pay)?$/);
    if (match === null) return new Response("not found", { status: 404 });
    const order = env.ORDER.get(env.ORDER.idFromName(match[1]));
    if (request.method === "POST" && match[2] === "/items") {
      const amount = Number(url.searchParams.get("amount"));
      if (!(amount > 0)) return new Response("bad amount", { status: 400 });
      await order.add(amount);
    } else if (request.method === "POST" && match[2] === "/pay") {
      await order.pay();
    } else if (request.method !== "GET" || match[2] !== undefined) {
      return new Response("not found", { status: 404 });
    }
    return Response.json(await order.status());
  },
};
