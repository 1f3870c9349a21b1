/**
 * What a resolver's walks (imports followed to their definition, a
 * module's names, a class's bases, the files an include reaches) compute
 * once per key for a call. A walk that can come back to where it started
 * (circular imports, a class its own base) gives a stand-in answer while
 * the key is being computed, so that the cycle ends there.
 *
 * @module
 */

/**
 * A key's value, computed on the first ask.
 *
 * @param cache The values known (none is `undefined`).
 * @param key The key.
 * @param compute Computes its value.
 * @param standIn What a cycle back to the key gets while it is computed.
 * @returns The value.
 */
export function memoized<K, V>(cache: Map<K, V>, key: K, compute: () => V, standIn?: V): V {
  const known = cache.get(key);
  if (known !== undefined) return known;
  if (standIn !== undefined) cache.set(key, standIn);
  const value = compute();
  cache.set(key, value);
  return value;
}
