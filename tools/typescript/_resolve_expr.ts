/**
 * The facts walker's expressions: property reads (with what they are read
 * from), calls, `new`, assignments — CommonJS exports among them — and JSX
 * element names.
 *
 * @module
 */

import type { Node } from "web-tree-sitter";
import type { At, Walker } from "./_resolve_builder.ts";
import { chainOf, moduleCall, stringValue } from "./_resolve_chain.ts";
import { functionScope } from "./_resolve_scopes.ts";
import { CALL, COMPUTED, EXPORT, IN_ERROR, TYPE_POSITION } from "./_resolve_facts.ts";

const PROPERTY_NAMES = new Set(["property_identifier", "private_property_identifier"]);

/**
 * `x.a`: the object is walked, `a` becomes a property occurrence read from it.
 *
 * @param w The walker.
 * @param node A `member_expression`.
 * @param at Where it is.
 * @param flags More flags for the property ({@linkcode CALL}).
 * @param stored The occurrence of an identifier assigned to it (`x.a = f`).
 * @returns The property's occurrence, when it has a name.
 */
export function memberExpression(
  w: Walker,
  node: Node,
  at: At,
  flags = 0,
  stored?: number,
): number | undefined {
  const object = node.childForFieldName("object");
  const property = node.childForFieldName("property");
  if (object) w.visit(object, at);
  if (!object || !property || !PROPERTY_NAMES.has(property.type)) return undefined;
  const receiver = chainOf(w.b, object, at);
  const occFlags = (at.flags & (IN_ERROR | TYPE_POSITION)) | flags;
  return w.b.occ(property, "prop", {
    receiver,
    flags: occFlags,
    ...(stored === undefined ? {} : { value: stored }),
  });
}

/**
 * `x["a"]`: a string key is a property occurrence that is never renamed.
 *
 * @param w The walker.
 * @param node A `subscript_expression`.
 * @param at Where it is.
 */
export function subscriptExpression(w: Walker, node: Node, at: At): void {
  const object = node.childForFieldName("object");
  const index = node.childForFieldName("index");
  if (object) w.visit(object, at);
  if (!object || !index) return;
  if (index.type === "string" && index.namedChildren.length === 1) {
    w.b.occ(index, "prop", {
      receiver: chainOf(w.b, object, at),
      flags: (at.flags & IN_ERROR) | COMPUTED,
    });
  } else w.visit(index, at);
}

/**
 * `ns.T` in a type: `T` read from `ns`.
 *
 * @param w The walker.
 * @param node A `nested_type_identifier` or `nested_identifier`.
 * @param at Where it is.
 */
export function nestedName(w: Walker, node: Node, at: At): void {
  const object = node.childForFieldName("module") ?? node.namedChildren[0];
  const name = node.childForFieldName("name") ?? node.namedChildren.at(-1);
  if (!object || !name || object.id === name.id) return w.visitChildren(node, at);
  w.visit(object, at);
  w.b.occ(name, "prop", { receiver: chainOf(w.b, object, at), flags: at.flags });
}

/**
 * A call: its callee is marked as called; `__exportStar(require("x"), exports)`
 * re-exports a module; writing `exports` through `Object` makes the exports dynamic.
 *
 * @param w The walker.
 * @param node A `call_expression`.
 * @param at Where it is.
 */
export function callExpression(w: Walker, node: Node, at: At): void {
  const fn = node.childForFieldName("function");
  const args = node.childForFieldName("arguments");
  if (fn && args) exportsCall(w, fn, args);
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.id === fn?.id) callee(w, child, at);
    else w.visit(child, at);
  }
}

/**
 * `new X()`: `X` is marked as called.
 *
 * @param w The walker.
 * @param node A `new_expression`.
 * @param at Where it is.
 */
export function newExpression(w: Walker, node: Node, at: At): void {
  const ctor = node.childForFieldName("constructor");
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.id === ctor?.id) callee(w, child, at);
    else w.visit(child, at);
  }
}

/** A callee: an identifier or a property read, through parentheses and `(0, x.f)`. */
function callee(w: Walker, node: Node, at: At): void {
  switch (node.type) {
    case "identifier":
      w.b.ref(node, at, "ref", { flags: at.flags | CALL });
      return;
    case "member_expression":
      memberExpression(w, node, at, CALL);
      return;
    case "parenthesized_expression":
    case "sequence_expression": {
      const parts = node.namedChildren.filter((c): c is Node => c !== null && c.type !== "comment");
      parts.slice(0, -1).forEach((part) => w.visit(part, at));
      if (parts.length) callee(w, parts.at(-1)!, at);
      return;
    }
    default:
      w.visit(node, at);
  }
}

/** `__exportStar(require("x"), exports)`; `Object.assign(exports, …)` and the like. */
function exportsCall(w: Walker, fn: Node, args: Node): void {
  const list = args.namedChildren;
  if (fn.type === "identifier" && /^__exportStar$|^__export$/.test(fn.text)) {
    const spec = list[0] ? moduleCall(list[0]) : undefined;
    if (spec !== undefined) w.b.star(spec);
    return;
  }
  if (fn.type !== "member_expression" || fn.childForFieldName("object")?.text !== "Object") return;
  if (list[0] && exportsObject(list[0]) !== undefined) w.b.dynamicExports();
}

/** `exports` or `module.exports` as an expression: "exports"; `module.exports.x`'s object too. */
function exportsObject(node: Node): "exports" | undefined {
  if (node.type === "identifier" && node.text === "exports") return "exports";
  if (node.type !== "member_expression") return undefined;
  const object = node.childForFieldName("object");
  const property = node.childForFieldName("property");
  return object?.type === "identifier" && object.text === "module" && property?.text === "exports"
    ? "exports"
    : undefined;
}

/**
 * An assignment: an identifier is marked reassigned; `exports.a = …` and
 * `module.exports = {…}` are CommonJS exports; `x.a = f` stores `f` under `a`.
 *
 * @param w The walker.
 * @param node An `assignment_expression` (or augmented one).
 * @param at Where it is.
 */
export function assignment(w: Walker, node: Node, at: At): void {
  const left = node.childForFieldName("left");
  const right = node.childForFieldName("right");
  if (!left || !right) return w.visitChildren(node, at);
  if (
    left.type === "member_expression" && exportsObject(left) &&
    node.type === "assignment_expression"
  ) {
    w.visit(left, at);
    return moduleExports(w, right, at);
  }
  w.visit(right, at);
  const stored = right.type === "identifier" ? w.b.occAt(right.startIndex) : undefined;
  if (left.type === "identifier") {
    w.b.reassigned(w.b.ref(left, at));
  } else if (left.type === "member_expression") {
    memberAssignment(w, left, at, stored);
  } else if (
    left.type === "subscript_expression" && exportsObject(left.childForFieldName("object") ?? left)
  ) {
    w.b.dynamicExports();
    w.visit(left, at);
  } else w.visit(left, at);
}

/** `exports.a = f` (a CommonJS export), `this.a = f` (a JavaScript field), `x.a = f`. */
function memberAssignment(w: Walker, left: Node, at: At, stored: number | undefined): void {
  const object = left.childForFieldName("object");
  const property = left.childForFieldName("property");
  const value = stored === undefined ? {} : { value: stored };
  if (object && exportsObject(object) && property?.type === "property_identifier") {
    w.visit(object, at);
    const occ = w.b.occ(property, "cjs", { flags: at.flags & IN_ERROR, ...value });
    w.b.export(property.text, { kind: "cjs", occ, ...value });
    return;
  }
  const occ = memberExpression(w, left, at, 0, stored);
  if (occ !== undefined && object?.type === "this" && at.self.container >= 0 && !at.self.static) {
    w.b.assignedMember(at.self.container, occ);
  }
}

/** `module.exports = …`: an object's keys, an identifier, `require("x")`, or something dynamic. */
function moduleExports(w: Walker, right: Node, at: At): void {
  if (right.type === "object") return exportsLiteral(w, right, at);
  w.visit(right, at);
  if (right.type === "identifier") {
    const occ = w.b.occAt(right.startIndex);
    if (occ !== undefined) {
      w.b.occs[occ]!.flags |= EXPORT;
      w.b.export("module.exports", { kind: "local", occ });
      w.b.export("default", { kind: "local", occ });
    }
    return;
  }
  const spec = moduleCall(right);
  if (spec !== undefined) w.b.star(spec);
  else w.b.dynamicExports();
}

/** `module.exports = { a, b: f, c() {} }`: each key is an export. */
function exportsLiteral(w: Walker, node: Node, at: At): void {
  const flags = at.flags & IN_ERROR;
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.type === "shorthand_property_identifier") {
      const occ = w.b.ref(child, at, "ref", { flags: at.flags | EXPORT });
      w.b.export(child.text, { kind: "cjs", occ, value: occ });
    } else if (child.type === "pair") {
      const key = child.childForFieldName("key");
      const value = child.childForFieldName("value");
      if (value) w.visit(value, at);
      const stored = value?.type === "identifier" ? w.b.occAt(value.startIndex) : undefined;
      const name = key?.type === "string" ? stringValue(key) : key?.text;
      if (
        key && name !== undefined && (key.type === "property_identifier" || key.type === "string")
      ) {
        const extra = stored === undefined ? {} : { value: stored };
        const occ = w.b.occ(key, "cjs", {
          flags: flags | (key.type === "string" ? COMPUTED : 0),
          ...extra,
        });
        w.b.export(name, { kind: "cjs", occ, ...extra });
      } else if (key) w.visit(key, at);
    } else if (child.type === "method_definition") {
      const name = child.childForFieldName("name");
      if (name?.type === "property_identifier") {
        const occ = w.b.occ(name, "cjs", { flags });
        w.b.export(name.text, { kind: "cjs", occ });
      }
      functionScope(w, child, at, { container: -1, static: false });
    } else {
      w.b.dynamicExports(); // `...spread`: keys known only at run time
      w.visit(child, at);
    }
  }
}

/**
 * `x++`, `x += 1`: the identifier is marked reassigned.
 *
 * @param w The walker.
 * @param node An `update_expression` or `augmented_assignment_expression`.
 * @param at Where it is.
 */
export function update(w: Walker, node: Node, at: At): void {
  const target = node.childForFieldName("argument") ?? node.childForFieldName("left");
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.id === target?.id && child.type === "identifier") w.b.reassigned(w.b.ref(child, at));
    else w.visit(child, at);
  }
}

/**
 * A JSX tag: an upper-case name (or `a.B`) refers to a component; lower-case
 * names are HTML elements; attribute names are left alone.
 *
 * @param w The walker.
 * @param node A JSX opening, closing or self-closing element.
 * @param at Where it is.
 */
export function jsxTag(w: Walker, node: Node, at: At): void {
  const name = node.childForFieldName("name");
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.id === name?.id) {
      if (child.type !== "identifier" || /^[A-Z_$]/.test(child.text)) w.visit(child, at);
    } else if (child.type === "jsx_attribute") {
      for (const part of child.namedChildren) {
        if (part && part.type !== "property_identifier") w.visit(part, at);
      }
    } else w.visit(child, at);
  }
}
