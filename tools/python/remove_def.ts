/**
 * `py_remove_def`: delete one class or function, decorators included.
 *
 * @module
 */

import { z } from "zod";
import { defineTool } from "../tool.ts";
import { ALLOW_SYNTAX_ERRORS, editResult, FORCE } from "../_edit.ts";
import { location } from "../_symbols.ts";
import { withoutSymbol } from "./_place.ts";
import { savePython } from "./_syntax.ts";
import { findSymbol, loadPython } from "./_symbols.ts";

/** Remove a definition. */
export const pyRemoveDef = defineTool({
  name: "py_remove_def",
  description:
    "Delete one Python class, function or method by dotted name, with its decorators and blank lines (`pass` stays if its block empties).",
  input: z.object({
    path: z.string().min(1),
    name: z.string().min(1),
    allow_syntax_errors: ALLOW_SYNTAX_ERRORS,
    force: FORCE,
  }),
  annotations: { title: "Remove Python definition", destructiveHint: true },
  async run({ path, name, allow_syntax_errors }, ctx) {
    const file = await loadPython(ctx, path);
    const symbol = findSymbol(file, name);
    const diff = await savePython(ctx, file, withoutSymbol(file, symbol), allow_syntax_errors);
    return editResult(
      `Removed "${symbol.qualified}" (was ${
        location(file.resolved.display, symbol.startLine, symbol.endLine)
      })`,
      [diff],
    );
  },
});
