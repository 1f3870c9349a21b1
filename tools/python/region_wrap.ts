/**
 * `py_region_wrap`: fence a range of lines with `# region NAME` / `# endregion`.
 *
 * @module
 */

import { z } from "zod";
import { ToolError } from "../../security/errors.ts";
import { defineTool } from "../tool.ts";
import { editResult, FORCE } from "../_edit.ts";
import { location } from "../_symbols.ts";
import { savePython } from "./_syntax.ts";
import { indentOf, loadPython } from "./_symbols.ts";

/** Wrap lines in a foldable region. */
export const pyRegionWrap = defineTool({
  name: "py_region_wrap",
  description:
    "Wrap lines start_line..end_line (inclusive) of a Python file in `#region NAME` / `#endregion` comments (editors fold them); whole statements only.",
  input: z.object({
    path: z.string().min(1),
    start_line: z.number().int().min(1),
    end_line: z.number().int().min(1),
    region_name: z.string().min(1),
    force: FORCE,
  }),
  annotations: { title: "Wrap Python lines in a region", destructiveHint: true },
  async run({ path, start_line, end_line, region_name }, ctx) {
    if (/[\r\n]/.test(region_name)) {
      throw new ToolError("invalid_argument", "Cannot use a region_name with line breaks");
    }
    const file = await loadPython(ctx, path);
    const { lines } = file;
    if (end_line < start_line || end_line > lines.length) {
      throw new ToolError(
        "invalid_argument",
        `Cannot wrap lines ${start_line}-${end_line}: "${file.resolved.display}" has ${lines.length} lines and end_line must not be before start_line`,
      );
    }
    for (const row of [start_line - 1, end_line]) {
      const cut = spanningNode(file.tree.rootNode, row);
      if (cut) {
        throw new ToolError(
          "invalid_argument",
          `Cannot wrap lines ${start_line}-${end_line}: line ${
            row + (row === start_line - 1 ? 1 : 0)
          } is inside a ${cut} that spans lines; choose lines that start and end whole statements`,
        );
      }
    }
    const wrapped = lines.slice(start_line - 1, end_line).filter((l) => l.trim() !== "");
    const indent = wrapped.map(indentOf).reduce(
      (a, b) => (b.length < a.length ? b : a),
      indentOf(lines[start_line - 1]!),
    );
    const eol = file.file.eol;
    const last = lines[end_line - 1]!;
    const out = [
      ...lines.slice(0, start_line - 1),
      `${indent}#region ${region_name.trim()}${eol}`,
      ...lines.slice(start_line - 1, end_line - 1),
      /[\r\n]$/.test(last) ? last : last + eol,
      `${indent}#endregion${/[\r\n]$/.test(last) ? eol : ""}`,
      ...lines.slice(end_line),
    ];
    const diff = await savePython(ctx, file, out.join(""), true);
    return editResult(
      `Wrapped region "${region_name.trim()}": now ${
        location(file.resolved.display, start_line, end_line + 2)
      }`,
      [diff],
    );
  },
});

/** A string or bracketed node that crosses the boundary before `row` (0-based), if any. */
function spanningNode(root: import("web-tree-sitter").Node, row: number): string | undefined {
  if (row <= 0) return undefined;
  let node = root.descendantForPosition({ row: row - 1, column: 100_000 });
  for (let n: typeof node | null = node; n; n = n.parent) {
    if (n.type === "module" || n.type === "block") break;
    if (n.startPosition.row < row && n.endPosition.row >= row && n.startIndex < n.endIndex) {
      if (
        /string|argument_list|parameters|list|dictionary|tuple|set|parenthesized|subscript|call|expression_statement|assignment|binary|boolean|comparison/
          .test(n.type)
      ) {
        return n.type.replaceAll("_", " ");
      }
    }
    node = n;
  }
  return undefined;
}
