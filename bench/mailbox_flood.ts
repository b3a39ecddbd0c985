// Copyright 2026 the understudy authors. MIT license.
/**
 * A flood into a slow actor, with and without a mailbox bound: 10 M tells in
 * one synchronous loop (the sender never yields), then the heap. Issue 25
 * found that unbounded, the heap grew from 3 to 564 MB and a 128 MB heap
 * killed the process. Run with a small heap to see the bound hold it:
 *
 *   deno run --v8-flags=--max-old-space-size=128 bench/mailbox_flood.ts 10000
 *
 * The argument is the mailbox capacity (`Infinity` for none). Prints one
 * line: tells sent, handled, dead letters, heap used after, in MB.
 */
import { Actor, ActorSystem, DeadLetter, Props } from "../mod.ts";

const capacity = Number(Deno.args[0] ?? "10000");
const tells = Number(Deno.args[1] ?? "10000000");

class Slow extends Actor<number> {
  handled = 0;
  async onReceive(): Promise<void> {
    this.handled++;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

const system = ActorSystem.create("flood", { logLevel: "error" });
let dead = 0;
system.eventStream.subscribe(DeadLetter, () => dead++);
let slow!: Slow;
const ref = system.actorOf(
  Props.create(() => (slow = new Slow()), { mailboxCapacity: capacity }),
  "slow",
);
await new Promise((resolve) => setTimeout(resolve, 10));
for (let i = 0; i < tells; i++) ref.tell(i);
const heapMb = Deno.memoryUsage().heapUsed / 1e6;
console.log(
  `capacity ${capacity}: ${tells} tells, ${slow.handled} handled, ${dead} dead letters, heap ${
    heapMb.toFixed(1)
  } MB`,
);
await system.terminate();
