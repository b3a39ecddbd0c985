// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * A testkit for your own actors: a {@linkcode ManualScheduler} that moves
 * virtual time only when the test says so (every timer the library starts
 * runs on it, with no global faked), and a {@linkcode TestProbe} to send
 * from and assert on. Works under `deno test`, `bun test` and
 * `node --test`; an application that does not import it pays nothing.
 *
 * For testing under faults (docs/testing-under-faults.md): a
 * {@linkcode SeededRandom} every fault draws from, so a failing run is
 * replayed by its seed; a {@linkcode MessageLedger} that accounts for
 * every message a test sends; the {@linkcode FlakyChannel} that flaky
 * links are made of, with its adapters for sockets
 * ({@linkcode flakyWebSockets}) and workers ({@linkcode FlakyEndpoint},
 * {@linkcode flakyWorkers}); and {@linkcode faultyProps}, whose actors
 * crash, hang, stop or fail in their hooks.
 *
 * @example A BackoffSupervisor's child, respawned after exactly its backoff
 * ```ts
 * import { Actor, ActorSystem, BackoffSupervisor, Props } from "@understudy/core";
 * import { ManualScheduler, TestProbe } from "@understudy/core/testing";
 *
 * const scheduler = new ManualScheduler();
 * const system = ActorSystem.create("test", { scheduler, logLevel: "off" });
 * const probe = new TestProbe<string>(system);
 *
 * class Worker extends Actor<string> {
 *   override preStart(): void {
 *     probe.ref.tell("started");
 *   }
 *   onReceive(message: string): void {
 *     if (message === "crash") throw new Error("boom");
 *     this.sender?.tell(`done: ${message}`);
 *   }
 * }
 *
 * const supervisor = system.actorOf(BackoffSupervisor.props({
 *   childProps: Props.create(() => new Worker()),
 *   minBackoff: 500,
 *   maxBackoff: 500,
 *   randomFactor: 0,
 * }));
 * await probe.expectMessage("started");
 * supervisor.tell("crash");
 * await probe.expectNoMessage(499); // still backing off
 * await probe.expectMessage("started", 1); // respawned at 500 ms
 * probe.send(supervisor, "job");
 * await probe.expectMessage("done: job");
 * await system.terminate();
 * console.log(scheduler.pendingTimers); // 0
 * ```
 *
 * @module
 */

export { ManualScheduler } from "./manual_scheduler.ts";
export { TestProbe } from "./test_probe.ts";
export { parseSeed, SeededRandom, seededRandom } from "./seeded_random.ts";
export {
  type LedgerCounts,
  LedgerError,
  MessageLedger,
  type MessageLedgerOptions,
} from "./ledger.ts";
export {
  type ChannelStats,
  FlakyChannel,
  type FlakyChannelOptions,
  type LinkFaults,
} from "./flaky_link.ts";
export {
  type FlakySocketLink,
  type FlakyWebSocketOptions,
  type FlakyWebSockets,
  flakyWebSockets,
  type SocketFaults,
} from "./flaky_websocket.ts";
export {
  FlakyEndpoint,
  type FlakyEndpointOptions,
  type FlakyWorkerOptions,
  type FlakyWorkers,
  flakyWorkers,
} from "./flaky_endpoint.ts";
export {
  FlakyNamespace,
  type FlakyNamespaceOptions,
  type NamespaceLike,
} from "./flaky_durable_object.ts";
export { HostLoss } from "./host_loss.ts";
export {
  type ActorFaults,
  type FaultKind,
  type FaultyHook,
  faultyProps,
  InjectedFault,
  type StruckFault,
} from "./faults.ts";
