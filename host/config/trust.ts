/**
 * The user's trust in config files that lie inside a root: a list kept in
 * the user's own config directory (`$XDG_CONFIG_HOME/toolhost/trusted.json`,
 * else `~/.config/toolhost/trusted.json`), outside every root, of exact
 * files by real path and SHA-256. A file inside a root applies in full only
 * while its bytes hash to what the user trusted; any change drops the trust
 * (the file then only tightens, `project_config.ts`). `toolhost trust`
 * writes the list; nothing inside a root can (a list found inside a root is
 * not used).
 *
 * @module
 */

import * as posix from "node:path/posix";
import { readUserList, writeUserList } from "./user_list.ts";

/**
 * The environment variables that say where the user's own directories are:
 * the trust list (config), the overlays' scratch space (cache), the home.
 */
export const USER_DIRS_ENV: readonly string[] = Object.freeze([
  "XDG_CONFIG_HOME",
  "XDG_CACHE_HOME",
  "HOME",
]);

/** One trusted file. */
export interface TrustRecord {
  /** Its real path. */
  readonly path: string;
  /** The SHA-256 of its bytes when trusted, in hex. */
  readonly sha256: string;
  /** When the user trusted it (ISO 8601). */
  readonly trustedAt: string;
}

/**
 * Where the list is: `$XDG_CONFIG_HOME/toolhost/trusted.json`, else
 * `$HOME/.config/toolhost/trusted.json`; null when neither variable may be
 * read or is set.
 *
 * @returns The list's path, or null.
 */
export function trustStorePath(): string | null {
  const read = (name: string) => {
    try {
      return Deno.env.get(name) || undefined;
    } catch {
      return undefined; // not granted: as if unset
    }
  };
  // A relative XDG_CONFIG_HOME is to be ignored (the XDG Base Directory spec).
  const xdg = read("XDG_CONFIG_HOME");
  const home = read("HOME");
  const base = xdg?.startsWith("/") ? xdg : home?.startsWith("/") ? `${home}/.config` : undefined;
  return base ? posix.join(base, "toolhost", "trusted.json") : null;
}

/**
 * The SHA-256 of some bytes, in hex.
 *
 * @param bytes The bytes.
 * @returns 64 hex digits.
 */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * The trusted files, from the list; none when it is missing, unreadable or
 * malformed, or lies inside one of the roots (a tool could have written it).
 *
 * @param store The list's path.
 * @param roots The roots (real paths).
 * @returns The records.
 */
export async function readTrust(store: string, roots: readonly string[]): Promise<TrustRecord[]> {
  // Missing, not ours to read, or malformed: nothing is trusted.
  return await readUserList(store, "trusted", { roots, isRecord }).catch(() => []);
}

/**
 * Record a file as trusted (replacing what was recorded for its path), or
 * forget it: the list is written whole, atomically, mode 0600, in a
 * directory of mode 0700.
 *
 * @param store The list's path.
 * @param change The record to add, or the real path to forget.
 * @returns Whether a record for that path was there before.
 */
export async function writeTrust(
  store: string,
  change: { add: TrustRecord } | { forget: string },
): Promise<boolean> {
  const records = await readTrust(store, []);
  const path = "add" in change ? change.add.path : change.forget;
  const kept = records.filter((record) => record.path !== path);
  await writeUserList(store, "trusted", "add" in change ? [...kept, change.add] : kept);
  return kept.length < records.length;
}

/** Whether a value read from the list is a record. */
function isRecord(value: unknown): value is TrustRecord {
  const record = value as Partial<TrustRecord> | null;
  return typeof record?.path === "string" && typeof record.sha256 === "string" &&
    /^[0-9a-f]{64}$/.test(record.sha256) && typeof record.trustedAt === "string";
}
