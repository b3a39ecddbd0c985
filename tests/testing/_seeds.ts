// Copyright 2026 the understudy authors. MIT license.
// Which seeds a random spec runs (not a test file itself): `count` seeds
// from `base`, or only the one in UNDERSTUDY_SEED when it is set, to replay
// a failing run (tests may read the environment; src/ may not). Browsers
// and workerd have no environment: they run the fixed list.

/** The seed to replay, from UNDERSTUDY_SEED, if it is set. */
export function replaySeed(): number | undefined {
  const g = globalThis as {
    Deno?: { env: { get(name: string): string | undefined } };
    process?: { env?: Record<string, string | undefined> };
  };
  let text: string | undefined;
  try {
    text = g.Deno?.env.get("UNDERSTUDY_SEED") ??
      g.process?.env?.UNDERSTUDY_SEED;
  } catch {
    text = undefined; // no permission to read it: run the fixed list
  }
  if (text === undefined || text.trim() === "") return undefined;
  const seed = Number(text);
  if (!Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32) {
    throw new RangeError(
      `UNDERSTUDY_SEED must be a whole number (got ${text})`,
    );
  }
  return seed;
}

/** The seeds to run: UNDERSTUDY_SEED alone, or `count` from `base`. */
export function seedsToRun(base: number, count: number): number[] {
  const replay = replaySeed();
  if (replay !== undefined) return [replay];
  return Array.from({ length: count }, (_, i) => base + i);
}

/**
 * Runs `run` for every seed; the first failure is rethrown with its seed
 * and how to replay it in front of its message.
 */
export async function forEachSeed(
  seeds: readonly number[],
  run: (seed: number) => Promise<void>,
): Promise<void> {
  for (const seed of seeds) {
    try {
      await run(seed);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const replay = `replay: UNDERSTUDY_SEED=${seed}`;
      if (error instanceof Error) {
        error.message = message.includes(`seed ${seed}`)
          ? `${message} (${replay})`
          : `seed ${seed}: ${message} (${replay})`;
        throw error;
      }
      throw new Error(`seed ${seed}: ${message} (${replay})`);
    }
  }
}
