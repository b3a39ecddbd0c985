// Copyright 2026 the understudy authors. MIT license.
/**
 * What `structuredClone` costs a message in the runtime that runs this
 * script, for the shapes a worker batch can have: an array of flat objects
 * (as a run of messages), the same array holding one array too (as a batch
 * with its acknowledgements nested, which the wire no longer sends), the
 * objects cloned one by one (as a raw `postMessage` loop), and an array of
 * numbers. Every message is cloned once, as a stream's are. `postMessage`
 * serializes as `structuredClone` does, so these are the floor of any
 * transport that clones.
 *
 *   node bench/clone_cost.mjs
 *   node_modules/.bin/bun bench/clone_cost.mjs
 *   node_modules/.bin/deno run bench/clone_cost.mjs
 *
 * Prints nanoseconds a message, medians of 9 rounds, interleaved.
 */

const SIZE = 2043; // a batch's messages (BATCH_SLOTS less a run's header)
const REPEAT = 100;
const ROUNDS = 9;

/** A batch of fresh messages: each clone below gets objects never cloned. */
const messages = () => Array.from({ length: SIZE }, (_, n) => ({ n }));
/** Each shape: what it clones, made fresh (untimed), and how it clones it. */
const shapes = {
  "array of flat objects": [messages, (batch) => structuredClone(batch)],
  "the same, holding one array": [
    () => [...messages().slice(1), [1, 2]],
    (batch) => structuredClone(batch),
  ],
  "each object alone": [messages, (batch) => {
    for (const message of batch) structuredClone(message);
  }],
  "array of numbers": [
    () => Array.from({ length: SIZE }, (_, n) => n),
    (batch) => structuredClone(batch),
  ],
};

const samples = Object.fromEntries(Object.keys(shapes).map((k) => [k, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, [make, clone]] of Object.entries(shapes)) {
    const inputs = Array.from({ length: REPEAT }, make);
    const t0 = performance.now();
    for (const input of inputs) clone(input);
    samples[name].push((performance.now() - t0) / (REPEAT * SIZE) * 1e6);
  }
}
const median = (values) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const runtime = globalThis.Bun
  ? `Bun ${globalThis.Bun.version}`
  : globalThis.Deno
  ? `Deno ${globalThis.Deno.version.deno}`
  : `Node ${globalThis.process?.versions.node}`;
console.log(`structuredClone, ns a message (${runtime}, median of ${ROUNDS}):`);
for (const [name, values] of Object.entries(samples)) {
  console.log(`  ${name.padEnd(30)} ${median(values).toFixed(0).padStart(5)}`);
}
