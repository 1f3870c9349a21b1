/**
 * Maps of lists, the index shape every resolver's facts use (bindings,
 * tokens and members by name, includers by file).
 *
 * @module
 */

/**
 * Add a value to the list a key holds (made on the first).
 *
 * @param map The map.
 * @param key The key.
 * @param value The value.
 */
export function addTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
