/**
 * TypeScript/JavaScript symbols that values define: `const f = () => …`,
 * `const C = class {…}`, objects with methods, exported variables, and
 * CommonJS's top-level assignments (`exports.x = …`, `proto.x = function …`).
 *
 * @module
 */

import type { Node } from "web-tree-sitter";
import { FUNCTION_VALUES, type JsSymbol, members, one, type Site } from "./_symbol_make.ts";

/**
 * A top-level assignment that defines something, CommonJS style: an export
 * (`exports.x = …`, `module.exports.x = …`, whatever its value), and a
 * function or class put on a file's object or its prototype
 * (`proto.handle = function …` as `proto.handle`, `Route.prototype.dispatch
 * = function …` as `Route.dispatch`). In a chain (`req.get = req.header =
 * function …`) each name is a symbol with the one body.
 */
export function assignedSymbols(site: Site): JsSymbol[] {
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
export function variableSymbols(site: Site): JsSymbol[] {
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
