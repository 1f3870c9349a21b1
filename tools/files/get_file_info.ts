/**
 * `get_file_info`: what a path is, without reading it whole.
 *
 * @module
 */

import { z } from "zod";
import { formatBytes } from "../../security/safe_fs.ts";
import { decodeText, describeBinary, isBinary } from "../_text.ts";
import { defineTool } from "../tool.ts";
import { lineCount } from "../_edit.ts";

/** Size, type, times, permissions and (for text files) encoding and line count. */
export const getFileInfo = defineTool({
  name: "get_file_info",
  description:
    "Kind, size, mtime and mode of a file or directory; for a file, its encoding, line endings and line count, or binary type.",
  input: z.object({ path: z.string().min(1) }),
  output: z.object({
    path: z.string(),
    kind: z.enum(["file", "directory"]),
    size: z.number(),
    modified: z.string().nullable(),
    mode: z.string(),
    text: z.object({ encoding: z.string(), bom: z.boolean(), eol: z.string(), lines: z.number() })
      .optional(),
    binary: z.string().optional(),
  }),
  annotations: { title: "File info", readOnlyHint: true, idempotentHint: true },
  async run({ path }, ctx) {
    const resolved = await ctx.fs.resolve(path);
    const info = resolved.info!;
    const data: Record<string, unknown> = {
      path: resolved.display,
      kind: info.isDirectory ? "directory" : "file",
      size: info.size,
      modified: info.mtime?.toISOString() ?? null,
      mode: ((info.mode ?? 0) & 0o7777).toString(8).padStart(4, "0"),
    };
    const lines = [
      `${resolved.display}: ${data.kind}, ${formatBytes(info.size)}`,
      `modified ${data.modified ?? "unknown"}, mode ${data.mode}`,
    ];
    if (info.isFile && info.size <= ctx.policy.limits.maxSearchFileBytes) {
      const bytes = ctx.fs.readResolved(resolved, ctx.policy.limits.maxSearchFileBytes);
      if (isBinary(bytes)) {
        data.binary = describeBinary(bytes);
        lines.push(`binary: ${data.binary}`);
      } else {
        const file = decodeText(bytes, resolved.display);
        const eol = file.eol === "\n" ? "LF" : file.eol === "\r\n" ? "CRLF" : "CR";
        data.text = { encoding: file.encoding, bom: file.bom, eol, lines: lineCount(file.text) };
        lines.push(
          `text: ${file.encoding}${file.bom ? " with BOM" : ""}, ${eol}, ${
            lineCount(file.text)
          } lines`,
        );
      }
    }
    return { content: [{ type: "text", text: lines.join("\n") }], structuredContent: data };
  },
});
