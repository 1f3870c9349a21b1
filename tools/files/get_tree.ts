/**
 * `get_tree`: a directory tree, indented, a few levels deep, bounded. A
 * directory at the depth limit that has entries says how many, so that it
 * does not look empty.
 *
 * @module
 */

import { z } from "zod";
import { Skipped, SKIPPED_OUTPUT } from "../_skipped.ts";
import type { ResolvedPath } from "../../security/resolver.ts";
import { defineTool, type ToolContext } from "../tool.ts";
import { walk, type WalkEntry } from "../_walk.ts";

/** What the walk leaves out, as the call asked. */
interface Rules {
  gitignore: boolean;
  skipDefaults: boolean;
}

/** The call's input, as the tree needs it. */
interface TreeInput {
  max_depth: number;
  limit: number;
  include_ignored: boolean;
  include_git_and_node_modules: boolean;
}

/** A directory at the depth limit that has entries. */
interface NotDescended {
  path: string;
  entries: number;
}

/** Show a directory tree. */
export const getTree = defineTool({
  name: "get_tree",
  description:
    "The indented tree under a directory, max_depth levels deep (a directory at the limit shows its entry count). Skips .git, node_modules, .gitignore'd entries.",
  input: z.object({
    path: z.string().min(1).default("."),
    max_depth: z.number().int().min(1).max(50).default(3),
    include_ignored: z.boolean().default(false),
    include_git_and_node_modules: z.boolean().default(false),
    limit: z.number().int().min(1).max(10_000).default(2000).describe("Most entries"),
  }),
  output: z.object({
    path: z.string(),
    shown: z.number(),
    truncated: z.boolean(),
    not_descended: z.array(z.object({ path: z.string(), entries: z.number() })).describe(
      "Directories at the depth limit, with their entry counts",
    ),
    skipped: SKIPPED_OUTPUT,
  }),
  annotations: { title: "Directory tree", readOnlyHint: true, idempotentHint: true },
  async run(input, ctx) {
    const start = await ctx.fs.resolve(input.path, "directory");
    const skipped = new Skipped();
    const tree = await treeLines(ctx, start, input, skipped);
    const root = start.display === "." ? "./" : `${start.display}/`;
    const notes: string[] = [];
    if (tree.notDescended.length > 0) {
      notes.push(
        `[not shown: below max_depth ${input.max_depth}; call get_tree on such a directory]`,
      );
    }
    if (tree.truncated) {
      notes.push(
        `[truncated after ${input.limit} entries: call get_tree on a subdirectory, with a smaller max_depth, or a larger limit]`,
      );
    }
    return {
      content: [{
        type: "text",
        text: skipped.appendTo([root, ...tree.lines, ...notes].join("\n")),
      }],
      structuredContent: {
        path: start.display,
        shown: tree.lines.length,
        truncated: tree.truncated,
        not_descended: tree.notDescended,
        skipped: skipped.summary(),
      },
    };
  },
});

/** The tree's lines, the directories at the depth limit with entries, and whether it was cut. */
async function treeLines(
  ctx: ToolContext,
  start: ResolvedPath,
  input: TreeInput,
  skipped: Skipped,
): Promise<{ lines: string[]; notDescended: NotDescended[]; truncated: boolean }> {
  const rules = {
    gitignore: !input.include_ignored,
    skipDefaults: !input.include_git_and_node_modules,
  };
  const lines: string[] = [];
  const notDescended: NotDescended[] = [];
  for await (const entry of walk(ctx, start, { ...rules, maxDepth: input.max_depth, skipped })) {
    if (lines.length >= input.limit) return { lines, notDescended, truncated: true };
    let line = `${"  ".repeat(entry.depth)}${entry.name}${entry.kind === "directory" ? "/" : ""}`;
    if (entry.kind === "directory" && entry.depth === input.max_depth) {
      const entries = await countEntries(ctx, entry, rules, skipped);
      if (entries > 0) {
        line += ` (${entries} entr${entries === 1 ? "y" : "ies"}, not shown)`;
        notDescended.push({ path: entry.display, entries });
      }
    }
    lines.push(line);
  }
  return { lines, notDescended, truncated: false };
}

/**
 * How many entries the tree would show one level inside a directory it did
 * not descend into (the same rules); 0, counted as skipped, when it cannot be
 * listed.
 */
async function countEntries(
  ctx: ToolContext,
  entry: WalkEntry,
  rules: Rules,
  skipped: Skipped,
): Promise<number> {
  try {
    const dir = await ctx.resolver.resolve(entry.path, { want: "directory" });
    let count = 0;
    for await (const _ of walk(ctx, dir, { ...rules, maxDepth: 1 })) count++;
    return count;
  } catch (error) {
    ctx.signal.throwIfAborted();
    skipped.failed(entry.display, error, ctx.logger);
    return 0;
  }
}
