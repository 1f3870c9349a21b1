/**
 * `py_get_definition` and `py_update_definition`: read and replace one
 * class or function, decorators included, by dotted name.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, structured } from "../tool.ts";
import { reindent, replaceLines } from "./_place.ts";
import { savePython } from "./_syntax.ts";
import { findSymbol, indentOf, linesOf, loadPython } from "./_symbols.ts";

const NAME = z.string().min(1).describe(
  'Dotted name: "func", "Class.method", "Outer.Inner.method"; add "@LINE" to pick one of several definitions with the same name',
);

/** Read one definition's source. */
export const pyGetDefinition = defineTool({
  name: "py_get_definition",
  description:
    "Return the full source of one Python class, function or method, from its first decorator to its last line, exactly as in the file (whole lines). Name it with dots: `Class.method`, `Outer.Inner.method`. When the name is missing or defined more than once, the error lists the candidates with their lines. Use py_get_code_outline to see the names; use py_get_signature when the signature is enough.",
  input: z.object({ path: z.string().min(1).describe("Path of the Python file"), name: NAME }),
  output: z.object({
    name: z.string(),
    kind: z.string(),
    start_line: z.number(),
    end_line: z.number(),
    text: z.string(),
  }),
  annotations: { title: "Python definition", readOnlyHint: true, idempotentHint: true },
  async run({ path, name }, ctx) {
    const file = await loadPython(ctx, path);
    const symbol = findSymbol(file, name);
    const text = linesOf(file, symbol.startLine, symbol.endLine);
    return structured(text, {
      name: symbol.qualified,
      kind: symbol.kind,
      start_line: symbol.startLine,
      end_line: symbol.endLine,
      text,
    });
  },
});

/** Replace one definition's source. */
export const pyUpdateDefinition = defineTool({
  name: "py_update_definition",
  description:
    "Replace one Python class, function or method (first decorator to last line) with new_content. The new code is re-indented to the definition's place when its indentation differs, and written with the file's own line endings and encoding; every other byte stays. The result must still parse, or nothing is written (syntax_error) unless allow_syntax_errors is true. Read it first with py_get_definition. To change only the signature, use py_set_signature.",
  input: z.object({
    path: z.string().min(1).describe("Path of the Python file"),
    name: NAME,
    new_content: z.string().min(1).describe("The whole new definition, decorators included"),
    allow_syntax_errors: z.boolean().default(false).describe(
      "Write even when the file would no longer parse",
    ),
    force: z.boolean().default(false).describe(
      "Edit even if the file changed since you last read it (otherwise that is refused with stale_read)",
    ),
  }),
  annotations: { title: "Replace Python definition", destructiveHint: true, idempotentHint: true },
  async run({ path, name, new_content, allow_syntax_errors }, ctx) {
    const file = await loadPython(ctx, path);
    const symbol = findSymbol(file, name);
    const indent = indentOf(file.lines[symbol.startLine - 1]!);
    const code = reindent(new_content, indent);
    const text = replaceLines(file, symbol.startLine, symbol.endLine, code);
    if (text === file.file.text) {
      return `"${symbol.qualified}" in "${file.resolved.display}" already has this content; nothing changed`;
    }
    await savePython(ctx, file, text, allow_syntax_errors);
    const count = code.replace(/\n$/, "").split("\n").length;
    return `Replaced "${symbol.qualified}" (lines ${symbol.startLine}-${symbol.endLine}) in "${file.resolved.display}"; it is now lines ${symbol.startLine}-${
      symbol.startLine + count - 1
    }`;
  },
});
