/**
 * `get_tree`: a directory tree, indented, a few levels deep, bounded.
 *
 * @module
 */

import { z } from "zod";
import { Skipped } from "../_skipped.ts";
import { defineTool } from "../tool.ts";
import { walk } from "../_walk.ts";

/** Show a directory tree. */
export const getTree = defineTool({
  name: "get_tree",
  description:
    "Show the tree under a directory, indented two spaces per level, directories with a trailing `/`, sorted by name, down to max_depth levels. Skips .git, node_modules and .gitignore'd entries unless asked; symlinks are never followed (and not shown); directories that cannot be listed are counted as skipped. Long trees are cut with a note; then ask for a subdirectory or a smaller max_depth. Use list_directory for sizes, search_files to find files by name.",
  input: z.object({
    path: z.string().min(1).default(".").describe(
      "The directory, relative to the first root or absolute (default: the first root)",
    ),
    max_depth: z.number().int().min(1).max(50).default(3).describe("Levels below `path` to show"),
    include_ignored: z.boolean().default(false).describe("Also show what .gitignore ignores"),
    include_git_and_node_modules: z.boolean().default(false).describe(
      "Also show .git and node_modules",
    ),
    max_lines: z.number().int().min(1).max(10_000).default(2000).describe(
      "The most entries to show",
    ),
  }),
  annotations: { title: "Directory tree", readOnlyHint: true, idempotentHint: true },
  async run(input, ctx) {
    const start = await ctx.fs.resolve(input.path, "directory");
    const lines: string[] = [];
    let truncated = false;
    const skipped = new Skipped();
    const entries = walk(ctx, start, {
      gitignore: !input.include_ignored,
      skipDefaults: !input.include_git_and_node_modules,
      maxDepth: input.max_depth,
      skipped,
    });
    for await (const entry of entries) {
      if (lines.length >= input.max_lines) {
        truncated = true;
        break;
      }
      const indent = "  ".repeat(entry.depth);
      lines.push(`${indent}${entry.name}${entry.kind === "directory" ? "/" : ""}`);
    }
    const root = start.display === "." ? "./" : `${start.display}/`;
    const tree = [root, ...lines].join("\n");
    const note = truncated
      ? `\n[truncated after ${input.max_lines} entries: call get_tree on a subdirectory, with a smaller max_depth, or a larger max_lines]`
      : "";
    return skipped.appendTo(`${tree}${note}`);
  },
});
