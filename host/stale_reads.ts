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
import { setImmediate } from "node:timers";
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
  /** Counts the calls of this session that read or wrote the file. */
  version: number;
}

/** A file found changed by {@linkcode ReadTracker.check}. */
export interface Change {
  /** Its display path. */
  readonly path: string;
  /** The tracked version when it was found changed. */
  readonly version: number;
  /** How the notice describes it. */
  readonly text: string;
}

/** Remembers what each session read, and notices what changed behind it. */
export class ReadTracker {
  #root: string;
  #resolver: Resolver;
  #sessions = new Map<string, Map<string, Tracked>>();
  /** Versions whose text is still to be read (for diffs), after the reply. */
  #toCapture: Array<{ path: string; tracked: Tracked }> = [];

  /**
   * @param resolver The host's resolver: files are read only through it
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
   * other means"). The worker says what it saw, with the file's time and
   * size: only a version not seen before is read again, for later diffs, and
   * that after the reply (or before the next check, whichever comes first).
   *
   * @param session The session.
   * @param seen The files.
   */
  record(session: string, seen: SeenFiles): void {
    let files = this.#sessions.get(session);
    if (!files) this.#sessions.set(session, files = new Map());
    for (const file of [...seen.reads, ...seen.writes]) {
      const known = files.get(file.path);
      const tracked: Tracked = {
        fingerprint: file.fingerprint,
        shown: file.fingerprint,
        text: known?.shown === file.fingerprint ? known.text : undefined,
        mtime: file.mtime,
        size: file.size,
        version: (known?.version ?? 0) + 1,
      };
      files.delete(file.path);
      files.set(file.path, tracked);
      if (tracked.text === undefined && file.size <= MAX_DIFF_BYTES) {
        if (this.#toCapture.length === 0) setImmediate(() => this.#capture());
        this.#toCapture.push({ path: file.path, tracked });
      }
    }
    while (files.size > MAX_TRACKED) files.delete(files.keys().next().value!);
  }

  /**
   * Read the text of versions recorded since the last time, for later diffs;
   * kept only if it is still the version the call saw (the worker sends
   * fingerprints, never contents).
   */
  #capture(): void {
    const pending = this.#toCapture;
    this.#toCapture = [];
    for (const { path, tracked } of pending) {
      if (tracked.text !== undefined || tracked.shown !== tracked.fingerprint) continue;
      const bytes = this.#read(path);
      if (bytes && fingerprint(bytes) === tracked.fingerprint) tracked.text = decoded(bytes, path);
    }
  }

  /**
   * Look for files of this session that changed by other means since the
   * host last showed them. Cheap when nothing changed (one `lstat` per file),
   * so the host runs it while a call is under way.
   *
   * @param session The session.
   * @returns The changes, for {@linkcode ReadTracker.decorate}.
   */
  check(session: string): Change[] {
    this.#capture();
    const files = this.#sessions.get(session);
    if (!files) return [];
    const changes: Change[] = [];
    for (const [path, tracked] of files) {
      if (this.#unchanged(path, tracked)) continue;
      const stat = this.#stat(path);
      if (stat && stat.mtime === tracked.mtime && stat.size === tracked.size) continue;
      const change = (text: string) => changes.push({ path, version: tracked.version, text });
      if (!stat) {
        if (tracked.size === -1) continue;
        tracked.size = -1;
        change(`${path}: deleted`);
        continue;
      }
      tracked.mtime = stat.mtime;
      tracked.size = stat.size;
      const bytes = stat.size <= MAX_DIFF_BYTES ? this.#read(path) : undefined;
      const now = bytes ? fingerprint(bytes) : `${stat.size}:?`;
      if (now === tracked.shown) continue;
      tracked.shown = now;
      const text = bytes ? decoded(bytes, path) : undefined;
      change(
        text !== undefined && tracked.text !== undefined
          ? `${path}:\n${compactDiff(tracked.text, text)}`
          : `${path}: changed (now ${stat.size} bytes)`,
      );
      tracked.text = text;
    }
    return changes;
  }

  /**
   * Append the `[FILES UPDATED]` notice (if any) to a result, as a separate
   * text block. A change to a file the call itself then read or wrote is left
   * out: the agent has seen that version.
   *
   * @param session The session.
   * @param result The result the client gets.
   * @param changes What {@linkcode ReadTracker.check} found for this call
   *   (checked now when not given).
   * @returns The result, with the notice when there is one.
   */
  decorate(session: string, result: ToolResult, changes?: Change[]): ToolResult {
    const files = this.#sessions.get(session);
    const parts = (changes ?? this.check(session))
      .filter((change) => files?.get(change.path)?.version === change.version)
      .map((change) => change.text);
    if (parts.length === 0) return result;
    const text = `[FILES UPDATED] Files you read changed outside this session since:\n${
      parts.join("\n")
    }`;
    const notice = text.length <= MAX_NOTICE_CHARS
      ? text
      : `${text.slice(0, MAX_NOTICE_CHARS)}\n[notice cut; read the files again for the rest]`;
    return { ...result, content: [...result.content, { type: "text", text: notice }] };
  }

  #display(raw: string): string | undefined {
    const absolute = posix.resolve(this.#root, raw);
    if (absolute === this.#root) return ".";
    return absolute.startsWith(`${this.#root}/`) ? absolute.slice(this.#root.length + 1) : absolute;
  }

  /**
   * The fast path: an `lstat` of the path as it was shown, equal in time and
   * size. Anything else (changed, gone, swapped) goes through the resolver.
   */
  #unchanged(display: string, tracked: Tracked): boolean {
    try {
      const info = Deno.lstatSync(posix.resolve(this.#root, display));
      return info.isFile && info.size === tracked.size &&
        (info.mtime?.getTime() ?? 0) === tracked.mtime;
    } catch {
      return false;
    }
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

/** A file's text, or `undefined` when it cannot be decoded. */
function decoded(bytes: Uint8Array, path: string): string | undefined {
  try {
    return decodeText(bytes, path).text;
  } catch {
    return undefined;
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
