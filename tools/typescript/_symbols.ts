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
import { MAX_NESTING, tooDeep } from "../_treesitter.ts";
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

/**
 * A top-level assignment that defines something, CommonJS style: an export
 * (`exports.x = …`, `module.exports.x = …`, whatever its value), and a
 * function or class put on a file's object or its prototype
 * (`proto.handle = function …` as `proto.handle`, `Route.prototype.dispatch
 * = function …` as `Route.dispatch`). In a chain (`req.get = req.header =
 * function …`) each name is a symbol with the one body.
 */
function assignedSymbols(site: Site): JsSymbol[] {
  const targets: Node[] = [];
  let value: Node | null = site.node;
  while (value?.type === "assignment_expression") {
    const left = value.childForFieldName("left");
    if (left) targets.push(left);
    value = value.childForFieldName("right");
  }
  if (!value) return [];
  return targets.flatMap((left) => assignedTo(left, value, site));
}

/** The symbol an assignment of a value to one member expression defines, if any. */
function assignedTo(left: Node, value: Node, site: Site): JsSymbol[] {
  if (left.type !== "member_expression") return [];
  const object = left.childForFieldName("object");
  const property = left.childForFieldName("property");
  if (!object || property?.type !== "property_identifier") return [];
  const exported = object.text === "exports" || object.text === "module.exports";
  const scope = exported ? [] : ownerOf(object);
  if (scope === undefined) return [];
  const at = { ...site, scope };
  if (FUNCTION_VALUES.has(value.type)) {
    return one("function", property, at, { body: value.childForFieldName("body") });
  }
  if (value.type === "class") {
    return one("class", property, at, {
      children: members(value.childForFieldName("body")!, [...scope, property.text]),
    });
  }
  return exported ? one("variable", property, at) : [];
}

/** The dotted scope a member is put on: `proto` for `proto.x`, `Route` for `Route.prototype.x`. */
function ownerOf(object: Node): string[] | undefined {
  if (object.type === "identifier") return [object.text];
  const inner = object.childForFieldName("object");
  const property = object.childForFieldName("property");
  if (
    object.type === "member_expression" && inner?.type === "identifier" &&
    property?.text === "prototype"
  ) {
    return [inner.text];
  }
  return undefined;
}

/**
 * `const f = () => …`, `const C = class {…}`, `const api = { get() {…} }`;
 * and any exported variable (`export const parse: Parser = make()`).
 */
function variableSymbols(site: Site): JsSymbol[] {
  const out: JsSymbol[] = [];
  for (const declarator of site.node.namedChildren) {
    if (declarator?.type !== "variable_declarator") continue;
    const value = declarator.childForFieldName("value");
    const name = declarator.childForFieldName("name");
    if (!value || !name || name.type !== "identifier") continue;
    const inner = [...site.scope, name.text];
    if (FUNCTION_VALUES.has(value.type)) {
      out.push(...one("function", name, site, { body: value.childForFieldName("body") }));
    } else if (value.type === "class") {
      out.push(
        ...one("class", name, site, { children: members(value.childForFieldName("body")!, inner) }),
      );
    } else if (value.type === "object") {
      // `const api = { get() {…}, put: async () => {…} }`: a module object with methods.
      const methods = objectMethods(value, inner);
      if (methods.length) out.push(...one("object", name, site, { children: methods }));
      else if (site.outer !== site.node) out.push(...one("variable", name, site));
    } else if (site.outer !== site.node) {
      out.push(...one("variable", name, site));
    }
  }
  return out;
}

/** The methods of an object literal: `m() {}` and `m: function () {}` / `m: () => {}`. */
function objectMethods(object: Node, scope: string[]): JsSymbol[] {
  const out: JsSymbol[] = [];
  for (const member of object.namedChildren) {
    if (!member) continue;
    const site: Site = { node: member, outer: member, scope };
    if (member.type === "method_definition") {
      const name = member.childForFieldName("name");
      out.push(...one("method", name, site, { body: member.childForFieldName("body") }));
    } else if (member.type === "pair") {
      const value = member.childForFieldName("value");
      const key = member.childForFieldName("key");
      if (!value || !FUNCTION_VALUES.has(value.type) || key?.type !== "property_identifier") {
        continue;
      }
      out.push(...one("method", key, site, { body: value.childForFieldName("body") }));
    }
  }
  return out;
}

const METHODS = new Set(["method_definition", "method_signature", "abstract_method_signature"]);
const FIELDS = new Set(["public_field_definition", "field_definition"]);

/** The methods and fields of a class or interface body. */
function members(body: Node, scope: string[]): JsSymbol[] {
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
interface Site {
  node: Node;
  outer: Node;
  scope: string[];
}

/** What a symbol may have besides its name and place. */
interface Parts {
  children?: JsSymbol[];
  body?: Node | null;
}

/** The symbol, or none when it has no name. */
function one(kind: string, name: Node | null, site: Site, parts: Parts = {}): JsSymbol[] {
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
