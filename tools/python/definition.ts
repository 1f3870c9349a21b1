/**
 * `py_get_definition` and `py_update_definition`: read and replace one
 * class or function, decorators included, by dotted name.
 *
 * @module
 */

import { z } from "zod";
import { defineTool } from "../tool.ts";
import { ALLOW_SYNTAX_ERRORS, editResult, FORCE } from "../_edit.ts";
import { DEFINITION_OUTPUT, definitionAt } from "../_definitions.ts";
import { location } from "../_symbols.ts";
import { reindent, replaceLines } from "./_place.ts";
import { savePython } from "./_syntax.ts";
import { findSymbol, indentOf, linesOf, loadPython } from "./_symbols.ts";

/** The dotted name the Python definition readers take (the editors take the same, undescribed). */
export const PY_NAME = z.string().min(1).describe('"func", "Class.method"; "name@LINE" picks one');

/**
 * The input of the Python editors that replace one named piece of a file
 * (a definition, a signature, a variable's assignment) with `content`.
 */
export const PY_REPLACE_INPUT = z.object({
  path: z.string().min(1),
  name: z.string().min(1),
  content: z.string().min(1),
  allow_syntax_errors: ALLOW_SYNTAX_ERRORS,
  force: FORCE,
});

/** Read one definition's source. */
export const pyGetDefinition = defineTool({
  name: "py_get_definition",
  description:
    "The source of one Python class, function or method by dotted name, decorators included, after a path:start-end line (py_get_signature is cheaper).",
  input: z.object({ path: z.string().min(1), name: PY_NAME }),
  output: DEFINITION_OUTPUT,
  annotations: { title: "Python definition", readOnlyHint: true, idempotentHint: true },
  async run({ path, name }, ctx) {
    const file = await loadPython(ctx, path);
    const symbol = findSymbol(file, name);
    const source = linesOf(file, symbol.startLine, symbol.endLine);
    return definitionAt(file.resolved.display, symbol, source);
  },
});

/** Replace one definition's source. */
export const pyUpdateDefinition = defineTool({
  name: "py_update_definition",
  description:
    "Replace one Python class, function or method (decorators to last line) with `content`, re-indented to its place.",
  input: PY_REPLACE_INPUT,
  annotations: { title: "Replace Python definition", destructiveHint: true, idempotentHint: true },
  async run({ path, name, content, allow_syntax_errors }, ctx) {
    const file = await loadPython(ctx, path);
    const symbol = findSymbol(file, name);
    const indent = indentOf(file.lines[symbol.startLine - 1]!);
    const code = reindent(content, indent);
    const text = replaceLines(file, symbol.startLine, symbol.endLine, code);
    const display = file.resolved.display;
    if (text === file.file.text) {
      return editResult(
        `"${symbol.qualified}" in "${display}" already reads so; nothing changed`,
        [],
      );
    }
    const diff = await savePython(ctx, file, text, allow_syntax_errors);
    const count = code.replace(/\n$/, "").split("\n").length;
    const now = location(display, symbol.startLine, symbol.startLine + count - 1);
    return editResult(
      `Replaced "${symbol.qualified}": now ${now} (was ${symbol.startLine}-${symbol.endLine})`,
      [diff],
    );
  },
});
