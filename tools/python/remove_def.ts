/**
 * `py_remove_def`: delete one class or function, decorators included.
 *
 * @module
 */

import { z } from "zod";
import { defineTool } from "../tool.ts";
import { withoutSymbol } from "./_place.ts";
import { savePython } from "./_syntax.ts";
import { findSymbol, loadPython } from "./_symbols.ts";

/** Remove a definition. */
export const pyRemoveDef = defineTool({
  name: "py_remove_def",
  description:
    "Delete one Python class, function or method by dotted name, from its first decorator to its last line, with the blank lines that separated it (PEP 8 spacing is kept). When it was the only statement of its block, `pass` is left in its place. Use py_get_definition first to see what goes; py_move_def to move it instead. Refused if the file would no longer parse (syntax_error) unless allow_syntax_errors is true.",
  input: z.object({
    path: z.string().min(1).describe("Path of the Python file"),
    name: z.string().min(1).describe(
      'Dotted name ("func", "Class.method"; "@LINE" picks one of several)',
    ),
    allow_syntax_errors: z.boolean().default(false).describe(
      "Write even when the file would no longer parse",
    ),
    force: z.boolean().default(false).describe(
      "Edit even if the file changed since you last read it (otherwise that is refused with stale_read)",
    ),
  }),
  annotations: { title: "Remove Python definition", destructiveHint: true },
  async run({ path, name, allow_syntax_errors }, ctx) {
    const file = await loadPython(ctx, path);
    const symbol = findSymbol(file, name);
    await savePython(ctx, file, withoutSymbol(file, symbol), allow_syntax_errors);
    return `Removed "${symbol.qualified}" (was lines ${symbol.startLine}-${symbol.endLine}) from "${file.resolved.display}"`;
  },
});
