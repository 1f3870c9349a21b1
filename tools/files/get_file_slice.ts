/**
 * `get_file_slice`: a range of lines.
 *
 * @module
 */

import { z } from "zod";
import { ToolError } from "../../security/errors.ts";
import { splitLines } from "../_text.ts";
import { defineTool } from "../tool.ts";
import { loadText } from "../_edit.ts";
import { numberLines } from "./read_file.ts";

/** Read lines `start_line` to `end_line` (1-based, inclusive) of a text file. */
export const getFileSlice = defineTool({
  name: "get_file_slice",
  description:
    "Read lines start_line..end_line (1-based, inclusive) of a text file exactly; set_file_slice takes the same numbers.",
  input: z.object({
    path: z.string().min(1),
    start_line: z.number().int().min(1),
    end_line: z.number().int().min(1),
    line_numbers: z.boolean().default(false),
  }),
  output: z.object({
    path: z.string(),
    start_line: z.number(),
    end_line: z.number(),
    total_lines: z.number(),
    content: z.string().describe("The lines as in the file, without numbers"),
  }),
  annotations: { title: "Read lines", readOnlyHint: true, idempotentHint: true },
  async run({ path, start_line, end_line, line_numbers }, ctx) {
    if (end_line < start_line) {
      throw new ToolError(
        "invalid_argument",
        `Cannot slice lines ${start_line}-${end_line}: end_line is before start_line`,
      );
    }
    const { resolved, file } = await loadText(ctx, path);
    const lines = splitLines(file.text);
    if (start_line > Math.max(lines.length, 1)) {
      throw new ToolError(
        "invalid_argument",
        `Cannot slice from line ${start_line}: "${resolved.display}" has ${lines.length} lines`,
      );
    }
    const last = Math.min(end_line, lines.length);
    const slice = lines.slice(start_line - 1, last);
    const content = slice.join("");
    const shown = line_numbers ? numberLines(slice, start_line, lines.length) : content;
    const header = `${resolved.display}: lines ${start_line}-${last} of ${lines.length}`;
    return {
      content: [{ type: "text", text: `${header}\n${shown}` }],
      structuredContent: {
        path: resolved.display,
        start_line,
        end_line: last,
        total_lines: lines.length,
        content,
      },
    };
  },
});
