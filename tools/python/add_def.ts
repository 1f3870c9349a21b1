/**
 * `py_add_def`: insert a new class or function at an anchor, re-indented,
 * with PEP 8 blank lines around it.
 *
 * @module
 */

import { z } from "zod";
import { ToolError } from "../../security/errors.ts";
import { defineTool } from "../tool.ts";
import { ALLOW_SYNTAX_ERRORS, editResult, FORCE } from "../_edit.ts";
import { location } from "../_symbols.ts";
import { type AnchorType, definedName, insertAt, placeFor } from "./_place.ts";
import { savePython } from "./_syntax.ts";
import { loadPython, parseName, type PyFile } from "./_symbols.ts";

/**
 * The anchor parameters `py_add_def` and `py_move_def` share; `py_add_def`
 * describes them (`py_move_def` places "as py_add_def does").
 */
export const ANCHOR = {
  anchor_type: z.enum(["before", "after", "start", "end"]).default("end"),
  anchor_symbol: z.string().default(""),
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
        ? `Cannot add "${wanted}": content must be a def or class (decorators and comments may come first)`
        : `Cannot add "${wanted}": content defines "${defined}"; pass name "${defined}" or rename it`,
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
    "Insert a new Python class, function or method next to an anchor or at the start/end of a class or the module, re-indented, with PEP 8 blank lines.",
  input: z.object({
    path: z.string().min(1),
    name: z.string().min(1).describe('What content defines ("f" or "Class.method")'),
    content: z.string().min(1),
    anchor_type: ANCHOR.anchor_type.describe("Next to anchor_symbol, or first/last in its body"),
    anchor_symbol: ANCHOR.anchor_symbol.describe('"Class", "Class.method"; empty: the module'),
    allow_syntax_errors: ALLOW_SYNTAX_ERRORS,
    force: FORCE,
  }),
  annotations: { title: "Add Python definition", destructiveHint: true },
  async run(input, ctx) {
    const file = await loadPython(ctx, input.path);
    const added = addDefinition(
      file,
      input.name,
      input.content,
      input.anchor_type,
      input.anchor_symbol,
    );
    const diff = await savePython(ctx, file, added.text, input.allow_syntax_errors);
    return editResult(
      `Added "${added.qualified}" at ${location(file.resolved.display, added.start, added.end)}`,
      [diff],
    );
  },
});
