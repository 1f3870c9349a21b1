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
    "Check that a Python file parses (syntax only, without running it): each error's line, column and message.",
  input: z.object({ path: z.string().min(1) }),
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
