/**
 * The names C and C++ declarators declare: through pointer, reference and
 * function declarators, conversion operators, and the shapes macros give
 * declarations that the parser misreads (`int BZ_API(name) (int x)`,
 * `MACRO type\nname (…)`).
 *
 * @module
 */

import type { Node } from "web-tree-sitter";

/** A name: a node, or text made from several (`operator bool`). */
export interface NameLike {
  text: string;
  startPosition: { row: number };
}

/**
 * The name of a function definition or declaration, conversion operators
 * included: in-class `operator bool() const` is an `operator_cast`, and an
 * out-of-line `A::operator bool()` parses as type `A::operator` + `bool()`.
 */
export function functionName(node: Node): NameLike | undefined {
  const declarator = node.childForFieldName("declarator");
  if (declarator?.type === "operator_cast") {
    const type = declarator.childForFieldName("type");
    return { text: `operator ${type?.text ?? ""}`.trim(), startPosition: declarator.startPosition };
  }
  const type = node.childForFieldName("type");
  const inner = declaratorName(declarator);
  if (
    type?.type === "qualified_identifier" && type.lastChild?.text === "operator" &&
    declarator?.type === "function_declarator" && inner?.type === "identifier"
  ) {
    return { text: `${type.text} ${inner.text}`, startPosition: type.startPosition };
  }
  return inner;
}

/** A function's declarator (through pointer and reference return types), not a function pointer's. */
export function hasFunctionDeclarator(node: Node): boolean {
  let current: Node | null = node;
  while (
    current && (current.type === "pointer_declarator" || current.type === "reference_declarator")
  ) {
    current = current.childForFieldName("declarator") ?? current.namedChildren.at(-1) ?? null;
  }
  return current?.type === "function_declarator" &&
    current.childForFieldName("declarator")?.type !== "parenthesized_declarator";
}

/** The name inside a (possibly pointer, reference or function) declarator. */
export function declaratorName(node: Node | null): Node | undefined {
  let current: Node | null = node;
  for (let depth = 0; current && depth < 16; depth++) {
    switch (current.type) {
      case "identifier":
      case "field_identifier":
      case "type_identifier":
      case "qualified_identifier":
      case "destructor_name":
      case "operator_name":
      case "template_function":
        return current;
      case "function_declarator": {
        const real = wrappedName(current) ?? nameBeforeError(current);
        if (real) return real;
        break;
      }
    }
    current = current.childForFieldName("declarator") ??
      current.namedChildren.find((each) =>
        each?.type.endsWith("declarator") || each?.type.endsWith("identifier")
      ) ??
      null;
  }
  return undefined;
}

/**
 * `int BZ_API(name) (int x)`, which parses as a function `BZ_API` taking a
 * parameter of type `name` and returning a function: an ALL_CAPS macro
 * around one bare word, followed by a parameter list, names that word.
 */
function wrappedName(declarator: Node): Node | undefined {
  const inner = declarator.childForFieldName("declarator");
  if (inner?.type !== "function_declarator") return undefined;
  const macro = inner.childForFieldName("declarator");
  const params = inner.childForFieldName("parameters")?.namedChildren ?? [];
  if (macro?.type !== "identifier" || !/^[A-Z_][A-Z0-9_]+$/.test(macro.text)) return undefined;
  const only = params.length === 1 ? params[0] : undefined;
  const word = only?.type === "parameter_declaration" && only.namedChildCount === 1
    ? only.namedChildren[0]
    : undefined;
  return word?.type === "type_identifier" || word?.type === "identifier" ? word : undefined;
}

/**
 * `MACRO type\nname (…)`: the parser takes `type` for the name and wraps the
 * real one in an ERROR just before the parameters.
 */
function nameBeforeError(declarator: Node): Node | undefined {
  const before = declarator.childForFieldName("parameters")?.previousNamedSibling;
  const real = before?.type === "ERROR" ? before.namedChildren.at(-1) : undefined;
  return real?.type === "identifier" ? real : undefined;
}
