/**
 * The facts walker's containers: classes (what they extend and implement,
 * their members, their methods with `this` known), interfaces, and object
 * literals.
 *
 * @module
 */

import type { Node } from "web-tree-sitter";
import { type At, linesOf, type Walker } from "./_resolve_builder.ts";
import { chainOf, hasToken, statementOf, typeChain } from "./_resolve_chain.ts";
import { BOTH, COMPUTED, IN_ERROR, type Member, TYPE, TYPE_POSITION } from "./_resolve_facts.ts";
import { functionScope } from "./_resolve_scopes.ts";

/**
 * A class (declaration or expression): its name, what it extends and
 * implements, its members, and its methods' bodies with `this` known.
 *
 * @param w The walker.
 * @param node The class.
 * @param at Where it is.
 * @param named The declaration a class expression is bound to (-1 none).
 * @param declares Its name is declared where it is (a declaration, `export default class C`).
 */
export function classDeclaration(
  w: Walker,
  node: Node,
  at: At,
  named = -1,
  declares = node.type !== "class",
): void {
  const name = node.childForFieldName("name");
  const lines = linesOf(statementOf(node));
  let decl = named;
  const scope = w.b.scope(at.scope, false);
  if (name) {
    const into = declares ? at.scope : scope;
    decl = w.b.occs[w.b.declare(name, { kind: "class", space: BOTH, scope: into, lines })]!.decl;
  }
  const label = name?.text ?? (named >= 0 ? w.b.decls[named]!.name : "");
  const container = w.b.container({ kind: "class", name: label, decl, lines });
  const inner: At = { ...at, scope };
  for (const child of node.namedChildren) {
    if (!child || child.id === name?.id) continue;
    if (child.type === "class_heritage") heritage(w, child, inner, container);
    else if (child.type === "class_body") classBody(w, child, inner, container);
    else w.visit(child, inner);
  }
}

/** `extends B implements I, J`. */
function heritage(w: Walker, node: Node, at: At, container: number): void {
  const target = w.b.containers[container]!;
  for (const clause of node.namedChildren) {
    if (!clause) continue;
    w.visit(clause, at);
    const list = clause.type === "implements_clause" ? target.implements : target.extends;
    for (const type of clause.namedChildren) {
      if (!type || type.type === "type_arguments") continue;
      list.push(chainOf(w.b, type, at));
    }
  }
}

const METHODS = new Set(["method_definition", "method_signature", "abstract_method_signature"]);
const FIELDS = new Set(["public_field_definition", "field_definition", "property_signature"]);

/** The members of a class body, and what their code refers to. */
function classBody(w: Walker, body: Node, at: At, container: number): void {
  for (const member of body.namedChildren) {
    if (!member) continue;
    const isStatic = hasToken(member, "static");
    const self = { container, static: isStatic };
    if (METHODS.has(member.type) || FIELDS.has(member.type)) {
      const name = member.childForFieldName("name") ?? member.childForFieldName("property");
      let made: Member | undefined;
      if (name && isMemberName(name) && name.text !== "constructor") {
        const occ = w.b.occ(name, "member", { container, flags: at.flags & IN_ERROR });
        made = w.b.member(container, occ, { static: isStatic, lines: linesOf(member) });
      } else if (name && name.type === "computed_property_name") w.visit(name, at);
      if (METHODS.has(member.type)) {
        const returns = functionScope(w, member, at, self);
        if (made && returns) made.returns = returns;
      } else {
        fieldInitializer(w, member, at, self, name);
        const type = typeChain(w.b, member.childForFieldName("type"), at);
        if (made && type) made.type = type;
      }
    } else if (member.type === "class_static_block") {
      functionScope(w, member, at, { container, static: true });
    } else w.visit(member, at);
  }
}

/** A field's type and initializer (where `this` is the instance, or the class when static). */
function fieldInitializer(w: Walker, member: Node, at: At, self: At["self"], name: Node | null) {
  const scope = w.b.scope(at.scope, true);
  for (const child of member.namedChildren) {
    if (child && child.id !== name?.id) w.visit(child, { ...at, scope, self });
  }
}

/** A property name a member can be renamed at. */
function isMemberName(node: Node): boolean {
  return node.type === "property_identifier" || node.type === "private_property_identifier";
}

/**
 * An interface: a type, and a container of its members.
 *
 * @param w The walker.
 * @param node The `interface_declaration`.
 * @param at Where it is.
 */
export function interfaceDeclaration(w: Walker, node: Node, at: At): void {
  const name = node.childForFieldName("name");
  const lines = linesOf(statementOf(node));
  if (!name) return w.visitChildren(node, at);
  const decl = w.b.occs[w.b.declare(name, { kind: "type", space: TYPE, scope: at.scope, lines })]!
    .decl;
  const container = w.b.container({ kind: "interface", name: name.text, decl, lines });
  const inner: At = { ...at, scope: w.b.scope(at.scope, false), flags: at.flags | TYPE_POSITION };
  for (const child of node.namedChildren) {
    if (!child || child.id === name.id) continue;
    if (child.type === "extends_type_clause") {
      w.visit(child, inner);
      for (const type of child.namedChildren) {
        if (type) w.b.containers[container]!.extends.push(chainOf(w.b, type, inner));
      }
    } else if (child.type === "interface_body" || child.type === "object_type") {
      classBody(w, child, inner, container);
    } else w.visit(child, inner);
  }
}

/**
 * An object literal: keys of a container (when it is bound to a `const`) or
 * plain keys; `{ a }` refers to `a`; methods see the object as `this`.
 *
 * @param w The walker.
 * @param node The `object`.
 * @param at Where it is.
 * @param container The container it is (-1 none).
 */
export function objectLiteral(w: Walker, node: Node, at: At, container = -1): void {
  const kind = container >= 0 ? "member" : "key";
  const flags = at.flags & IN_ERROR;
  for (const child of node.namedChildren) {
    if (!child) continue;
    const lines = linesOf(child);
    if (child.type === "pair") {
      const key = child.childForFieldName("key");
      const value = child.childForFieldName("value");
      if (value) w.visit(value, at);
      const stored = value?.type === "identifier" ? w.b.occAt(value.startIndex) : undefined;
      if (key?.type === "property_identifier" || key?.type === "string") {
        const extra = { container, flags: flags | (key.type === "string" ? COMPUTED : 0) };
        const occ = w.b.occ(key, kind, stored === undefined ? extra : { ...extra, value: stored });
        if (container >= 0) w.b.member(container, occ, { static: true, lines });
      } else if (key) w.visit(key, at);
    } else if (child.type === "shorthand_property_identifier") {
      const occ = w.b.ref(child, at, "shorthand", { container });
      if (container >= 0) w.b.member(container, occ, { static: true, lines });
    } else if (child.type === "method_definition") {
      const name = child.childForFieldName("name");
      if (name?.type === "property_identifier") {
        const occ = w.b.occ(name, kind, { container, flags });
        if (container >= 0) w.b.member(container, occ, { static: true, lines });
      } else if (name) w.visit(name, at);
      functionScope(w, child, at, { container, static: false });
    } else w.visit(child, at);
  }
}
