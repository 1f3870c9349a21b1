/**
 * The C/C++ facts walker: one pass over a tree that records declarations
 * at file, namespace and class scope, and every token that may
 * name one (identifiers not bound to a local, type names, tags, members read
 * through a receiver, macro names in directives, words of macro bodies).
 *
 * @module
 */

import type { Node, Tree } from "web-tree-sitter";
import { ToolError } from "../../security/errors.ts";
import {
  aliasDeclaration,
  declaration,
  functionDefinition,
  initializer,
  macroDefinition,
  namespaceDefinition,
  templateDeclaration,
  typeDefinition,
  usingDeclaration,
} from "./_resolve_declare.ts";
import { parameters, qualifiedOcc, typeOf } from "./_resolve_types.ts";
import { CALL, type CFacts, IN_ERROR, type Receiver } from "./_resolve_facts.ts";
import { CState } from "./_resolve_state.ts";
import { declaredName } from "./_resolve_syntax.ts";

/** Syntax nesting past which a file is left out. */
export const MAX_SYNTAX_DEPTH = 2000;

type Handler = (s: CState, node: Node) => void;

const nothing: Handler = () => {};
const scoped: Handler = (s, node) => s.block(() => s.visitChildren(node));

const HANDLERS: Readonly<Record<string, Handler>> = {
  identifier: (s, node) => void (s.lookupLocal(node.text) === undefined && s.occ(node, "ref")),
  type_identifier: (s, node) => void typeOf(s, node),
  qualified_identifier: (s, node) => void qualifiedOcc(s, node),
  field_expression: (s, node) => fieldExpression(s, node),
  call_expression: callExpression,
  destructor_name: (s, node) => {
    const name = node.namedChildren.find((c) => c?.type === "identifier");
    if (name) s.occ(name, "type");
  },
  field_initializer_list: fieldInitializers,
  initializer_list: (s, node) => initializer(s, node, { kind: "unknown" }),
  compound_literal_expression: (s, node) => {
    const type = typeOf(s, node.childForFieldName("type")?.childForFieldName("type") ?? null);
    const value = node.childForFieldName("value");
    if (value) initializer(s, value, type ? { kind: "type", type } : { kind: "unknown" });
  },
  type_descriptor: (s, node) => {
    const type = node.childForFieldName("type");
    typeOf(s, type);
    for (const child of node.namedChildren) if (child && child.id !== type?.id) s.visit(child);
  },
  declaration,
  function_definition: functionDefinition,
  type_definition: typeDefinition,
  alias_declaration: aliasDeclaration,
  struct_specifier: (s, node) => void typeOf(s, node),
  union_specifier: (s, node) => void typeOf(s, node),
  enum_specifier: (s, node) => void typeOf(s, node),
  class_specifier: (s, node) => void typeOf(s, node),
  namespace_definition: namespaceDefinition,
  using_declaration: usingDeclaration,
  template_declaration: templateDeclaration,
  compound_statement: scoped,
  for_statement: scoped,
  while_statement: scoped,
  if_statement: scoped,
  switch_statement: scoped,
  catch_clause: scoped,
  for_range_loop: rangeLoop,
  lambda_expression: lambda,
  parameter_declaration: (s, node) => {
    const type = typeOf(s, node.childForFieldName("type")) ?? null;
    const named = declaredName(node.childForFieldName("declarator"));
    if (named && s.inBlock) s.local(named.token.text, type);
  },
  preproc_include: nothing, // the include graph is read from the text (_resolve_includes.ts)
  preproc_def: macroDefinition,
  preproc_function_def: macroDefinition,
  preproc_ifdef: (s, node) => {
    const name = node.childForFieldName("name");
    if (name) s.occ(name, "macro");
    for (const child of node.namedChildren) if (child && child.id !== name?.id) s.visit(child);
  },
  preproc_if: conditional,
  preproc_elif: conditional,
  preproc_call: undef,
  ERROR: (s, node) => {
    const flags = s.flags;
    s.flags |= IN_ERROR;
    try {
      s.visitChildren(node);
    } finally {
      s.flags = flags;
    }
  },
  field_identifier: nothing,
  this: nothing,
  string_literal: nothing,
  raw_string_literal: nothing,
  char_literal: nothing,
  concatenated_string: nothing,
  comment: nothing,
  number_literal: nothing,
  system_lib_string: nothing,
  primitive_type: nothing,
  statement_identifier: nothing,
  preproc_arg: nothing,
};

/** `a.b`, `p->b`: `b` read from what `a` is. */
function fieldExpression(s: CState, node: Node, flags = 0): void {
  const argument = node.childForFieldName("argument");
  const field = node.childForFieldName("field");
  if (argument) s.visit(argument);
  if (field?.type === "field_identifier") {
    s.occ(field, "member", { receiver: receiverOf(s, argument), flags: s.flags | flags });
  } else if (field) s.visit(field);
}

/** What an expression is, as a receiver of a member access. */
function receiverOf(s: CState, node: Node | null): Receiver {
  switch (node?.type) {
    case "this":
      return s.cls ? { kind: "this", cls: s.cls } : { kind: "unknown" };
    case "identifier": {
      const local = s.lookupLocal(node.text);
      if (local === undefined) return { kind: "global", name: node.text };
      return local ? { kind: "type", type: local } : { kind: "unknown" };
    }
    case "field_expression": {
      const field = node.childForFieldName("field");
      const base = receiverOf(s, node.childForFieldName("argument"));
      return field ? { kind: "member", base, member: field.text } : { kind: "unknown" };
    }
    case "parenthesized_expression":
    case "pointer_expression":
    case "subscript_expression":
      return receiverOf(s, node.childForFieldName("argument") ?? node.namedChildren[0] ?? null);
    default:
      return { kind: "unknown" };
  }
}

/** A call: its callee is marked as called. */
function callExpression(s: CState, node: Node): void {
  const fn = node.childForFieldName("function");
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.id !== fn?.id) s.visit(child);
    else if (child.type === "identifier") {
      if (s.lookupLocal(child.text) === undefined) s.occ(child, "ref", { flags: s.flags | CALL });
    } else if (child.type === "field_expression") fieldExpression(s, child, CALL);
    else if (child.type === "qualified_identifier") qualifiedOcc(s, child, CALL);
    else s.visit(child);
  }
}

/** `: size_(0), Base(x)` in a constructor: members of the class. */
function fieldInitializers(s: CState, node: Node): void {
  for (const item of node.namedChildren) {
    if (item?.type !== "field_initializer") {
      if (item) s.visit(item);
      continue;
    }
    for (const part of item.namedChildren) {
      if (part?.type === "field_identifier") {
        s.occ(part, "member", {
          receiver: s.cls ? { kind: "this", cls: s.cls } : { kind: "unknown" },
        });
      } else if (part) s.visit(part);
    }
  }
}

/** `for (T x : xs)`: `x` is a local of the loop. */
function rangeLoop(s: CState, node: Node): void {
  s.block(() => {
    const type = typeOf(s, node.childForFieldName("type")) ?? null;
    const declarator = node.childForFieldName("declarator");
    for (const child of node.namedChildren) {
      if (!child || child.id === node.childForFieldName("type")?.id) continue;
      if (child.id === declarator?.id) {
        const named = declaredName(child);
        if (named) s.local(named.token.text, type);
      } else s.visit(child);
    }
  });
}

/** A lambda: its parameters are locals of its body. */
function lambda(s: CState, node: Node): void {
  s.block(() => {
    const declarator = node.childForFieldName("declarator");
    if (declarator) parameters(s, declarator);
    for (const child of node.namedChildren) {
      if (child && child.id !== declarator?.id) s.visit(child);
    }
  });
}

/** `#if A && defined(B)`: the condition's names are macros. */
function conditional(s: CState, node: Node): void {
  const condition = node.childForFieldName("condition");
  if (condition) macroNames(s, condition);
  for (const child of node.namedChildren) if (child && child.id !== condition?.id) s.visit(child);
}

function macroNames(s: CState, node: Node): void {
  if (node.type === "identifier") s.occ(node, "macro");
  else for (const child of node.namedChildren) if (child) macroNames(s, child);
}

/** `#undef NAME`. */
function undef(s: CState, node: Node): void {
  const directive = node.childForFieldName("directive")?.text;
  const argument = node.childForFieldName("argument");
  if (directive !== "#undef" || !argument) return;
  const match = /[A-Za-z_]\w*/.exec(argument.text);
  if (match) s.occAt(match[0], argument.startIndex + match.index, "macro");
}

/**
 * The facts of a C or C++ file.
 *
 * @param tree Its tree (used only during the call).
 * @param cpp Whether it was parsed as C++.
 * @returns The facts.
 * @throws {ToolError} `unsupported` when the code nests deeper than {@linkcode MAX_SYNTAX_DEPTH}.
 */
export function extractCFacts(tree: Tree, cpp: boolean): CFacts {
  const s = new CState(cpp);
  let depth = 0;
  s.visit = (node: Node) => {
    if (++depth > MAX_SYNTAX_DEPTH) {
      throw new ToolError(
        "unsupported",
        `Cannot resolve names past line ${
          node.startPosition.row + 1
        }: the code nests more than ${MAX_SYNTAX_DEPTH} levels deep`,
      );
    }
    try {
      const handler = HANDLERS[node.type];
      if (handler) handler(s, node);
      else s.visitChildren(node);
    } finally {
      depth--;
    }
  };
  s.visitChildren(tree.rootNode);
  return s.finish();
}
