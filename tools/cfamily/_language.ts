/**
 * C and C++ as the tools that read every language see them
 * (`get_file_summary`, `derive_code_path`): a file's includes, types and
 * functions, and how a function definition and a call look in the tree.
 *
 * @module
 */

import type { Node, Tree } from "web-tree-sitter";
import type { CallSyntax, LanguageReader, SourceText } from "../family.ts";
import type { ToolContext } from "../tool.ts";
import { treeSitter } from "../_treesitter.ts";
import { errorCount } from "../_diagnostics.ts";
import { flattenSymbols } from "../_symbols.ts";
import { CFAMILY } from "./family.ts";
import { headerGrammar, maskForParsing, parseC } from "./_parse.ts";
import { cSymbols } from "./_symbols.ts";

/** The declarator types that name a function definition. */
const DECLARATOR_NAMES = new Set([
  "identifier",
  "field_identifier",
  "qualified_identifier",
  "destructor_name",
  "operator_name",
]);

/** A C/C++ function definition's name, through its declarators (`A::f` out of line). */
function definitionName(node: Node): string | undefined {
  let declarator = node.childForFieldName("declarator");
  for (let i = 0; declarator && i < 8; i++) {
    if (DECLARATOR_NAMES.has(declarator.type)) return declarator.text;
    declarator = declarator.childForFieldName("declarator");
  }
  return undefined;
}

/** The name a C/C++ call calls: `f` in `f()`, `p->f()`, `ns::f()` and `f<T>()`. */
function callee(call: Node): string | undefined {
  const called = call.childForFieldName("function");
  switch (called?.type) {
    case "identifier":
    case "field_identifier":
      return called.text;
    case "field_expression":
      return called.childForFieldName("field")?.text;
    case "qualified_identifier":
    case "template_function":
      return called.childForFieldName("name")?.text;
    default:
      return undefined;
  }
}

/** How C/C++ definitions and calls look. */
const C_CALLS: CallSyntax = {
  definitions: new Set(["function_definition"]),
  scopes: new Set(["class_specifier", "struct_specifier", "namespace_definition"]),
  calls: new Set(["call_expression"]),
  definitionName,
  callee,
};

/** A C/C++ grammar's name, as `_parse.ts` takes it. */
function cGrammar(grammar: string): "c" | "cpp" {
  return grammar === "cpp" ? "cpp" : "c";
}

/** Parse as written; a file that does not parse so is parsed with its conditionals blanked too, and the better tree kept. */
async function parseForIndex(ctx: ToolContext, text: string, grammar: string): Promise<Tree> {
  const tree = await treeSitter(ctx).parseText(text, grammar);
  if (!tree.rootNode.hasError) return tree;
  let other: Tree | undefined;
  try {
    const masked = maskForParsing(text);
    if (masked === undefined) return tree;
    other = await treeSitter(ctx).parseText(masked, grammar);
    const [keep, drop] = errorCount(other) < errorCount(tree) ? [other, tree] : [tree, other];
    drop.delete();
    return keep;
  } catch (error) {
    tree.delete();
    other?.delete();
    throw error;
  }
}

/** A C/C++ file's includes, types and functions (prototypes said so). */
async function summarize(
  ctx: ToolContext,
  { resolved, text, lines }: SourceText,
  grammar: string,
): Promise<Record<string, string[]>> {
  const tree = await parseC(ctx, resolved, text, cGrammar(grammar));
  const symbols = flattenSymbols(cSymbols(tree.tree));
  return {
    includes: lines.filter((line) => /^\s*#\s*include\b/.test(line)).map((line) => line.trim()),
    types: symbols.filter((s) =>
      ["struct", "union", "enum", "typedef", "class", "namespace"].includes(s.kind)
    )
      .map((s) => `${s.kind} ${s.qualified} (line ${s.startLine})`),
    functions: symbols.filter((s) => ["function", "method", "prototype"].includes(s.kind))
      .map((s) =>
        `${s.qualified}${s.kind === "prototype" ? " (prototype)" : ""} (line ${s.startLine})`
      ),
  };
}

/** C and C++, for the tools that read every language. */
export const C_LANGUAGE: LanguageReader = Object.freeze({
  grammars: CFAMILY.grammars ?? [],
  calls: C_CALLS,
  kind: (grammar: string) => grammar,
  grammarOf: (grammar: string, path: string, text: string) => headerGrammar(grammar, path, text),
  parse: parseForIndex,
  summarize,
});
