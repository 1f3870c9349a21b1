/**
 * Docstrings: the value of a string literal, cleaned the way
 * `inspect.cleandoc` (and so `ast.get_docstring`) does.
 *
 * @module
 */

import type { Node } from "web-tree-sitter";
import { docstringNode } from "./_symbols.ts";

const ESCAPES: Readonly<Record<string, string>> = {
  "\\": "\\",
  "'": "'",
  '"': '"',
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
};

/**
 * The value of a `string` or `concatenated_string` node (no f-string interpolation).
 *
 * @param node The node.
 * @returns The value.
 */
export function stringValue(node: Node): string {
  if (node.type === "concatenated_string") {
    return node.namedChildren.filter((c) => c?.type === "string").map((c) => stringValue(c!))
      .join("");
  }
  const start = node.children.find((c) => c?.type === "string_start");
  const end = node.children.find((c) => c?.type === "string_end");
  const full = node.text;
  const open = start?.text ?? '"';
  const raw = /r/i.test(open);
  const body = full.slice(open.length, full.length - (end?.text.length ?? 1)).replace(
    /\r\n?/g,
    "\n",
  );
  if (raw) return body;
  return body.replace(
    /\\(\n|[\\'"abfnrtv]|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{1,3})/g,
    (_, e: string) => {
      if (e === "\n") return "";
      if (e in ESCAPES) return ESCAPES[e]!;
      if (/^[xuU]/.test(e)) return String.fromCodePoint(parseInt(e.slice(1), 16));
      return String.fromCharCode(parseInt(e, 8));
    },
  );
}

/**
 * Clean a docstring as `inspect.cleandoc` does.
 *
 * @param doc The raw value.
 * @returns It without common indentation and surrounding blank lines.
 */
export function cleandoc(doc: string): string {
  const lines = doc.replace(/\t/g, "        ").split("\n");
  let margin = Infinity;
  for (const line of lines.slice(1)) {
    const content = line.trimStart();
    if (content) margin = Math.min(margin, line.length - content.length);
  }
  lines[0] = lines[0]!.trimStart();
  if (margin < Infinity) {
    for (let i = 1; i < lines.length; i++) {
      lines[i] = lines[i]!.slice(margin);
    }
  }
  while (lines.length > 0 && lines[0]!.trim() === "") lines.shift();
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === "") lines.pop();
  return lines.join("\n");
}

/**
 * The cleaned docstring of a module, class or function body.
 *
 * @param body A `module` or `block` node.
 * @returns The docstring, or undefined when there is none (f-strings are not docstrings).
 */
export function docstringOf(body: Node | null): string | undefined {
  const node = docstringNode(body);
  if (!node || node.descendantsOfType("interpolation").length > 0) return undefined;
  const open = node.type === "string"
    ? node.children.find((c) => c?.type === "string_start")
    : undefined;
  if (open && /b/i.test(open.text)) return undefined;
  return cleandoc(stringValue(node));
}
