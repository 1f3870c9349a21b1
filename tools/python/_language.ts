/**
 * Python as the tools that read every language see it
 * (`get_file_summary`, `derive_code_path`): a module's imports, classes,
 * functions and constants, and how a function definition and a call look
 * in the tree.
 *
 * @module
 */

import type { Node, Tree } from "web-tree-sitter";
import type { CallSyntax, LanguageReader, SourceText } from "../family.ts";
import type { ToolContext } from "../tool.ts";
import { MAX_NESTING, tooDeep } from "../_nesting.ts";
import { treeSitter } from "../_treesitter.ts";
import { oneLine } from "../_one_line.ts";
import { PYTHON } from "./family.ts";

/** The name a Python call calls: `f` in `f()` and `a.b.f()`. */
function callee(call: Node): string | undefined {
  const called = call.childForFieldName("function");
  switch (called?.type) {
    case "identifier":
      return called.text;
    case "attribute":
      return called.childForFieldName("attribute")?.text;
    default:
      return undefined;
  }
}

/** How Python definitions and calls look. */
const PYTHON_CALLS: CallSyntax = {
  definitions: new Set(["function_definition"]),
  scopes: new Set(["class_definition"]),
  calls: new Set(["call"]),
  definitionName: (node: Node) => node.childForFieldName("name")?.text,
  callee,
};

type Sections = Record<string, string[]>;

/** The blocks whose statements still count as module level. */
const MODULE_BLOCKS = ["if_statement", "try_statement", "with_statement", "block"];

/**
 * Add a module-level statement to the sections: an import, a class, a
 * function, an UPPER_CASE constant; look into module-level blocks.
 * `depth` is 0 at module level (and in its if/try/with blocks); `nesting`
 * counts those blocks.
 */
function visit(node: Node, sections: Sections, { depth, nesting }: Level): void {
  if (nesting > MAX_NESTING) throw tooDeep(node);
  for (const child of node.namedChildren) {
    if (!child) continue;
    const inner = child.type === "decorated_definition"
      ? child.childForFieldName("definition") ?? child
      : child;
    const line = child.startPosition.row + 1;
    if (
      child.type === "import_statement" || child.type === "import_from_statement" ||
      child.type === "future_import_statement"
    ) {
      sections.imports!.push(oneLine(child.text));
    } else if (inner.type === "class_definition") {
      sections.classes!.push(`${inner.childForFieldName("name")?.text} (line ${line})`);
    } else if (inner.type === "function_definition" && depth === 0) {
      sections.functions!.push(`${inner.childForFieldName("name")?.text} (line ${line})`);
    } else if (child.type === "expression_statement" && depth === 0) {
      const constant = constantOf(child);
      if (constant) sections.constants!.push(`${constant} (line ${line})`);
    } else if (MODULE_BLOCKS.includes(child.type) && depth === 0) {
      visit(child, sections, { depth, nesting: nesting + 1 });
    }
  }
}

/** How deep a statement is: in a definition or not, and in how many module-level blocks. */
interface Level {
  depth: number;
  nesting: number;
}

/** The name an `UPPER_CASE = …` statement assigns, if it is one. */
function constantOf(statement: Node): string | undefined {
  const assignment = statement.namedChildren[0];
  const left = assignment?.type === "assignment" ? assignment.childForFieldName("left") : null;
  return left?.type === "identifier" && /^[A-Z][A-Z0-9_]*$/.test(left.text) ? left.text : undefined;
}

/** A Python module's imports, classes, functions and constants. */
async function summarize(ctx: ToolContext, { resolved, text }: SourceText): Promise<Sections> {
  const { tree } = await treeSitter(ctx).parseFile(resolved, text, "python");
  const sections: Sections = { imports: [], classes: [], functions: [], constants: [] };
  visit(tree.rootNode, sections, { depth: 0, nesting: 0 });
  return sections;
}

/** Python, for the tools that read every language. */
export const PYTHON_LANGUAGE: LanguageReader = Object.freeze({
  grammars: PYTHON.grammars ?? [],
  calls: PYTHON_CALLS,
  kind: () => "python",
  parse: (ctx: ToolContext, text: string, grammar: string): Promise<Tree> =>
    treeSitter(ctx).parseText(text, grammar),
  summarize,
});
