/**
 * TypeScript and JavaScript as the tools that read every language see them
 * (`get_file_summary`, `derive_code_path`): a file's imports and exports,
 * and how a function (declared, or bound to a name) and a call look in the
 * tree.
 *
 * @module
 */

import type { Node, Tree } from "web-tree-sitter";
import type { CallSyntax, FunctionValue, LanguageReader, SourceText } from "../family.ts";
import type { ToolContext } from "../tool.ts";
import { treeSitter } from "../_treesitter.ts";
import { flattenSymbols } from "../_symbols.ts";
import { oneLine } from "../_one_line.ts";
import { TYPESCRIPT } from "./family.ts";
import { jsSymbols } from "./_symbols.ts";

/** The values that are functions, when bound to a name. */
const FUNCTION_VALUES = new Set(["arrow_function", "function_expression", "function"]);

/** `const f = () => …`, `let g = function () {…}`, a class field `h = () => …`. */
function functionValue(node: Node): FunctionValue | undefined {
  let name: Node | null = null;
  let value: Node | null = null;
  if (node.type === "variable_declarator") {
    name = node.childForFieldName("name");
    value = node.childForFieldName("value");
  } else if (node.type === "public_field_definition" || node.type === "field_definition") {
    name = node.childForFieldName("name") ?? node.childForFieldName("property");
    value = node.childForFieldName("value");
  }
  if (!name || !value || !FUNCTION_VALUES.has(value.type)) return undefined;
  if (name.type !== "identifier" && name.type !== "property_identifier") return undefined;
  return { name: name.text, body: value.childForFieldName("body") };
}

/** The name a TS/JS call (or `new`) calls: `f` in `f()`, `a.b.f()` and `new f()`. */
function callee(call: Node): string | undefined {
  const called = call.childForFieldName("function") ?? call.childForFieldName("constructor");
  switch (called?.type) {
    case "identifier":
    case "property_identifier":
      return called.text;
    case "member_expression":
      return called.childForFieldName("property")?.text;
    default:
      return undefined;
  }
}

/** How TS/JS definitions and calls look. */
const TS_CALLS: CallSyntax = {
  definitions: new Set([
    "function_declaration",
    "method_definition",
    "generator_function_declaration",
  ]),
  scopes: new Set(["class_declaration"]),
  calls: new Set(["call_expression", "new_expression"]),
  definitionName: (node: Node) => node.childForFieldName("name")?.text,
  callee,
  functionValue,
};

/** A TS/JS file's imports, and what it exports. */
async function summarize(
  ctx: ToolContext,
  { resolved, text }: SourceText,
  grammar: string,
): Promise<Record<string, string[]>> {
  const tree = await treeSitter(ctx).parseFile(resolved, text, grammar);
  const exported = new Set<number>();
  for (const child of tree.tree.rootNode.namedChildren) {
    if (child?.type === "export_statement") exported.add(child.startIndex);
  }
  return {
    imports: tree.tree.rootNode.namedChildren.filter((n) => n?.type === "import_statement").map(
      (n) => oneLine(n!.text),
    ),
    exports: flattenSymbols(jsSymbols(tree.tree)).filter((s) => exported.has(s.startIndex))
      .map((s) => `${s.kind} ${s.qualified} (line ${s.startLine})`),
  };
}

/** TypeScript and JavaScript, for the tools that read every language. */
export const TYPESCRIPT_LANGUAGE: LanguageReader = Object.freeze({
  grammars: TYPESCRIPT.grammars ?? [],
  calls: TS_CALLS,
  kind: (grammar: string) => grammar === "typescript" ? "typescript" : "javascript/tsx",
  parse: (ctx: ToolContext, text: string, grammar: string): Promise<Tree> =>
    treeSitter(ctx).parseText(text, grammar),
  summarize,
});
