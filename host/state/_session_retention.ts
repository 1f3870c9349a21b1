/**
 * Retention of session logs: sessions idle longer than the retention are
 * deleted, then the oldest whole sessions until all of them fit the total
 * cap. Only folders named as the host names sessions are touched, never
 * the host's own session, and never one written to in the last
 * {@linkcode LIVE_MS} (another host serving the same roots may be writing
 * it).
 *
 * @module
 */

import { SCRIPTS_DIR } from "./_session_files.ts";

/** A session's folder name: its start (UTC) and a random part. */
export const SESSION_ID = /^\d{8}T\d{6}Z-[0-9a-f]{8}$/;

/** A session written to this recently may be live in another host: never deleted for size. */
export const LIVE_MS = 10 * 60 * 1000;

const DAY_MS = 24 * 60 * 60 * 1000;

/** A session's folder, as retention sees it. */
export interface SessionDir {
  /** Its id (the folder's name). */
  id: string;
  /** Bytes in its files. */
  bytes: number;
  /** When it was last written (ms since the epoch). */
  lastWrite: number;
}

/** What retention keeps. */
export interface RetentionRules {
  /** The host's own session: never deleted. */
  own: string;
  /** Bytes the own session holds now. */
  ownBytes: number;
  /** Sessions idle for longer than this many days are deleted. */
  retentionDays: number;
  /** The most all sessions may hold. */
  maxTotalBytes: number;
  /** Now. */
  now: Date;
}

/**
 * The sessions under a folder, oldest write first.
 *
 * @param root `<stateDir>/sessions`.
 * @returns Its sessions (none when it is missing).
 */
export async function scanSessions(root: string): Promise<SessionDir[]> {
  const found: SessionDir[] = [];
  try {
    for await (const entry of Deno.readDir(root)) {
      if (!entry.isDirectory || !SESSION_ID.test(entry.name)) continue;
      const measured = await gone(measure(`${root}/${entry.name}`, entry.name));
      if (measured !== undefined) found.push(measured);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return found.sort((a, b) => a.lastWrite - b.lastWrite);
}

/**
 * Delete what retention does not keep.
 *
 * @param root `<stateDir>/sessions`.
 * @param rules The own session, the retention and the cap, and now.
 * @returns The sessions deleted, and the bytes the others (not the own) still hold.
 */
export async function pruneSessions(
  root: string,
  rules: RetentionRules,
): Promise<{ removed: string[]; othersBytes: number }> {
  const now = rules.now.getTime();
  const oldest = now - rules.retentionDays * DAY_MS;
  const others = (await scanSessions(root)).filter((each) => each.id !== rules.own);
  const removed: string[] = [];
  let othersBytes = others.reduce((sum, each) => sum + each.bytes, 0);
  for (const each of others) {
    const overCap = othersBytes + rules.ownBytes > rules.maxTotalBytes;
    const idle = each.lastWrite < oldest;
    if (!idle && !(overCap && each.lastWrite < now - LIVE_MS)) continue;
    await gone(Deno.remove(`${root}/${each.id}`, { recursive: true }));
    removed.push(each.id);
    othersBytes -= each.bytes;
  }
  return { removed, othersBytes };
}

/** A session folder's bytes (its files and its scripts) and its last write. */
async function measure(dir: string, id: string): Promise<SessionDir> {
  let bytes = 0;
  let lastWrite = (await Deno.lstat(dir)).mtime?.getTime() ?? 0;
  const add = (info: Deno.FileInfo) => {
    bytes += info.isFile ? info.size : 0;
    lastWrite = Math.max(lastWrite, info.mtime?.getTime() ?? 0);
  };
  for await (const entry of Deno.readDir(dir)) {
    add(await Deno.lstat(`${dir}/${entry.name}`));
    if (entry.name !== SCRIPTS_DIR || !entry.isDirectory) continue;
    for await (const script of Deno.readDir(`${dir}/${SCRIPTS_DIR}`)) {
      const info = await Deno.lstat(`${dir}/${SCRIPTS_DIR}/${script.name}`);
      bytes += info.isFile ? info.size : 0;
    }
  }
  return { id, bytes, lastWrite };
}

/** What a file operation gives, or `undefined` when its file is gone (another host removed it). */
async function gone<T>(operation: Promise<T>): Promise<T | undefined> {
  try {
    return await operation;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}
