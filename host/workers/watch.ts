/**
 * The tool worker's half of stale-read protection: it checks the files a
 * session read for changes made by other means, and gives the host the text
 * of new versions for its diffs. Every read goes through the resolver and
 * the anchored open, on the worker's confined thread; the host never opens a
 * project file itself.
 *
 * @module
 */

import * as posix from "node:path/posix";
import { ToolError } from "../../security/errors.ts";
import type { SafeFs } from "../../security/safe_fs.ts";
import { decodeText } from "../../tools/_text.ts";
import type { FileChange, WatchedFile } from "./protocol.ts";

/** The largest file read for a diff, in bytes. */
export const MAX_DIFF_BYTES = 256 * 1024;

/** Files remembered per session (the least recently seen go first). */
export const MAX_TRACKED = 64;

/**
 * Check watched files: an `lstat` each when nothing changed (same kind, size
 * and time); otherwise the file is resolved and read again, anchored.
 *
 * @param fs The worker's file operations (without a call's hooks: these reads are not the call's).
 * @param watch The files, as the host last showed them.
 * @returns What changed.
 */
export function checkWatched(fs: SafeFs, watch: readonly WatchedFile[]): FileChange[] {
  const root = fs.resolver.policy.roots[0]!;
  const changes: FileChange[] = [];
  for (const file of watch) {
    // Gone or unreadable here (no answer): the resolver says which.
    const info = fs.peek(posix.resolve(root, file.path));
    if (info?.isFile && info.size === file.size && (info.mtime?.getTime() ?? 0) === file.mtime) {
      continue;
    }
    changes.push(changeOf(fs, file));
  }
  return changes;
}

function changeOf(fs: SafeFs, file: WatchedFile): FileChange {
  let resolved;
  try {
    resolved = fs.resolver.resolveSync(file.path, { want: "file" });
  } catch (error) {
    const gone = error instanceof ToolError && error.code === "not_found"
      ? "deleted"
      : "unreadable";
    return { path: file.path, gone };
  }
  const info = resolved.info!;
  const mtime = info.mtime?.getTime() ?? 0;
  if (info.size > MAX_DIFF_BYTES) {
    return { path: file.path, fingerprint: `${info.size}:?`, mtime, size: info.size };
  }
  try {
    const version = fs.readVersion(resolved, MAX_DIFF_BYTES);
    const change: Extract<FileChange, { fingerprint: string }> = {
      path: file.path,
      fingerprint: version.fingerprint,
      mtime: version.info.mtime?.getTime() ?? 0,
      size: version.info.size,
    };
    if (version.fingerprint !== file.shown) {
      const text = textOf(version.bytes, file.path);
      if (text !== undefined) change.text = text;
    }
    return change;
  } catch {
    // Resolved but not readable now (removed or replaced meanwhile, denied): that is the change.
    return { path: file.path, gone: "unreadable" };
  }
}

/**
 * A file's text for a diff, or `undefined` when it is too large or is not text.
 *
 * @param bytes The content.
 * @param path Its display path (for the decoder's messages).
 * @returns The text.
 */
export function textOf(bytes: Uint8Array, path: string): string | undefined {
  if (bytes.length > MAX_DIFF_BYTES) return undefined;
  try {
    return decodeText(bytes, path).text;
  } catch {
    // Not text (binary, or not decodable): no diff is made of it, as documented.
    return undefined;
  }
}
