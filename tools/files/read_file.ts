/**
 * `read_file`: a whole UTF-8 (or other text) file.
 *
 * @module
 */

import { z } from "zod";
import { decodeText } from "../_text.ts";
import { defineTool } from "../tool.ts";

/** Read a whole text file inside the roots. */
export const readFile = defineTool({
  name: "read_file",
  description:
    "Read a whole text file inside the roots and return its content. For large files, or when you need only part, use get_file_slice (a line range) or grep. Binary files are refused with their size and type.",
  input: z.object({
    path: z.string().min(1).describe("Path of the file, relative to the first root or absolute"),
  }),
  annotations: { title: "Read file", readOnlyHint: true, idempotentHint: true },
  async run({ path }, ctx) {
    const { resolved, bytes } = await ctx.fs.read(path, ctx.policy.limits.maxReadBytes);
    const { text } = decodeText(bytes, resolved.display);
    return text;
  },
});
