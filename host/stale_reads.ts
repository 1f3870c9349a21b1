/**
 * Stale-read protection, per session: the host remembers the fingerprint of
 * every whole file the agent read (and its text, when small). Editors are
 * told what the agent last saw, and refuse a file that changed since; and
 * when such a file changes by any other means, the next result carries a
 * bounded `[FILES UPDATED]` notice with a compact diff.
 *
 * @module
 */

import * as posix from "node:path/posix";
import type { ToolResult } from "../tools/tool.ts";
import { decodeText } from "../tools/_text.ts";
import { fingerprint } from "../security/safe_fs.ts";
import type { Resolver } from "../security/resolver.ts";
import type { SeenFiles } from "./worker_protocol.ts";

/** Files remembered per session (the least recently seen go first). */
export const MAX_TRACKED = 64;
/** The longest `[FILES UPDATED]` notice, in characters. */
export const MAX_NOTICE_CHARS = 4_000;
/** The largest file diffed. */
const MAX_DIFF_BYTES = 256 * 1024;

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
}

/** Remembers what each session read, and notices what changed behind it. */
export class ReadTracker {
  #root: string;
  #resolver: Resolver;
  #sessions = new Map<string, Map<string, Tracked>>();

  /**
   * @param resolver The host's resolver: files are looked at only through it
   *   (inside the roots, not hidden, regular files), never by a raw path.
   */
  constructor(resolver: Resolver) {
    this.#resolver = resolver;
    this.#root = resolver.policy.roots[0]!;
  }

  /**
   * The fingerprints an editor must find, for the files a call names.
   *
   * @param session The session.
   * @param args The call's arguments (their path-like fields are looked at).
   * @returns Display path → fingerprint, for the files this session read.
   */
  expectations(session: string, args: unknown): Record<string, string> | undefined {
    const files = this.#sessions.get(session);
    if (!files || typeof args !== "object" || args === null) return undefined;
    const out: Record<string, string> = {};
    for (const key of ["path", "src_path", "dest_path", "source", "destination"]) {
      const raw = (args as Record<string, unknown>)[key];
      if (typeof raw !== "string") continue;
      const display = this.#display(raw);
      const tracked = display === undefined ? undefined : files.get(display);
      if (tracked) out[display!] = tracked.fingerprint;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }

  /**
   * Remember what a call read and wrote (its own writes are not "changes by
   * other means").
   *
   * @param session The session.
   * @param seen The files.
   */
  record(session: string, seen: SeenFiles): void {
    let files = this.#sessions.get(session);
    if (!files) this.#sessions.set(session, files = new Map());
    for (const file of [...seen.reads, ...seen.writes]) {
      const stat = this.#stat(file.path);
      const known = files.get(file.path);
      // The text (for diffs of later changes) is read here, once per new version, and kept only if
      // it is the version the call saw: the worker sends fingerprints, never contents.
      let text = known?.shown === file.fingerprint ? known.text : undefined;
      if (text === undefined && stat && stat.size <= MAX_DIFF_BYTES) {
        const bytes = this.#read(file.path);
        if (bytes && fingerprint(bytes) === file.fingerprint) {
          try {
            text = decodeText(bytes, file.path).text;
          } catch {
            text = undefined;
          }
        }
      }
      files.delete(file.path);
      files.set(file.path, {
        fingerprint: file.fingerprint,
        shown: file.fingerprint,
        text,
        mtime: stat?.mtime ?? 0,
        size: stat?.size ?? -1,
      });
    }
    while (files.size > MAX_TRACKED) files.delete(files.keys().next().value!);
  }

  /**
   * Look for files of this session that changed by other means since the
   * host last showed them, and describe them.
   *
   * @param session The session.
   * @returns The notice, or `undefined` when nothing changed.
   */
  notice(session: string): string | undefined {
    const files = this.#sessions.get(session);
    if (!files) return undefined;
    const parts: string[] = [];
    for (const [path, tracked] of files) {
      const stat = this.#stat(path);
      if (stat && stat.mtime === tracked.mtime && stat.size === tracked.size) continue;
      if (!stat) {
        if (tracked.size === -1) continue;
        tracked.size = -1;
        parts.push(`${path}: deleted`);
        continue;
      }
      tracked.mtime = stat.mtime;
      tracked.size = stat.size;
      const bytes = stat.size <= MAX_DIFF_BYTES ? this.#read(path) : undefined;
      const now = bytes ? fingerprint(bytes) : `${stat.size}:?`;
      if (now === tracked.shown) continue;
      tracked.shown = now;
      let text: string | undefined;
      try {
        text = bytes ? decodeText(bytes, path).text : undefined;
      } catch {
        text = undefined;
      }
      parts.push(
        text !== undefined && tracked.text !== undefined
          ? `${path}:\n${compactDiff(tracked.text, text)}`
          : `${path}: changed (now ${stat.size} bytes)`,
      );
      tracked.text = text;
    }
    if (parts.length === 0) return undefined;
    const body = parts.join("\n");
    const text = `[FILES UPDATED] Files you read changed outside this session since:\n${body}`;
    return text.length <= MAX_NOTICE_CHARS
      ? text
      : `${text.slice(0, MAX_NOTICE_CHARS)}\n[notice cut; read the files again for the rest]`;
  }

  /**
   * Append the notice (if any) to a result, as a separate text block.
   *
   * @param session The session.
   * @param result The result the client gets.
   * @returns The result, with the notice when there is one.
   */
  decorate(session: string, result: ToolResult): ToolResult {
    const notice = this.notice(session);
    return notice
      ? { ...result, content: [...result.content, { type: "text", text: notice }] }
      : result;
  }

  #display(raw: string): string | undefined {
    const absolute = posix.resolve(this.#root, raw);
    if (absolute === this.#root) return ".";
    return absolute.startsWith(`${this.#root}/`) ? absolute.slice(this.#root.length + 1) : absolute;
  }

  #stat(display: string): { mtime: number; size: number } | undefined {
    try {
      const info = this.#resolver.resolveSync(display, { want: "file" }).info!;
      return { mtime: info.mtime?.getTime() ?? 0, size: info.size };
    } catch {
      return undefined;
    }
  }

  /** Read through the resolver, and only if the real path did not move meanwhile. */
  #read(display: string): Uint8Array | undefined {
    try {
      const resolved = this.#resolver.resolveSync(display, { want: "file" });
      const bytes = Deno.readFileSync(resolved.path);
      return Deno.realPathSync(resolved.path) === resolved.path ? bytes : undefined;
    } catch {
      return undefined;
    }
  }
}

/**
 * A compact diff: the common head and tail are left out, the changed middle
 * is shown as `-`/`+` lines (at most 20 of each) with its line number.
 *
 * @param before The old text.
 * @param after The new text.
 * @returns The diff.
 */
export function compactDiff(before: string, after: string): string {
  const a = before.split(/\r\n|\r|\n/);
  const b = after.split(/\r\n|\r|\n/);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head && tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  ) tail++;
  const removed = a.slice(head, a.length - tail);
  const added = b.slice(head, b.length - tail);
  const show = (lines: string[], mark: string) => [
    ...lines.slice(0, 20).map((line) => `${mark} ${line.slice(0, 200)}`),
    ...(lines.length > 20 ? [`${mark} … ${lines.length - 20} more lines`] : []),
  ];
  return [
    `@@ line ${head + 1}: -${removed.length} +${added.length} @@`,
    ...show(removed, "-"),
    ...show(added, "+"),
  ].join("\n");
}
