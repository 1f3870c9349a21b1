/**
 * `write_file`: create or overwrite a file.
 *
 * @module
 */

import { z } from "zod";
import { ToolError } from "../../security/errors.ts";
import { formatBytes } from "../../security/safe_fs.ts";
import { diffNote, type EditDiff, editDiff } from "../_diff.ts";
import { decodeText } from "../_text.ts";
import { encodeText } from "../_text_encode.ts";
import { defineTool, type ToolContext } from "../tool.ts";
import { editResult, lineCount } from "../_edit.ts";

/** Create a file, or replace a file's whole content. */
export const writeFile = defineTool({
  name: "write_file",
  description:
    "Create a text file or replace its whole content, atomically. To change part of a file use edit_file or set_file_slice.",
  input: z.object({
    path: z.string().min(1),
    content: z.string(),
    create_parents: z.boolean().default(false),
  }),
  annotations: { title: "Write file", destructiveHint: true, idempotentHint: true },
  async run({ path, content, create_parents }, ctx) {
    const old = await oldText(ctx, path);
    // UTF-8, except a Python file whose text declares another coding (PEP 263): written in it.
    const bytes = /\.py[iw]?$/i.test(path)
      ? encodeText(content, { encoding: "utf-8", bom: false, pep263: "utf-8" })
      : new TextEncoder().encode(content);
    const resolved = await ctx.fs.write(path, bytes, { createParents: create_parents });
    const verb = resolved.info === undefined ? "Created" : "Replaced";
    const diff: EditDiff = typeof old === "string"
      ? editDiff(resolved.display, old, content)
      : diffNote(resolved.display, old.note);
    return editResult(
      `${verb} "${resolved.display}" (${bytes.length} bytes, ${lineCount(content)} lines)`,
      [diff],
    );
  },
});

/**
 * The file's text before the write: empty for a new file, or why there is no
 * diff (binary, too large, unreadable).
 */
async function oldText(ctx: ToolContext, path: string): Promise<string | { note: string }> {
  const limit = ctx.policy.limits.maxEditBytes;
  try {
    const { resolved, bytes } = await ctx.fs.read(path, limit);
    return decodeText(bytes, resolved.display).text;
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    if (error.code === "not_found") return "";
    if (error.code === "binary_file") return { note: "the old content was binary" };
    if (error.code === "too_large") {
      return { note: `the old content was over ${formatBytes(limit)}` };
    }
    // The write reports what is wrong with the path (as a write); if it succeeds, the note stands.
    return { note: `the old content could not be read (${error.code})` };
  }
}
