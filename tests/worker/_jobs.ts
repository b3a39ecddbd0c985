// Copyright 2026 the understudy authors. MIT license.
// The stream of numbered jobs `{ n }` the worker tests send to a remote
// actor while its worker dies, and the accounting of what became of them.

import assert from "node:assert/strict";
import type { ActorRef } from "../../src/runtime/actor_ref.ts";
import type { DeadLetter } from "../../src/runtime/event_stream.ts";

/** A job: a number in an object (as a real message would be). */
export interface Job {
  readonly n: number;
}

/**
 * Tells jobs `{ n }`, n from 0 to `total - 1`, to `to` with `sender`, in
 * chunks of `chunk` sent in one turn each, `pauseMs` apart.
 */
export async function streamJobs(
  to: ActorRef<Job>,
  sender: ActorRef<never>,
  { total = 1_000, chunk = 100, pauseMs }: {
    total?: number;
    chunk?: number;
    pauseMs: number;
  },
): Promise<void> {
  for (let first = 0; first < total; first += chunk) {
    for (let n = first; n < Math.min(first + chunk, total); n++) {
      to.tell({ n }, sender);
    }
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}

/** The `n` of every job among `letters`, in the order they were published. */
export function jobNumbers(letters: readonly DeadLetter[]): number[] {
  const numbers: number[] = [];
  for (const letter of letters) {
    const message = letter.message;
    if (typeof message === "object" && message !== null && "n" in message) {
      numbers.push((message as Job).n);
    }
  }
  return numbers;
}

/**
 * Asserts that each of the jobs 0 to `total - 1` was handled once (its n
 * in `handled`) or dead-lettered once (in `lost`), never both.
 */
export function assertEachOnce(
  handled: readonly number[],
  lost: readonly number[],
  total: number,
): void {
  const once = new Set(handled);
  assert.equal(once.size, handled.length, "no job handled twice");
  assert.equal(new Set(lost).size, lost.length, "no job dead-lettered twice");
  for (const n of lost) assert.ok(!once.has(n), `job ${n} handled and dead`);
  assert.equal(handled.length + lost.length, total, "every job accounted for");
}
