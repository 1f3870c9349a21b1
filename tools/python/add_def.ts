/**
 * `py_add_def`: insert a new class or function at an anchor, re-indented,
 * with PEP 8 blank lines around it.
 *
 * @module
 */

import { z } from "zod";
import { ToolError } from "../../security/errors.ts";
import { defineTool } from "../tool.ts";
import { type AnchorType, definedName, insertAt, placeFor } from "./_place.ts";
import { savePython } from "./_syntax.ts";
import { loadPython, parseName, type PyFile } from "./_symbols.ts";

/** The anchor parameters `py_add_def` and `py_move_def` share. */
export const ANCHOR = {
  anchor_type: z.enum(["before", "after", "start", "end"]).default("end").describe(
    "before/after: next to the definition anchor_symbol; start/end: first/last in the class anchor_symbol's body (or of the module when anchor_symbol is empty: start = after the docstring and imports)",
  ),
  anchor_symbol: z.string().default("").describe(
    'Dotted name of the anchor definition ("Class", "Class.method"); empty for the module',
  ),
};

/**
 * Insert a definition into a parsed file (not written).
 *
 * @param file The file.
 * @param name The name the code defines (`func`, or `Class.method`).
 * @param code The code.
 * @param type The anchor type.
 * @param anchor The anchor's dotted name.
 * @returns The new text and where the code went.
 * @throws {ToolError} `invalid_argument` when the code does not define `name`; `already_exists` when its scope has one.
 */
export function addDefinition(
  file: PyFile,
  name: string,
  code: string,
  type: AnchorType,
  anchor: string,
): { text: string; start: number; end: number; qualified: string } {
  const wanted = parseName(name).path;
  const own = wanted.split(".").pop()!;
  const defined = definedName(code);
  if (defined !== own) {
    throw new ToolError(
      "invalid_argument",
      defined === undefined
        ? `Cannot add "${wanted}": new_content must be a def or class (decorators and comments may come first)`
        : `Cannot add "${wanted}": new_content defines "${defined}"; pass name "${defined}" or rename it`,
    );
  }
  const place = placeFor(file, type, anchor);
  const qualified = place.scope ? `${place.scope.qualified}.${own}` : own;
  if (wanted.includes(".") && wanted !== qualified) {
    throw new ToolError(
      "invalid_argument",
      `Cannot add "${wanted}" there: anchor_type "${type}" with anchor_symbol "${anchor}" puts it at "${qualified}"`,
    );
  }
  const siblings = place.scope ? place.scope.children : file.symbols;
  const clash = siblings.find((s) => s.name === own);
  if (clash) {
    throw new ToolError(
      "already_exists",
      `Cannot add "${qualified}": "${file.resolved.display}" already defines it (lines ${clash.startLine}-${clash.endLine}); use py_update_definition to replace it`,
    );
  }
  return { ...insertAt(file, place, code), qualified };
}

/** Add a definition. */
export const pyAddDef = defineTool({
  name: "py_add_def",
  description:
    "Insert a new Python class, function or method (new_content, decorators allowed) next to an anchor: before/after a definition, or at the start/end of a class body or of the module. The code is re-indented to its new place (write it at any indentation) and surrounded by PEP 8 blank lines (2 at module level, 1 in a class). Refused when the scope already defines that name (use py_update_definition) or when the file would no longer parse (syntax_error, unless allow_syntax_errors). Line endings and encoding of the file are kept.",
  input: z.object({
    path: z.string().min(1).describe("Path of the Python file"),
    name: z.string().min(1).describe('The name new_content defines ("helper", or "Class.method")'),
    new_content: z.string().min(1).describe("The code of the new definition"),
    ...ANCHOR,
    allow_syntax_errors: z.boolean().default(false).describe(
      "Write even when the file would no longer parse",
    ),
    force: z.boolean().default(false).describe(
      "Edit even if the file changed since you last read it (otherwise that is refused with stale_read)",
    ),
  }),
  annotations: { title: "Add Python definition", destructiveHint: true },
  async run(input, ctx) {
    const file = await loadPython(ctx, input.path);
    const added = addDefinition(
      file,
      input.name,
      input.new_content,
      input.anchor_type,
      input.anchor_symbol,
    );
    await savePython(ctx, file, added.text, input.allow_syntax_errors);
    return `Added "${added.qualified}" to "${file.resolved.display}" at lines ${added.start}-${added.end}`;
  },
});
