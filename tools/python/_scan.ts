/**
 * Python files under a path, for the tools that search a whole directory
 * (`py_get_hierarchy`): walked with the shared walker,
 * read a directory at a time, decoded, skipped (and counted) when binary,
 * too large or unreadable.
 *
 * @module
 */

import * as posix from "node:path/posix";
import type { Skipped } from "../_skipped.ts";
import { decodeText, readTexts } from "../_text.ts";
import { type ToolContext, yieldDue, yieldToWorker } from "../tool.ts";
import { walk } from "../_walk.ts";

/** One Python source found. */
export interface Source {
  /** The path as shown to the model. */
  display: string;
  /** The decoded text. */
  text: string;
}

/** Paging of a scan. */
export interface ScanRange {
  /** Files to skip, unread. */
  offset: number;
  /**
   * Hand out at most this many: the listing (a walk in sorted order) then
   * stops at the first file past them, and `total` is only a lower bound
   * that still tells whether more files follow.
   */
  limit?: number;
  /** How many Python files there are in all (set once listed). */
  total?: number;
  /** The offset after the last file handed out (or skipped as unreadable). */
  next?: number;
}

/** Files read per anchored pass. */
const BATCH = 32;

/** Names of Python sources. */
export const PYTHON_FILE = /\.pyi?$/;

/**
 * Every Python source under a file or directory, in walk order (sorted by
 * name). Under a directory, what cannot be walked, read or decoded (special
 * files and symlinks named `*.py`, binary and oversized files, directories
 * that cannot be listed) is counted in `skipped`; a single file's error is thrown.
 *
 * @param ctx The tool context.
 * @param path The model's path (a file or a directory).
 * @param skipped Counts what was left out.
 * @param range Skip the first `offset` files unread (for paging); `total` and `next` are set as it goes.
 * @returns The sources.
 */
export async function* pythonSources(
  ctx: ToolContext,
  path: string,
  skipped: Skipped,
  range: ScanRange = { offset: 0 },
): AsyncGenerator<Source> {
  const start = await ctx.fs.resolve(path, "any");
  const limit = ctx.policy.limits.maxSearchFileBytes;
  if (!start.info?.isDirectory) {
    const bytes = ctx.fs.readResolved(start, limit);
    yield { display: start.display, text: decodeText(bytes, start.display).text };
    return;
  }
  // List first, then read and hand out: the walker yields to the event loop
  // by elapsed time, and the caller's parsing would make it yield (and sleep)
  // after nearly every file.
  const found: Array<{ dir: string; name: string; display: string }> = [];
  const enough = range.limit === undefined ? Infinity : range.offset + range.limit + 1;
  const relevant = (name: string) => PYTHON_FILE.test(name);
  for await (const entry of walk(ctx, start, { filesOnly: true, skipped, relevant })) {
    if (PYTHON_FILE.test(entry.name)) {
      found.push({ dir: posix.dirname(entry.path), name: entry.name, display: entry.display });
      if (found.length >= enough) break;
    }
  }
  range.total = found.length;
  let last = performance.now();
  for (let i = range.offset; i < found.length;) {
    const dir = found[i]!.dir;
    const batch: Array<{ name: string; display: string }> = [];
    for (; i < found.length && found[i]!.dir === dir && batch.length < BATCH; i++) {
      batch.push(found[i]!);
    }
    const texts = readTexts(ctx, dir, batch, { limit, skipped });
    for (const [j, file] of batch.entries()) {
      range.next = i - batch.length + j + 1;
      const text = texts[j];
      if (text !== undefined) yield { display: file.display, text };
    }
    if (yieldDue(ctx, last)) {
      ctx.progress(i, found.length, `Read ${i} of ${found.length} Python files`);
      await yieldToWorker(ctx.signal);
      last = performance.now();
    }
  }
}
