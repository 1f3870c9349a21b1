/**
 * Seeded choices, the same on every machine: a small generator, and a
 * sample that takes a share from each stratum of what it samples.
 *
 * @module
 */

/**
 * mulberry32: a small seeded generator of numbers in [0, 1), so that a run can be replayed.
 *
 * @param seed The seed.
 * @returns The generator.
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A seeded sample of `count` items: an equal share from each stratum (the
 * last one takes what the others leave), in the items' own order.
 *
 * @param all The items.
 * @param count How many.
 * @param seed The seed.
 * @param strata Which items each stratum holds (an item goes to the first that holds it).
 * @returns The sample.
 */
export function stratifiedSample<T>(
  all: readonly T[],
  count: number,
  seed: number,
  strata: ReadonlyArray<(item: T) => boolean>,
): T[] {
  const random = mulberry32(seed);
  const chosen = new Set<T>();
  const share = Math.ceil(count / strata.length);
  for (const [i, inStratum] of strata.entries()) {
    const pool = all.filter((item) => inStratum(item) && !chosen.has(item));
    const want = i === strata.length - 1 ? count - chosen.size : share;
    for (let n = 0; n < want && pool.length > 0; n++) {
      chosen.add(pool.splice(Math.floor(random() * pool.length), 1)[0]!);
    }
  }
  return all.filter((item) => chosen.has(item));
}
