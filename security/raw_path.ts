/**
 * The resolver's first step: the raw string as the model wrote it, checked
 * as text (empty, too long, control characters, quotes, `~`, a URL other
 * than `file://`, too deep) and made absolute against the primary root.
 * Nothing here asks the disk.
 *
 * @module
 */

import * as posix from "node:path/posix";
import { fileURLToPath } from "node:url";
import { ToolError } from "./errors.ts";

/** The longest path the resolver accepts, in characters. */
export const MAX_PATH_LENGTH = 4096;

/** The most directories a path may go down, from `/` (the walkers stop at 64 below a root). */
export const MAX_PATH_DEPTH = 128;

/**
 * The absolute lexical path a raw path names: resolved against the primary
 * root, `..` folded, nothing followed.
 *
 * @param raw The path as the model wrote it: relative to the primary root, or absolute.
 * @param roots The roots (real paths), the primary first; with none, every path is outside.
 * @returns The absolute path.
 * @throws {ToolError} `invalid_path` for a path whose text cannot be a path meant as such.
 */
export function lexicalPath(raw: unknown, roots: readonly string[]): string {
  if (typeof raw !== "string" || raw.length === 0) {
    throw new ToolError("invalid_path", "Cannot use an empty path: give a path inside the roots");
  }
  const shown = JSON.stringify(raw.length > 200 ? `${raw.slice(0, 200)}…` : raw);
  refuseMalformed(raw, shown);
  // With no roots (a host-side tool's context) every path is outside.
  const resolved = posix.resolve(roots[0] ?? "/", urlPath(raw, shown));
  // Every directory on the way is checked at each open: a path thousands deep costs minutes.
  const depth = resolved.split("/").length - 1;
  if (depth > MAX_PATH_DEPTH) {
    throw new ToolError(
      "invalid_path",
      `Cannot use ${shown}: it is ${depth} directories deep, the limit is ${MAX_PATH_DEPTH}`,
    );
  }
  return resolved;
}

/** Refuse a raw path whose text cannot be a path meant as such (too long, control characters, quoted, `~`). */
function refuseMalformed(raw: string, shown: string): void {
  if (raw.length > MAX_PATH_LENGTH) {
    throw new ToolError(
      "invalid_path",
      `Cannot use ${shown}: longer than ${MAX_PATH_LENGTH} characters`,
    );
  }
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw)) {
    throw new ToolError(
      "invalid_path",
      `Cannot use ${shown}: it contains a control character (NUL, tab or newline)`,
    );
  }
  if (raw.trim() !== raw) {
    throw new ToolError(
      "invalid_path",
      `Cannot use ${shown}: it has leading or trailing white space`,
    );
  }
  if (/^(["'`]).*\1$/s.test(raw)) {
    throw new ToolError("invalid_path", `Cannot use ${shown}: remove the quotes around the path`);
  }
  if (raw.startsWith("~")) {
    throw new ToolError(
      "invalid_path",
      `Cannot use ${shown}: "~" is not expanded; give a path inside the roots`,
    );
  }
}

/** The path a `file://` URL names; a plain path as it is; any other URL refused. */
function urlPath(raw: string, shown: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) return raw;
  if (!raw.toLowerCase().startsWith("file://")) {
    throw new ToolError(
      "invalid_path",
      `Cannot use ${shown}: only plain paths and file:// URLs are paths`,
    );
  }
  try {
    return fileURLToPath(raw);
  } catch {
    throw new ToolError("invalid_path", `Cannot use ${shown}: not a valid file:// URL`);
  }
}
