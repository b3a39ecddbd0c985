// Copyright 2026 the understudy authors. MIT license.
/**
 * `ask` infers its reply type from a message that extends `Request<R>`;
 * other messages keep the explicit type argument. The type-level checks
 * here are enforced by `deno check` in the static checks (a wrong reply
 * type, or a `@ts-expect-error` that no longer errs, fails the run); the
 * run-time checks that the replies are the ones declared.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  type ActorRef,
  ActorSystem,
  Props,
  type ReplyOf,
  Request,
} from "../../mod.ts";

class GetBalance extends Request<number> {
  constructor(readonly account: string) {
    super();
  }
}
class GetOwner extends Request<{ name: string }> {}
class Deposit {
  constructor(readonly amount: number) {}
}
type BankMessage = GetBalance | GetOwner | Deposit;

class Bank extends Actor<BankMessage> {
  #balance = 0;
  onReceive(message: BankMessage): void {
    if (message instanceof GetBalance) this.sender?.tell(this.#balance);
    else if (message instanceof GetOwner) {
      this.sender?.tell({ name: "alice" });
    } else {
      this.#balance += message.amount;
      this.sender?.tell("ok");
    }
  }
}

describe("ask's reply type", () => {
  it("is inferred from a Request, and explicit otherwise", async () => {
    const system = ActorSystem.create("ask-types");
    const bank: ActorRef<BankMessage> = system.actorOf(
      Props.create(() => new Bank()),
    );
    const deposited = bank.ask<string>(new Deposit(5));
    const balance: Promise<number> = bank.ask(new GetBalance("alice"));
    const owner = bank.ask(new GetOwner());
    const name: string = (await owner).name;
    const untyped: Promise<unknown> = bank.ask(new Deposit(1));
    // @ts-expect-error the reply of GetBalance is a number, not a string
    const wrong: Promise<string> = bank.ask(new GetBalance("bob"));
    // @ts-expect-error a string is no message of this actor
    bank.ask("balance?");
    assert.equal(await deposited, "ok");
    assert.equal(await balance, 5);
    assert.equal(name, "alice");
    assert.equal(await untyped, "ok");
    assert.equal(await wrong, 6);
    await system.terminate();
  });

  it("keeps explicit type arguments working for plain messages", async () => {
    const system = ActorSystem.create("ask-plain");
    class Echo extends Actor<string> {
      onReceive(message: string): void {
        this.sender?.tell(message.length);
      }
    }
    const echo = system.actorOf(Props.create(() => new Echo()));
    const length: Promise<number> = echo.ask<number>("hello");
    assert.equal(await length, 5);
    const reply: ReplyOf<GetBalance> = 1;
    const none: ReplyOf<Deposit> = "anything" as unknown;
    assert.equal(reply, 1);
    assert.equal(none, "anything");
    await system.terminate();
  });

  it("adds nothing to a message at run time", () => {
    const request = new GetBalance("alice");
    assert.deepEqual(Object.keys(request), ["account"]);
    assert.ok(request instanceof Request);
  });
});
