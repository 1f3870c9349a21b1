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
import { editResult } from "../_edit.ts";
import { PY_REPLACE_INPUT } from "./definition.ts";
import { savePython } from "./_syntax.ts";
import { findSymbol, loadPython } from "./_symbols.ts";

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
    "Only the signature of a Python function, method or class (`def`/`class` through the colon), after its path:line: cheaper than py_get_definition.",
  input: z.object({ path: z.string().min(1), name: z.string().min(1) }),
  output: z.object({ path: z.string(), name: z.string(), line: z.number(), signature: z.string() }),
  annotations: { title: "Python signature", readOnlyHint: true, idempotentHint: true },
  async run({ path, name }, ctx) {
    const file = await loadPython(ctx, path);
    const symbol = findSymbol(file, name);
    const span = signatureSpan(symbol.node);
    const signature = file.file.text.slice(span.start, span.end);
    const line = symbol.node.startPosition.row + 1;
    return structured(`${file.resolved.display}:${line} ${signature}`, {
      path: file.resolved.display,
      name: symbol.qualified,
      line,
      signature,
    });
  },
});

/** Replace one signature, keeping the body. */
export const pySetSignature = defineTool({
  name: "py_set_signature",
  description:
    "Replace the signature of a Python function, method or class (`def`/`class` through the colon), keeping decorators and body.",
  input: PY_REPLACE_INPUT,
  annotations: { title: "Replace Python signature", destructiveHint: true, idempotentHint: true },
  async run({ path, name, content, allow_syntax_errors }, ctx) {
    const file = await loadPython(ctx, path);
    const symbol = findSymbol(file, name);
    let signature = content.trim();
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
      return editResult(
        `The signature of "${symbol.qualified}" already reads so; nothing changed`,
        [],
      );
    }
    const diff = await savePython(ctx, file, updated, allow_syntax_errors);
    return editResult(
      `Replaced the signature of "${symbol.qualified}" at ${file.resolved.display}:${
        symbol.node.startPosition.row + 1
      }`,
      [diff],
    );
  },
});
