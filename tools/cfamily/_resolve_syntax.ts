/**
 * Small readings of C/C++ syntax the resolver's walker shares: the name a
 * declarator declares (through pointers, arrays, parentheses, qualified
 * names), whether it declares a function, storage classes, and the words
 * of a macro's body.
 *
 * @module
 */

import type { Node } from "web-tree-sitter";

/** A declarator's name and the `ns::` parts written before it. */
export interface DeclaredName {
  /** The name token. */
  token: Node;
  /** The qualifier nodes, outermost first (`ns`, `Widget` in `ns::Widget::draw`). */
  qualifier: Node[];
  /** A destructor (`~Widget`). */
  destructor: boolean;
}

const NAMES = new Set(["identifier", "field_identifier", "type_identifier"]);

/**
 * The name a declarator declares.
 *
 * @param node A declarator (or a name).
 * @returns The name, or undefined (operators, abstract declarators).
 */
export function declaredName(node: Node | null): DeclaredName | undefined {
  let current = node;
  for (let depth = 0; current && depth < 32; depth++) {
    if (NAMES.has(current.type)) return { token: current, qualifier: [], destructor: false };
    switch (current.type) {
      case "qualified_identifier":
        return qualifiedName(current);
      case "destructor_name": {
        const token = current.namedChildren.find((c) => c?.type === "identifier");
        return token ? { token, qualifier: [], destructor: true } : undefined;
      }
      case "template_function":
      case "template_type":
        current = current.childForFieldName("name");
        continue;
      case "operator_name":
      case "operator_cast":
        return undefined;
    }
    current = current.childForFieldName("declarator") ??
      current.namedChildren.find((c) =>
        c !== null && (c.type.endsWith("declarator") || NAMES.has(c.type) ||
          c.type === "qualified_identifier" || c.type === "destructor_name")
      ) ?? null;
  }
  return undefined;
}

/** `a::b::c`: the name `c` and the qualifier nodes `a`, `b`. */
function qualifiedName(node: Node): DeclaredName | undefined {
  const qualifier: Node[] = [];
  let current: Node | null = node;
  for (let depth = 0; current?.type === "qualified_identifier" && depth < 32; depth++) {
    const scope = current.childForFieldName("scope");
    if (scope) qualifier.push(scope);
    current = current.childForFieldName("name");
  }
  const inner = declaredName(current);
  return inner ? { ...inner, qualifier: [...qualifier, ...inner.qualifier] } : undefined;
}

/**
 * The text of a qualifier node (`ns`, `Widget`, `vector` of `vector<int>`).
 *
 * @param node A scope node of a qualified name.
 * @returns Its name.
 */
export function scopeName(node: Node): string {
  if (node.type === "template_type") return node.childForFieldName("name")?.text ?? node.text;
  return node.text;
}

/**
 * Whether a declarator declares a function (not a pointer to one).
 *
 * @param node A declarator.
 * @returns The function declarator, or undefined.
 */
export function functionDeclarator(node: Node | null): Node | undefined {
  let current = node;
  for (let depth = 0; current && depth < 32; depth++) {
    if (current.type === "function_declarator") {
      const inner = current.childForFieldName("declarator");
      return inner?.type === "parenthesized_declarator" ? undefined : current;
    }
    if (!/^(pointer|reference|attributed)_declarator$/.test(current.type)) return undefined;
    current = current.childForFieldName("declarator") ?? current.namedChildren.at(-1) ?? null;
  }
  return undefined;
}

/**
 * The storage classes a declaration has (`static`, `extern`, ...).
 *
 * @param node A declaration or function definition.
 * @returns The keywords.
 */
export function storageOf(node: Node): Set<string> {
  const out = new Set<string>();
  for (const child of node.namedChildren) {
    if (child?.type === "storage_class_specifier") out.add(child.text);
  }
  return out;
}

/** A word of a macro's body and where it starts in the body. */
export interface BodyWord {
  /** The word. */
  name: string;
  /** Its offset in the body text. */
  offset: number;
}

const TOKENS = /"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|\/\*[^]*?\*\/|\/\/[^\n]*|[A-Za-z_]\w*/g;

/**
 * The identifiers of a macro's body, strings and comments aside.
 *
 * @param body The body's text.
 * @returns The words.
 */
export function bodyWords(body: string): BodyWord[] {
  const out: BodyWord[] = [];
  for (const match of body.matchAll(TOKENS)) {
    const word = match[0];
    if (/^[A-Za-z_]/.test(word)) out.push({ name: word, offset: match.index });
  }
  return out;
}

/**
 * The node a declaration's lines cover: its `template <…>` wrapper when it has one.
 *
 * @param node A declaration.
 * @returns The node whose lines it has.
 */
export function statementOf(node: Node): Node {
  return node.parent?.type === "template_declaration" ? node.parent : node;
}

/**
 * Whether a node has a keyword child (`class` in `enum class`, `namespace` in `using namespace`).
 *
 * @param node The node.
 * @param keyword The keyword.
 * @returns True when one of its unnamed children is that keyword.
 */
export function hasToken(node: Node, keyword: string): boolean {
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i);
    if (child && !child.isNamed && child.type === keyword) return true;
  }
  return false;
}
