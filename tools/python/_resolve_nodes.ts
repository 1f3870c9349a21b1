/**
 * Reading the statements the symbol resolver takes whole (imports,
 * parameter lists, `__all__`, `getattr`-like calls) from tree-sitter nodes.
 *
 * @module
 */

import type { Node } from "web-tree-sitter";
import type { PyExpr, PyImport } from "./_resolve_facts.ts";

/** A parameter's name, where it is written, and its annotation. */
export interface ParameterName {
  /** The name. */
  name: string;
  /** Where it is written. */
  start: number;
  /** Its annotation, when it has one. */
  annotation?: PyExpr;
}

/** A string's content and where it is. */
export interface StringEntry {
  /** The content. */
  value: string;
  /** Where it starts. */
  start: number;
  /** Where it ends. */
  end: number;
}

/** Node types that are literals: builtin values, never project symbols. */
export const LITERAL_NODES: ReadonlySet<string> = new Set([
  "string",
  "concatenated_string",
  "integer",
  "float",
  "true",
  "false",
  "none",
  "list",
  "dictionary",
  "set",
  "tuple",
]);

/** A node as {@linkcode exprAt} reads it: its type and span, and its text on demand. */
export interface NodeSpan {
  /** The node's type. */
  readonly type: string;
  /** Where it starts. */
  readonly start: number;
  /** Where it ends. */
  readonly end: number;
}

/**
 * An expression as the resolver follows it, from its node's type and span.
 *
 * @param node The node's type and span.
 * @param text The node's text (read only for a name).
 * @param scope The scope it is evaluated in.
 * @param literals The node types taken as literals.
 * @returns The expression.
 */
export function exprAt(
  node: NodeSpan,
  text: () => string,
  scope: number,
  literals: ReadonlySet<string> = LITERAL_NODES,
): PyExpr {
  switch (node.type) {
    case "identifier":
      return { kind: "name", name: text(), start: node.start, scope };
    case "attribute":
      return { kind: "attr", end: node.end };
    case "call":
      return { kind: "call", end: node.end };
    default:
      return literals.has(node.type) ? { kind: "literal" } : { kind: "other" };
  }
}

/**
 * An expression node as the resolver follows it.
 *
 * @param node The node (`type` wrappers and parentheses are looked through).
 * @param scope The scope it is evaluated in.
 * @returns The expression.
 */
export function nodeExpr(node: Node, scope: number): PyExpr {
  let at: Node | null = node;
  while (at && (at.type === "type" || at.type === "parenthesized_expression")) {
    at = at.namedChildren.find((child) => child?.type !== "comment") ?? null;
  }
  // `Base[T]` (a generic base, `Optional[X]` aside) is followed as `Base`.
  while (at?.type === "subscript" || at?.type === "generic_type") {
    at = at.childForFieldName("value") ?? at.namedChildren[0] ?? null;
  }
  if (!at) return { kind: "other" };
  const found = at;
  const span = { type: found.type, start: found.startIndex, end: found.endIndex };
  return exprAt(span, () => found.text, scope);
}

/**
 * The names a parameter list binds, in order.
 *
 * @param node A `parameters` or `lambda_parameters` node.
 * @param scope The scope annotations are evaluated in (the enclosing one).
 * @returns The parameters.
 */
export function parameterNames(node: Node, scope: number): ParameterName[] {
  const out: ParameterName[] = [];
  for (const param of node.namedChildren) {
    if (!param) continue;
    const id = param.type === "identifier"
      ? param
      : param.childForFieldName("name") ?? splatName(param) ??
        param.namedChildren.find((child) => child?.type === "identifier") ?? splatName(
          param.namedChildren.find((child) => child?.type.endsWith("splat_pattern")) ?? null,
        );
    if (!id || id.type !== "identifier") continue;
    const entry: ParameterName = { name: id.text, start: id.startIndex };
    const type = param.childForFieldName("type");
    if (type) entry.annotation = nodeExpr(type, scope);
    out.push(entry);
  }
  return out;
}

function splatName(node: Node | null): Node | null {
  if (!node || !node.type.endsWith("splat_pattern")) return null;
  return node.namedChildren.find((child) => child?.type === "identifier") ?? null;
}

/**
 * The names an import statement binds.
 *
 * @param node An `import_statement` or `import_from_statement`.
 * @param scope The scope it is in.
 * @returns One entry per imported name (one for a star import).
 */
export function importsOf(node: Node, scope: number): PyImport[] {
  const names = node.childrenForFieldName("name").filter((child): child is Node => !!child);
  if (node.type === "import_statement") return names.map((name) => plainImport(name, scope));
  const from = node.childForFieldName("module_name");
  if (!from) return [];
  const level = from.type === "relative_import"
    ? (from.namedChildren.find((c) => c?.type === "import_prefix")?.text.length ?? 0)
    : 0;
  const module = from.type === "relative_import"
    ? (from.namedChildren.find((c) => c?.type === "dotted_name")?.text ?? "")
    : from.text;
  const base = { scope, level, module: module.replace(/\s+/g, "") };
  if (node.namedChildren.some((child) => child?.type === "wildcard_import")) {
    return [{ ...base, nameStart: -1, bound: "", boundStart: -1, star: true }];
  }
  return names.map((name) => {
    const original = name.type === "aliased_import" ? name.childForFieldName("name") : name;
    const alias = name.type === "aliased_import" ? name.childForFieldName("alias") : null;
    const id = original ?? name;
    const bound = alias ?? id;
    return {
      ...base,
      name: id.text,
      nameStart: id.startIndex,
      bound: bound.text,
      boundStart: bound.startIndex,
      star: false,
    };
  });
}

/** `import a.b.c` (binds `a`) or `import a.b.c as z` (binds `z` to `a.b.c`). */
function plainImport(name: Node, scope: number): PyImport {
  const dotted = name.type === "aliased_import" ? name.childForFieldName("name") ?? name : name;
  const alias = name.type === "aliased_import" ? name.childForFieldName("alias") : null;
  const first = dotted.namedChildren.find((child) => child?.type === "identifier") ?? dotted;
  return {
    scope,
    level: 0,
    module: dotted.text.replace(/\s+/g, ""),
    nameStart: -1,
    bound: alias ? alias.text : first.text,
    boundStart: alias ? alias.startIndex : first.startIndex,
    star: false,
  };
}

/**
 * The plain string entries of an `__all__` value.
 *
 * @param node A list, tuple, argument list or parenthesized expression.
 * @returns The entries, or `undefined` when it is anything else (built by code).
 */
export function allEntries(node: Node): StringEntry[] | undefined {
  let at: Node = node;
  while (at.type === "parenthesized_expression" && at.namedChildren[0]) at = at.namedChildren[0];
  if (at.type === "string") return plainString(at) ? [plainString(at)!] : undefined;
  if (!["list", "tuple", "argument_list", "expression_list"].includes(at.type)) return undefined;
  const out: StringEntry[] = [];
  for (const child of at.namedChildren) {
    if (!child || child.type === "comment") continue;
    const entry = child.type === "string" ? plainString(child) : undefined;
    if (!entry) return undefined;
    out.push(entry);
  }
  return out;
}

/** A string literal without prefix, interpolation or escapes: its content. */
function plainString(node: Node): StringEntry | undefined {
  const parts = node.namedChildren.filter((child): child is Node => !!child);
  const start = parts[0];
  if (start?.type !== "string_start" || !/^["']+$/.test(start.text)) return undefined;
  const content = parts.filter((part) =>
    part.type !== "string_start" && part.type !== "string_end"
  );
  if (content.length === 0) return { value: "", start: start.endIndex, end: start.endIndex };
  if (content.length !== 1 || content[0]!.type !== "string_content") return undefined;
  const text = content[0]!;
  return { value: text.text, start: text.startIndex, end: text.endIndex };
}

/**
 * The attribute name a `getattr`/`hasattr`/`setattr`/`delattr` call spells out.
 *
 * @param call A `call` node.
 * @returns The name and where it is written, with the function, or `undefined`.
 */
export function dynamicName(call: Node): (StringEntry & { call: string }) | undefined {
  const fn = call.childForFieldName("function");
  if (fn?.type !== "identifier" || !/^(?:get|has|set|del)attr$/.test(fn.text)) return undefined;
  const args = call.childForFieldName("arguments")?.namedChildren.filter((a) =>
    a && a.type !== "comment"
  );
  const name = args?.[1];
  const entry = name?.type === "string" ? plainString(name) : undefined;
  if (!entry || !/^[\p{L}_][\p{L}\p{N}_]*$/u.test(entry.value)) return undefined;
  return { ...entry, call: fn.text };
}
