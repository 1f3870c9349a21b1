/**
 * Reading a session's process records back (`read_interactions` with
 * `kind: "subprocess"`, `toolhost log --subprocesses`): the last
 * {@linkcode MAX_READ_BYTES} of its `subprocess.jsonl`, most recent first.
 * A corrupt or torn line is skipped and counted, never fatal.
 *
 * @module
 */

import { ToolError } from "../../security/errors.ts";
import type { SubprocessLine, SubprocessPage, SubprocessQuery } from "../../tools/sessions.ts";
import { scanSessions, SESSION_ID } from "./_session_retention.ts";

/** The most of a session's `subprocess.jsonl` one read takes (its end). */
export const MAX_READ_BYTES = 8 * 1024 * 1024;
/** Sessions named when the one asked for is not there. */
const NAMED_SESSIONS = 5;

/**
 * A session's process records, most recent first.
 *
 * @param root `<stateDir>/sessions`.
 * @param query The session (already defaulted), a tool, the limit.
 * @param signal Stops the read.
 * @returns The page.
 * @throws {ToolError} `invalid_argument` for an id that is not a session's, `not_found` when
 *   there is no such session.
 */
export async function readSubprocesses(
  root: string,
  query: SubprocessQuery & { session: string },
  signal?: AbortSignal,
): Promise<SubprocessPage> {
  const { session } = query;
  if (!SESSION_ID.test(session)) {
    throw new ToolError(
      "invalid_argument",
      `Cannot read session ${
        JSON.stringify(session)
      }: a session id looks like "20260101T120000Z-0123abcd"`,
    );
  }
  const tail = await readTail(`${root}/${session}/subprocess.jsonl`, signal);
  if (tail === undefined) {
    try {
      await Deno.lstat(`${root}/${session}`);
    } catch {
      throw new ToolError("not_found", `Cannot read session "${session}": ${await named(root)}`);
    }
  }
  const page: SubprocessPage = {
    session,
    subprocesses: [],
    matched: 0,
    skipped: 0,
    notes: [],
    older_unread: tail?.cut ?? false,
  };
  const lines = (tail?.text ?? "").split("\n");
  if (tail?.cut) lines.shift();
  for (const line of lines.reverse()) {
    if (line !== "") take(page, line, query);
  }
  page.notes.reverse();
  return page;
}

/** Add one line to the page: a record that matches, a note, or a skipped line. */
function take(page: SubprocessPage, line: string, query: SubprocessQuery): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    page.skipped++;
    return;
  }
  const record = parsed as Partial<SubprocessLine> & { note?: unknown };
  if (typeof record.note === "string") {
    page.notes.push(`${record.ts ?? ""} ${record.note}`.trim());
  } else if (typeof record.tool !== "string" || typeof record.seq !== "number") {
    page.skipped++;
  } else if (query.tool === undefined || record.tool === query.tool) {
    page.matched++;
    if (page.subprocesses.length < query.limit) page.subprocesses.push(record as SubprocessLine);
  }
}

/** The end of a file (at most {@linkcode MAX_READ_BYTES}), or `undefined` when it is missing. */
async function readTail(
  path: string,
  signal?: AbortSignal,
): Promise<{ text: string; cut: boolean } | undefined> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch {
    return undefined;
  }
  try {
    const size = (await file.stat()).size;
    const start = Math.max(0, size - MAX_READ_BYTES);
    await file.seek(start, Deno.SeekMode.Start);
    const bytes = new Uint8Array(size - start);
    for (let at = 0; at < bytes.length;) {
      signal?.throwIfAborted();
      const read = await file.read(bytes.subarray(at));
      if (read === null) return { text: decode(bytes.subarray(0, at)), cut: start > 0 };
      at += read;
    }
    return { text: decode(bytes), cut: start > 0 };
  } finally {
    file.close();
  }
}

function decode(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}

/** The most recent sessions, named for a reader who asked for one that is not there. */
async function named(root: string): Promise<string> {
  const sessions = (await scanSessions(root)).reverse().slice(0, NAMED_SESSIONS);
  if (sessions.length === 0) return "there are no session logs";
  return `no such session; the most recent: ${sessions.map((each) => each.id).join(", ")}`;
}

/**
 * A session's process records, for a reader outside any session (`toolhost
 * log --subprocesses`). By default, of the most recently written session an
 * MCP client spoke to (it has `comms.jsonl`): an agent's, not `toolhost
 * doctor`'s, whose probes — its own host, and the served process it starts
 * and stops before any client speaks — have none. With `any`, of the most
 * recently written session of all.
 *
 * @param stateDir The state directory.
 * @param query The session, a tool, the limit.
 * @param options `any`: take the latest session even if no client spoke to it.
 * @returns The page, and how many newer sessions no client spoke to were passed over.
 * @throws {ToolError} `not_found` when there is no such session (or none at all),
 *   `invalid_argument` for a bad id.
 */
export async function readSessionProcesses(
  stateDir: string,
  query: SubprocessQuery,
  options: { any?: boolean } = {},
): Promise<SubprocessPage & { passed_over: number }> {
  const root = `${stateDir}/sessions`;
  const found = query.session === undefined
    ? await latestSession(root, options.any === true)
    : { session: query.session, passedOver: 0 };
  return { ...await readSubprocesses(root, { ...query, ...found }), passed_over: found.passedOver };
}

/** The most recently written session (one a client spoke to, unless `any`), and the newer ones passed over. */
async function latestSession(
  root: string,
  any: boolean,
): Promise<{ session: string; passedOver: number }> {
  const sessions = (await scanSessions(root)).reverse();
  if (sessions.length === 0) {
    throw new ToolError("not_found", `Cannot read sessions in "${root}": there are none`);
  }
  if (any) return { session: sessions[0]!.id, passedOver: 0 };
  for (const [i, each] of sessions.entries()) {
    if (await spokenTo(`${root}/${each.id}`)) return { session: each.id, passedOver: i };
  }
  throw new ToolError(
    "not_found",
    `Cannot read sessions in "${root}": no MCP client spoke to any of the ${sessions.length} there (--all takes the latest of them)`,
  );
}

/** Whether a session's folder holds MCP messages (a client spoke to it). */
async function spokenTo(dir: string): Promise<boolean> {
  try {
    return (await Deno.lstat(`${dir}/comms.jsonl`)).isFile;
  } catch {
    return false;
  }
}
