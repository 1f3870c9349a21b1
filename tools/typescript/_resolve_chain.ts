/**
 * Small readings of TS/JS syntax the facts walker shares: what value an
 * expression names (as a {@linkcode Chain}), a type annotation's name, a
 * string literal's text, a keyword child.
 *
 * @module
 */

import type { Node } from "web-tree-sitter";
import type { At, FactsBuilder } from "./_resolve_builder.ts";
import type { Chain } from "./_resolve_facts.ts";

const UNKNOWN: Chain = { root: { kind: "unknown" }, path: [] };
const LITERAL: Chain = { root: { kind: "literal" }, path: [] };

const LITERALS = new Set([
  "string",
  "template_string",
  "number",
  "array",
  "regex",
  "true",
  "false",
  "null",
  "object",
  "arrow_function",
  "function_expression",
  "function",
]);

const WRAPPERS = new Set([
  "parenthesized_expression",
  "non_null_expression",
  "as_expression",
  "satisfies_expression",
  "type_assertion",
]);

/**
 * What an expression names, once walked: an identifier's declaration, `this`,
 * a module (`require("x")`), `new X()`, with the property names read from it.
 *
 * @param b The facts being built (the identifiers' occurrences).
 * @param node The expression.
 * @param at Where it is (`this`).
 * @returns The chain (root `unknown` when it is none of these).
 */
export function chainOf(b: FactsBuilder, node: Node, at: At): Chain {
  switch (node.type) {
    case "identifier":
    case "type_identifier": {
      const occ = b.occAt(node.startIndex);
      return occ === undefined ? UNKNOWN : { root: { kind: "ref", occ }, path: [] };
    }
    case "this":
      return { root: { kind: "this", ...at.self }, path: [] };
    case "super":
      return { root: { kind: "super", ...at.self }, path: [] };
    case "member_expression":
    case "nested_type_identifier":
    case "nested_identifier":
      return propertyChain(b, node, at);
    case "generic_type": {
      const name = node.childForFieldName("name") ?? node.namedChildren[0];
      return name ? chainOf(b, name, at) : UNKNOWN;
    }
    case "call_expression":
    case "await_expression": {
      const spec = moduleCall(node);
      if (spec !== undefined) return { root: { kind: "module", spec }, path: [] };
      const fn = node.type === "call_expression" ? node.childForFieldName("function") : null;
      return fn ? { root: { kind: "call", callee: chainOf(b, fn, at) }, path: [] } : UNKNOWN;
    }
    case "new_expression": {
      const ctor = node.childForFieldName("constructor");
      return ctor ? { root: { kind: "new", ctor: chainOf(b, ctor, at) }, path: [] } : UNKNOWN;
    }
    default: {
      if (WRAPPERS.has(node.type)) {
        const inner = node.childForFieldName("expression") ?? node.namedChildren[0];
        return inner ? chainOf(b, inner, at) : UNKNOWN;
      }
      return LITERALS.has(node.type) ? LITERAL : UNKNOWN;
    }
  }
}

/** `a.b`, `ns.T`: the object's chain and the property's name. */
function propertyChain(b: FactsBuilder, node: Node, at: At): Chain {
  const object = node.childForFieldName("object") ?? node.childForFieldName("module") ??
    node.namedChildren[0];
  const property = node.childForFieldName("property") ?? node.childForFieldName("name") ??
    node.namedChildren.at(-1);
  if (!object || !property || property.id === object.id) return UNKNOWN;
  const inner = chainOf(b, object, at);
  return { root: inner.root, path: [...inner.path, property.text] };
}

/**
 * The module a `require("x")` or `await import("x")` loads.
 *
 * @param node A call or an `await`.
 * @returns The specifier, or undefined when it is neither (or not a literal).
 */
export function moduleCall(node: Node): string | undefined {
  const call = node.type === "await_expression" ? node.namedChildren[0] : node;
  if (call?.type !== "call_expression") return undefined;
  const fn = call.childForFieldName("function");
  const isRequire = fn?.type === "identifier" && fn.text === "require";
  const isImport = fn?.type === "import" && node.type === "await_expression";
  if (!isRequire && !isImport) return undefined;
  const args = call.childForFieldName("arguments")?.namedChildren ?? [];
  return args.length === 1 && args[0]?.type === "string" ? stringValue(args[0]) : undefined;
}

/**
 * The name a type annotation names (`: Client`, `: ns.Client<T>`), once walked.
 *
 * @param b The facts being built.
 * @param annotation A `type_annotation` node.
 * @param at Where it is.
 * @returns The chain, or undefined for other types (unions, literals, ...).
 */
export function typeChain(b: FactsBuilder, annotation: Node | null, at: At): Chain | undefined {
  const type = annotation?.namedChildren[0];
  if (!type) return undefined;
  if (!/^(type_identifier|nested_type_identifier|generic_type)$/.test(type.type)) return undefined;
  const chain = chainOf(b, type, at);
  return chain.root.kind === "ref" ? chain : undefined;
}

/**
 * A string literal's text (without escapes undone: module specifiers have none).
 *
 * @param node A `string` node.
 * @returns Its text.
 */
export function stringValue(node: Node | null): string | undefined {
  if (node?.type !== "string") return undefined;
  return node.namedChildren.map((part) => part?.text ?? "").join("");
}

/**
 * Whether a node has a keyword child (`static`, `default`, `const`).
 *
 * @param node The node.
 * @param keyword The keyword.
 * @returns True when one of its unnamed children is that keyword.
 */
export function hasToken(node: Node, keyword: string): boolean {
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i);
    if (child && !child.isNamed && child.type === keyword) return true;
  }
  return false;
}

/**
 * The node a declaration's lines cover: its `export` (and `declare`) wrapper when it has one.
 *
 * @param node A declaration.
 * @returns The node whose lines it has.
 */
export function statementOf(node: Node): Node {
  let outer = node;
  while (
    outer.parent?.type === "export_statement" || outer.parent?.type === "ambient_declaration"
  ) {
    outer = outer.parent;
  }
  return outer;
}
