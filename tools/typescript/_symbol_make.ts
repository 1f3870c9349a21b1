/**
 * How a TypeScript/JavaScript symbol is made from the node that declares
 * it: the symbol's shape, one symbol from its name and place, and the
 * methods and fields of a class or interface body.
 *
 * @module
 */

import type { Node } from "web-tree-sitter";
import type { IndexedSymbol } from "../_symbols.ts";

/**
 * One symbol. Its kind is function, class, method, field, interface, type,
 * enum, namespace or object; its qualified name is dotted (`Class.method`);
 * its first line includes an `export` or decorators in front.
 */
export interface JsSymbol extends IndexedSymbol {
  /** Where the body ends. */
  bodyEndIndex: number | undefined;
  /** Nested symbols. */
  children: JsSymbol[];
}

export const FUNCTION_VALUES = new Set([
  "arrow_function",
  "function_expression",
  "function",
  "generator_function",
]);

const METHODS = new Set(["method_definition", "method_signature", "abstract_method_signature"]);
const FIELDS = new Set(["public_field_definition", "field_definition"]);

/** The methods and fields of a class or interface body. */
export function members(body: Node, scope: string[]): JsSymbol[] {
  const out: JsSymbol[] = [];
  for (const member of body.namedChildren) {
    if (!member) continue;
    const site: Site = { node: member, outer: member, scope };
    if (METHODS.has(member.type)) {
      const name = member.childForFieldName("name");
      out.push(...one("method", name, site, { body: member.childForFieldName("body") }));
    } else if (FIELDS.has(member.type)) {
      const value = member.childForFieldName("value");
      const kind = value && FUNCTION_VALUES.has(value.type) ? "method" : "field";
      const name = member.childForFieldName("name") ?? member.childForFieldName("property");
      out.push(...one(kind, name, site, { body: value?.childForFieldName("body") ?? null }));
    }
  }
  return out;
}

/** Where a declaration is: its node, what its range covers, and the names around it. */
export interface Site {
  node: Node;
  outer: Node;
  scope: string[];
}

/** What a symbol may have besides its name and place. */
export interface Parts {
  children?: JsSymbol[];
  body?: Node | null;
}

/** The symbol, or none when it has no name. */
export function one(kind: string, name: Node | null, site: Site, parts: Parts = {}): JsSymbol[] {
  if (!name) return [];
  const { node, outer, scope } = site;
  const end = node.endPosition;
  return [{
    kind,
    name: name.text,
    qualified: [...scope, name.text].join("."),
    startLine: outer.startPosition.row + 1,
    endLine: end.column === 0 && end.row > node.startPosition.row ? end.row : end.row + 1,
    startIndex: outer.startIndex,
    endIndex: Math.max(node.endIndex, outer === node ? node.endIndex : outer.endIndex),
    bodyIndex: parts.body?.startIndex,
    bodyEndIndex: parts.body?.endIndex,
    children: parts.children ?? [],
  }];
}
