/**
 * The files `grep` reads: proposed by ripgrep when it can (`_ripgrep.ts`),
 * walked otherwise, in walk order, a directory at a time; each batch read in
 * one anchored pass, a file that cannot be read counted, not thrown.
 *
 * @module
 */

import * as posix from "node:path/posix";
import type { ResolvedPath } from "../../security/resolver.ts";
import { formatBytes } from "../../security/safe_fs.ts";
import type { Skipped } from "../_skipped.ts";
import type { ToolContext } from "../tool.ts";
import { rgFilesWithMatches, usableRipgrep, type WalkRules } from "./_ripgrep.ts";
import { comparePaths, globMatcher, walk } from "../_walk.ts";

/** Files read per anchored pass. */
const BATCH = 32;

/** What chose the candidate files, and what could not be searched. */
export interface Used {
  /** ripgrep, or the JS walker. */
  engine: "ripgrep" | "walker";
  /** The files left out, and why. */
  skipped: Skipped;
}

/** Files to read, a directory at a time, in walk order. */
export interface Batch {
  /** Their directory (absolute). */
  dir: string;
  /** Their names in it. */
  names: string[];
  /** Their paths as shown to the model. */
  displays: string[];
}

/** What of `grep`'s input decides the files. */
export interface FileChoice {
  /** Only files matching this glob. */
  glob?: string | undefined;
  /** Match case-insensitively (ripgrep too). */
  ignore_case: boolean;
  /** Also files that .gitignore ignores. */
  include_ignored: boolean;
  /** Also .git and node_modules. */
  include_git_and_node_modules: boolean;
}

/**
 * The files to search under `start` (or `start` itself when it is a file),
 * in batches: ripgrep's candidates when it can take the pattern and the
 * rules, the walker's files otherwise. Sets `used.engine`, and counts in
 * `used.skipped` what cannot be searched.
 *
 * @param ctx The tool context.
 * @param start The checked path.
 * @param options The input's choice of files, ripgrep's pattern (undefined: the walker), and what is used.
 * @returns The batches, in walk order.
 */
export async function* candidates(
  ctx: ToolContext,
  start: ResolvedPath,
  options: { input: FileChoice; rust: string | undefined; used: Used },
): AsyncGenerator<Batch> {
  const { input, used } = options;
  if (!start.info?.isDirectory) {
    const dir = posix.dirname(start.path);
    yield { dir, names: [posix.basename(start.path)], displays: [start.display] };
    return;
  }
  const rules: WalkRules = {
    gitignore: !input.include_ignored,
    skipDefaults: !input.include_git_and_node_modules,
  };
  const match = input.glob === undefined ? () => true : globMatcher(input.glob);
  const nameGlob = input.glob !== undefined && !input.glob.includes("/") ? input.glob : undefined;
  const rg = options.rust === undefined ? undefined : usableRipgrep(ctx, start, rules);
  const listed = rg === undefined ? undefined : await rgFilesWithMatches(ctx, rg, start, rules, {
    regex: options.rust!,
    ignoreCase: input.ignore_case,
    nameGlob,
  });
  if (!listed) {
    yield* batched(walked(ctx, start, { rules, glob: input.glob, match, skipped: used.skipped }));
    return;
  }
  used.engine = "ripgrep";
  // ripgrep applied a name glob itself; a path glob is applied here.
  for (const each of listed.unreadable.sort((a, b) => comparePaths(a.path, b.path))) {
    if (nameGlob !== undefined || match(each.path)) {
      used.skipped.add(ctx.resolver.display(`${start.path}/${each.path}`), each.reason);
    }
  }
  yield* batched(listedFiles(start, listed.paths.filter(match).sort(comparePaths)));
}

/** One file to read. */
interface FileEntry {
  dir: string;
  name: string;
  display: string;
}

/** ripgrep's files (relative to `start`, sorted) as entries. */
function* listedFiles(start: ResolvedPath, sorted: string[]): Generator<FileEntry> {
  for (const relative of sorted) {
    const slash = relative.lastIndexOf("/");
    yield {
      dir: slash < 0 ? start.path : `${start.path}/${relative.slice(0, slash)}`,
      name: relative.slice(slash + 1),
      display: start.display === "." ? relative : `${start.display}/${relative}`,
    };
  }
}

/** The walker's files under `start` that the glob takes. */
async function* walked(
  ctx: ToolContext,
  start: ResolvedPath,
  walking: {
    rules: WalkRules;
    glob: string | undefined;
    match: (relative: string) => boolean;
    skipped: Skipped;
  },
): AsyncGenerator<FileEntry> {
  const { glob, match } = walking;
  // Symlinks and special files the glob would take are counted as skipped (a glob's last part decides).
  const named = glob === undefined ? () => true : globMatcher(glob.split("/").pop()!);
  const cut = start.path.length + 1;
  const entries = walk(ctx, start, {
    ...walking.rules,
    filesOnly: true,
    skipped: walking.skipped,
    relevant: named,
  });
  for await (const entry of entries) {
    if (!match(entry.path.slice(cut))) continue;
    yield { dir: posix.dirname(entry.path), name: entry.name, display: entry.display };
  }
}

/** Files in batches: a new batch for each directory, and every {@linkcode BATCH} files. */
async function* batched(
  entries: AsyncIterable<FileEntry> | Iterable<FileEntry>,
): AsyncGenerator<Batch> {
  let batch: Batch | undefined;
  for await (const { dir, name, display } of entries) {
    if (batch && (batch.dir !== dir || batch.names.length >= BATCH)) {
      yield batch;
      batch = undefined;
    }
    batch ??= { dir, names: [], displays: [] };
    batch.names.push(name);
    batch.displays.push(display);
  }
  if (batch) yield batch;
}

/**
 * Read a batch of files (one anchored pass); a file that cannot be read is
 * counted, not thrown.
 *
 * @param ctx The tool context.
 * @param batch The files.
 * @param skipped Counts the files that could not be read.
 * @returns Each file's bytes, or undefined when it could not be read.
 */
export function readBatch(
  ctx: ToolContext,
  batch: Batch,
  skipped: Skipped,
): Array<Uint8Array | undefined> {
  const limit = ctx.policy.limits.maxSearchFileBytes;
  let contents: Array<Uint8Array | Error>;
  try {
    contents = ctx.fs.readMany(batch.dir, batch.names, limit);
  } catch (error) {
    // The directory itself changed or vanished: none of its files can be read.
    for (const display of batch.displays) skipped.failed(display, error, ctx.logger);
    return batch.names.map(() => undefined);
  }
  return contents.map((bytes, i) => {
    if (!(bytes instanceof Error)) return bytes;
    const display = batch.displays[i]!;
    if (bytes instanceof RangeError) {
      skipped.add(display, `over the ${formatBytes(limit)} size limit`);
    } else {
      skipped.failed(display, bytes, ctx.logger);
    }
    return undefined;
  });
}
