// Copyright 2026 the understudy authors. MIT license.
// The main side's books of messages in flight (`Book` in wire.ts): what is
// set and not dropped or taken comes back once, oldest first, across
// chunks emptied and re-used; and the outbox's acknowledgements, which go
// in runs, with the next batch posted.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ACKS, BATCH_SLOTS, Book, Outbox } from "../../src/worker/wire.ts";

const RECIPIENT = { name: "recipient" };

function remaining(book: Book<number, object>): number[] {
  const left: number[] = [];
  book.clear((message, _sender, recipient) => {
    assert.equal(recipient, RECIPIENT);
    left.push(message);
  });
  return left;
}

describe("the books of messages in flight", () => {
  it("give back each entry not acknowledged once, in order, after chunks were emptied and re-used", () => {
    const book = new Book<number, object>();
    const expected: number[] = [];
    let seq = 0;
    // A stream acknowledged in runs, leaving one entry in every 1,000.
    for (let round = 0; round < 12; round++) {
      const first = seq + 1;
      for (let k = 0; k < 2_500; k++) {
        seq++;
        book.set(seq, seq, undefined, RECIPIENT);
      }
      for (let s = first; s <= seq; s += 1_000) {
        const end = Math.min(seq, s + 998);
        book.drop(s, end); // s + 999 stays
        if (s + 999 <= seq) expected.push(s + 999);
      }
    }
    // One taken out of order (returned by the worker), and a missing one.
    assert.equal(book.take(expected[3]), true);
    assert.equal(book.message, expected[3]);
    assert.equal(book.recipient, RECIPIENT);
    assert.equal(book.take(expected[3]), false);
    assert.equal(book.take(1), false);
    expected.splice(3, 1);
    assert.deepEqual(remaining(book), expected);
    assert.deepEqual(remaining(book), []);
  });

  it("start again at any seq after everything was acknowledged", () => {
    const book = new Book<number, object>();
    for (let seq = 1; seq <= 5_000; seq++) {
      book.set(seq, seq, undefined, RECIPIENT);
    }
    book.drop(1, 5_000);
    for (let seq = 5_001; seq <= 9_000; seq++) {
      book.set(seq, seq, undefined, RECIPIENT);
    }
    book.drop(5_001, 8_990);
    assert.deepEqual(remaining(book), [
      8_991,
      8_992,
      8_993,
      8_994,
      8_995,
      8_996,
      8_997,
      8_998,
      8_999,
      9_000,
    ]);
  });
});

describe("the books, behind an entry held long", () => {
  it("free each chunk emptied after it, so one entry does not keep them all", () => {
    const book = new Book<number, object>();
    book.set(1, 1, undefined, RECIPIENT); // held, as a stashed message is
    for (let seq = 2; seq <= 100_000; seq++) {
      book.set(seq, seq, undefined, RECIPIENT);
      book.take(seq - 1 === 1 ? seq : seq - 1);
    }
    assert.ok(book.chunkCount <= 3, `${book.chunkCount} chunks`);
    assert.ok(book.take(1), "the held entry is still there");
    assert.equal(book.message, 1);
    assert.ok(book.chunkCount <= 2, `${book.chunkCount} chunks`);
  });

  it("free them too when one message at a time is in flight (a ping-pong)", () => {
    const book = new Book<number, object>();
    book.set(1, 1, undefined, RECIPIENT);
    for (let seq = 2; seq <= 100_000; seq++) {
      book.set(seq, seq, undefined, RECIPIENT);
      assert.ok(book.take(seq));
    }
    assert.ok(book.chunkCount <= 2, `${book.chunkCount} chunks`);
    assert.deepEqual(remaining(book), [1]);
  });
});

describe("the outbox's acknowledgements", () => {
  /**
   * An outbox whose batches are kept (`posted`), and a way to read the ACKS
   * of the next.
   */
  function outbox() {
    const posted: unknown[][] = [];
    const box = new Outbox({
      postMessage: (batch: unknown) => posted.push(batch as unknown[]),
      addEventListener: () => {},
      removeEventListener: () => {},
    }, () => {});
    const acks = () => {
      box.flush();
      const batch = posted.pop() ?? [];
      return batch[0] === ACKS ? batch.slice(2, 2 + (batch[1] as number)) : [];
    };
    return { box, acks, posted };
  }

  it("go in runs, each once", () => {
    const { box, acks } = outbox();
    for (let seq = 1; seq <= 9; seq++) box.ack(seq);
    box.ack(11);
    assert.deepEqual(acks(), [1, 9, 11, 11]);
    assert.deepEqual(acks(), [], "nothing left to acknowledge");
  });

  it("leave with a batch posted because it is full, not only at the end of the turn", () => {
    const { box, posted } = outbox();
    box.ack(1);
    box.ack(2);
    // Messages from the worker side (seq 0) to one target, until a batch fills.
    for (let n = 0; posted.length === 0 && n < BATCH_SLOTS; n++) {
      box.deliver(0, 1, n, 0);
    }
    assert.equal(posted.length, 1, "posted when full");
    const batch = posted[0];
    assert.deepEqual(batch.slice(batch.length - 4), [ACKS, 2, 1, 2]);
    // Nothing nested: Bun clones a batch holding an array off its fast path.
    assert.ok(batch.every((slot) => !Array.isArray(slot)), "no array in it");
    box.close();
  });

  it("of a turn that filled a batch go in that batch, its replies and the acknowledgement in one post", () => {
    const { box, posted } = outbox();
    box.owe(); // a message from the main side, its turn under way
    for (let n = 0; n < BATCH_SLOTS + 100; n++) box.deliver(0, 1, n, 0);
    assert.equal(posted.length, 0, "not posted before the turn ends");
    box.ack(7, true); // the turn ends
    assert.equal(posted.length, 1, "posted at the turn's end, whole");
    const batch = posted[0];
    assert.equal(batch[4], BATCH_SLOTS + 100, "every reply in one run");
    assert.deepEqual(batch.slice(batch.length - 4), [ACKS, 2, 7, 7]);
    box.close();
  });
});
