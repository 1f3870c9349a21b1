/**
 * The facts walker: one pass over a TS/JS tree that declares every name in
 * its scope (module, function, block, class; `var` and functions hoisted,
 * parameters, catch clauses), records every identifier-like token, and
 * resolves references once the pass is done.
 *
 * @module
 */

import type { Node, Tree } from "web-tree-sitter";
import { ToolError } from "../../security/errors.ts";
import { type At, FactsBuilder, linesOf, type Walker } from "./_resolve_builder.ts";
import { classDeclaration, interfaceDeclaration, objectLiteral } from "./_resolve_classes.ts";
import {
  enumDeclaration,
  namespaceDeclaration,
  typeAlias,
  typeParameter,
  variableDeclaration,
} from "./_resolve_declare.ts";
import {
  arrowFunction,
  declarePattern,
  functionDeclaration,
  functionExpression,
  parameter,
} from "./_resolve_scopes.ts";
import {
  assignment,
  callExpression,
  jsxTag,
  memberExpression,
  nestedName,
  newExpression,
  subscriptExpression,
  update,
} from "./_resolve_expr.ts";
import { IN_ERROR, type JsFacts, TYPE_POSITION } from "./_resolve_facts.ts";
import { exportStatement, importStatement } from "./_resolve_imports.ts";
import { hasToken } from "./_resolve_chain.ts";

/** Syntax nesting past which a file is left out (a stack's worth, far beyond real code). */
export const MAX_SYNTAX_DEPTH = 2000;

type Handler = (w: Walker, node: Node, at: At) => void;

const block: Handler = (w, node, at) =>
  w.visitChildren(node, { ...at, scope: w.b.scope(at.scope) });
const nothing: Handler = () => {};

const HANDLERS: Readonly<Record<string, Handler>> = {
  identifier: (w, node, at) => void w.b.ref(node, at),
  type_identifier: (w, node, at) => void w.b.ref(node, { ...at, flags: at.flags | TYPE_POSITION }),
  shorthand_property_identifier: (w, node, at) => void w.b.ref(node, at, "shorthand"),
  shorthand_property_identifier_pattern: (w, node, at) => w.b.reassigned(w.b.ref(node, at)),
  property_identifier: (w, node, at) => void w.b.occ(node, "key", { flags: at.flags & IN_ERROR }),
  private_property_identifier: nothing,
  statement_identifier: nothing,
  comment: nothing,
  string: nothing,
  regex: nothing,
  number: nothing,
  ERROR: (w, node, at) => w.visitChildren(node, { ...at, flags: at.flags | IN_ERROR }),
  import_statement: importStatement,
  export_statement: exportStatement,
  lexical_declaration: variableDeclaration,
  variable_declaration: variableDeclaration,
  function_declaration: functionDeclaration,
  generator_function_declaration: functionDeclaration,
  function_signature: functionDeclaration,
  function_expression: functionExpression,
  generator_function: functionExpression,
  function: functionExpression,
  arrow_function: arrowFunction,
  method_definition: (w, node, at) => objectLiteralMethod(w, node, at),
  class_declaration: (w, node, at) => classDeclaration(w, node, at),
  abstract_class_declaration: (w, node, at) => classDeclaration(w, node, at),
  class: (w, node, at) => classDeclaration(w, node, at),
  interface_declaration: interfaceDeclaration,
  type_alias_declaration: typeAlias,
  type_parameter: typeParameter,
  enum_declaration: enumDeclaration,
  internal_module: namespaceDeclaration,
  module: namespaceDeclaration,
  required_parameter: parameter,
  optional_parameter: parameter,
  statement_block: block,
  switch_body: block,
  for_statement: block,
  for_in_statement: forIn,
  catch_clause: catchClause,
  object: (w, node, at) => objectLiteral(w, node, at),
  member_expression: (w, node, at) => void memberExpression(w, node, at),
  subscript_expression: subscriptExpression,
  nested_type_identifier: nestedName,
  call_expression: callExpression,
  new_expression: newExpression,
  assignment_expression: assignment,
  augmented_assignment_expression: update,
  update_expression: update,
  jsx_opening_element: jsxTag,
  jsx_closing_element: jsxTag,
  jsx_self_closing_element: jsxTag,
  type_annotation: (w, node, at) =>
    w.visitChildren(node, { ...at, flags: at.flags | TYPE_POSITION }),
};

/** A method outside a class body (classes handle their own): an object literal's, in an error. */
function objectLiteralMethod(w: Walker, node: Node, at: At): void {
  for (const child of node.namedChildren) {
    if (child && child.type !== "property_identifier") w.visit(child, at);
  }
}

/** `for (const x of xs)`, `for (k in o)`: the loop's own scope. */
function forIn(w: Walker, node: Node, at: At): void {
  const scope = w.b.scope(at.scope);
  const inner: At = { ...at, scope };
  const left = node.childForFieldName("left");
  const kind = hasToken(node, "const")
    ? "const"
    : hasToken(node, "let")
    ? "let"
    : hasToken(node, "var")
    ? "var"
    : undefined;
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.id !== left?.id) w.visit(child, inner);
    else if (kind) {
      const into = kind === "var" ? w.b.functionScope(at.scope) : scope;
      declarePattern(w, child, inner, { kind, scope: into, lines: linesOf(node) });
    } else if (child.type === "identifier") w.b.reassigned(w.b.ref(child, inner));
    else w.visit(child, inner);
  }
}

/** `catch (e) {}`: the parameter is seen in the clause only. */
function catchClause(w: Walker, node: Node, at: At): void {
  const scope = w.b.scope(at.scope);
  const inner: At = { ...at, scope };
  const parameter = node.childForFieldName("parameter");
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.id === parameter?.id) {
      declarePattern(w, child, inner, { kind: "catch", scope, lines: linesOf(child) });
    } else w.visit(child, inner);
  }
}

/** Walks with a depth guard. */
class TreeWalker implements Walker {
  readonly b = new FactsBuilder();
  #depth = 0;

  visit(node: Node, at: At): void {
    if (++this.#depth > MAX_SYNTAX_DEPTH) {
      throw new ToolError(
        "unsupported",
        `Cannot resolve names past line ${
          node.startPosition.row + 1
        }: the code nests more than ${MAX_SYNTAX_DEPTH} levels deep`,
      );
    }
    try {
      const handler = HANDLERS[node.type];
      if (handler) handler(this, node, at);
      else this.visitChildren(node, at);
    } finally {
      this.#depth--;
    }
  }

  visitChildren(node: Node, at: At): void {
    for (const child of node.namedChildren) if (child) this.visit(child, at);
  }
}

/**
 * The facts of a TS/JS file.
 *
 * @param tree Its tree (used only during the call).
 * @returns The facts.
 * @throws {ToolError} `unsupported` when the code nests deeper than {@linkcode MAX_SYNTAX_DEPTH}.
 */
export function extractJsFacts(tree: Tree): JsFacts {
  const walker = new TreeWalker();
  const at: At = { scope: 0, self: { container: -1, static: false }, flags: 0, ns: -1 };
  walker.visitChildren(tree.rootNode, at);
  return walker.b.finish();
}
