/**
 * `py_get_skeleton`: a Python file with every function body replaced by its
 * docstring and `...`.
 *
 * @module
 */

import { z } from "zod";
import { defineTool } from "../tool.ts";
import { flattenSymbols, location } from "../_symbols.ts";
import { docstringNode, indentOf, lastRow, loadPython, type PyFile } from "./_symbols.ts";

interface Cut {
  from: number;
  to: number;
  text: string;
}

/** A file's skeleton. */
export const pyGetSkeleton = defineTool({
  name: "py_get_skeleton",
  description:
    "A Python file with function bodies replaced by `...` (imports, classes, signatures, docstrings stay): a module's API in one read.",
  input: z.object({ path: z.string().min(1) }),
  annotations: { title: "Python skeleton", readOnlyHint: true, idempotentHint: true },
  async run({ path }, ctx) {
    const file = await loadPython(ctx, path);
    return skeleton(file);
  },
});

/**
 * The skeleton of a parsed file.
 *
 * @param file The file.
 * @returns Its text with function bodies cut.
 */
export function skeleton(file: PyFile): string {
  const text = file.file.text;
  const eol = file.file.eol;
  const starts: number[] = [];
  let offset = 0;
  for (const line of file.lines) {
    starts.push(offset);
    offset += line.length;
  }
  const lineEnd = (row: number) =>
    starts[row]! + file.lines[row]!.replace(/(\r\n|\r|\n)$/, "").length;
  const cuts: Cut[] = [];
  for (const symbol of flattenSymbols(file.symbols)) {
    if (symbol.kind === "class") continue;
    const body = symbol.node.childForFieldName("body");
    if (!body || body.namedChildCount === 0) continue;
    const elided = `...  # ${location(file.resolved.display, symbol.startLine, symbol.endLine)}`;
    let headerRow = symbol.node.startPosition.row;
    for (let c = body.previousSibling; c; c = c.previousSibling) {
      if (c.type === ":") {
        headerRow = c.endPosition.row;
        break;
      }
    }
    if (body.startPosition.row === headerRow) {
      cuts.push({ from: body.startIndex, to: body.endIndex, text: elided });
      continue;
    }
    const colonRow = headerRow + 1;
    const indent = indentOf(file.lines[body.startPosition.row] ?? "");
    const doc = docstringNode(body);
    const kept = doc ? doc.parent!.text.replace(/\r\n?|\n/g, eol) + eol + indent : "";
    const last = Math.max(lastRow(body), body.endPosition.row);
    cuts.push({ from: starts[colonRow]!, to: lineEnd(last), text: `${indent}${kept}${elided}` });
  }
  cuts.sort((a, b) => a.from - b.from);
  const parts: string[] = [];
  let at = 0;
  for (const cut of cuts) {
    parts.push(text.slice(at, cut.from), cut.text);
    at = cut.to;
  }
  parts.push(text.slice(at));
  return parts.join("");
}
