/**
 * Python definitions as the `py_*` tools see them: found with tree-sitter,
 * named with dotted paths (`Outer.Inner.method`), each spanning its first
 * decorator to its last line, the way Python's own `ast` module does.
 *
 * @module
 */

import type { Node, Tree } from "web-tree-sitter";
import { ToolError } from "../../security/errors.ts";
import { splitLines } from "../_text.ts";
import { MAX_NESTING, tooDeep, treeSitter } from "../_treesitter.ts";
import { type CodeSymbol, flattenSymbols } from "../_symbols.ts";
import type { ToolContext } from "../tool.ts";
import { type LoadedText, loadText } from "../_edit.ts";

/** What a definition is. */
export type SymbolKind = "class" | "function" | "method";

/**
 * A class or function that is not inside a function body. Its `startLine` is
 * its first decorator's line, and its `endLine` leaves trailing comments out,
 * as `ast` has them.
 */
export interface PySymbol extends CodeSymbol {
  /** `class`, `function`, or `method` (a function directly in a class). */
  kind: SymbolKind;
  /** The `class_definition` or `function_definition` node. */
  node: Node;
  /** The node with its decorators (`decorated_definition`), or `node`. */
  outer: Node;
  /** The class it sits in, if any. */
  parent: PySymbol | undefined;
  /** Classes and functions defined directly in its body (classes only). */
  children: PySymbol[];
}

/** A loaded and parsed Python file. Use the tree before the next await. */
export interface PyFile extends LoadedText {
  /** The tree (owned by the cache: never delete it). */
  tree: Tree;
  /** The file's lines, each with its own line ending. */
  lines: string[];
  /** The top-level symbols. */
  symbols: PySymbol[];
}

/**
 * Statements whose blocks are searched for definitions and assignments (all
 * but function bodies).
 */
export const COMPOUND_STATEMENTS: ReadonlySet<string> = new Set([
  "if_statement",
  "elif_clause",
  "else_clause",
  "try_statement",
  "except_clause",
  "except_group_clause",
  "finally_clause",
  "with_statement",
  "for_statement",
  "while_statement",
  "match_statement",
  "case_clause",
  "block",
]);

/**
 * Load and parse a Python file (the tree from the per-worker cache).
 *
 * @param ctx The tool context.
 * @param path The model's path.
 * @returns The file, its lines and its symbols (reading `symbols` throws
 *   `unsupported` when blocks nest deeper than {@linkcode MAX_NESTING}).
 */
export async function loadPython(ctx: ToolContext, path: string): Promise<PyFile> {
  const loaded = await loadText(ctx, path);
  const parsed = await treeSitter(ctx).parseFile(loaded.resolved, loaded.file.text, "python");
  const tree = parsed.tree;
  // Collected now, while the tree is certainly alive; code nested too deep to
  // collect fails only the tools that ask for the symbols (py_check_syntax
  // and py_get_imports still answer).
  let symbols: PySymbol[] = [];
  let tooDeepError: ToolError | undefined;
  try {
    symbols = collectSymbols(tree.rootNode);
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    tooDeepError = error;
  }
  return {
    ...loaded,
    tree,
    lines: splitLines(loaded.file.text),
    get symbols() {
      if (tooDeepError) throw tooDeepError;
      return symbols;
    },
  };
}

/**
 * The classes and functions under a node that are not inside a function body.
 *
 * @param container The module (or any block-holding node).
 * @param parent The class they belong to.
 * @returns The symbols, in source order, classes with their children.
 * @throws {ToolError} `unsupported` when blocks nest deeper than {@linkcode MAX_NESTING}.
 */
export function collectSymbols(container: Node, parent?: PySymbol): PySymbol[] {
  return collectAt(container, parent, 0);
}

function collectAt(container: Node, parent: PySymbol | undefined, depth: number): PySymbol[] {
  if (depth > MAX_NESTING) throw tooDeep(container);
  const out: PySymbol[] = [];
  for (const child of container.namedChildren) {
    if (!child) continue;
    let node = child;
    if (child.type === "decorated_definition") {
      node = child.childForFieldName("definition") ?? child;
    }
    if (node.type === "class_definition" || node.type === "function_definition") {
      out.push(makeSymbol(node, child, parent, depth));
    } else if (COMPOUND_STATEMENTS.has(child.type)) {
      for (const symbol of collectAt(child, parent, depth + 1)) out.push(symbol);
    }
  }
  return out;
}

function makeSymbol(
  node: Node,
  outer: Node,
  parent: PySymbol | undefined,
  depth: number,
): PySymbol {
  const name = node.childForFieldName("name")?.text ?? "?";
  const isClass = node.type === "class_definition";
  const symbol: PySymbol = {
    kind: isClass ? "class" : parent ? "method" : "function",
    name,
    qualified: parent ? `${parent.qualified}.${name}` : name,
    node,
    outer,
    startLine: outer.startPosition.row + 1,
    endLine: lastRow(outer) + 1,
    parent,
    children: [],
  };
  if (isClass) {
    const body = node.childForFieldName("body");
    if (body) symbol.children = collectAt(body, symbol, depth + 1);
  }
  return symbol;
}

/**
 * The last row of a node's code, trailing comments excluded (as `ast`'s `end_lineno`).
 *
 * @param node The node.
 * @returns A 0-based row.
 */
export function lastRow(node: Node): number {
  let current = node;
  for (;;) {
    let next = current.lastChild;
    while (next && (next.type === "comment" || next.endIndex === next.startIndex)) {
      next = next.previousSibling;
    }
    if (!next) return current.endPosition.row;
    if (next.childCount === 0) return next.endPosition.row;
    current = next;
  }
}

/**
 * Find one definition by dotted name, optionally `name@LINE` to pick one of several.
 *
 * @param file The parsed file.
 * @param name `func`, `Class.method`, `Outer.Inner.method`, or any of these with `@LINE`.
 * @returns The symbol.
 * @throws {ToolError} `not_found` or `ambiguous_match`, listing the candidates.
 */
export function findSymbol(file: PyFile, name: string): PySymbol {
  const { path, line } = parseName(name);
  const all = flattenSymbols(file.symbols);
  let matches = all.filter((s) => s.qualified === path);
  if (line !== undefined) {
    matches = matches.filter((s) => s.startLine === line || s.node.startPosition.row + 1 === line);
  }
  if (matches.length === 1) return matches[0]!;
  const where = `"${file.resolved.display}"`;
  if (matches.length === 0) {
    const last = path.split(".").pop()!.toLowerCase();
    const near = all.filter((s) =>
      s.name.toLowerCase() === last || s.qualified.toLowerCase().includes(last)
    );
    const listed = near.length > 0 ? near : all.filter((s) => s.parent === undefined);
    throw new ToolError(
      "not_found",
      `Cannot find a class or function "${name}" in ${where}${
        listed.length > 0
          ? `; ${near.length > 0 ? "similar" : "top-level"} names: ${describe(listed)}`
          : "; it defines no classes or functions"
      }`,
    );
  }
  throw new ToolError(
    "ambiguous_match",
    `"${path}" is defined ${matches.length} times in ${where}: ${
      describe(matches)
    }; pass the name with @LINE to pick one, e.g. "${path}@${matches[0]!.startLine}"`,
  );
}

/** Split `Class.method@12` into its path and line. */
export function parseName(name: string): { path: string; line: number | undefined } {
  const match = /^(.*?)@(\d+)$/.exec(name.trim());
  const path = (match ? match[1]! : name.trim()).replace(/\s+/g, "").replace(/::/g, ".");
  if (path === "" || !/^[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}_.]*$/u.test(path)) {
    throw new ToolError(
      "invalid_argument",
      `Cannot use "${name}" as a name: give a dotted Python name such as "Class.method"`,
    );
  }
  return { path, line: match ? Number(match[2]) : undefined };
}

/**
 * Candidates listed in an error, at most 15.
 *
 * @param symbols The symbols.
 * @returns E.g. `A.f (lines 3-9), g (lines 12-14)`.
 */
export function describe(symbols: readonly PySymbol[]): string {
  const shown = symbols.slice(0, 15).map((s) =>
    `${s.qualified} (${s.kind}, lines ${s.startLine}-${s.endLine})`
  );
  return shown.join(", ") + (symbols.length > 15 ? `, and ${symbols.length - 15} more` : "");
}

/**
 * The text of whole lines `from`..`to` (1-based, inclusive).
 *
 * @param file The parsed file.
 * @param from First line.
 * @param to Last line.
 * @returns The lines, each with its own ending.
 */
export function linesOf(file: Pick<PyFile, "lines">, from: number, to: number): string {
  return file.lines.slice(from - 1, to).join("");
}

/**
 * The leading white space of a line.
 *
 * @param line The line.
 * @returns Its indentation.
 */
export function indentOf(line: string): string {
  return /^[ \t\f]*/.exec(line)![0];
}

/**
 * The docstring node of a body (its first statement when it is a string).
 *
 * @param body A `block` or `module` node.
 * @returns The `string` node, or undefined.
 */
export function docstringNode(body: Node | null): Node | undefined {
  const first = body?.namedChildren.find((c) => c && c.type !== "comment");
  if (!first || first.type !== "expression_statement") return undefined;
  const value = first.namedChild(0);
  if (!value || first.namedChildCount !== 1) return undefined;
  if (value.type === "string") return value;
  if (value.type === "concatenated_string") return value;
  return undefined;
}
