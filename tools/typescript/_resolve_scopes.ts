/**
 * The facts walker's bindings: destructuring patterns, parameters (a
 * parameter property becomes a member of its class), and functions with
 * their own scope and `this`.
 *
 * @module
 */

import type { Node } from "web-tree-sitter";
import { type At, linesOf, type Walker } from "./_resolve_builder.ts";
import { hasToken, statementOf, typeChain } from "./_resolve_chain.ts";
import { type Chain, type DeclKind, IN_ERROR, TYPE_POSITION, VALUE } from "./_resolve_facts.ts";

/** How a pattern's names are declared. */
export interface PatternDecl {
  /** What declares them. */
  kind: DeclKind;
  /** The scope they go to. */
  scope: number;
  /** The lines of their declaration. */
  lines: [number, number];
  /** What the pattern destructures (its keys are read from it). */
  source?: Chain;
  /** What a plain name is initialised with. */
  value?: Chain;
  /** A plain name's type annotation. */
  type?: Chain;
}
/**
 * Declare the names of a binding pattern (`a`, `{ a, b: [c] }`, `...rest`, defaults).
 *
 * @param w The walker.
 * @param node The pattern.
 * @param at Where it is (default values are walked here).
 * @param how How its names are declared.
 */
export function declarePattern(w: Walker, node: Node, at: At, how: PatternDecl): void {
  const { kind, scope, lines } = how;
  switch (node.type) {
    case "identifier": {
      const extra = {
        ...(how.value ? { value: how.value } : {}),
        ...(how.type ? { type: how.type } : {}),
      };
      w.b.declare(node, { kind, space: VALUE, scope, lines, flags: at.flags & IN_ERROR, ...extra });
      return;
    }
    case "object_pattern":
      for (const child of node.namedChildren) if (child) objectPatternPart(w, child, at, how);
      return;
    case "array_pattern":
    case "rest_pattern":
      for (const child of node.namedChildren) {
        if (child) declarePattern(w, child, at, { kind, scope, lines });
      }
      return;
    case "assignment_pattern": {
      const left = node.childForFieldName("left");
      const right = node.childForFieldName("right");
      if (right) w.visit(right, at);
      if (left) declarePattern(w, left, at, how);
      return;
    }
    default:
      w.visit(node, at); // a member expression in `for (a.b of c)`, an error
  }
}

/** One part of `{ … }` in a pattern. */
function objectPatternPart(w: Walker, node: Node, at: At, how: PatternDecl): void {
  const { kind, scope, lines, source } = how;
  switch (node.type) {
    case "shorthand_property_identifier_pattern":
      w.b.declare(node, {
        kind,
        space: VALUE,
        scope,
        lines,
        flags: at.flags & IN_ERROR,
        ...(source ? destructured(source, node.text) : {}),
      });
      return;
    case "object_assignment_pattern": {
      const left = node.childForFieldName("left");
      const right = node.childForFieldName("right");
      if (right) w.visit(right, at);
      if (left) objectPatternPart(w, left, at, how);
      return;
    }
    case "pair_pattern":
      return pairPattern(w, node, at, how);
    default:
      declarePattern(w, node, at, { kind, scope, lines });
  }
}

/** `{ a: b }` in a pattern: `a` read from the source, `b` declared (the module's `a` under another name). */
function pairPattern(w: Walker, node: Node, at: At, how: PatternDecl): void {
  const { kind, scope, lines, source } = how;
  const key = node.childForFieldName("key");
  const value = node.childForFieldName("value");
  let inner: Chain | undefined;
  if (key?.type === "property_identifier") {
    w.b.occ(key, source ? "prop" : "key", {
      flags: at.flags & IN_ERROR,
      ...(source ? { receiver: source } : {}),
    });
    if (source) inner = { root: source.root, path: [...source.path, key.text] };
  } else if (key) w.visit(key, at);
  if (!value) return;
  declarePattern(w, value, at, {
    kind,
    scope,
    lines,
    ...(inner ? { value: inner, source: inner } : {}),
  });
  if (inner?.root.kind === "module") aliasLast(w, value, inner);
}

/** A destructured name: read from `source`; the same symbol when the source is a module. */
function destructured(source: Chain, name: string) {
  const chain: Chain = { root: source.root, path: [...source.path, name] };
  return {
    receiver: source,
    value: chain,
    ...(source.root.kind === "module" ? { alias: chain } : {}),
  };
}

/** `const { a: b } = require("x")`: `b` is the module's `a` under another name. */
function aliasLast(w: Walker, value: Node, chain: Chain): void {
  if (value.type !== "identifier") return;
  const occ = w.b.occAt(value.startIndex);
  if (occ !== undefined) w.b.decls[w.b.occs[occ]!.decl]!.alias = chain;
}
/**
 * A parameter (`a`, `a: T = 1`, `{ a }`, `private a: T`); a parameter
 * property becomes a member of the constructor's class.
 *
 * @param w The walker.
 * @param node A `required_parameter` or `optional_parameter`.
 * @param at Where it is (the function's scope).
 */
export function parameter(w: Walker, node: Node, at: At): void {
  const pattern = node.childForFieldName("pattern");
  const annotation = node.childForFieldName("type");
  const value = node.childForFieldName("value");
  if (annotation) w.visit(annotation, { ...at, flags: at.flags | TYPE_POSITION });
  if (value) w.visit(value, at);
  if (!pattern || pattern.type === "this") return;
  const type = typeChain(w.b, annotation, at);
  const lines = linesOf(node);
  const before = w.b.occs.length;
  declarePattern(w, pattern, at, {
    kind: "param",
    scope: at.scope,
    lines,
    ...(type ? { type, value: { root: { kind: "unknown" }, path: [] } } : {}),
  });
  const property = node.namedChildren.some((c) => c?.type === "accessibility_modifier") ||
    hasToken(node, "readonly") || node.namedChildren.some((c) => c?.type === "override_modifier");
  if (
    property && at.self.container >= 0 && pattern.type === "identifier" && before < w.b.occs.length
  ) {
    const occ = before;
    w.b.member(at.self.container, occ, {
      static: false,
      lines,
      param: w.b.occs[occ]!.decl,
      ...(type ? { type } : {}),
    });
  }
}

/**
 * A function's parameters and body in a new function scope.
 *
 * @param w The walker.
 * @param node The function (declaration, expression, arrow, method).
 * @param at Where the function is.
 * @param self What `this` is inside.
 */
export function functionScope(
  w: Walker,
  node: Node,
  at: At,
  self: At["self"],
): Chain | undefined {
  const scope = w.b.scope(at.scope, true);
  const inner: At = { scope, self, flags: at.flags & IN_ERROR, ns: at.ns };
  const name = node.childForFieldName("name");
  const single = node.childForFieldName("parameter"); // `x => …`
  if (single?.type === "identifier") {
    w.b.declare(single, { kind: "param", space: VALUE, scope, lines: linesOf(single) });
  }
  for (const child of node.namedChildren) {
    if (!child || child.id === name?.id || child.id === single?.id) continue;
    if (child.type === "statement_block") w.visitChildren(child, inner);
    else w.visit(child, inner);
  }
  return typeChain(w.b, node.childForFieldName("return_type"), inner);
}

/**
 * `function f() {}`, a signature (`declare function f(): void;`, overloads).
 *
 * @param w The walker.
 * @param node The declaration.
 * @param at Where it is.
 */
export function functionDeclaration(w: Walker, node: Node, at: At): void {
  const name = node.childForFieldName("name");
  const lines = linesOf(statementOf(node));
  const occ = name
    ? w.b.declare(name, { kind: "function", space: VALUE, scope: at.scope, lines })
    : undefined;
  const returns = functionScope(w, node, at, { container: -1, static: false });
  if (occ !== undefined && returns) w.b.decls[w.b.occs[occ]!.decl]!.returns ??= returns;
}

/**
 * A function expression: its own name is seen only inside it.
 *
 * @param w The walker.
 * @param node The expression.
 * @param at Where it is.
 */
export function functionExpression(w: Walker, node: Node, at: At): void {
  const name = node.childForFieldName("name");
  let outer = at;
  if (name) {
    const scope = w.b.scope(at.scope, false);
    w.b.declare(name, { kind: "function", space: VALUE, scope, lines: linesOf(node) });
    outer = { ...at, scope };
  }
  functionScope(w, node, outer, { container: -1, static: false });
}

/**
 * An arrow function: `this` is the enclosing one.
 *
 * @param w The walker.
 * @param node The arrow function.
 * @param at Where it is.
 */
export function arrowFunction(w: Walker, node: Node, at: At): void {
  functionScope(w, node, at, at.self);
}
