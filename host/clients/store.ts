/**
 * The HTTP clients' tokens: a list in the user's own config directory
 * (`$XDG_CONFIG_HOME/toolhost/clients.json`, else
 * `~/.config/toolhost/clients.json`), outside every root, mode 0600, written
 * only by `toolhost token`. Each record keeps a token's SHA-256, never the
 * token, with the client's name, its rights and the workspace (the primary
 * root) it is for. A list found inside a root is not used: nothing a tool or
 * a cloned repository writes can mint a token.
 *
 * @module
 */

import * as posix from "node:path/posix";
import { readUserList, sha256Hex, trustStorePath, writeUserList } from "../config/mod.ts";
import { type ClientRights, isRights } from "./rights.ts";

/** A client's name: what logs, metrics and traces call it. */
export const CLIENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** One client's token. */
export interface ClientRecord {
  /** Its name, unique in its workspace. */
  readonly name: string;
  /** The workspace: the real path of the primary root of the host it was made for. */
  readonly workspace: string;
  /** The SHA-256 of the token, in hex. */
  readonly sha256: string;
  /** What it may do. */
  readonly rights: ClientRights;
  /** When it was made (ISO 8601). */
  readonly createdAt: string;
}

/**
 * Where the list is, beside the trust list; null when neither
 * `XDG_CONFIG_HOME` nor `HOME` says where the user's config is.
 *
 * @returns The path, or null.
 */
export function clientStorePath(): string | null {
  const trust = trustStorePath();
  return trust === null ? null : posix.join(posix.dirname(trust), "clients.json");
}

/**
 * A token's hash as the list keeps it.
 *
 * @param token The token.
 * @returns Its SHA-256, in hex.
 */
export function tokenHash(token: string): Promise<string> {
  return sha256Hex(new TextEncoder().encode(token));
}

/**
 * The records, from the list; none when it is missing or lies inside one of
 * the roots (it throws when it cannot be read or is not JSON).
 *
 * @param store The list's path.
 * @param roots The roots (real paths).
 * @returns The records.
 */
export function readClients(store: string, roots: readonly string[]): Promise<ClientRecord[]> {
  return readUserList(store, "clients", { roots, isRecord });
}

/**
 * Change the list: it is written whole, atomically, mode 0600, in a
 * directory of mode 0700.
 *
 * @param store The list's path.
 * @param change What to do with the records (returns the new list).
 */
export async function writeClients(
  store: string,
  change: (records: ClientRecord[]) => ClientRecord[],
): Promise<void> {
  await writeUserList(store, "clients", change(await readClients(store, [])));
}

/** Whether a value read from the list is a record. */
function isRecord(value: unknown): value is ClientRecord {
  const record = value as Partial<ClientRecord> | null;
  return typeof record?.name === "string" && CLIENT_NAME.test(record.name) &&
    typeof record.workspace === "string" && typeof record.sha256 === "string" &&
    /^[0-9a-f]{64}$/.test(record.sha256) && typeof record.createdAt === "string" &&
    isRights(record.rights);
}
