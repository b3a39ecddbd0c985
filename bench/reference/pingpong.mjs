// Copyright 2026 the understudy authors. MIT license.

/**
 * An independent, unbundled ping-pong, to check the bench's figures against:
 * plain JavaScript run by Node as it is, importing `xstate` from
 * node_modules, understudy from one esbuild bundle of mod.ts (built by
 * bench/reference/check.mjs), and nothing from bench/lib. One event in
 * flight: each side answers the one it got.
 *
 *   node bench/reference/pingpong.mjs <xstate|microtask|understudy> <rounds> <runs> [<understudy bundle>]
 *
 * Prints one line of JSON: `{ impl, rounds, rates: [messages per second of
 * each run] }` (2 messages per round, after one unrecorded warm-up run).
 */

const [impl, roundsText = "1000000", runsText = "5", bundle] = process.argv
  .slice(2);
const rounds = Number(roundsText);
const runs = Number(runsText);

/** xstate 5: two `fromTransition` actors; each answers with `from.send`. */
async function xstateGame() {
  const { createActor, fromTransition } = await import("xstate");
  return async () => {
    let done;
    const finished = new Promise((resolve) => (done = resolve));
    const ponger = createActor(
      fromTransition((state, event, { self }) => {
        if (event.type === "ball") {
          event.from.send({ type: "ball", n: event.n, from: self });
        }
        return state;
      }, null),
    ).start();
    const pinger = createActor(
      fromTransition((state, event, { self }) => {
        if (event.type !== "ball") return state;
        if (event.n === rounds) done();
        else ponger.send({ type: "ball", n: event.n + 1, from: self });
        return state;
      }, null),
    ).start();
    const t0 = performance.now();
    pinger.send({ type: "ball", n: 0, from: ponger });
    await finished;
    const ms = performance.now() - t0;
    pinger.stop();
    ponger.stop();
    return ms;
  };
}

/** A chain of `queueMicrotask` callbacks, two per round, each queueing the next. */
function microtaskGame() {
  return async () => {
    let done;
    const finished = new Promise((resolve) => (done = resolve));
    let left = 2 * rounds;
    const step = () => {
      if (--left === 0) done();
      else queueMicrotask(step);
    };
    const t0 = performance.now();
    queueMicrotask(step);
    await finished;
    return performance.now() - t0;
  };
}

/** understudy: a Pinger and a Ponger; the ponger answers its sender. */
async function understudyGame() {
  const { Actor, ActorSystem, Props } = await import(bundle);
  class Ponger extends Actor {
    onReceive(n) {
      this.sender.tell(n, this.self);
    }
  }
  class Pinger extends Actor {
    constructor(ponger, done) {
      super();
      this.ponger = ponger;
      this.done = done;
    }
    onReceive(n) {
      if (n === rounds) this.done();
      else this.ponger.tell(n + 1, this.self);
    }
  }
  return async () => {
    const system = ActorSystem.create("reference", { logLevel: "off" });
    let done;
    const finished = new Promise((resolve) => (done = resolve));
    const ponger = system.actorOf(Props.create(() => new Ponger()), "ponger");
    const pinger = system.actorOf(
      Props.create(() => new Pinger(ponger, done)),
      "pinger",
    );
    const t0 = performance.now();
    pinger.tell(0);
    await finished;
    const ms = performance.now() - t0;
    await system.terminate();
    return ms;
  };
}

const games = {
  xstate: xstateGame,
  microtask: microtaskGame,
  understudy: understudyGame,
};
if (!(impl in games) || !(rounds > 0) || !(runs > 0)) {
  console.error(
    "usage: node bench/reference/pingpong.mjs <xstate|microtask|understudy> <rounds> <runs> [<understudy bundle>]",
  );
  process.exit(2);
}
const game = await games[impl]();
const rates = [];
for (let i = 0; i <= runs; i++) {
  await new Promise((resolve) => setTimeout(resolve, 0));
  const ms = await game();
  if (i > 0) rates.push((2 * rounds) / (ms / 1000));
}
console.log(JSON.stringify({ impl, rounds, rates }));
