/**
 * `py_get_docstring`: the docstring of a module, class or function.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, structured } from "../tool.ts";
import { docstringOf } from "./_docstring.ts";
import { findSymbol, loadPython } from "./_symbols.ts";

/** Read a docstring. */
export const pyGetDocstring = defineTool({
  name: "py_get_docstring",
  description:
    "The docstring of a Python module (empty name), class, function or method, cleaned as inspect.cleandoc does.",
  input: z.object({
    path: z.string().min(1),
    name: z.string().default(""),
  }),
  output: z.object({ name: z.string(), docstring: z.string().nullable() }),
  annotations: { title: "Python docstring", readOnlyHint: true, idempotentHint: true },
  async run({ path, name }, ctx) {
    const file = await loadPython(ctx, path);
    const module = name.trim() === "";
    const symbol = module ? undefined : findSymbol(file, name);
    const body = symbol ? symbol.node.childForFieldName("body") : file.tree.rootNode;
    const doc = docstringOf(body);
    const label = symbol ? `"${symbol.qualified}"` : `the module "${file.resolved.display}"`;
    return structured(doc ?? `${label} has no docstring`, {
      name: symbol?.qualified ?? "",
      docstring: doc ?? null,
    });
  },
});
