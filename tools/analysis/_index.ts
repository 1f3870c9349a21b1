/**
 * The definitions of every file under a directory that a language the
 * families declare reads, each with the calls in its body, for
 * `derive_code_path`. A file that cannot be read or parsed is counted as
 * skipped.
 *
 * @module
 */

import type { ResolvedPath } from "../../security/resolver.ts";
import type { Skipped } from "../_skipped.ts";
import { readTexts } from "../_text.ts";
import { type ToolContext, yieldDue, yieldToWorker } from "../tool.ts";
import { walk } from "../_walk.ts";
import { type Definition, definitionsIn } from "./_call_graph.ts";
import type { Languages } from "./_languages.ts";

export type { Call, Definition } from "./_call_graph.ts";

/** The most files scanned for definitions. */
export const MAX_FILES = 5_000;
/** Files read at once. */
const READ_BATCH = 32;
/** Files larger than this (or than `limits.maxSearchFileBytes`) are not scanned. */
const MAX_FILE_BYTES = 2 * 1024 * 1024;

/**
 * Index the definitions under a directory.
 *
 * @param ctx The tool context.
 * @param start A checked directory.
 * @param options The languages to read, and what counts the files (and directories) that could not be read or parsed.
 * @returns The definitions, and how many files were indexed.
 */
export async function indexDefinitions(
  ctx: ToolContext,
  start: ResolvedPath,
  { languages, skipped }: { languages: Languages; skipped: Skipped },
): Promise<{ definitions: Definition[]; files: number }> {
  const definitions: Definition[] = [];
  const limit = Math.min(MAX_FILE_BYTES, ctx.policy.limits.maxSearchFileBytes);
  const byDir = await sourcesByDir(ctx, start, { languages, skipped });
  const total = [...byDir.values()].reduce((sum, files) => sum + files.length, 0);
  let done = 0;
  let indexed = 0;
  let lastYield = performance.now();
  for (const [dir, all] of byDir) {
    // A few files at a time: at most READ_BATCH × MAX_FILE_BYTES held at once.
    for (let at = 0; at < all.length; at += READ_BATCH) {
      const batch = all.slice(at, at + READ_BATCH);
      const texts = readTexts(ctx, dir, batch, { limit, skipped });
      for (const [i, file] of batch.entries()) {
        if (yieldDue(ctx, lastYield)) {
          await yieldToWorker(ctx.signal);
          lastYield = performance.now();
        }
        if (++done % 100 === 0) ctx.progress(done, total, `indexed ${done} of ${total} files`);
        const text = texts[i];
        if (text === undefined) continue;
        try {
          const { reader, grammar } = languages.find(file.name, text)!;
          const tree = await reader.parse(ctx, text, grammar);
          try {
            definitionsIn(tree.rootNode, reader.calls, file.display, definitions);
          } finally {
            tree.delete();
          }
          indexed++;
        } catch (error) {
          skipped.failed(file.display, error, ctx.logger);
        }
      }
    }
  }
  return { definitions, files: indexed };
}

interface SourceFile {
  name: string;
  display: string;
}

/** The source files under `start` (at most MAX_FILES), grouped by their directory. */
async function sourcesByDir(
  ctx: ToolContext,
  start: ResolvedPath,
  { languages, skipped }: { languages: Languages; skipped: Skipped },
): Promise<Map<string, SourceFile[]>> {
  const byDir = new Map<string, SourceFile[]>();
  let files = 0;
  const relevant = (name: string) => languages.has(name);
  for await (const entry of walk(ctx, start, { filesOnly: true, skipped, relevant })) {
    if (!languages.has(entry.name)) continue;
    if (++files > MAX_FILES) break;
    const dir = entry.path.slice(0, entry.path.lastIndexOf("/")) || "/";
    const list = byDir.get(dir) ?? [];
    list.push({ name: entry.name, display: entry.display });
    byDir.set(dir, list);
  }
  return byDir;
}
