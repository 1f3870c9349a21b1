/**
 * The `.gitignore` rules a walk honours: a directory's own file (read
 * anchored, never a hidden one, at most 1 MiB), and those of a start
 * directory's ancestors down from its root.
 *
 * @module
 */

import type { ResolvedPath } from "../security/resolver.ts";
import { IgnoreMatcher, type IgnoreRule, parseGitignore } from "./_gitignore.ts";
import type { ToolContext } from "./tool.ts";

/** The largest `.gitignore` file read, in bytes. */
const MAX_GITIGNORE_BYTES = 1024 * 1024;

/**
 * The `.gitignore` rules of a start directory's ancestors, from its root
 * down to (not including) the start itself.
 *
 * @param ctx The tool context.
 * @param start A checked directory.
 * @returns The matcher with those rules (empty when there are none).
 */
export function ancestorIgnores(ctx: ToolContext, start: ResolvedPath): IgnoreMatcher {
  let matcher = IgnoreMatcher.EMPTY;
  if (start.relative === "") return matcher;
  const parts = start.relative.split("/");
  let relative = "";
  for (let i = 0; i < parts.length; i++) {
    const dir = relative === "" ? start.root : `${start.root}/${relative}`;
    const rules = readIgnoreFile(ctx, dir);
    if (rules) matcher = matcher.with(relative, rules);
    relative = relative === "" ? parts[i]! : `${relative}/${parts[i]}`;
  }
  return matcher;
}

/**
 * The rules of `dir/.gitignore`, or `undefined` when it is missing, hidden or unreadable.
 *
 * @param ctx The tool context.
 * @param dir A checked directory (real path).
 * @returns The rules.
 */
export function readIgnoreFile(ctx: ToolContext, dir: string): IgnoreRule[] | undefined {
  const path = dir === "/" ? "/.gitignore" : `${dir}/.gitignore`;
  if (ctx.resolver.hidden(path) !== undefined) return undefined;
  let bytes: Uint8Array | Error | undefined;
  try {
    bytes = ctx.fs.readMany(dir, [".gitignore"], MAX_GITIGNORE_BYTES)[0];
  } catch {
    // The directory changed or vanished since it was listed: its entries then fail (and
    // are counted) where they are read, and an unreadable .gitignore is treated as missing.
    return undefined;
  }
  if (bytes === undefined || bytes instanceof Error) return undefined;
  return parseGitignore(new TextDecoder().decode(bytes));
}
