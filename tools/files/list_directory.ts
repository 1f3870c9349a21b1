/**
 * `list_directory`: one directory's entries as a compact table.
 *
 * @module
 */

import { z } from "zod";
import { formatBytes } from "../../security/safe_fs.ts";
import { defineTool } from "../tool.ts";

/** List a directory. */
export const listDirectory = defineTool({
  name: "list_directory",
  description:
    "List one directory: `[dir] name/`, `[file] name size`, `[link] name` (never followed).",
  input: z.object({
    path: z.string().min(1).default("."),
    offset: z.number().int().min(0).default(0),
    limit: z.number().int().min(1).max(5000).default(500),
  }),
  output: z.object({
    path: z.string(),
    entries: z.array(z.object({ name: z.string(), kind: z.string(), size: z.number() })),
    total: z.number(),
    next_offset: z.number().optional(),
  }),
  annotations: { title: "List directory", readOnlyHint: true, idempotentHint: true },
  async run({ path, offset, limit }, ctx) {
    const dir = await ctx.fs.resolve(path, "directory");
    const all = ctx.fs.list(dir.path, { sizes: true });
    const page = all.slice(offset, offset + limit);
    const lines = page.map((entry) => {
      if (entry.kind === "directory") return `[dir]  ${entry.name}/`;
      if (entry.kind === "symlink") return `[link] ${entry.name}`;
      if (entry.kind === "other") return `[other] ${entry.name}`;
      return `[file] ${entry.name}  ${formatBytes(entry.size)}`;
    });
    const more = offset + page.length < all.length;
    const header = `${dir.display}: ${all.length} entr${all.length === 1 ? "y" : "ies"}`;
    const note = more
      ? `\n[${all.length - offset - page.length} more: call again with offset ${
        offset + page.length
      }]`
      : "";
    const data: Record<string, unknown> = {
      path: dir.display,
      entries: page.map(({ name, kind, size }) => ({ name, kind, size })),
      total: all.length,
    };
    if (more) data.next_offset = offset + page.length;
    return {
      content: [{ type: "text", text: `${header}\n${lines.join("\n")}${note}` }],
      structuredContent: data,
    };
  },
});
