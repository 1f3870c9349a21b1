/**
 * `py_get_signature` and `py_set_signature`: the `def`/`class` line of one
 * definition, through its colon.
 *
 * @module
 */

import type { Node } from "web-tree-sitter";
import { z } from "zod";
import { ToolError } from "../../security/errors.ts";
import { withEol } from "../_text.ts";
import { defineTool, structured } from "../tool.ts";
import { savePython } from "./_syntax.ts";
import { findSymbol, loadPython } from "./_symbols.ts";

const NAME = z.string().min(1).describe(
  'Dotted name: "func", "Class.method"; add "@LINE" to pick one of several with the same name',
);

/**
 * The span of a definition's signature: from `def`/`async`/`class` through the colon.
 *
 * @param node A `function_definition` or `class_definition`.
 * @returns Start and end character offsets.
 */
export function signatureSpan(node: Node): { start: number; end: number } {
  const body = node.childForFieldName("body");
  let colon: Node | undefined;
  for (const child of node.children) {
    if (!child) continue;
    if (body && child.startIndex >= body.startIndex) break;
    if (child.type === ":") colon = child;
  }
  return { start: node.startIndex, end: (colon ?? body ?? node).endIndex };
}

/** Read one signature. */
export const pyGetSignature = defineTool({
  name: "py_get_signature",
  description:
    "Return only the signature of a Python function, method or class: from `def`/`async def`/`class` through the colon (parameters, annotations, return type; several lines when it spans several), without decorators or body. Cheaper than py_get_definition when you only need how to call it.",
  input: z.object({ path: z.string().min(1).describe("Path of the Python file"), name: NAME }),
  output: z.object({ name: z.string(), line: z.number(), signature: z.string() }),
  annotations: { title: "Python signature", readOnlyHint: true, idempotentHint: true },
  async run({ path, name }, ctx) {
    const file = await loadPython(ctx, path);
    const symbol = findSymbol(file, name);
    const span = signatureSpan(symbol.node);
    const signature = file.file.text.slice(span.start, span.end);
    return structured(signature, {
      name: symbol.qualified,
      line: symbol.node.startPosition.row + 1,
      signature,
    });
  },
});

/** Replace one signature, keeping the body. */
export const pySetSignature = defineTool({
  name: "py_set_signature",
  description:
    "Replace the signature of a Python function, method or class (from `def`/`class` through the colon) and keep its decorators and body unchanged. Give the whole new signature, e.g. `def load(path: str, *, strict: bool = False) -> dict:`. The file must still parse afterwards, or nothing is written (syntax_error) unless allow_syntax_errors is true.",
  input: z.object({
    path: z.string().min(1).describe("Path of the Python file"),
    name: NAME,
    new_signature: z.string().min(1).describe(
      "The new signature, from def/async def/class through the colon",
    ),
    allow_syntax_errors: z.boolean().default(false).describe(
      "Write even when the file would no longer parse",
    ),
    force: z.boolean().default(false).describe(
      "Edit even if the file changed since you last read it (otherwise that is refused with stale_read)",
    ),
  }),
  annotations: { title: "Replace Python signature", destructiveHint: true, idempotentHint: true },
  async run({ path, name, new_signature, allow_syntax_errors }, ctx) {
    const file = await loadPython(ctx, path);
    const symbol = findSymbol(file, name);
    let signature = new_signature.trim();
    const wanted = symbol.kind === "class" ? /^class\s/ : /^(async\s+)?def\s/;
    if (!wanted.test(signature)) {
      throw new ToolError(
        "invalid_argument",
        `Cannot use "${
          signature.split("\n")[0]
        }" as the signature of ${symbol.kind} "${symbol.qualified}": it must start with ${
          symbol.kind === "class" ? '"class"' : '"def" or "async def"'
        }`,
      );
    }
    if (!signature.endsWith(":")) signature += ":";
    const span = signatureSpan(symbol.node);
    const text = file.file.text;
    const updated = text.slice(0, span.start) + withEol(signature, file.file.eol) +
      text.slice(span.end);
    if (updated === text) {
      return `The signature of "${symbol.qualified}" is already this; nothing changed`;
    }
    await savePython(ctx, file, updated, allow_syntax_errors);
    return `Replaced the signature of "${symbol.qualified}" (line ${
      symbol.node.startPosition.row + 1
    }) in "${file.resolved.display}"`;
  },
});
