// Copyright 2026 the understudy authors. MIT license.
/**
 * `ask` infers its reply type from a message that extends `Query<R>`;
 * other messages keep the explicit type argument; `reply` checks the
 * answering side against the same type. The type-level checks here are
 * enforced by `deno check` in the static checks (a wrong reply type, or a
 * `@ts-expect-error` that no longer errs, fails the run); the run-time
 * checks that the replies are the ones declared.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  type ActorRef,
  ActorSystem,
  Props,
  Query,
  reply,
  type ReplyOf,
  Request,
} from "../../mod.ts";

class GetBalance extends Query<number> {
  constructor(readonly account: string) {
    super();
  }
}
class GetOwner extends Query<{ name: string }> {}
class Deposit {
  constructor(readonly amount: number) {}
}
type BankMessage = GetBalance | GetOwner | Deposit;

class Bank extends Actor<BankMessage> {
  #balance = 0;
  onReceive(message: BankMessage): void {
    if (message instanceof GetBalance) {
      reply(this.sender, message, this.#balance);
    } else if (message instanceof GetOwner) {
      reply(this.sender, message, { name: "alice" });
    } else {
      this.#balance += message.amount;
      this.sender?.tell("ok");
    }
  }
}

/** Answers wrongly, on purpose: each wrong answer is a compile error. */
class WrongBank extends Actor<BankMessage> {
  onReceive(message: BankMessage): void {
    if (message instanceof GetBalance) {
      // @ts-expect-error the reply to GetBalance is a number, not a string
      reply(this.sender, message, "a lot");
    } else if (message instanceof GetOwner) {
      // @ts-expect-error the reply to GetOwner has a name
      reply(this.sender, message, { nom: "alice" });
    } else {
      // @ts-expect-error Deposit is no Query: there is no reply type to check
      reply(this.sender, message, 1);
    }
  }
}

describe("ask's reply type", () => {
  it("is inferred from a Query, and explicit otherwise", async () => {
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
    // @ts-expect-error an empty object is no GetOwner, though a Query has no fields
    bank.tell({});
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
    const answer: ReplyOf<GetBalance> = 1;
    const none: ReplyOf<Deposit> = "anything" as unknown;
    assert.equal(answer, 1);
    assert.equal(none, "anything");
    await system.terminate();
  });

  it("reply tells the answer to the asker, and nothing without one", async () => {
    const system = ActorSystem.create("ask-reply");
    const wrong = system.actorOf(Props.create(() => new WrongBank()));
    // What the wrong bank does at run time is what it was told to.
    assert.equal(await wrong.ask(new GetBalance("x")), "a lot");
    const bank = system.actorOf(Props.create(() => new Bank()));
    bank.tell(new GetBalance("no one asks")); // no sender: no reply, no dead letter
    assert.equal(await bank.ask(new GetBalance("alice")), 0);
    await system.terminate();
  });

  it("adds nothing to a message at run time", () => {
    const query = new GetBalance("alice");
    assert.deepEqual(Object.keys(query), ["account"]);
    assert.ok(query instanceof Query);
  });

  it("keeps Request as a deprecated alias of Query", () => {
    class OldStyle extends Request<string> {}
    const typed: Query<string> = new OldStyle();
    const asked: ReplyOf<OldStyle> = "still a string";
    assert.equal(Request, Query);
    assert.ok(typed instanceof Query);
    assert.equal(asked, "still a string");
  });
});
