// Copyright 2026 the understudy authors. MIT license.
// The main side's books of messages in flight (`Book` in wire.ts, kept in
// the outbox's batches): what is sent and not dropped or taken comes back
// once, oldest first, with its own sender and recipient, across batches let
// go of and kept; and the outbox's acknowledgements, which go in runs, with
// the next batch posted.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ACKS, BATCH_SLOTS, Book, Outbox } from "../../src/worker/wire.ts";
import { Transfer } from "../../src/worker/transfer.ts";

const RECIPIENT = { name: "recipient" };

/** Books, and an outbox that keeps its batches in them (posting to nowhere). */
function books() {
  const book = new Book<unknown, object>();
  const posted: unknown[][] = [];
  const box = new Outbox(
    {
      postMessage: (batch: unknown) => posted.push(batch as unknown[]),
      addEventListener: () => {},
      removeEventListener: () => {},
    },
    () => {},
    book as Book<unknown, unknown>,
  );
  /** Sends `message` under `seq`, as the owner of a worker does. */
  const send = (
    seq: number,
    message: unknown,
    recipient: object = RECIPIENT,
    sender?: object,
    senderId = 0,
  ) => box.deliver(seq, "target", message, senderId, sender, recipient);
  return { book, box, send, posted };
}

function remaining(book: Book<unknown, object>): unknown[] {
  const left: unknown[] = [];
  book.clear((message, _sender, recipient) => {
    assert.equal(recipient, RECIPIENT);
    left.push(message);
  });
  return left;
}

describe("the books of messages in flight", () => {
  it("give back each entry not acknowledged once, in order, after batches were let go of", () => {
    const { book, box, send } = books();
    const expected: number[] = [];
    let seq = 0;
    // A stream acknowledged in runs, leaving one entry in every 1,000.
    for (let round = 0; round < 12; round++) {
      const first = seq + 1;
      for (let k = 0; k < 2_500; k++) {
        seq++;
        send(seq, seq);
      }
      box.flush();
      for (let s = first; s <= seq; s += 1_000) {
        const end = Math.min(seq, s + 998);
        assert.equal(book.drop(s, end), 0, "every one held"); // s + 999 stays
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
    const { book, box, send } = books();
    for (let seq = 1; seq <= 5_000; seq++) send(seq, seq);
    box.flush();
    assert.equal(book.drop(1, 5_000), 0);
    assert.equal(book.batchCount, 0, "whole batches acknowledged: none kept");
    for (let seq = 5_001; seq <= 9_000; seq++) send(seq, seq);
    box.flush();
    assert.equal(book.drop(5_001, 8_990), 0);
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

  it("count the seqs of an acknowledgement that were not held, whole batches or parts", () => {
    const { book, box, send } = books();
    for (let seq = 1; seq <= 3_000; seq++) send(seq, seq);
    box.flush();
    assert.equal(book.drop(10, 19), 0);
    assert.equal(book.drop(1, 3_000), 10, "10…19 acknowledged already");
    assert.equal(book.drop(1, 3_000), 3_000, "nothing held any more");
    assert.equal(book.batchCount, 0);
  });

  it("give each message back with the sender and recipient it was sent with", () => {
    const { book, box, send } = books();
    const other = { name: "other" };
    const sender = { name: "sender" };
    // Runs broken by a change of recipient or sender, and a Transfer.
    const transfer = new Transfer({ bytes: 1 }, []);
    send(1, "a");
    send(2, "b", other);
    send(3, "c", other, sender, 7);
    send(4, transfer, other, sender, 7);
    send(5, "e");
    box.flush();
    const left: unknown[][] = [];
    book.clear((message, from, to) => left.push([message, from, to]));
    assert.deepEqual(left, [
      ["a", undefined, RECIPIENT],
      ["b", undefined, other],
      ["c", sender, other],
      [transfer, sender, other],
      ["e", undefined, RECIPIENT],
    ]);
    assert.equal(left[3][0], transfer, "the Transfer itself, as it was sent");
  });

  it("hold what is sent and not posted yet, to give back if the link closes", () => {
    const { book, box, send, posted } = books();
    send(1, "posted");
    box.flush();
    send(2, "queued");
    box.close();
    assert.equal(posted.length, 1);
    assert.deepEqual(remaining(book), ["posted", "queued"]);
  });
});

describe("the books, behind an entry held long", () => {
  it("let go of each batch emptied after it, so one entry does not keep them all", () => {
    const { book, box, send } = books();
    send(1, 1); // held, as a stashed message is
    box.flush();
    for (let seq = 2; seq <= 100_000; seq++) {
      send(seq, seq);
      if (seq % 1_000 === 0) {
        box.flush();
        assert.equal(book.drop(Math.max(2, seq - 999), seq), 0);
      }
    }
    assert.ok(book.batchCount <= 2, `${book.batchCount} batches`);
    assert.ok(book.take(1), "the held entry is still there");
    assert.equal(book.message, 1);
    assert.ok(book.batchCount <= 1, `${book.batchCount} batches`);
  });

  it("let go of them too when one message at a time is in flight (a ping-pong)", () => {
    const { book, box, send } = books();
    send(1, 1);
    box.flush();
    for (let seq = 2; seq <= 100_000; seq++) {
      send(seq, seq);
      box.flush();
      assert.ok(book.take(seq));
    }
    assert.ok(book.batchCount <= 1, `${book.batchCount} batches`);
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
