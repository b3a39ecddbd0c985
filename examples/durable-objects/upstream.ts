// Copyright 2026 the understudy authors. MIT license.

/**
 * The flaky upstream: a dictionary served by the Worker itself at
 * `GET /upstream/define?word=…`, which answers 503 to a seeded share of
 * its calls. Whether a call fails depends only on the seed, the word and
 * how many times that word was asked before, so a run can be repeated.
 * It keeps a log of its calls (and of the room's evictions) in the
 * isolate's memory, which outlives an evicted object: `GET /upstream/calls`.
 *
 * @module
 */

/** One call the upstream took, or an eviction the Worker was asked for. */
export type UpstreamEvent =
  | { kind: "call"; word: string; attempt: number; ok: boolean; at: number }
  | { kind: "eviction"; room: string; at: number };

const log: UpstreamEvent[] = [];
const attempts = new Map<string, number>();

/** What the upstream's log holds, oldest first. */
export function upstreamLog(): UpstreamEvent[] {
  return log;
}

/** Notes an eviction in the log, so that a reader can tell retries from re-asks. */
export function noteEviction(room: string): void {
  log.push({ kind: "eviction", room, at: Date.now() });
}

/** A number in [0, 1) from a string: FNV-1a, then a 32-bit mix. */
function unit(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  }
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) / 2 ** 32;
}

/**
 * Answers one call: 503 with the chance `failureRate` (drawn from `seed`,
 * the word and its attempt), else the word's "definition".
 */
export function define(url: URL, seed: string, failureRate: number): Response {
  const word = url.searchParams.get("word") ?? "";
  const attempt = (attempts.get(word) ?? 0) + 1;
  attempts.set(word, attempt);
  const ok = unit(`${seed}/${word}/${attempt}`) >= failureRate;
  log.push({ kind: "call", word, attempt, ok, at: Date.now() });
  if (!ok) return new Response("upstream unavailable", { status: 503 });
  return Response.json({
    word,
    definition: `${word}: ${word.length} letters, ${
      new Set(word).size
    } distinct`,
  });
}
