/**
 * `set_file_slice`: replace a range of lines.
 *
 * @module
 */

import { z } from "zod";
import { ToolError } from "../../security/errors.ts";
import { splitLines, withEol } from "../_text.ts";
import { defineTool } from "../tool.ts";
import { editResult, FORCE, lineCount, loadText, saveText } from "../_edit.ts";

/** Replace lines `start_line` to `end_line` with new content. */
export const setFileSlice = defineTool({
  name: "set_file_slice",
  description:
    "Replace lines start_line..end_line (1-based, inclusive) of a text file; end_line = start_line - 1 inserts before start_line.",
  input: z.object({
    path: z.string().min(1),
    start_line: z.number().int().min(1),
    end_line: z.number().int().min(0),
    content: z.string().describe("The new lines (a final newline is added)"),
    force: FORCE,
  }),
  annotations: { title: "Replace lines", destructiveHint: true, idempotentHint: false },
  async run({ path, start_line, end_line, content }, ctx) {
    const loaded = await loadText(ctx, path);
    const { resolved, file } = loaded;
    const lines = splitLines(file.text);
    if (end_line < start_line - 1) {
      throw new ToolError(
        "invalid_argument",
        `Cannot replace lines ${start_line}-${end_line}: end_line is before start_line - 1`,
      );
    }
    if (start_line > lines.length + 1 || end_line > lines.length) {
      throw new ToolError(
        "invalid_argument",
        `Cannot replace lines ${start_line}-${end_line}: "${resolved.display}" has ${lines.length} lines`,
      );
    }
    let insert = withEol(content, file.eol);
    const replacesEnd = end_line === lines.length && lines.length > 0;
    const hadFinalNewline = lines.length === 0 || /[\r\n]$/.test(lines[lines.length - 1]!);
    if (insert.length > 0 && !/[\r\n]$/.test(insert) && (!replacesEnd || hadFinalNewline)) {
      insert += file.eol;
    }
    if (start_line === lines.length + 1 && lines.length > 0 && !hadFinalNewline) {
      lines[lines.length - 1] += file.eol;
    }
    const before = lines.slice(0, start_line - 1).join("");
    const after = lines.slice(end_line).join("");
    const diff = saveText(ctx, loaded, before + insert + after);
    const added = lineCount(insert);
    const removed = end_line - start_line + 1;
    return editResult(
      `Replaced lines ${start_line}-${end_line} of "${resolved.display}" (${removed} removed, ${added} written; now ${
        lines.length - removed + added
      } lines)`,
      [diff],
    );
  },
});
