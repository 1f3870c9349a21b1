/**
 * `py_get_skeleton`: a Python file with every function body replaced by its
 * docstring and `...`.
 *
 * @module
 */

import { z } from "zod";
import { defineTool } from "../tool.ts";
import { flattenSymbols } from "../_symbols.ts";
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
    "Return a Python file as a skeleton: imports, module code, classes and every function's signature and docstring, with function bodies replaced by `...`. Several times shorter than the file; use it to understand a module's API in one read, then py_get_definition for the bodies you need.",
  input: z.object({ path: z.string().min(1).describe("Path of the Python file") }),
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
    let headerRow = symbol.node.startPosition.row;
    for (let c = body.previousSibling; c; c = c.previousSibling) {
      if (c.type === ":") {
        headerRow = c.endPosition.row;
        break;
      }
    }
    if (body.startPosition.row === headerRow) {
      cuts.push({ from: body.startIndex, to: body.endIndex, text: "..." });
      continue;
    }
    const colonRow = headerRow + 1;
    const indent = indentOf(file.lines[body.startPosition.row] ?? "");
    const doc = docstringNode(body);
    const kept = doc ? doc.parent!.text.replace(/\r\n?|\n/g, eol) + eol + indent : "";
    const last = Math.max(lastRow(body), body.endPosition.row);
    cuts.push({ from: starts[colonRow]!, to: lineEnd(last), text: `${indent}${kept}...` });
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
