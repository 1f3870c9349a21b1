/**
 * The shared directory walker of the file tools: depth-first, entries sorted
 * by name, never through a symlink, blacklist filtered, `.git` and
 * `node_modules` skipped and `.gitignore` honoured by default. Listing goes
 * through `ctx.fs.list` (anchored to each checked directory), so a directory
 * swapped for a symlink mid-walk is refused, not followed. What cannot be
 * walked (a directory that cannot be listed or lies more than
 * {@linkcode MAX_WALK_DEPTH} levels down; symlinks and special files a tool
 * would have read) is counted in the caller's {@linkcode Skipped}. The
 * `.gitignore` rules are read in `_walk_ignores.ts`; the pacing (yield,
 * cancel, progress) is `_pacer.ts`'s, re-exported here.
 *
 * @module
 */

import { ToolError } from "../security/errors.ts";
import { globToRegExp } from "../security/glob.ts";
import type { ResolvedPath } from "../security/resolver.ts";
import type { DirEntry } from "../security/safe_fs.ts";
import type { Skipped } from "./_skipped.ts";
import type { ToolContext } from "./tool.ts";
import { IgnoreMatcher } from "./_gitignore.ts";
import { Pacer } from "./_pacer.ts";
import { ancestorIgnores, readIgnoreFile } from "./_walk_ignores.ts";

export { Pacer } from "./_pacer.ts";

/** Options for {@linkcode walk}. */
export interface WalkOptions {
  /** Honour `.gitignore` files (default true). */
  gitignore?: boolean;
  /** Skip `.git` and `node_modules` (default true). */
  skipDefaults?: boolean;
  /** Directories below the start to descend: entries deeper than this are not yielded (default unlimited). */
  maxDepth?: number;
  /** Yield only files. */
  filesOnly?: boolean;
  /** Counts what could not be walked: directories not listed or too deep, and relevant symlinks and special files. */
  skipped?: Skipped;
  /**
   * Which symlinks and special files (FIFOs, sockets, devices) count as
   * skipped, by name: those the caller would have read (default: none, as for
   * listings, which show only files and directories).
   */
  relevant?: (name: string) => boolean;
  /** Told each directory's whole listing as it is listed (before any filter). */
  listed?: (dir: string, entries: readonly DirEntry[]) => void;
}

/** One entry found by {@linkcode walk}. */
export interface WalkEntry {
  /** Real absolute path (inside a root, not blacklisted, never through a symlink). */
  path: string;
  /** As shown to the model (relative to the primary root). */
  display: string;
  /** The entry's name. */
  name: string;
  /** What it is (symlinks and special files are never yielded). */
  kind: "file" | "directory";
  /** 1 for direct children of the start. */
  depth: number;
}

/** Names skipped unless `skipDefaults` is false. */
export const SKIPPED_NAMES: ReadonlySet<string> = new Set([".git", "node_modules"]);

/**
 * The deepest directory walked, in levels below the start: directories there
 * are yielded but not listed (and counted as skipped). Listing a directory
 * checks every directory above it, so each level costs more than the last.
 */
export const MAX_WALK_DEPTH = 64;

interface Frame {
  /** Real path of the directory. */
  dir: string;
  /** Its path relative to its root. */
  relative: string;
  /** Its depth below the start (0 for the start). */
  depth: number;
  /** The rules in force inside it. */
  matcher: IgnoreMatcher;
  /** Its kept entries, sorted by name. */
  entries: DirEntry[];
  index: number;
}

/**
 * Walk a directory tree depth-first, entries sorted by name. Yields to the
 * event loop regularly, honours `ctx.signal` (throws its reason when
 * aborted) and reports `ctx.progress`. Directories that cannot be listed
 * (vanished, unreadable, swapped for a symlink) or lie deeper than
 * {@linkcode MAX_WALK_DEPTH} are not walked, and counted in `options.skipped`.
 *
 * @param ctx The tool context.
 * @param start A checked directory.
 * @param options What to skip and how deep to go.
 * @returns The entries, a directory before its children.
 * @throws {ToolError} `not_a_directory` when `start` is not a directory; the signal's reason when aborted.
 * @example
 * ```ts
 * const start = await ctx.fs.resolve("src", "directory");
 * for await (const entry of walk(ctx, start, { filesOnly: true })) console.log(entry.display);
 * ```
 */
export async function* walk(
  ctx: ToolContext,
  start: ResolvedPath,
  options: WalkOptions = {},
): AsyncGenerator<WalkEntry> {
  if (start.info !== undefined && !start.info.isDirectory) {
    throw new ToolError("not_a_directory", `"${start.display}" is a file, not a directory`);
  }
  const settings: Settings = {
    gitignore: options.gitignore ?? true,
    skipDefaults: options.skipDefaults ?? true,
    maxDepth: options.maxDepth ?? Infinity,
    skipped: options.skipped,
    relevant: options.relevant ?? (() => false),
    listed: options.listed,
  };
  const pacer = new Pacer(ctx, "Walking");
  const base = settings.gitignore ? ancestorIgnores(ctx, start) : IgnoreMatcher.EMPTY;
  if (settings.maxDepth < 1) return;
  const stack: Frame[] = [
    openFrame(ctx, { path: start.path, relative: start.relative, depth: 0 }, base, settings)!,
  ];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.index >= frame.entries.length) {
      stack.pop();
      continue;
    }
    const entry = frame.entries[frame.index++]!;
    const depth = frame.depth + 1;
    await pacer.tick();
    const kind = entry.kind as "file" | "directory";
    if (kind === "file" || !options.filesOnly) {
      yield {
        path: entry.path,
        display: ctx.resolver.display(entry.path),
        name: entry.name,
        kind,
        depth,
      };
    }
    if (kind === "directory" && depth < settings.maxDepth) {
      const child = descend(ctx, frame, entry, settings);
      if (child) stack.push(child);
    }
  }
}

/** The frame of a directory met in a walk; undefined (counted) when it is too deep or cannot be listed. */
function descend(
  ctx: ToolContext,
  frame: Frame,
  entry: DirEntry,
  settings: Settings,
): Frame | undefined {
  const depth = frame.depth + 1;
  if (depth >= MAX_WALK_DEPTH) {
    settings.skipped?.add(
      ctx.resolver.display(entry.path),
      `nested more than ${MAX_WALK_DEPTH} directories deep (not walked)`,
    );
    return undefined;
  }
  const relative = frame.relative === "" ? entry.name : `${frame.relative}/${entry.name}`;
  return openFrame(ctx, { path: entry.path, relative, depth }, frame.matcher, settings);
}

/**
 * Order paths as the walk yields them: segment by segment, each by name.
 *
 * @param a A `/`-separated path.
 * @param b Another, relative to the same place.
 * @returns Negative, zero or positive, as `Array.prototype.sort` wants.
 */
export function comparePaths(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x === 47) return -1; // `/` sorts before every other character
    if (y === 47) return 1;
    return x - y;
  }
  return a.length - b.length;
}

/**
 * Compile a glob over paths relative to a search's start directory: a glob
 * without `/` matches the name at any depth (as `rg --files -g` does), one
 * with `/` matches the whole relative path.
 *
 * @param glob The glob (`*.py`, `src/**\/test_*.py`, `*.{ts,tsx}`).
 * @returns A test for a relative path.
 * @throws {ToolError} `invalid_argument` when the glob does not compile.
 */
export function globMatcher(glob: string): (relative: string) => boolean {
  const cleaned = glob.replace(/^(?:\.\/)+/, "").replace(/^\/+/, "");
  let re: RegExp;
  try {
    re = globToRegExp(cleaned);
  } catch (error) {
    throw new ToolError(
      "invalid_argument",
      `Cannot use glob "${glob}": ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (cleaned.includes("/")) return (relative) => re.test(relative);
  return (relative) => re.test(relative.slice(relative.lastIndexOf("/") + 1));
}

/** What a walk skips and counts, resolved from {@linkcode WalkOptions}. */
interface Settings {
  gitignore: boolean;
  skipDefaults: boolean;
  maxDepth: number;
  skipped: Skipped | undefined;
  relevant: (name: string) => boolean;
  listed: ((dir: string, entries: readonly DirEntry[]) => void) | undefined;
}

/**
 * List a directory into a frame: its kept entries, sorted. A directory that
 * cannot be listed is counted as skipped (the start's error is thrown).
 */
function openFrame(
  ctx: ToolContext,
  dir: { path: string; relative: string; depth: number },
  parent: IgnoreMatcher,
  settings: Settings,
): Frame | undefined {
  ctx.signal.throwIfAborted();
  let listed: DirEntry[];
  try {
    listed = ctx.fs.list(dir.path);
  } catch (error) {
    if (dir.depth === 0) throw error;
    settings.skipped?.failed(ctx.resolver.display(dir.path), error, ctx.logger);
    return undefined;
  }
  settings.listed?.(dir.path, listed);
  let matcher = parent;
  if (settings.gitignore && listed.some((e) => e.name === ".gitignore" && e.kind === "file")) {
    const rules = readIgnoreFile(ctx, dir.path);
    if (rules) matcher = matcher.with(dir.relative, rules);
  }
  const entries = listed.filter((entry) => {
    if (settings.skipDefaults && SKIPPED_NAMES.has(entry.name)) return false;
    const path = dir.relative === "" ? entry.name : `${dir.relative}/${entry.name}`;
    const isDirectory = entry.kind === "directory";
    if (!matcher.empty && matcher.ignored(path, isDirectory)) return false;
    if (entry.kind === "file" || isDirectory) return true;
    if (settings.skipped && settings.relevant(entry.name)) {
      settings.skipped.add(
        ctx.resolver.display(entry.path),
        entry.kind === "symlink"
          ? "symlink (never followed)"
          : "not a regular file (a FIFO, socket or device)",
      );
    }
    return false;
  });
  return { dir: dir.path, relative: dir.relative, depth: dir.depth, matcher, entries, index: 0 };
}
