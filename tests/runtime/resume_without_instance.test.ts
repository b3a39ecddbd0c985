// Copyright 2026 the understudy authors. MIT license.
// Resume where there is no instance to resume (found by the review of the
// kernel's seal): a sibling restarted with its group and not yet started,
// and a child an escalation suspended that then failed again on its own.
// Each case keeps its actors in a block of its own.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  type ActorRef,
  ActorSystem,
  AllForOneStrategy,
  OneForOneStrategy,
  Props,
  supervise,
  SupervisorStrategy,
} from "../../mod.ts";

{
  const refs: Record<string, ActorRef<string>> = {};
  let restarts = 0;
  const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

  class A extends Actor<string> {
    override postRestart(): void {
      if (++restarts === 1) throw new Error("a failed to restart");
    }
    onReceive(m: string): void {
      if (m === "boom") throw new Error("a failed");
    }
  }
  class B extends Actor<string> {
    onReceive(m: string): void {
      if (m === "ping") this.sender?.tell("pong");
    }
  }
  class P extends Actor<string> {
    decisions = 0;
    override supervisorStrategy = new AllForOneStrategy(
      () => (++this.decisions === 1 ? "restart" : "escalate"),
    );
    override preStart(): void {
      refs.a = this.context.actorOf(Props.create(() => new A()), "a");
      refs.b = this.context.actorOf(Props.create(() => new B()), "b");
    }
    onReceive(): void {}
  }
  class G extends Actor<string> {
    override supervisorStrategy = new OneForOneStrategy(() => "resume");
    override preStart(): void {
      this.context.actorOf(Props.create(() => new P()), "p");
    }
    onReceive(): void {}
  }

  describe("resume of a sibling restarted with its group and not yet started", () => {
    it("starts it (it has no instance to resume)", async () => {
      const system = ActorSystem.create("resume-new", { logLevel: "off" });
      try {
        system.actorOf(Props.create(() => new G()), "g");
        await wait(20);
        refs.a.tell("boom");
        await wait(50);
        assert.equal(await refs.b.ask("ping", 500), "pong");
      } finally {
        await system.terminate();
      }
    });
  });
}

{
  const refs: Record<string, ActorRef<string>> = {};
  let rejectSlow: (error: unknown) => void = () => {};
  const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

  class B extends Actor<string> {
    onReceive(m: string): void | Promise<void> {
      if (m === "slow") {
        return new Promise<void>((_, reject) => (rejectSlow = reject));
      }
      if (m === "ping") this.sender?.tell("pong");
    }
  }
  class A extends Actor<string> {
    onReceive(m: string): void {
      if (m === "boom") throw new Error("a failed");
    }
  }
  class P extends Actor<string> {
    override supervisorStrategy = new AllForOneStrategy(() => "escalate");
    override preStart(): void {
      refs.p = this.self;
      if (!this.context.child("a")) {
        refs.a = this.context.actorOf(Props.create(() => new A()), "a");
      }
      if (!this.context.child("b")) {
        refs.b = this.context.actorOf(
          supervise(Props.create(() => new B())).onFailure(
            Error,
            SupervisorStrategy.restartWithBackoff({
              minBackoff: 100,
              maxBackoff: 100,
              randomFactor: 0,
            }).withLoggingEnabled(false),
          ),
          "b",
        );
      }
    }
    override preRestart(): void {} // keeps its children across its restart
    onReceive(m: string): void {
      if (m === "boom") throw new Error("p failed");
    }
  }
  class G extends Actor<string> {
    decisions = 0;
    override supervisorStrategy = new OneForOneStrategy(
      () => (++this.decisions === 1 ? "restart" : "resume"),
    );
    override preStart(): void {
      this.context.actorOf(Props.create(() => new P()), "p");
    }
    onReceive(): void {}
  }

  describe("an escalated child that fails again", () => {
    it("waits its own backoff and restarts, though its parent resumed", async () => {
      const system = ActorSystem.create("escalated", { logLevel: "off" });
      try {
        system.actorOf(Props.create(() => new G()), "g");
        await wait(20);
        refs.b.tell("slow");
        await wait(20);
        refs.a.tell("boom"); // P escalates for A: A and B suspended, P restarted
        await wait(20);
        rejectSlow(new Error("b failed")); // B fails while suspended: backoff
        await wait(20);
        refs.p.tell("boom"); // P fails again: G resumes it
        await wait(300); // B's backoff (100 ms) is over
        assert.equal(await refs.b.ask("ping", 500), "pong");
      } finally {
        await system.terminate();
      }
    });
  });
}
