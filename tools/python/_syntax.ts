/**
 * Syntax errors in a tree-sitter Python tree, and the check every Python
 * editor runs before it writes.
 *
 * @module
 */

import type { Node, Tree } from "web-tree-sitter";
import { ToolError } from "../../security/errors.ts";
import { treeSitter } from "../_treesitter.ts";
import type { ToolContext } from "../tool.ts";
import { saveText } from "../_edit.ts";
import type { EditDiff } from "../_diff.ts";
import type { PyFile } from "./_symbols.ts";

/** One syntax error. */
export interface SyntaxIssue {
  /** 1-based line. */
  line: number;
  /** 1-based column (in characters). */
  column: number;
  /** What is wrong. */
  message: string;
}

/** Python 2 statements the grammar accepts but Python 3 rejects. */
const PYTHON2: Readonly<Record<string, string>> = {
  print_statement: "Python 2 print statement (use print(...))",
  exec_statement: "Python 2 exec statement (use exec(...))",
};

/**
 * The syntax errors in a tree: `ERROR` and `MISSING` nodes, and what the
 * grammar accepts but Python rejects (bad indentation, two statements on a
 * line without `;`, a bare starred expression, Python 2 statements).
 *
 * @param tree The tree.
 * @param source The text that was parsed.
 * @param max The most to return.
 * @returns The errors, in source order.
 */
export function syntaxErrors(tree: Tree, source: string, max = 50): SyntaxIssue[] {
  const out: SyntaxIssue[] = [];
  const starts = lineStarts(source);
  // Depth first with an explicit stack: an error deep in nested brackets is thousands of levels down.
  const stack: Node[] = [tree.rootNode];
  while (stack.length > 0 && out.length < max) {
    const node = stack.pop()!;
    if (node.isMissing) {
      out.push(issue(node, `missing "${node.type}"`));
      continue;
    }
    if (node.isError) {
      const snippet = node.text.split(/\r\n|\r|\n/)[0]!.trim().slice(0, 40);
      out.push(issue(node, snippet ? `invalid syntax at "${snippet}"` : "invalid syntax"));
      continue;
    }
    const old = node.type === "print_statement" && node.namedChildren.some((c) =>
        c?.type === "chevron"
      )
      ? undefined // `print >> f, x` is a valid (if useless) Python 3 expression
      : PYTHON2[node.type];
    if (old) out.push(issue(node, `invalid syntax: ${old}`));
    if (node.type === "module" || node.type === "block") checkBlock(node, source, starts, out);
    if (!node.hasError && !old && node.childCount > 0 && !holdsStatements(node)) continue;
    const children = node.children;
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i];
      if (child) stack.push(child);
    }
  }
  starred(tree.rootNode, out);
  futureImports(tree.rootNode, out);
  out.sort((a, b) => a.line - b.line || a.column - b.column);
  return out.slice(0, max);
}

/** Statements sit in modules, blocks, and the statements and clauses that hold blocks. */
function holdsStatements(node: Node): boolean {
  return node.type === "module" || node.type === "block" || node.type.endsWith("_statement") ||
    node.type.endsWith("_clause") || node.type.endsWith("_definition");
}

function lineStarts(source: string): number[] {
  const starts = [0];
  for (let i = source.indexOf("\n"); i >= 0; i = source.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/** Indentation and statement separation inside one module or block. */
function checkBlock(block: Node, source: string, starts: number[], out: SyntaxIssue[]): void {
  let indent: string | undefined = block.type === "module" ? "" : undefined;
  let prevRow = -1;
  let separated = true;
  for (const child of block.children) {
    if (!child) continue;
    if (child.type === ";") {
      separated = true;
      continue;
    }
    if (!child.isNamed || child.type === "comment" || child.isError) continue;
    const row = child.startPosition.row;
    if (row === prevRow && !separated) {
      out.push(issue(child, "invalid syntax: statements must be separated by a newline or ';'"));
    }
    const prefix = source.slice(starts[row] ?? 0, child.startIndex);
    if (/^[ \t\f]*$/.test(prefix)) {
      if (indent === undefined) indent = prefix;
      else if (prefix !== indent) {
        out.push(issue(
          child,
          prefix.length > indent.length || prefix.startsWith(indent)
            ? "unexpected indent"
            : "unindent does not match any outer indentation level",
        ));
      }
    }
    prevRow = child.endPosition.row;
    separated = false;
  }
}

/** Where a starred expression may stand: in displays, calls, subscripts and target lists. */
const STAR_PARENTS: ReadonlySet<string> = new Set([
  "expression_list",
  "tuple",
  "list",
  "set",
  "argument_list",
  "subscript",
  "pattern_list",
  "tuple_pattern",
  "list_pattern",
]);

/**
 * Starred expressions anywhere else (`x = *a`, `return *a`, `f(x=*a)`) are
 * errors. The grammar reads `*f()` as a call of `*f`, so a star is judged by
 * where the whole call, attribute or subscript it starts stands.
 */
function starred(root: Node, out: SyntaxIssue[]): void {
  for (const node of root.descendantsOfType("list_splat")) {
    if (!node) continue;
    let top: Node = node;
    while (
      top.parent && /^(call|attribute|subscript)$/.test(top.parent.type) &&
      top.parent.firstChild?.startIndex === top.startIndex
    ) top = top.parent;
    const parent = top.parent;
    if (!parent || STAR_PARENTS.has(parent.type) || parent.hasError) continue;
    out.push(issue(node, "can't use starred expression here"));
  }
}

/** The features `from __future__ import` knows. */
const FUTURE_FEATURES: ReadonlySet<string> = new Set([
  "nested_scopes",
  "generators",
  "division",
  "absolute_import",
  "with_statement",
  "print_function",
  "unicode_literals",
  "barry_as_FLUFL",
  "generator_stop",
  "annotations",
]);

/** `from __future__` imports come first (after the docstring) and name known features. */
function futureImports(root: Node, out: SyntaxIssue[]): void {
  let early = true;
  let first = true;
  for (const child of root.children) {
    if (!child || child.type === "comment" || child.type === ";") continue;
    const isDoc = first && child.type === "expression_statement" &&
      child.namedChild(0)?.type === "string";
    first = false;
    if (child.type === "future_import_statement") {
      if (!early) {
        out.push(issue(child, "from __future__ imports must occur at the beginning of the file"));
      }
      for (const name of child.namedChildren) {
        const feature = name?.type === "aliased_import"
          ? name.childForFieldName("name")?.text
          : name?.text;
        if (feature === "braces") out.push(issue(name!, "not a chance"));
        else if (feature && !FUTURE_FEATURES.has(feature)) {
          out.push(issue(name!, `future feature ${feature} is not defined`));
        }
      }
    } else if (!isDoc) early = false;
  }
}

function issue(node: Node, message: string): SyntaxIssue {
  return { line: node.startPosition.row + 1, column: node.startPosition.column + 1, message };
}

/**
 * Check new Python text and write it over the file, atomically, in its own encoding.
 *
 * @param ctx The tool context.
 * @param file The file as loaded.
 * @param text The new text (in the file's line endings).
 * @param allowSyntaxErrors Write even when the result does not parse.
 * @returns The diff of the change.
 * @throws {ToolError} `syntax_error` when the result does not parse (nothing is written).
 */
export async function savePython(
  ctx: ToolContext,
  file: PyFile,
  text: string,
  allowSyntaxErrors: boolean,
): Promise<EditDiff> {
  const hadErrors = file.tree.rootNode.hasError;
  try {
    await checkPython(ctx, text, file.resolved.display, allowSyntaxErrors);
  } catch (error) {
    if (!hadErrors || !(error instanceof ToolError)) throw error;
    throw new ToolError(
      error.code,
      `${error.message} (the file had syntax errors before this edit too: see py_check_syntax)`,
    );
  }
  return saveText(ctx, file, text);
}

/**
 * Refuse Python text that does not parse.
 *
 * @param ctx The tool context.
 * @param text The text.
 * @param display The file's path, for the message.
 * @param allowSyntaxErrors Accept it anyway.
 * @throws {ToolError} `syntax_error`.
 */
export async function checkPython(
  ctx: ToolContext,
  text: string,
  display: string,
  allowSyntaxErrors: boolean,
): Promise<void> {
  if (allowSyntaxErrors) return;
  const tree = await treeSitter(ctx).parseText(text, "python");
  let errors: SyntaxIssue[];
  try {
    errors = syntaxErrors(tree, text, 5);
  } finally {
    tree.delete();
  }
  if (errors.length === 0) return;
  const listed = errors.map((e) => `line ${e.line}:${e.column} ${e.message}`).join("; ");
  throw new ToolError(
    "syntax_error",
    `Cannot write "${display}": the result would not parse (${listed}); nothing was written. Fix the new code (check its indentation and brackets), or pass allow_syntax_errors: true to write it anyway`,
  );
}
