/**
 * `write_file`: create or overwrite a file.
 *
 * @module
 */

import { z } from "zod";
import { defineTool } from "../tool.ts";
import { lineCount } from "../_edit.ts";

/** Create a file, or replace a file's whole content. */
export const writeFile = defineTool({
  name: "write_file",
  description:
    "Create a new text file, or replace an existing file's whole content, atomically (readers see the old or the new content, never a mix; the file keeps its permissions). Its directory must exist unless create_parents is true. Prefer edit_file or set_file_slice to change part of an existing file.",
  input: z.object({
    path: z.string().min(1).describe("Path of the file"),
    content: z.string().describe("The whole new content (UTF-8)"),
    create_parents: z.boolean().default(false).describe("Create missing parent directories"),
  }),
  annotations: { title: "Write file", destructiveHint: true, idempotentHint: true },
  async run({ path, content, create_parents }, ctx) {
    const bytes = new TextEncoder().encode(content);
    const resolved = await ctx.fs.write(path, bytes, { createParents: create_parents });
    const verb = resolved.info === undefined ? "Created" : "Replaced";
    return `${verb} "${resolved.display}" (${bytes.length} bytes, ${lineCount(content)} lines)`;
  },
});
