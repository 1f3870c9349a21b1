/**
 * `py_check_syntax`: does a Python file parse, and where does it not.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, structured } from "../tool.ts";
import { syntaxErrors } from "./_syntax.ts";
import { loadPython } from "./_symbols.ts";

/** Check a file's syntax. */
export const pyCheckSyntax = defineTool({
  name: "py_check_syntax",
  description:
    "Check whether a Python file parses, without running it: returns valid true/false and each syntax error's line, column (1-based) and a short message (unbalanced brackets, missing colons, bad indentation, Python 2 print statements, ...). Use it after editing a file by other means, or to locate a SyntaxError. It checks syntax only, not names or types.",
  input: z.object({ path: z.string().min(1).describe("Path of the Python file") }),
  output: z.object({
    valid: z.boolean(),
    errors: z.array(z.object({ line: z.number(), column: z.number(), message: z.string() })),
  }),
  annotations: { title: "Python syntax check", readOnlyHint: true, idempotentHint: true },
  async run({ path }, ctx) {
    const file = await loadPython(ctx, path);
    const errors = syntaxErrors(file.tree, file.file.text, 50);
    const head = errors.length === 0
      ? `"${file.resolved.display}": valid Python syntax`
      : `"${file.resolved.display}": ${errors.length}${
        errors.length >= 50 ? "+" : ""
      } syntax error${errors.length === 1 ? "" : "s"}\n` +
        errors.map((e) => `  line ${e.line}, column ${e.column}: ${e.message}`).join("\n");
    return structured(head, { valid: errors.length === 0, errors });
  },
});
