/**
 * The C/C++ facts walker's types: type specifiers and the names they use,
 * struct, union, enum and class bodies with their members (constructors and
 * destructors name their class), qualified names, and parameters.
 *
 * @module
 */

import type { Node } from "web-tree-sitter";
import type { CState } from "./_resolve_state.ts";
import type { TypeRef } from "./_resolve_facts.ts";
import {
  declaredName,
  functionDeclarator,
  hasToken,
  scopeName,
  statementOf,
} from "./_resolve_syntax.ts";

/**
 * Record the qualifier parts of a name (`ns`, `Widget` in `ns::Widget::f`)
 * as type tokens, each with the parts before it.
 *
 * @param s The walker's state.
 * @param qualifier The qualifier nodes.
 * @param flags More flags.
 */
export function qualifierOccs(s: CState, qualifier: readonly Node[], flags = 0): void {
  const parts: string[] = [];
  for (const scope of qualifier) {
    const token = scope.type === "template_type" ? scope.childForFieldName("name") : scope;
    if (token && token.text !== "") {
      s.occ(token, "type", { qualifier: [...parts], flags: s.flags | flags });
    }
    if (scope.type === "template_type") {
      const args = scope.childForFieldName("arguments");
      if (args) s.visit(args);
    }
    parts.push(scopeName(scope));
  }
}

/**
 * A qualified name in code (`ns::f`, `::x`, `Widget::count`): its parts and its name.
 *
 * @param s The walker's state.
 * @param node The `qualified_identifier`.
 * @param flags More flags for the name (`CALL`).
 * @returns The name as a type, when it names one.
 */
export function qualifiedOcc(s: CState, node: Node, flags = 0): TypeRef | undefined {
  const named = declaredName(node);
  if (!named) return void s.visitChildren(node);
  const global = node.childForFieldName("scope") === null;
  const qualifier = [...(global ? [""] : []), ...named.qualifier.map(scopeName)];
  qualifierOccs(s, named.qualifier);
  const kind = named.token.type === "type_identifier" || named.destructor ? "type" : "ref";
  s.occ(named.token, kind, { qualifier, flags: s.flags | flags });
  return { name: named.token.text, tag: false, qualifier: qualifier.filter((p) => p !== "") };
}

/**
 * A type specifier: records struct, union, enum and class bodies and the
 * names it uses.
 *
 * @param s The walker's state.
 * @param node The type node.
 * @returns The type as a name, when it has one.
 */
export function typeOf(s: CState, node: Node | null): TypeRef | undefined {
  if (!node) return undefined;
  switch (node.type) {
    case "struct_specifier":
    case "union_specifier":
    case "enum_specifier":
    case "class_specifier":
      return specifier(s, node);
    case "type_identifier":
      if (s.lookupLocal(node.text) === undefined) s.occ(node, "type");
      return { name: node.text, tag: false, qualifier: [] };
    case "qualified_identifier":
      return qualifiedOcc(s, node);
    case "template_type": {
      const args = node.childForFieldName("arguments");
      if (args) s.visit(args);
      return typeOf(s, node.childForFieldName("name"));
    }
    case "primitive_type":
    case "sized_type_specifier":
    case "placeholder_type_specifier":
      return undefined;
    default:
      s.visit(node);
      return undefined;
  }
}

/** A struct, union, enum or class: a tag reference, or a definition with its body. */
function specifier(s: CState, node: Node): TypeRef | undefined {
  const name = node.childForFieldName("name");
  const body = node.childForFieldName("body");
  const named = name ? declaredName(name) : undefined;
  if (!body) {
    if (!named) return undefined;
    qualifierOccs(s, named.qualifier);
    s.occ(named.token, "tag");
    return { name: named.token.text, tag: true, qualifier: named.qualifier.map(scopeName) };
  }
  const record = s.record("");
  if (named) {
    qualifierOccs(s, named.qualifier);
    const decl = s.declare(named.token, {
      kind: "tag",
      qualifier: named.qualifier.map(scopeName),
      node: statementOf(node),
      record,
      internal: s.inAnonymous,
    });
    s.facts.records[record]!.qualified = s.facts.decls[decl]!.qualified;
  }
  recordBody(s, node, record, named?.token.text);
  return { name: named?.token.text ?? "", tag: true, qualifier: [], ...(named ? {} : { record }) };
}

/** A record's bases and body (members, or an enum's enumerators). */
function recordBody(s: CState, node: Node, record: number, name: string | undefined): void {
  const body = node.childForFieldName("body")!;
  for (const clause of node.namedChildren) {
    if (clause?.type !== "base_class_clause") continue;
    for (const base of clause.namedChildren) {
      const type = base && base.type !== "access_specifier" ? typeOf(s, base) : undefined;
      if (type) s.facts.records[record]!.bases.push(type);
    }
  }
  if (node.type === "enum_specifier") {
    const scoped = hasToken(node, "class") || hasToken(node, "struct");
    return enumerators(s, body, scoped && name ? [name] : []);
  }
  s.records.push(record);
  try {
    s.nested(() => memberList(s, body, record));
  } finally {
    s.records.pop();
  }
}

/** An enum's enumerators (qualified by the enum's name when it is an `enum class`). */
function enumerators(s: CState, body: Node, qualifier: string[]): void {
  for (const item of body.namedChildren) {
    if (item?.type !== "enumerator") {
      if (item) s.visit(item);
      continue;
    }
    const name = item.childForFieldName("name");
    if (name) {
      s.declare(name, { kind: "enumerator", qualifier, node: item, internal: s.inAnonymous });
    }
    const value = item.childForFieldName("value");
    if (value) s.visit(value);
  }
}

/** The members of a struct, union or class body. */
function memberList(s: CState, body: Node, record: number): void {
  for (const child of body.namedChildren) {
    if (!child) continue;
    switch (child.type) {
      case "field_declaration":
      case "declaration": // a constructor, a destructor
        fieldDeclaration(s, child, record);
        break;
      case "access_specifier":
      case "comment":
        break;
      default:
        if (child.type.startsWith("preproc_")) memberList(s, child, record);
        else s.visit(child);
    }
  }
}

/**
 * The last part of a record's name (its constructors' name).
 *
 * @param s The walker's state.
 * @param record The record.
 * @returns The name.
 */
export function recordName(s: CState, record: number): string {
  return s.facts.records[record]!.qualified.split("::").at(-1) ?? "";
}

/** A data member or a method declaration in a record. */
function fieldDeclaration(s: CState, node: Node, record: number): void {
  const type = typeOf(s, node.childForFieldName("type"));
  const declarators = node.childrenForFieldName("declarator");
  if (declarators.length === 0 && type?.record !== undefined) {
    // An anonymous struct or union member: its members are the record's (C11, C++).
    for (const decls of s.facts.records[type.record]!.members.values()) {
      for (const decl of decls) {
        s.facts.decls[decl]!.owner = record;
        s.member(record, decl);
      }
    }
  }
  for (const declarator of declarators) {
    const fn = functionDeclarator(declarator);
    if (fn) s.block(() => parameters(s, fn));
    const named = declaredName(declarator);
    if (!named) continue;
    if (named.destructor || fn && named.token.text === recordName(s, record)) {
      s.occ(named.token, "type");
      continue;
    }
    const decl = s.declare(named.token, {
      kind: "member",
      owner: record,
      node,
      ...(type ? { type } : {}),
    });
    s.member(record, decl);
  }
  for (const child of node.namedChildren) {
    if (
      child &&
      (child.type === "bitfield_clause" || child.id === node.childForFieldName("default_value")?.id)
    ) {
      s.visit(child);
    }
  }
}

/**
 * A function's parameters as locals (their types walked).
 *
 * @param s The walker's state (inside the function's block).
 * @param fn The function declarator.
 */
export function parameters(s: CState, fn: Node): void {
  const list = fn.childForFieldName("parameters");
  for (const parameter of list?.namedChildren ?? []) {
    if (!parameter || !/parameter_declaration$/.test(parameter.type)) {
      if (parameter) s.visit(parameter);
      continue;
    }
    const type = typeOf(s, parameter.childForFieldName("type")) ?? null;
    const named = declaredName(parameter.childForFieldName("declarator"));
    if (named) s.local(named.token.text, type);
    const value = parameter.childForFieldName("default_value");
    if (value) s.visit(value);
  }
}
