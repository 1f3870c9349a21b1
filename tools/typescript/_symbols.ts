/**
 * TypeScript and JavaScript symbols from a tree-sitter tree: functions,
 * classes and their methods and fields, interfaces, type aliases, enums,
 * namespaces, `const f = () => …` functions and objects with methods
 * (`const api = { get() {…} }`), exported variables, and CommonJS's
 * definitions (`exports.x = …`; `proto.x = function …` as `proto.x`), with
 * dotted names (`Class.method`, `ns.f`). An `export` in front is part of the
 * range.
 *
 * @module
 */

import type { Node, Tree } from "web-tree-sitter";
import { MAX_NESTING, tooDeep } from "../_nesting.ts";
import { type JsSymbol, members, one, type Site } from "./_symbol_make.ts";
import { assignedSymbols, variableSymbols } from "./_value_symbols.ts";

/**
 * Collect the symbols of a TypeScript/JavaScript tree.
 *
 * @param tree The tree.
 * @returns Top-level symbols, children nested.
 * @throws {ToolError} `unsupported` when declarations nest deeper than {@linkcode MAX_NESTING}.
 */
export function jsSymbols(tree: Tree): JsSymbol[] {
  return nestMembers(collect(tree.rootNode, [], 0));
}

/**
 * Members put on a file's function, class or object after it
 * (`Route.prototype.dispatch = function …`) nest under it; those put on
 * anything else stay at the top, named in full (`req.get`).
 */
function nestMembers(symbols: JsSymbol[]): JsSymbol[] {
  const owners = new Map(
    symbols.filter((symbol) => symbol.qualified === symbol.name).map((s) => [s.name, s]),
  );
  const out: JsSymbol[] = [];
  for (const symbol of symbols) {
    const owner = symbol.qualified === symbol.name
      ? undefined
      : owners.get(symbol.qualified.split(".")[0]!);
    if (owner) owner.children.push(symbol);
    else {out.push(
        symbol.qualified === symbol.name ? symbol : { ...symbol, name: symbol.qualified },
      );}
  }
  return out;
}

function collect(node: Node, scope: string[], depth: number): JsSymbol[] {
  const out: JsSymbol[] = [];
  for (const child of node.namedChildren) {
    if (!child) continue;
    for (const symbol of symbolsOf(child, child, { scope, depth })) out.push(symbol);
  }
  return out;
}

/** Where a statement is: the names around it, and how many wrappers and namespaces are. */
interface Place {
  scope: string[];
  depth: number;
}

/** The kind of symbol each declaration is. */
const DECLARATIONS: ReadonlyMap<string, string> = new Map([
  ["function_declaration", "function"],
  ["generator_function_declaration", "function"],
  ["function_signature", "function"],
  ["class_declaration", "class"],
  ["abstract_class_declaration", "class"],
  ["class", "class"],
  ["interface_declaration", "interface"],
  ["type_alias_declaration", "type"],
  ["enum_declaration", "enum"],
  ["internal_module", "namespace"],
  ["module", "namespace"],
]);

/** The symbols a statement declares; `outer` is what their range covers (an `export` wrapper, say). */
function symbolsOf(node: Node, outer: Node, at: Place): JsSymbol[] {
  if (at.depth > MAX_NESTING) throw tooDeep(node);
  const inner = unwrapped(node);
  if (inner !== undefined) {
    return inner ? symbolsOf(inner, outer, { ...at, depth: at.depth + 1 }) : [];
  }
  const site: Site = { node, outer, scope: at.scope };
  const kind = DECLARATIONS.get(node.type);
  if (kind === undefined) {
    const variables = node.type === "lexical_declaration" || node.type === "variable_declaration";
    if (variables) return variableSymbols(site);
    return node.type === "assignment_expression" && at.scope.length === 0
      ? assignedSymbols(site)
      : [];
  }
  const name = node.childForFieldName("name");
  const body = node.childForFieldName("body");
  let children: JsSymbol[] = [];
  if (body && name && (kind === "class" || kind === "interface")) {
    children = members(body, [...at.scope, name.text]);
  } else if (body && name && kind === "namespace") {
    children = collect(body, [...at.scope, name.text], at.depth + 1);
  }
  return one(kind, name, site, { children, body: kind === "type" ? null : body });
}

/**
 * What a wrapper statement wraps: `export …`, `declare …` (.d.ts files) and
 * a `namespace N {}` parsed as an expression statement. Null for a wrapper
 * around nothing to look at, undefined for a statement that is no wrapper.
 */
function unwrapped(node: Node): Node | null | undefined {
  switch (node.type) {
    case "export_statement":
      return node.childForFieldName("declaration") ??
        node.namedChildren.find((each) =>
          each && each.type !== "decorator" && each.type !== "comment"
        ) ?? null;
    case "ambient_declaration":
      // `declare class A {}`, `export declare enum E {}`, `declare namespace N {}`
      return node.namedChildren.find((each) => each && each.type !== "comment") ?? null;
    case "expression_statement": {
      const inner = node.namedChildren[0];
      const wraps = inner?.type === "internal_module" || inner?.type === "module" ||
        inner?.type === "assignment_expression";
      return wraps ? inner : null;
    }
    default:
      return undefined;
  }
}
