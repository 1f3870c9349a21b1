/**
 * A list the user keeps in their own config directory, outside every root
 * (the trusted config files, the HTTP clients' tokens): a JSON object
 * holding one array, read only from outside the roots (a list a tool could
 * have written is no list), written whole, atomically, mode 0600, in a
 * directory of mode 0700.
 *
 * @module
 */

import * as posix from "node:path/posix";
import { isInside } from "../../security/policy.ts";

/**
 * The records of a list; none when it is missing or lies inside one of the roots.
 *
 * @param store The list's path.
 * @param key The key of its array (`trusted`, `clients`).
 * @param options The roots (real paths), and which values are records.
 * @returns The records.
 * @throws {Error} When it cannot be read (other than missing) or is not JSON.
 */
export async function readUserList<T>(
  store: string,
  key: string,
  options: { roots: readonly string[]; isRecord: (value: unknown) => value is T },
): Promise<T[]> {
  const real = await Deno.realPath(store).catch(() => store);
  if (isInside(real, options.roots)) return [];
  let text: string;
  try {
    text = await Deno.readTextFile(store);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  const list = (JSON.parse(text) as Record<string, unknown> | null)?.[key];
  return Array.isArray(list) ? list.filter(options.isRecord) : [];
}

/**
 * Write a list whole, atomically.
 *
 * @param store The list's path.
 * @param key The key of its array.
 * @param records The records.
 */
export async function writeUserList(
  store: string,
  key: string,
  records: readonly unknown[],
): Promise<void> {
  await Deno.mkdir(posix.dirname(store), { recursive: true, mode: 0o700 });
  const temp = `${store}.${crypto.randomUUID()}.tmp`;
  await Deno.writeTextFile(temp, `${JSON.stringify({ [key]: records }, null, 2)}\n`, {
    mode: 0o600,
  });
  await Deno.rename(temp, store);
}
