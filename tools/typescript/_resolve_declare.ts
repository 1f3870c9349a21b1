/**
 * The facts walker's declarations: variables (a class or object literal
 * bound to a `const` names a container), type aliases and parameters,
 * enums and namespaces, each name put in the scope it belongs to.
 *
 * @module
 */

import type { Node } from "web-tree-sitter";
import { type At, linesOf, type Walker } from "./_resolve_builder.ts";
import { chainOf, hasToken, statementOf, typeChain } from "./_resolve_chain.ts";
import { classDeclaration, objectLiteral } from "./_resolve_classes.ts";
import { BOTH, type DeclKind, IN_ERROR, TYPE, TYPE_POSITION, VALUE } from "./_resolve_facts.ts";
import { declarePattern } from "./_resolve_scopes.ts";

/**
 * `var`, `let` and `const` declarations (`var` goes to the function's scope).
 *
 * @param w The walker.
 * @param node A `variable_declaration` or `lexical_declaration`.
 * @param at Where it is.
 */
export function variableDeclaration(w: Walker, node: Node, at: At): void {
  const kind: DeclKind = node.type === "variable_declaration"
    ? "var"
    : hasToken(node, "const")
    ? "const"
    : "let";
  const scope = kind === "var" ? w.b.functionScope(at.scope) : at.scope;
  const lines = linesOf(statementOf(node));
  for (const declarator of node.namedChildren) {
    if (declarator?.type !== "variable_declarator") {
      if (declarator) w.visit(declarator, at);
      continue;
    }
    const name = declarator.childForFieldName("name");
    const value = declarator.childForFieldName("value");
    const annotation = declarator.childForFieldName("type");
    if (annotation) w.visit(annotation, { ...at, flags: at.flags | TYPE_POSITION });
    const type = typeChain(w.b, annotation, at);
    if (!name) continue;
    if (name.type === "identifier") {
      const occ = w.b.declare(name, {
        kind,
        space: VALUE,
        scope,
        lines,
        ...(type ? { type } : {}),
      });
      const decl = w.b.occs[occ]!.decl;
      if (value) {
        namedValue(w, value, at, kind === "const" ? decl : -1);
        w.b.decls[decl]!.value = chainOf(w.b, value, at);
      }
    } else {
      if (value) w.visit(value, at);
      const source = value ? chainOf(w.b, value, at) : undefined;
      declarePattern(w, name, at, { kind, scope, lines, ...(source ? { source } : {}) });
    }
  }
}

/** A value bound to a name: a class or object literal becomes that name's container. */
function namedValue(w: Walker, value: Node, at: At, decl: number): void {
  if (value.type === "class") classDeclaration(w, value, at, decl);
  else if (value.type === "object" && decl >= 0) {
    const name = w.b.decls[decl]!;
    const container = w.b.container({ kind: "object", name: name.name, decl, lines: name.lines });
    objectLiteral(w, value, at, container);
  } else w.visit(value, at);
}
/**
 * `type T = …`: a type; its parameters are seen only inside.
 *
 * @param w The walker.
 * @param node The `type_alias_declaration`.
 * @param at Where it is.
 */
export function typeAlias(w: Walker, node: Node, at: At): void {
  const name = node.childForFieldName("name");
  if (name) {
    w.b.declare(name, {
      kind: "type",
      space: TYPE,
      scope: at.scope,
      lines: linesOf(statementOf(node)),
    });
  }
  const inner: At = { ...at, scope: w.b.scope(at.scope, false), flags: at.flags | TYPE_POSITION };
  for (const child of node.namedChildren) if (child && child.id !== name?.id) w.visit(child, inner);
}

/**
 * A type parameter (`<T extends U>`): a type in the scope it is walked in.
 *
 * @param w The walker.
 * @param node The `type_parameter`.
 * @param at The scope of the declaration that has it.
 */
export function typeParameter(w: Walker, node: Node, at: At): void {
  const name = node.childForFieldName("name") ?? node.namedChildren[0];
  if (name?.type === "type_identifier") {
    w.b.declare(name, { kind: "type", space: TYPE, scope: at.scope, lines: linesOf(node) });
  }
  for (const child of node.namedChildren) if (child && child.id !== name?.id) w.visit(child, at);
}

/**
 * An enum: a value and a type, and a container of its members.
 *
 * @param w The walker.
 * @param node The `enum_declaration`.
 * @param at Where it is.
 */
export function enumDeclaration(w: Walker, node: Node, at: At): void {
  const name = node.childForFieldName("name");
  const body = node.childForFieldName("body");
  const lines = linesOf(statementOf(node));
  if (!name || !body) return w.visitChildren(node, at);
  const decl = w.b.occs[w.b.declare(name, { kind: "enum", space: BOTH, scope: at.scope, lines })]!
    .decl;
  const container = w.b.container({ kind: "enum", name: name.text, decl, lines });
  for (const member of body.namedChildren) {
    if (!member) continue;
    const key = member.type === "enum_assignment" ? member.childForFieldName("name") : member;
    if (key?.type === "property_identifier") {
      const occ = w.b.occ(key, "member", { container, flags: at.flags & IN_ERROR });
      w.b.member(container, occ, { static: true, lines: linesOf(member) });
    }
    const value = member.type === "enum_assignment" ? member.childForFieldName("value") : null;
    if (value) w.visit(value, at);
  }
}

/**
 * `namespace N { … }`: a value and a type; its exported declarations are its members.
 *
 * @param w The walker.
 * @param node The `internal_module` (or `module`).
 * @param at Where it is.
 */
export function namespaceDeclaration(w: Walker, node: Node, at: At): void {
  const name = node.childForFieldName("name");
  const body = node.childForFieldName("body");
  const lines = linesOf(statementOf(node));
  let decl = -1;
  if (name?.type === "identifier") {
    decl = w.b.occs[w.b.declare(name, { kind: "namespace", space: BOTH, scope: at.scope, lines })]!
      .decl;
  }
  const container = w.b.container({ kind: "namespace", name: name?.text ?? "", decl, lines });
  if (!body) return;
  const scope = w.b.scope(at.scope, true);
  w.visitChildren(body, { ...at, scope, ns: container });
}
