/**
 * TypeScript and JavaScript symbols from a tree-sitter tree: functions,
 * classes and their methods and fields, interfaces, type aliases, enums,
 * namespaces, `const f = () => …` functions and objects with methods
 * (`const api = { get() {…} }`), with dotted names
 * (`Class.method`, `ns.f`). An `export` in front is part of the range.
 *
 * @module
 */

import type { Node, Tree } from "web-tree-sitter";
import { MAX_NESTING, tooDeep } from "../_treesitter.ts";

/** One symbol. */
export interface JsSymbol {
  /** function, class, method, field, interface, type, enum, namespace, object. */
  kind: string;
  /** Its own name. */
  name: string;
  /** The dotted name (`Class.method`). */
  qualified: string;
  /** 1-based first line (an `export` or decorators included). */
  start_line: number;
  /** 1-based last line. */
  end_line: number;
  /** Start offset in the source. */
  startIndex: number;
  /** End offset (exclusive). */
  endIndex: number;
  /** Where the body starts, for signatures and skeletons. */
  bodyIndex: number | undefined;
  /** Where the body ends. */
  bodyEndIndex: number | undefined;
  /** Nested symbols. */
  children: JsSymbol[];
}

const FUNCTION_VALUES = new Set([
  "arrow_function",
  "function_expression",
  "function",
  "generator_function",
]);

/**
 * Collect the symbols of a TypeScript/JavaScript tree.
 *
 * @param tree The tree.
 * @returns Top-level symbols, children nested.
 * @throws {ToolError} `unsupported` when declarations nest deeper than {@linkcode MAX_NESTING}.
 */
export function jsSymbols(tree: Tree): JsSymbol[] {
  return collect(tree.rootNode, [], 0);
}

/**
 * Every symbol, depth first.
 *
 * @param symbols Top-level symbols.
 * @returns The flat list.
 */
export function flattenJs(symbols: readonly JsSymbol[]): JsSymbol[] {
  return symbols.flatMap((symbol) => [symbol, ...flattenJs(symbol.children)]);
}

function collect(node: Node, scope: string[], depth: number): JsSymbol[] {
  const out: JsSymbol[] = [];
  for (const child of node.namedChildren) {
    if (!child) continue;
    for (const symbol of symbolsOf(child, child, scope, depth)) out.push(symbol);
  }
  return out;
}

/** The symbols a statement declares; `depth` counts the wrappers and namespaces around it. */
function symbolsOf(node: Node, outer: Node, scope: string[], depth: number): JsSymbol[] {
  if (depth > MAX_NESTING) throw tooDeep(node);
  switch (node.type) {
    case "export_statement": {
      const declaration = node.childForFieldName("declaration") ??
        node.namedChildren.find((each) =>
          each && each.type !== "decorator" && each.type !== "comment"
        ) ?? null;
      return declaration ? symbolsOf(declaration, outer, scope, depth + 1) : [];
    }
    case "ambient_declaration": {
      // `declare class A {}`, `export declare enum E {}`, `declare namespace N {}` (.d.ts files)
      const inner = node.namedChildren.find((each) => each && each.type !== "comment");
      return inner ? symbolsOf(inner, outer, scope, depth + 1) : [];
    }
    case "expression_statement": {
      const inner = node.namedChildren[0];
      return inner && (inner.type === "internal_module" || inner.type === "module")
        ? symbolsOf(inner, outer, scope, depth + 1)
        : [];
    }
    case "function_declaration":
    case "generator_function_declaration":
    case "function_signature":
      return one(
        "function",
        node.childForFieldName("name"),
        node,
        outer,
        scope,
        [],
        node.childForFieldName("body"),
      );
    case "class_declaration":
    case "abstract_class_declaration":
    case "class": {
      const name = node.childForFieldName("name");
      const body = node.childForFieldName("body");
      const inner = name ? [...scope, name.text] : scope;
      const children = body ? members(body, inner) : [];
      return one("class", name, node, outer, scope, children, body);
    }
    case "interface_declaration": {
      const name = node.childForFieldName("name");
      const body = node.childForFieldName("body");
      const children = body && name ? members(body, [...scope, name.text]) : [];
      return one("interface", name, node, outer, scope, children, body);
    }
    case "type_alias_declaration":
      return one("type", node.childForFieldName("name"), node, outer, scope, [], null);
    case "enum_declaration":
      return one(
        "enum",
        node.childForFieldName("name"),
        node,
        outer,
        scope,
        [],
        node.childForFieldName("body"),
      );
    case "internal_module":
    case "module": {
      const name = node.childForFieldName("name");
      const body = node.childForFieldName("body");
      const children = body && name ? collect(body, [...scope, name.text], depth + 1) : [];
      return one("namespace", name, node, outer, scope, children, body);
    }
    case "lexical_declaration":
    case "variable_declaration": {
      const out: JsSymbol[] = [];
      for (const declarator of node.namedChildren) {
        if (declarator?.type !== "variable_declarator") continue;
        const value = declarator.childForFieldName("value");
        const name = declarator.childForFieldName("name");
        if (!value || !name || name.type !== "identifier") continue;
        if (FUNCTION_VALUES.has(value.type)) {
          out.push(
            ...one("function", name, node, outer, scope, [], value.childForFieldName("body")),
          );
        } else if (value.type === "class") {
          out.push(
            ...one(
              "class",
              name,
              node,
              outer,
              scope,
              members(value.childForFieldName("body")!, [...scope, name.text]),
              null,
            ),
          );
        } else if (value.type === "object") {
          // `const api = { get() {…}, put: async () => {…} }`: a module object with methods.
          const methods = objectMethods(value, [...scope, name.text]);
          if (methods.length) out.push(...one("object", name, node, outer, scope, methods, null));
        }
      }
      return out;
    }
    default:
      return [];
  }
}

/** The methods of an object literal: `m() {}` and `m: function () {}` / `m: () => {}`. */
function objectMethods(object: Node, scope: string[]): JsSymbol[] {
  const out: JsSymbol[] = [];
  for (const member of object.namedChildren) {
    if (member?.type === "method_definition") {
      const name = member.childForFieldName("name");
      out.push(...one("method", name, member, member, scope, [], member.childForFieldName("body")));
    } else if (member?.type === "pair") {
      const value = member.childForFieldName("value");
      const key = member.childForFieldName("key");
      if (!value || !FUNCTION_VALUES.has(value.type) || key?.type !== "property_identifier") {
        continue;
      }
      out.push(...one("method", key, member, member, scope, [], value.childForFieldName("body")));
    }
  }
  return out;
}

function members(body: Node, scope: string[]): JsSymbol[] {
  const out: JsSymbol[] = [];
  for (const member of body.namedChildren) {
    if (!member) continue;
    if (
      member.type === "method_definition" || member.type === "method_signature" ||
      member.type === "abstract_method_signature"
    ) {
      out.push(
        ...one(
          "method",
          member.childForFieldName("name"),
          member,
          member,
          scope,
          [],
          member.childForFieldName("body"),
        ),
      );
    } else if (member.type === "public_field_definition" || member.type === "field_definition") {
      const value = member.childForFieldName("value");
      const kind = value && FUNCTION_VALUES.has(value.type) ? "method" : "field";
      out.push(
        ...one(
          kind,
          member.childForFieldName("name") ?? member.childForFieldName("property"),
          member,
          member,
          scope,
          [],
          value?.childForFieldName("body") ?? null,
        ),
      );
    }
  }
  return out;
}

function one(
  kind: string,
  name: Node | null,
  node: Node,
  outer: Node,
  scope: string[],
  children: JsSymbol[],
  body: Node | null,
): JsSymbol[] {
  if (!name) return [];
  const end = node.endPosition;
  return [{
    kind,
    name: name.text,
    qualified: [...scope, name.text].join("."),
    start_line: outer.startPosition.row + 1,
    end_line: end.column === 0 && end.row > node.startPosition.row ? end.row : end.row + 1,
    startIndex: outer.startIndex,
    endIndex: Math.max(node.endIndex, outer === node ? node.endIndex : outer.endIndex),
    bodyIndex: body?.startIndex,
    bodyEndIndex: body?.endIndex,
    children,
  }];
}
