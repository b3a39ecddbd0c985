// Chaos property (issue #10, "the kernel never dies"), at the public API
// only: random actor trees (classic OneForOne/AllForOne/RestForOne parents, typed
// strategies, BackoffSupervisors), user code that throws or rejects values
// drawn from fc.anything() and hand-made hostile values (null-prototype
// objects, objects whose coercion throws, revoked and trapping Proxies, an
// Error whose name and message getters throw, thenables whose `then` throws,
// whose `then` getter throws, that reject synchronously, settle twice or
// never settle) in every hook (Props factory, constructor, preStart,
// onReceive, postStop, preRestart, postRestart, a strategy's decider, the
// supervisorStrategy getter, a backoff policy, event-stream listeners, the
// log sink), listeners that call back into the system (send, terminate),
// random stops and terminates; 1,000 scenarios a runtime. After every step:
//
//   - a sentinel actor answers an `ask` (before terminate; after it, the ask
//     settles at once);
//   - no message is handled twice or dead-lettered twice, and none is both
//     completed and dead-lettered;
//   - a BackoffSupervisor (no typed clauses on its child, triggerOn "any" or
//     "failure") decides "stop" for its child's crash, whatever was thrown;
//   - no uncaught error and no unhandled rejection reached the host.
//
// At the end: `terminate()` resolves within the system's shutdown timeout
// of fake time (one deadline for the whole tree, however deep), leaves no
// timer of the runtime behind and settles every pending ask; and every
// message is accounted for exactly once. Deno runs the file with its op and
// resource sanitizers. A second, shorter property runs the same scenarios in
// real time (timeouts scaled down) for what fake time could hide.
//
// Accounting rule (README: "Semantics you can rely on", "Failure containment
// and bounded shutdown": every message sent is handled once or published as
// a DeadLetter once; a failing message is a dead letter, also when a replaced
// instance's handler rejects late; an abandoned handler's message is a dead
// letter): each message the test sends gets a unique id; onReceive is entered
// for it at most once, and
//   - it completed (the handler returned, or what it returned fulfilled, as
//     awaiting it in an async function would)    -> no DeadLetter;
//   - anything else: never handled; failed (threw, or what it returned
//     rejected: a rejected promise, a thenable whose `then` throws or
//     rejects, a revoked Proxy whose `then` cannot be read); or never settled
//     (its actor abandons it when it stops, at the latest at terminate())
//                                                 -> exactly one DeadLetter.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import * as FakeTimers from "@sinonjs/fake-timers";
import {
  Actor,
  ActorFailed,
  type ActorRef,
  ActorRestarted,
  ActorStopped,
  ActorSystem,
  AllForOneStrategy,
  BackoffSupervisor,
  DeadLetter,
  type Directive,
  type FaultHandlingStrategy,
  OneForOneStrategy,
  Props,
  RestForOneStrategy,
  supervise,
  SupervisorStrategy,
  type TypedStrategy,
} from "../../mod.ts";
import {
  awaitOutcome,
  ChaosError,
  type ErrorTrap,
  type Hostile,
  hostile,
  makeHostile,
  safeDescribe,
  trapGlobalErrors,
} from "./_chaos.ts";

// Captured at load time, before any test installs fake timers.
const realSetTimeout = globalThis.setTimeout.bind(globalThis);

/** The system's shutdown timeout under fake time, ms. */
const SHUTDOWN_MS = 1_000;
/** Longest delay of a user timer (an async handler or hook), ms: below every shutdown timeout. */
const MAX_USER_DELAY_MS = 200;
/** Per-actor shutdown timeouts (Props option): none, or one above MAX_USER_DELAY_MS. */
const ACTOR_TIMEOUTS = [undefined, 300, SHUTDOWN_MS, 3 * SHUTDOWN_MS] as const;

// ───────────────────────── The scenario, as data ─────────────────────────

/** What a hook or a handler does. */
type Act =
  | { readonly how: "throw"; readonly value: Hostile }
  | { readonly how: "reject"; readonly value: Hostile }
  | {
    readonly how: "reject-later";
    readonly value: Hostile;
    readonly ms: number;
  }
  | { readonly how: "return"; readonly value: Hostile }
  | { readonly how: "hang" };

/** What a message asks its receiver to do. */
type MessageAct =
  | Act
  | { readonly how: "ok" }
  | { readonly how: "ok-later"; readonly ms: number }
  | { readonly how: "stop-self" }
  | { readonly how: "stop-child"; readonly index: number };

type Hook =
  | "factory"
  | "constructor"
  | "preStart"
  | "postStop"
  | "preRestart"
  | "postRestart"
  | "decider"
  | "strategy"
  | "policy";

/** A hook misbehaves `times` times (counted over all incarnations), then behaves. */
interface Fault {
  readonly hook: Hook;
  readonly act: Act;
  readonly times: number;
}

type TypedSpec =
  | { readonly kind: "resume" | "restart" | "stop" }
  | { readonly kind: "limit"; readonly maxRetries: number }
  | {
    readonly kind: "backoff";
    readonly minBackoff: number;
    readonly maxBackoff: number;
    readonly maxRestarts: number | undefined;
    readonly stashCapacity: number;
    readonly hostilePolicy: boolean;
  };

interface BackoffSpec {
  readonly minBackoff: number;
  readonly maxBackoff: number;
  readonly maxRestarts: number | undefined;
  readonly forward: "stash" | "drop";
  readonly triggerOn: "any" | "failure" | "stop";
  readonly maxStashSize: number;
  readonly hostilePolicy: boolean;
}

interface NodeSpec {
  /** Classic strategy for its children: OneForOne, AllForOne or RestForOne. */
  readonly group: "one" | "all" | "rest";
  readonly directive: Directive;
  readonly maxRetries: number;
  /** Typed clauses on its Props (none: the parent's strategy decides). */
  readonly typed: readonly {
    readonly on: "Error" | "ChaosError" | "TypeError";
    readonly strategy: TypedSpec;
  }[];
  /** Run under a BackoffSupervisor. */
  readonly backoff: BackoffSpec | undefined;
  readonly faults: readonly Fault[];
  /** Props option shutdownTimeoutMs. */
  readonly timeoutMs: number | undefined;
  readonly children: readonly NodeSpec[];
}

interface Send {
  readonly node: number;
  /** To the first ref ever made for the node instead of the latest. */
  readonly stale: boolean;
  readonly ask: boolean;
  readonly act: MessageAct;
}

type Command =
  | { readonly k: "send"; readonly send: Send }
  /** Several sends in one synchronous burst. */
  | { readonly k: "burst"; readonly sends: readonly Send[] }
  | { readonly k: "advance"; readonly ms: number }
  | { readonly k: "terminate" };

/**
 * What a listener does with an event: throw, call `terminate()` at its
 * `after`-th event, or send a message (counted like the test's) at each of
 * its first `times` events.
 */
type ListenerAct =
  | { readonly how: "throw"; readonly value: Hostile }
  | { readonly how: "terminate"; readonly after: number }
  | { readonly how: "send"; readonly send: Send; readonly times: number };

interface Scenario {
  readonly logLevel: "debug" | "error" | "off";
  /** The log sink throws this, or records quietly. */
  readonly sinkThrows: Hostile | undefined;
  /** Event-stream listeners: they throw, or call back into the system. */
  readonly listeners: readonly {
    readonly on:
      | "DeadLetter"
      | "ActorFailed"
      | "ActorStopped"
      | "ActorRestarted"
      | "any";
    readonly act: ListenerAct;
  }[];
  /** The /user guardian's strategy: a decider that may throw. */
  readonly guardian: {
    readonly directive: Directive;
    readonly fault: Act | undefined;
  } | undefined;
  readonly roots: readonly NodeSpec[];
  readonly commands: readonly Command[];
}

// ───────────────────────── Arbitraries ─────────────────────────

const delay = fc.integer({ min: 1, max: MAX_USER_DELAY_MS });

/** Acts for hooks that may return a promise. */
const asyncAct: fc.Arbitrary<Act> = fc.oneof(
  fc.record({ how: fc.constant("throw" as const), value: hostile }),
  fc.record({ how: fc.constant("reject" as const), value: hostile }),
  fc.record({
    how: fc.constant("reject-later" as const),
    value: hostile,
    ms: delay,
  }),
  fc.record({ how: fc.constant("return" as const), value: hostile }),
  fc.constant({ how: "hang" as const }),
);

/** Acts for synchronous hooks: throw, or return a wrong value. */
const syncAct: fc.Arbitrary<Act> = fc.oneof(
  fc.record({ how: fc.constant("throw" as const), value: hostile }),
  fc.record({ how: fc.constant("return" as const), value: hostile }),
);

const fault: fc.Arbitrary<Fault> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      hook: fc.constantFrom<Hook>(
        "preStart",
        "postStop",
        "preRestart",
        "postRestart",
      ),
      act: asyncAct,
      times: fc.integer({ min: 1, max: 2 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      hook: fc.constantFrom<Hook>("factory", "decider", "strategy", "policy"),
      act: syncAct,
      times: fc.integer({ min: 1, max: 2 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      hook: fc.constant<Hook>("constructor"),
      act: fc.record({ how: fc.constant("throw" as const), value: hostile }),
      times: fc.integer({ min: 1, max: 2 }),
    }),
  },
);

const directive: fc.Arbitrary<Directive> = fc.oneof(
  { weight: 3, arbitrary: fc.constant("restart" as const) },
  { weight: 2, arbitrary: fc.constant("resume" as const) },
  { weight: 1, arbitrary: fc.constant("stop" as const) },
  { weight: 1, arbitrary: fc.constant("escalate" as const) },
);

const typedSpec: fc.Arbitrary<TypedSpec> = fc.oneof(
  fc.record({
    kind: fc.constantFrom(
      "resume" as const,
      "restart" as const,
      "stop" as const,
    ),
  }),
  fc.record({
    kind: fc.constant("limit" as const),
    maxRetries: fc.integer({ min: 0, max: 3 }),
  }),
  fc.record({
    kind: fc.constant("backoff" as const),
    minBackoff: fc.integer({ min: 10, max: 200 }),
    maxBackoff: fc.integer({ min: 200, max: 1_000 }),
    maxRestarts: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
    stashCapacity: fc.integer({ min: 0, max: 3 }),
    hostilePolicy: fc.boolean(),
  }),
);

const backoffSpec: fc.Arbitrary<BackoffSpec> = fc.record({
  minBackoff: fc.integer({ min: 0, max: 200 }),
  maxBackoff: fc.integer({ min: 200, max: 1_000 }),
  maxRestarts: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
  forward: fc.constantFrom("stash" as const, "drop" as const),
  triggerOn: fc.constantFrom(
    "any" as const,
    "failure" as const,
    "stop" as const,
  ),
  maxStashSize: fc.integer({ min: 0, max: 5 }),
  hostilePolicy: fc.boolean(),
});

function nodeSpec(depth: number): fc.Arbitrary<NodeSpec> {
  return fc.record({
    group: fc.constantFrom("one" as const, "all" as const, "rest" as const),
    directive,
    maxRetries: fc.constantFrom(0, 1, 3, Infinity),
    typed: fc.oneof(
      { weight: 2, arbitrary: fc.constant([]) },
      {
        weight: 1,
        arbitrary: fc.array(
          fc.record({
            on: fc.constantFrom(
              "Error" as const,
              "ChaosError" as const,
              "TypeError" as const,
            ),
            strategy: typedSpec,
          }),
          { minLength: 1, maxLength: 2 },
        ),
      },
    ),
    backoff: fc.oneof(
      { weight: 3, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: backoffSpec },
    ),
    faults: fc.oneof(
      { weight: 1, arbitrary: fc.constant([]) },
      { weight: 1, arbitrary: fc.array(fault, { minLength: 1, maxLength: 2 }) },
    ),
    timeoutMs: fc.constantFrom(...ACTOR_TIMEOUTS),
    children: depth === 0
      ? fc.constant([])
      : fc.array(nodeSpec(depth - 1), { maxLength: 2 }),
  });
}

const messageAct: fc.Arbitrary<MessageAct> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ how: "ok" as const }) },
  {
    weight: 3,
    arbitrary: fc.record({ how: fc.constant("ok-later" as const), ms: delay }),
  },
  { weight: 1, arbitrary: fc.constant({ how: "stop-self" as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      how: fc.constant("stop-child" as const),
      index: fc.nat(3),
    }),
  },
  { weight: 4, arbitrary: asyncAct },
);

const send: fc.Arbitrary<Send> = fc.record({
  node: fc.nat(),
  stale: fc.boolean(),
  ask: fc.boolean(),
  act: messageAct,
});

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ k: fc.constant("send" as const), send }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant("burst" as const),
      sends: fc.array(send, { minLength: 2, maxLength: 5 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      k: fc.constant("advance" as const),
      ms: fc.integer({ min: 0, max: 1_500 }),
    }),
  },
);

/** The commands, with a terminate() among them in a third of the cases. */
const commands: fc.Arbitrary<Command[]> = fc.tuple(
  fc.array(command, { minLength: 1, maxLength: 24 }),
  fc.option(fc.nat(), { freq: 2, nil: undefined }),
).map(([list, at]) =>
  at === undefined || at % 3 !== 0 ? list : [
    ...list.slice(0, at % (list.length + 1)),
    { k: "terminate" as const },
    ...list.slice(at % (list.length + 1)),
  ]
);

const scenario: fc.Arbitrary<Scenario> = fc.record({
  logLevel: fc.constantFrom("debug" as const, "error" as const, "off" as const),
  sinkThrows: fc.option(hostile, { nil: undefined }),
  listeners: fc.array(
    fc.record({
      on: fc.constantFrom(
        "DeadLetter" as const,
        "ActorFailed" as const,
        "ActorStopped" as const,
        "ActorRestarted" as const,
        "any" as const,
      ),
      act: fc.oneof(
        {
          weight: 3,
          arbitrary: fc.record({
            how: fc.constant("throw" as const),
            value: hostile,
          }),
        },
        {
          weight: 1,
          arbitrary: fc.record({
            how: fc.constant("terminate" as const),
            after: fc.integer({ min: 1, max: 40 }),
          }),
        },
        {
          weight: 1,
          arbitrary: fc.record({
            how: fc.constant("send" as const),
            send,
            times: fc.integer({ min: 1, max: 3 }),
          }),
        },
      ),
    }),
    { maxLength: 2 },
  ),
  guardian: fc.option(
    fc.record({
      directive,
      fault: fc.option(syncAct, { nil: undefined }),
    }),
    { nil: undefined },
  ),
  roots: fc.array(nodeSpec(2), { minLength: 1, maxLength: 2 }),
  commands,
});

// ───────────────────────── Time: fake or real ─────────────────────────

/** Fake time (`scale` 1) or real time with every duration scaled down. */
interface Time {
  readonly scale: number;
  /** One macrotask turn: every ready actor and promise chain runs. */
  turn(): Promise<void>;
  /** Moves time on by `ms` (scaled). */
  advance(ms: number): Promise<void>;
  /** Two turns of the host's timer queue, so it reports unhandled rejections. */
  settle(): Promise<void>;
  now(): number;
  /** Timers pending in the fake clock (undefined in real time). */
  countTimers(): number | undefined;
  uninstall(): void;
}

const realSleep = (ms: number) =>
  new Promise<void>((resolve) => realSetTimeout(resolve, ms));

/**
 * A macrotask turn through a MessageChannel (closed at once): unlike a
 * chain of `setTimeout(0)`, browsers do not clamp it to 4 ms, and a timer
 * set from it starts a new nesting level.
 */
function macrotask(): Promise<void> {
  if (typeof MessageChannel !== "function") return realSleep(0);
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      port2.close();
      resolve();
    };
    port2.postMessage(undefined);
  });
}

function fakeTime(): Time {
  const clock = FakeTimers.install({
    toFake: [
      "setTimeout",
      "clearTimeout",
      "setInterval",
      "clearInterval",
      "Date",
      "performance",
    ],
  });
  return {
    scale: 1,
    turn: macrotask,
    advance: async (ms) => {
      await macrotask();
      await clock.tickAsync(ms);
    },
    settle: async () => {
      await realSleep(0);
      await realSleep(0);
    },
    now: () => clock.now,
    countTimers: () => clock.countTimers(),
    uninstall: () => clock.uninstall(),
  };
}

function realTime(scale: number): Time {
  return {
    scale,
    turn: macrotask,
    advance: (ms) => realSleep(Math.round(ms * scale)),
    settle: async () => {
      await realSleep(0);
      await realSleep(0);
    },
    now: () => performance.now(),
    countTimers: () => undefined,
    uninstall: () => {},
  };
}

// ───────────────────────── The run ─────────────────────────

/** A message the test sends; the action is what the receiver does with it. */
class Msg {
  constructor(readonly id: number, readonly act: MessageAct) {}
}

type Outcome = "completed" | "failed" | "hung" | "abandoned";

/** What the test knows of each message. */
class Ledger {
  readonly sent = new Map<number, Msg>();
  readonly started = new Map<number, number>();
  readonly outcome = new Map<number, Outcome>();
  readonly dead = new Map<number, string[]>();
  readonly problems: string[] = [];

  /** Checks what can be checked at any time. */
  checkNow(): void {
    for (const [id, times] of this.started) {
      if (times > 1) this.problems.push(`message ${id} handled ${times} times`);
    }
    for (const [id, reasons] of this.dead) {
      if (reasons.length > 1) {
        this.problems.push(
          `message ${id} dead-lettered ${reasons.length} times: ${
            reasons.join(" | ")
          }`,
        );
      }
      if (this.outcome.get(id) === "completed") {
        this.problems.push(
          `message ${id} completed and dead-lettered (${reasons.join(" | ")})`,
        );
      }
    }
  }

  /** Checks that every message is accounted for exactly once. */
  checkFinal(): void {
    this.checkNow();
    for (const [id, msg] of this.sent) {
      const dead = this.dead.get(id)?.length ?? 0;
      const started = (this.started.get(id) ?? 0) > 0;
      const outcome = started
        ? this.outcome.get(id) ?? "no outcome"
        : "never handled";
      const expected = outcome === "completed" ? 0 : 1;
      if (dead !== expected) {
        this.problems.push(
          `message ${id} (${msg.act.how}): ${outcome}, dead-lettered ${dead} times (expected ${expected})`,
        );
      }
    }
  }
}

class Run {
  readonly ledger = new Ledger();
  readonly nodes: NodeSpec[] = [];
  readonly #remaining = new Map<Fault, number>();
  /** Refs of each node's outer actor (its BackoffSupervisor, if any): first and latest. */
  readonly refs = new Map<
    NodeSpec,
    { first: ActorRef<unknown>; latest: ActorRef<unknown> }
  >();
  /** Paths of BackoffSupervisors that must stop a crashed child (see runScenario). */
  readonly stoppingSupervisors = new Set<string>();
  /** User timers still pending (fake time: they are not the runtime's). */
  userTimers = 0;
  readonly time: Time;

  constructor(readonly scenario: Scenario, time: Time) {
    this.time = time;
    const visit = (node: NodeSpec) => {
      this.nodes.push(node);
      for (const f of node.faults) this.#remaining.set(f, f.times);
      node.children.forEach(visit);
    };
    scenario.roots.forEach(visit);
  }

  /** The depth of the deepest actor, counting BackoffSupervisors as a level. */
  depth(): number {
    const d = (node: NodeSpec): number =>
      (node.backoff ? 2 : 1) + Math.max(0, ...node.children.map(d));
    return Math.max(...this.scenario.roots.map(d));
  }

  /** The next misbehaviour of `hook` on `node`, if any is left. */
  fire(node: NodeSpec, hook: Hook): Act | undefined {
    for (const f of node.faults) {
      if (f.hook !== hook) continue;
      const left = this.#remaining.get(f)!;
      if (left === 0) continue;
      this.#remaining.set(f, left - 1);
      return f.act;
    }
    return undefined;
  }

  /** A user timer (counted, so the runtime's own timers can be told apart). */
  later(fn: () => void, ms: number): void {
    this.userTimers++;
    globalThis.setTimeout(() => {
      this.userTimers--;
      fn();
    }, Math.max(1, Math.round(ms * this.time.scale)));
  }

  /** Does `act` as a hook would: throw, or return what it says. */
  perform(act: Act): unknown {
    switch (act.how) {
      case "throw":
        throw makeHostile(act.value);
      case "reject":
        return Promise.reject(makeHostile(act.value));
      case "reject-later":
        return new Promise((_, reject) =>
          this.later(() => reject(makeHostile(act.value)), act.ms)
        );
      case "return":
        return makeHostile(act.value);
      case "hang":
        return new Promise(() => {});
    }
  }

  /** A sync hook: throws, or returns the hostile value in place of the right one. */
  performSync<R>(act: Act | undefined, normal: () => R): R {
    if (act === undefined) return normal();
    if (act.how === "throw") throw makeHostile(act.value);
    if (act.how === "return") return makeHostile(act.value) as R;
    return normal();
  }

  propsFor(node: NodeSpec): Props<unknown> {
    const options = node.timeoutMs === undefined
      ? {}
      : { shutdownTimeoutMs: Math.round(node.timeoutMs * this.time.scale) };
    let props: Props<unknown> = Props.create(
      () =>
        this.performSync(
          this.fire(node, "factory"),
          () => new ChaosActor(this, node),
        ),
      options,
    );
    if (node.typed.length > 0) {
      let supervised = supervise(props);
      for (const clause of node.typed) {
        const cls = clause.on === "Error"
          ? Error
          : clause.on === "ChaosError"
          ? ChaosError
          : TypeError;
        supervised = supervised.onFailure(
          cls,
          this.#typed(node, clause.strategy),
        );
      }
      props = supervised;
    }
    const b = node.backoff;
    if (b !== undefined) {
      const s = this.time.scale;
      const min = Math.round(b.minBackoff * s);
      props = BackoffSupervisor.props({
        childProps: props,
        minBackoff: min,
        maxBackoff: Math.max(min, Math.round(b.maxBackoff * s)),
        randomFactor: 0,
        maxRestarts: b.maxRestarts,
        forward: b.forward,
        triggerOn: b.triggerOn,
        maxStashSize: b.maxStashSize,
        ...(b.hostilePolicy ? { policy: this.#policy(node, min) } : {}),
      });
    }
    return props;
  }

  #policy(node: NodeSpec, min: number): { delayFor(n: number): number } {
    return {
      delayFor: (n) =>
        this.performSync(this.fire(node, "policy"), () => min * 2 ** n),
    };
  }

  #typed(node: NodeSpec, spec: TypedSpec): TypedStrategy {
    switch (spec.kind) {
      case "resume":
        return SupervisorStrategy.resume;
      case "restart":
        return SupervisorStrategy.restart;
      case "stop":
        return SupervisorStrategy.stop;
      case "limit":
        return SupervisorStrategy.restartWithLimit(
          spec.maxRetries,
          Math.round(SHUTDOWN_MS * this.time.scale),
        );
      case "backoff": {
        const s = this.time.scale;
        const min = Math.max(1, Math.round(spec.minBackoff * s));
        return SupervisorStrategy.restartWithBackoff({
          minBackoff: min,
          maxBackoff: Math.max(min, Math.round(spec.maxBackoff * s)),
          randomFactor: 0,
          maxRestarts: spec.maxRestarts,
          stashCapacity: spec.stashCapacity,
          ...(spec.hostilePolicy ? { policy: this.#policy(node, min) } : {}),
        });
      }
    }
  }

  /** Records the ref a parent (or the test) got for `node`. */
  spawned(node: NodeSpec, ref: ActorRef<unknown>): void {
    if (
      node.backoff !== undefined && node.backoff.triggerOn !== "stop" &&
      node.typed.length === 0
    ) {
      this.stoppingSupervisors.add(ref.path);
    }
    const known = this.refs.get(node);
    if (known === undefined) this.refs.set(node, { first: ref, latest: ref });
    else this.refs.set(node, { first: known.first, latest: ref });
  }

  failed(id: number): void {
    if (!this.ledger.outcome.has(id)) this.ledger.outcome.set(id, "failed");
  }

  completed(id: number): void {
    if (this.ledger.outcome.has(id)) return;
    // A handler still running when its actor's stop timed out was
    // abandoned (its message dead-lettered then): finishing later does not
    // make it completed. (Only a handler that starts after terminate() can
    // still be running at the deadline: the test's delays are shorter.)
    const abandoned = this.ledger.dead.get(id)?.some((reason) =>
      reason.startsWith("abandoned")
    );
    this.ledger.outcome.set(id, abandoned ? "abandoned" : "completed");
  }

  hung(id: number): void {
    if (!this.ledger.outcome.has(id)) this.ledger.outcome.set(id, "hung");
  }
}

/** Every actor of the tree: its hooks misbehave as its node's faults say. */
class ChaosActor extends Actor<unknown> {
  constructor(readonly run: Run, readonly node: NodeSpec) {
    super();
    const decider = (): Directive =>
      run.performSync(run.fire(node, "decider"), () => node.directive);
    const limits = {
      maxRetries: node.maxRetries,
      withinTimeRangeMs: Math.round(SHUTDOWN_MS * run.time.scale),
    };
    const strategy = node.group === "all"
      ? new AllForOneStrategy(decider, limits)
      : node.group === "rest"
      ? new RestForOneStrategy(decider, limits)
      : new OneForOneStrategy(decider, limits);
    Object.defineProperty(this, "supervisorStrategy", {
      get: (): FaultHandlingStrategy =>
        run.performSync(run.fire(node, "strategy"), () => strategy),
    });
    run.performSync(run.fire(node, "constructor"), () => undefined);
  }

  override preStart(): void | Promise<void> {
    for (const child of this.node.children) {
      this.run.spawned(child, this.context.actorOf(this.run.propsFor(child)));
    }
    const act = this.run.fire(this.node, "preStart");
    if (act !== undefined) return this.run.perform(act) as Promise<void>;
  }

  override postRestart(reason: unknown): void | Promise<void> {
    const act = this.run.fire(this.node, "postRestart");
    if (act !== undefined) return this.run.perform(act) as Promise<void>;
    return super.postRestart(reason);
  }

  override preRestart(
    reason: unknown,
    message?: unknown,
  ): void | Promise<void> {
    const act = this.run.fire(this.node, "preRestart");
    if (act !== undefined) return this.run.perform(act) as Promise<void>;
    return super.preRestart(reason, message);
  }

  override postStop(): void | Promise<void> {
    const act = this.run.fire(this.node, "postStop");
    if (act !== undefined) return this.run.perform(act) as Promise<void>;
  }

  onReceive(message: unknown): void | Promise<void> {
    if (!(message instanceof Msg)) return;
    const { ledger } = this.run;
    const id = message.id;
    ledger.started.set(id, (ledger.started.get(id) ?? 0) + 1);
    const act = message.act;
    const run = this.run;
    switch (act.how) {
      case "ok":
        run.completed(id);
        this.sender?.tell("done");
        return;
      case "ok-later":
        return new Promise((resolve) =>
          run.later(() => {
            run.completed(id);
            resolve();
          }, act.ms)
        );
      case "stop-self":
        this.context.stopSelf();
        run.completed(id);
        return;
      case "stop-child": {
        const children = this.context.children;
        if (children.length > 0) {
          this.context.stop(children[act.index % children.length]);
        }
        run.completed(id);
        return;
      }
      case "throw":
        run.failed(id);
        throw makeHostile(act.value);
      case "reject":
        return Promise.resolve().then(() => {
          run.failed(id);
          throw makeHostile(act.value);
        });
      case "reject-later":
        return new Promise((_, reject) =>
          run.later(() => {
            run.failed(id);
            reject(makeHostile(act.value));
          }, act.ms)
        );
      case "hang":
        run.hung(id);
        return new Promise(() => {});
      case "return": {
        const outcome = awaitOutcome(act.value);
        if (outcome === "never") run.hung(id);
        const value = makeHostile(act.value, {
          failed: () => run.failed(id),
          fulfilled: () => run.completed(id),
        });
        // A value with no `then` completes now; a Proxy whose `then` cannot
        // be read fails now (the runtime reads it as soon as it returns).
        const thenable = act.value.kind.startsWith("then");
        if (!thenable) {
          if (outcome === "reject") run.failed(id);
          else run.completed(id);
        }
        return value as void;
      }
    }
  }
}

class Sentinel extends Actor<string> {
  onReceive(): void {
    this.sender?.tell("pong");
  }
}

/**
 * How long `terminate()` may take: the system's shutdown timeout, one
 * deadline for the whole tree. In real time, plus slack for a loaded
 * machine.
 */
function terminateBound(time: Time): number {
  const bound = SHUTDOWN_MS * time.scale;
  return time.scale === 1 ? bound : bound + 2_000;
}

async function runScenario(s: Scenario, time: Time): Promise<void> {
  const run = new Run(s, time);
  const { ledger } = run;
  let trap: ErrorTrap | undefined;
  let system: ActorSystem | undefined;
  let terminated = false;
  const asks: { id: number; settled: boolean }[] = [];
  try {
    trap = trapGlobalErrors();
    const sinkThrows = s.sinkThrows;
    const options = {
      logLevel: s.logLevel,
      logger: () => {
        if (sinkThrows !== undefined) throw makeHostile(sinkThrows);
      },
      shutdownTimeoutMs: Math.round(SHUTDOWN_MS * time.scale),
      ...(s.guardian === undefined ? {} : {
        guardianStrategy: new OneForOneStrategy(
          () => run.performSync(s.guardian!.fault, () => s.guardian!.directive),
        ),
      }),
    };
    system = ActorSystem.create("chaos", options);
    const sys = system;
    sys.eventStream.subscribe(DeadLetter, (dead) => {
      if (!(dead.message instanceof Msg)) return;
      const id = dead.message.id;
      const reasons = ledger.dead.get(id) ?? [];
      reasons.push(dead.reason);
      ledger.dead.set(id, reasons);
    });
    let terminateCalled = false;
    let terminatedAt = -1;
    let terminateStartedAt = -1;
    const terminate = () => {
      if (terminateCalled) return;
      terminateCalled = true;
      terminateStartedAt = time.now();
      sys.terminate().then(() => {
        terminated = true;
        terminatedAt = time.now();
      });
    };

    let nextId = 1;
    const doSend = (c: Send) => {
      const msg = new Msg(nextId++, c.act);
      ledger.sent.set(msg.id, msg);
      const node = run.nodes[c.node % run.nodes.length];
      const known = run.refs.get(node);
      const ref = known === undefined
        ? sys.deadLetters
        : c.stale
        ? known.first
        : known.latest;
      if (c.ask) {
        const record = { id: msg.id, settled: false };
        asks.push(record);
        ref.ask(msg, Math.round(SHUTDOWN_MS * time.scale)).then(
          () => (record.settled = true),
          () => (record.settled = true),
        );
      } else {
        ref.tell(msg);
      }
    };

    // A BackoffSupervisor runs its child under a stopping strategy: unless
    // the child's own Props decide (typed clauses) or triggerOn is "stop",
    // its crash, whatever it threw, is a stop (and then a backoff).
    sys.eventStream.subscribe(ActorFailed, (failed) => {
      const path = failed.ref.path;
      const parent = path.slice(0, path.lastIndexOf("/"));
      if (run.stoppingSupervisors.has(parent) && failed.directive !== "stop") {
        ledger.problems.push(
          `BackoffSupervisor ${parent} decided "${failed.directive}" for its child's failure (${
            safeDescribe(failed.error)
          }), expected "stop"`,
        );
      }
    });
    for (const l of s.listeners) {
      const act = l.act;
      let seen = 0;
      const fn = () => {
        seen++;
        if (act.how === "throw") throw makeHostile(act.value);
        if (act.how === "terminate" && seen === act.after) terminate();
        if (act.how === "send" && seen <= act.times) doSend(act.send);
      };
      if (l.on === "any") sys.eventStream.subscribe(fn);
      else {
        const cls =
          { DeadLetter, ActorFailed, ActorStopped, ActorRestarted }[l.on];
        sys.eventStream.subscribe(cls as typeof DeadLetter, fn);
      }
    }
    const sentinel = sys.actorOf(
      Props.create(() => new Sentinel()),
      "sentinel",
    );
    for (const root of s.roots) {
      run.spawned(root, sys.actorOf(run.propsFor(root)));
    }

    const checkStep = async (step: string) => {
      let answered = false;
      let refused: unknown = undefined;
      sentinel.ask("ping", Math.round(SHUTDOWN_MS * time.scale)).then(
        () => (answered = true),
        (error) => (refused = error ?? "refused"),
      );
      // Under fake time the dispatcher never yields (its slice is timed by
      // the fake clock), so one turn suffices; in real time it may yield to
      // the event loop, and a loaded machine gets a second.
      const turnsUntil = time.scale === 1 ? 3 : Infinity;
      const started = performance.now();
      for (
        let i = 0;
        i < turnsUntil && !answered && refused === undefined &&
        (time.scale === 1 || performance.now() - started < 1_000);
        i++
      ) {
        await time.turn();
      }
      if (!terminateCalled) {
        assert.ok(
          answered,
          `after ${step}: the sentinel did not answer (${
            safeDescribe(refused)
          })`,
        );
      } else {
        assert.ok(
          answered || refused !== undefined,
          `after ${step}: an ask to the sentinel after terminate() did not settle`,
        );
      }
      ledger.checkNow();
      assert.deepEqual(ledger.problems, [], `after ${step}`);
      assert.deepEqual(
        trap!.errors.map((e) => `${e.kind}: ${safeDescribe(e.error)}`),
        [],
        `after ${step}: errors reached the host`,
      );
    };

    await time.turn();
    await checkStep("start");
    for (const [i, c] of s.commands.entries()) {
      switch (c.k) {
        case "send":
          doSend(c.send);
          break;
        case "burst":
          c.sends.forEach(doSend);
          break;
        case "advance":
          await time.advance(c.ms);
          break;
        case "terminate":
          terminate();
          break;
      }
      await checkStep(`command ${i} (${c.k})`);
    }

    // Shutdown: terminate() resolves within the bound.
    terminate();
    const bound = terminateBound(time);
    await time.turn();
    while (!terminated && time.now() - terminateStartedAt < bound) {
      await time.advance(SHUTDOWN_MS / 10);
    }
    assert.ok(
      terminated,
      `terminate() did not resolve within ${bound} ms (tree depth ${run.depth()})`,
    );
    assert.ok(
      terminatedAt - terminateStartedAt <= bound,
      `terminate() took ${terminatedAt - terminateStartedAt} ms`,
    );
    await time.settle();
    const timers = time.countTimers();
    if (timers !== undefined) {
      assert.equal(
        timers,
        run.userTimers,
        "the runtime left timers behind after terminate()",
      );
    }
    assert.deepEqual(
      asks.filter((a) => !a.settled).map((a) => a.id),
      [],
      "asks still pending after terminate()",
    );
    // Let user timers (delayed handlers of replaced instances) finish, so
    // every handler has an outcome.
    while (run.userTimers > 0) await time.advance(MAX_USER_DELAY_MS);
    await time.settle();
    ledger.checkFinal();
    assert.deepEqual(ledger.problems, [], "message accounting");
    assert.deepEqual(
      trap.errors.map((e) => `${e.kind}: ${safeDescribe(e.error)}`),
      [],
      "errors reached the host",
    );
  } finally {
    if (system !== undefined && !terminated) {
      // Leave nothing running for the next case, as far as possible.
      system.terminate();
      for (let i = 0; i < 50 && run.userTimers > 0; i++) {
        await time.advance(SHUTDOWN_MS);
      }
    }
    trap?.restore();
    time.uninstall();
  }
}

describe("chaos: the kernel never dies (property)", () => {
  it("under fake time: the sentinel answers, every message is accounted for once, terminate() resolves", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, (s) => runScenario(s, fakeTime())),
      { numRuns: 1_000 },
    );
  });

  it("under real time (short timeouts): no unhandled rejection or uncaught error, terminate() resolves", async () => {
    await fc.assert(
      fc.asyncProperty(
        scenario.map((s) => ({ ...s, commands: s.commands.slice(0, 8) })),
        (s) => runScenario(s, realTime(1 / 50)),
      ),
      { numRuns: 30 },
    );
  });
});
