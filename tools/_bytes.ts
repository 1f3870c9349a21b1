/**
 * Byte arrays joined: for streams read in chunks (lines of a transport, a
 * run's output, log batches).
 *
 * @module
 */

/**
 * The parts one after another.
 *
 * @param parts The byte arrays.
 * @returns One array of them all; the only part itself when there is one (not a copy).
 */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
