// Copyright 2026 the understudy authors. MIT license.
// Property: the mailbox's queue of (message, sender) pairs is a FIFO with a
// front (`unshift`) under any mix of operations, across the boundaries of
// its segments (bursts long enough to link several, and emptied segments
// filled again), against a plain array as the model.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { Mailbox } from "../../src/runtime/kernel/mailbox.ts";

type Op =
  | { op: "push"; n: number }
  | { op: "unshift"; n: number }
  | { op: "shift"; n: number }
  | { op: "removeOdd" }
  | { op: "prepend"; n: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant("push" as const), n: fc.nat(3_000) }),
  fc.record({ op: fc.constant("unshift" as const), n: fc.nat(20) }),
  fc.record({ op: fc.constant("shift" as const), n: fc.nat(3_000) }),
  fc.record({ op: fc.constant("removeOdd" as const) }),
  fc.record({ op: fc.constant("prepend" as const), n: fc.nat(50) }),
);

describe("Mailbox queue", () => {
  it("keeps FIFO order with unshift, removeWhere and prependAll across segments", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
        const mailbox = new Mailbox();
        const model: [number, string][] = [];
        let next = 0;
        for (const o of ops) {
          if (o.op === "push") {
            for (let i = 0; i < o.n; i++, next++) {
              mailbox.push(next, `s${next}`);
              model.push([next, `s${next}`]);
            }
          } else if (o.op === "unshift") {
            for (let i = 0; i < o.n; i++, next++) {
              mailbox.unshift(next, `s${next}`);
              model.unshift([next, `s${next}`]);
            }
          } else if (o.op === "shift") {
            for (let i = 0; i < o.n && model.length > 0; i++) {
              const [message, sender] = model.shift()!;
              assert.equal(mailbox.shift(), message);
              assert.equal(mailbox.shiftedSender, sender);
            }
          } else if (o.op === "removeOdd") {
            mailbox.removeWhere((m) => (m as number) % 2 === 1);
            model.splice(
              0,
              model.length,
              ...model.filter(([m]) => m % 2 === 0),
            );
          } else {
            const other = new Mailbox();
            const added: [number, string][] = [];
            for (let i = 0; i < o.n; i++, next++) {
              other.push(next, `s${next}`);
              added.push([next, `s${next}`]);
            }
            mailbox.prependAll(other);
            model.unshift(...added);
            assert.equal(other.size, 0);
          }
          assert.equal(mailbox.size, model.length);
        }
        const seen: [unknown, unknown][] = [];
        mailbox.forEach((m, s) => seen.push([m, s]));
        assert.deepEqual(seen, model);
        assert.deepEqual(mailbox.drain(), model.flat());
        assert.equal(mailbox.size, 0);
      }),
      { numRuns: 200 },
    );
  });
});
