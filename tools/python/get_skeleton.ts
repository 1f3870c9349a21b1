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
    "A Python file with function bodies replaced by `...` (imports, classes, signatures, docstrings stay; licence header, long module docstring cut): a module's API in one read.",
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
  cuts.push(...moduleCuts(file, starts));
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

/** What marks a leading comment block as a licence, not documentation. */
const LICENCE = /copyright|licen[cs]e|spdx-license|all rights reserved/i;

/**
 * The module's own cuts: a licence header at the top (a comment block that
 * names a copyright or licence; a `#!` line and a coding line stay), and the
 * module docstring past its first paragraph, each replaced by a line that
 * says what was left out and where it is.
 */
function moduleCuts(file: PyFile, starts: readonly number[]): Cut[] {
  const { lines } = file;
  const eol = file.file.eol;
  const where = (first: number, last: number) =>
    location(file.resolved.display, first + 1, last + 1);
  const cuts: Cut[] = [];
  let row = 0;
  while (row < 2 && /^#!|^#.*coding[:=]/.test(lines[row] ?? "")) row++;
  const first = row;
  let last = -1;
  for (; row < lines.length && /^\s*(#.*)?(\r\n|\r|\n)?$/.test(lines[row]!); row++) {
    if (lines[row]!.trim().startsWith("#")) last = row;
  }
  if (last >= first && LICENCE.test(lines.slice(first, last + 1).join(""))) {
    cuts.push({
      from: starts[first]!,
      to: starts[last + 1] ?? file.file.text.length,
      text: `# (licence header left out: ${where(first, last)})${eol}`,
    });
  }
  const doc = docstringNode(file.tree.rootNode);
  const cut = doc?.type === "string" ? firstParagraph(doc.text) : undefined;
  if (doc && cut !== undefined) {
    const rows = [doc.startPosition.row, doc.endPosition.row] as const;
    cuts.push({
      from: doc.startIndex,
      to: doc.endIndex,
      text: `${cut.replace(/\r\n?|\n/g, eol)}${eol}# (the rest of the module docstring left out: ${
        where(...rows)
      })`,
    });
  }
  return cuts;
}

/**
 * A docstring's first paragraph, closed with its own quotes; `undefined`
 * when it has only one.
 */
function firstParagraph(literal: string): string | undefined {
  const open = /^[rRuUbBfF]*("""|\'\'\'|"|')/.exec(literal);
  if (!open) return undefined;
  const quote = open[1]!;
  const body = literal.slice(open[0].length, literal.length - quote.length);
  const content = body.search(/\S/);
  if (content < 0) return undefined;
  const blank = body.slice(content).search(/\r?\n[ \t]*\r?\n/);
  if (blank < 0) return undefined;
  return `${open[0]}${body.slice(0, content + blank)}\n${quote}`;
}
