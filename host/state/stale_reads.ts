/**
 * Stale-read protection, per session: the host remembers the fingerprint of
 * every whole file the agent read (and its text, when small), as the tool
 * workers report them. Editors are told what the agent last saw, and refuse
 * a file that changed since; and when such a file changes by any other
 * means, the next result carries a bounded `[FILES UPDATED]` notice with a
 * line diff.
 *
 * The host never opens a project file for this: a tool worker checks the
 * watched files (through the resolver and the anchored open, under
 * Landlock) and sends back what changed, with the new text (`watch.ts`).
 *
 * @module
 */

import * as posix from "node:path/posix";
import { structuredPatch } from "diff";
import type { ToolResult } from "../../tools/tool.ts";
import type { FileChange, SeenFiles, WatchedFile } from "../workers/mod.ts";
import { MAX_TRACKED } from "../workers/mod.ts";

export { MAX_TRACKED };

/** The longest `[FILES UPDATED]` notice, in characters. */
export const MAX_NOTICE_CHARS = 4_000;
/** Changed lines shown per side of one hunk. */
const MAX_HUNK_LINES = 20;
/** Beyond this many differing lines, a diff is not worth computing: the notice says "changed". */
const MAX_EDIT_LENGTH = 2_000;

interface Tracked {
  /** What the agent last read or wrote (the edit expectation). */
  fingerprint: string;
  /** What the host last told the agent the file holds (for notices). */
  shown: string;
  /** The text shown, for diffs. */
  text: string | undefined;
  /** The file's modification time and size when last looked at. */
  mtime: number;
  size: number;
  /** Counts the calls of this session that read or wrote the file. */
  version: number;
}

/** A change to tell the agent about, found by a worker's check. */
interface Notice {
  /** Its display path. */
  readonly path: string;
  /** The tracked version when it was found changed. */
  readonly version: number;
  /** How the notice describes it. */
  readonly text: string;
}

/** Remembers what each session read, and tells it what changed behind it. */
export class ReadTracker {
  #root: string;
  #sessions = new Map<string, Map<string, Tracked>>();
  /** Notices found for each session and not yet delivered. */
  #notices = new Map<string, Notice[]>();

  /** @param root The primary root (display paths are relative to it). */
  constructor(root: string) {
    this.#root = root;
  }

  /**
   * Forget a session that ended: what it read and its notices not delivered.
   *
   * @param session The session.
   */
  forget(session: string): void {
    this.#sessions.delete(session);
    this.#notices.delete(session);
  }

  /**
   * The fingerprints an editor must find, for the files a call names.
   *
   * @param session The session.
   * @param args The call's arguments.
   * @param pathArgs The arguments that name files (the tool's family declares them).
   * @returns Display path → fingerprint, for the files this session read.
   */
  expectations(
    session: string,
    args: unknown,
    pathArgs: readonly string[],
  ): Record<string, string> | undefined {
    const files = this.#sessions.get(session);
    if (!files || typeof args !== "object" || args === null) return undefined;
    const out: Record<string, string> = {};
    for (const key of pathArgs) {
      const raw = (args as Record<string, unknown>)[key];
      if (typeof raw !== "string") continue;
      const display = this.#display(raw);
      const tracked = files.get(display);
      if (tracked) out[display] = tracked.fingerprint;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }

  /**
   * The files a worker should check for this session, as the agent last saw them.
   *
   * @param session The session.
   * @returns The watched files (empty when the session read nothing).
   */
  watch(session: string): WatchedFile[] {
    const files = this.#sessions.get(session);
    if (!files) return [];
    return [...files].map(([path, tracked]) => ({
      path,
      mtime: tracked.mtime,
      size: tracked.size,
      shown: tracked.shown,
      hasText: tracked.text !== undefined,
    }));
  }

  /**
   * Take in what a worker found changed, and queue the notices. A change
   * already told (a concurrent call found it too) is not told again.
   *
   * @param session The session.
   * @param changes What the worker found.
   */
  changed(session: string, changes: readonly FileChange[]): void {
    const files = this.#sessions.get(session);
    if (!files) return;
    const notices: Notice[] = [];
    for (const change of changes) {
      const tracked = files.get(change.path);
      if (!tracked) continue;
      const notice = (text: string) =>
        notices.push({ path: change.path, version: tracked.version, text });
      if (change.gone !== undefined) {
        if (tracked.size === -1) continue;
        tracked.size = -1;
        tracked.shown = "";
        tracked.text = undefined;
        notice(`${change.path}: ${change.gone === "deleted" ? "deleted" : "no longer readable"}`);
        continue;
      }
      tracked.mtime = change.mtime;
      tracked.size = change.size;
      if (change.fingerprint === tracked.shown) continue;
      const before = tracked.text;
      tracked.shown = change.fingerprint;
      tracked.text = change.text;
      notice(
        before !== undefined && change.text !== undefined
          ? `${change.path}:\n${lineDiff(before, change.text)}`
          : `${change.path}: changed (now ${change.size} bytes)`,
      );
    }
    if (notices.length === 0) return;
    const queued = this.#notices.get(session);
    if (queued) queued.push(...notices);
    else this.#notices.set(session, notices);
  }

  /**
   * Remember what a call read and wrote (its own writes are not "changes by
   * other means"), with the text the worker sent for new versions.
   *
   * @param session The session.
   * @param seen The files.
   */
  record(session: string, seen: SeenFiles): void {
    let files = this.#sessions.get(session);
    if (!files) this.#sessions.set(session, files = new Map());
    for (const move of seen.moves ?? []) follow(files, move);
    for (const file of [...seen.reads, ...seen.writes]) {
      const known = files.get(file.path);
      files.delete(file.path);
      files.set(file.path, {
        fingerprint: file.fingerprint,
        shown: file.fingerprint,
        text: file.text ?? (known?.shown === file.fingerprint ? known.text : undefined),
        mtime: file.mtime,
        size: file.size,
        version: (known?.version ?? 0) + 1,
      });
    }
    while (files.size > MAX_TRACKED) files.delete(files.keys().next().value!);
  }

  /**
   * Append the `[FILES UPDATED]` notice (if any) to a result, as a separate
   * text block. A change to a file the call itself then read or wrote is left
   * out: the agent has seen that version.
   *
   * @param session The session.
   * @param result The result the client gets.
   * @returns The result, with the notice when there is one.
   */
  decorate(session: string, result: ToolResult): ToolResult {
    const queued = this.#notices.get(session);
    if (!queued) return result;
    this.#notices.delete(session);
    const files = this.#sessions.get(session);
    const parts = queued
      .filter((notice) => files?.get(notice.path)?.version === notice.version)
      .map((notice) => notice.text);
    if (parts.length === 0) return result;
    const text = `[FILES UPDATED] Files you read changed outside this session since:\n${
      parts.join("\n")
    }`;
    const notice = text.length <= MAX_NOTICE_CHARS
      ? text
      : `${text.slice(0, MAX_NOTICE_CHARS)}\n[notice cut; read the files again for the rest]`;
    return { ...result, content: [...result.content, { type: "text", text: notice }] };
  }

  #display(raw: string): string {
    const absolute = posix.resolve(this.#root, raw);
    if (absolute === this.#root) return ".";
    return absolute.startsWith(`${this.#root}/`) ? absolute.slice(this.#root.length + 1) : absolute;
  }
}

/**
 * The session's own move: what it read at (or beneath) the old path is now
 * at the new one, as it was (the agent has seen that version), not deleted.
 * Notices queued for the old path or a replaced file lapse (their version
 * is gone).
 */
function follow(files: Map<string, Tracked>, move: { from: string; to: string }): void {
  const moved: [string, Tracked][] = [];
  for (const [path, tracked] of files) {
    if (path !== move.from && !path.startsWith(`${move.from}/`)) continue;
    files.delete(path);
    moved.push([`${move.to}${path.slice(move.from.length)}`, tracked]);
  }
  for (const [path, tracked] of moved) {
    const replaced = files.get(path);
    files.delete(path);
    files.set(path, { ...tracked, version: Math.max(tracked.version, replaced?.version ?? 0) + 1 });
  }
}

/**
 * A line diff (the npm `diff` package): one hunk per changed region, headed
 * `@@ -old +new @@` in unified-diff terms, with at most 20 lines per side.
 *
 * @param before The old text.
 * @param after The new text.
 * @returns The hunks, or a note when the texts differ too much to diff.
 */
export function lineDiff(before: string, after: string): string {
  const patch = structuredPatch("", "", before, after, undefined, undefined, {
    context: 0,
    maxEditLength: MAX_EDIT_LENGTH,
    stripTrailingCr: true,
  });
  if (patch === undefined) return "changed throughout (too many lines to show a diff)";
  if (patch.hunks.length === 0) return "line endings changed (the lines are the same)";
  const out: string[] = [];
  for (const hunk of patch.hunks) {
    // Unified diff: a side of no lines is numbered by the line before it (as `formatPatch` does).
    const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
    const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
    out.push(
      `@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`,
      ...shown(hunk.lines.filter((line) => line.startsWith("-")), "-"),
      ...shown(hunk.lines.filter((line) => line.startsWith("+")), "+"),
    );
  }
  return out.join("\n");
}

function shown(lines: string[], mark: string): string[] {
  return [
    ...lines.slice(0, MAX_HUNK_LINES).map((line) => `${mark} ${line.slice(1, 201)}`),
    ...(lines.length > MAX_HUNK_LINES
      ? [`${mark} … ${lines.length - MAX_HUNK_LINES} more lines`]
      : []),
  ];
}
