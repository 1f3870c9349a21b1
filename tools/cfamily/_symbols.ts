/**
 * C and C++ symbols from a tree-sitter tree: functions (definitions and
 * prototypes), structs, unions, enums, typedefs, classes, namespaces and
 * methods, nested as the source nests them, with qualified names
 * (`ns::Class::method`; an out-of-line `void A::f() {}` is `A::f` in its
 * namespace).
 *
 * @module
 */

import type { Node, Tree } from "web-tree-sitter";
import { MAX_NESTING, tooDeep } from "../_nesting.ts";
import { flattenSymbols, type IndexedSymbol } from "../_symbols.ts";
import {
  declaratorName,
  functionName,
  hasFunctionDeclarator,
  type NameLike,
} from "./_declarators.ts";

/**
 * One symbol. Its kind is function, prototype, method, struct, union, enum,
 * typedef, class, namespace or field; its name is as written (`A::f` for an
 * out-of-line definition); its first line includes a template's
 * `template <…>` line.
 */
export interface CSymbol extends IndexedSymbol {
  /** The line where the name is (what ctags reports). */
  nameLine: number;
  /** Nested symbols. */
  children: CSymbol[];
  /** A C++ class's or struct's base classes as written (`public Shape`). */
  bases?: string;
}

/**
 * Collect the symbols of a C or C++ tree.
 *
 * @param tree The tree.
 * @returns Top-level symbols, children nested.
 * @throws {ToolError} `unsupported` when declarations nest deeper than {@linkcode MAX_NESTING}.
 */
export function cSymbols(tree: Tree): CSymbol[] {
  return collect(tree.rootNode, { scope: [], inClass: false, depth: 0 });
}

/** Nodes whose children are looked through: bodies, `#if` branches, and ERROR nodes
 * (an unbalanced `#ifdef … namespace X {` turns a whole file into one). */
const CONTAINERS = new Set([
  "ERROR",
  "declaration_list",
  "field_declaration_list",
  "preproc_if",
  "preproc_ifdef",
  "preproc_else",
  "preproc_elif",
]);

function collect(node: Node, at: Place): CSymbol[] {
  if (at.depth > MAX_NESTING) throw tooDeep(node);
  const { scope, inClass } = at;
  const out: CSymbol[] = [];
  for (const child of node.namedChildren) {
    if (!child) continue;
    const found = symbolOf(child, child, at);
    if (!found && inClass && child.type === "field_declaration") {
      for (const field of fieldsOf(child, scope)) out.push(field);
      continue;
    }
    if (found) {
      const tag = child.type === "type_definition" ? typedefTag(child, scope) : undefined;
      if (tag) out.push(tag);
      out.push(found);
    } else if (CONTAINERS.has(child.type) || child.type === "linkage_specification") {
      for (const symbol of collectBody(child, { ...at, depth: at.depth + 1 })) out.push(symbol);
    }
  }
  return out;
}

/**
 * The symbols inside a container; `extern "C++" void *f (…);` has one
 * declaration for its body, not a list.
 */
function collectBody(node: Node, at: Place): CSymbol[] {
  if (node.type !== "linkage_specification") return collect(node, at);
  const body = node.childForFieldName("body");
  if (!body) return [];
  if (body.type === "declaration_list") return collect(body, at);
  const found = symbolOf(body, body, at);
  return found ? [found] : [];
}

/** Where a node is: its scope, in a class body or not, and how deep the collection has gone. */
interface Place {
  scope: string[];
  inClass: boolean;
  depth: number;
}

/** A symbol for `node`; `outer` is what its range covers (a template wrapper, say). */
function symbolOf(node: Node, outer: Node, at: Place): CSymbol | undefined {
  if (at.depth > MAX_NESTING) throw tooDeep(node);
  switch (node.type) {
    case "template_declaration":
      return templateSymbol(node, outer, at);
    case "function_definition":
      return functionSymbol(node, outer, at);
    case "declaration":
    case "field_declaration":
      return prototypeSymbol(node, outer, at);
    case "struct_specifier":
    case "union_specifier":
    case "enum_specifier":
    case "class_specifier":
      return typeSymbol(node, outer, at);
    case "namespace_definition":
      return namespaceSymbol(node, outer, at);
    case "type_definition":
      return typedefSymbol(node, outer, at);
    default:
      return undefined;
  }
}

/** `template <…> X`: the symbol of X, its range from `template`. */
function templateSymbol(node: Node, outer: Node, at: Place): CSymbol | undefined {
  const inner = node.namedChildren.find((each) => each && each.type !== "template_parameter_list");
  return inner ? symbolOf(inner, outer, { ...at, depth: at.depth + 1 }) : undefined;
}

function functionSymbol(node: Node, outer: Node, at: Place): CSymbol | undefined {
  const name = functionName(node);
  // A name with a comment in it is a macro the parser took for part of a declarator.
  if (!name || /\/[/*]/.test(name.text)) return undefined;
  const kind = at.inClass || name.text.includes("::") ? "method" : "function";
  return make(kind, name, { outer, scope: at.scope }, {
    bodyIndex: node.childForFieldName("body")?.startIndex,
  });
}

function prototypeSymbol(node: Node, outer: Node, at: Place): CSymbol | undefined {
  const declarator = node.childForFieldName("declarator");
  if (!declarator || !hasFunctionDeclarator(declarator)) return undefined;
  const name = functionName(node);
  return name ? make("prototype", name, { outer, scope: at.scope }) : undefined;
}

/** A struct, union, enum or class with a body (its members nested, its bases said). */
function typeSymbol(node: Node, outer: Node, at: Place): CSymbol | undefined {
  const name = node.childForFieldName("name");
  const body = node.childForFieldName("body");
  if (!name || !body) return undefined;
  const kind = node.type.replace("_specifier", "");
  const children = kind === "enum"
    ? []
    : collect(body, { scope: [...at.scope, name.text], inClass: true, depth: at.depth + 1 });
  const bases = node.namedChildren.find((each) => each?.type === "base_class_clause");
  return {
    ...make(kind, name, { outer, scope: at.scope }, { bodyIndex: body.startIndex, children }),
    ...(bases ? { bases: tidy(bases.text.replace(/^:\s*/, "")) } : {}),
  };
}

function namespaceSymbol(node: Node, outer: Node, at: Place): CSymbol | undefined {
  const name = node.childForFieldName("name");
  const body = node.childForFieldName("body");
  if (!body) return undefined;
  const label = name?.text ?? "(anonymous)";
  const children = collect(body, {
    scope: [...at.scope, label],
    inClass: false,
    depth: at.depth + 1,
  });
  return {
    ...make("namespace", name ?? node, { outer, scope: at.scope }, {
      bodyIndex: body.startIndex,
      children,
    }),
    name: label,
    qualified: [...at.scope, label].join("::"),
  };
}

function typedefSymbol(node: Node, outer: Node, at: Place): CSymbol | undefined {
  const declarator = node.childForFieldName("declarator");
  const name = declarator ? declaratorName(declarator) : undefined;
  if (!name) return undefined;
  const type = node.childForFieldName("type");
  const body = type?.childForFieldName("body");
  const children = body && type?.type !== "enum_specifier"
    ? collect(body, { scope: [...at.scope, name.text], inClass: true, depth: at.depth + 1 })
    : [];
  return make("typedef", name, { outer, scope: at.scope }, { children });
}

/**
 * The data members a struct, union or class declares (`int x, y;` is two),
 * as `field` symbols: outline entries, not names to look up.
 */
function fieldsOf(node: Node, scope: string[]): CSymbol[] {
  return node.childrenForFieldName("declarator").flatMap((declarator) => {
    const name = declaratorName(declarator);
    return name ? [make("field", name, { outer: node, scope })] : [];
  });
}

/**
 * The symbols a name can be looked up among: every symbol but data members
 * (a member named like a function would make the function ambiguous).
 *
 * @param tree The tree.
 * @returns The flat list, fields left out.
 */
export function lookupSymbols(tree: Tree): CSymbol[] {
  return flattenSymbols(cSymbols(tree)).filter((symbol) => symbol.kind !== "field");
}

/**
 * The tag of `typedef struct point {…} point_t;`: `point` is a symbol of its
 * own (so `struct point` can be asked for by name), covering the whole typedef.
 * Its members stay the typedef's children.
 */
function typedefTag(node: Node, scope: string[]): CSymbol | undefined {
  const type = node.childForFieldName("type");
  if (!type || !/^(struct|union|enum|class)_specifier$/.test(type.type)) return undefined;
  const name = type.childForFieldName("name");
  const body = type.childForFieldName("body");
  if (!name || !body || name.type !== "type_identifier") return undefined;
  return make(type.type.replace("_specifier", ""), name, { outer: node, scope }, {
    bodyIndex: body.startIndex,
  });
}

/** Where a symbol is: the node its range covers, and the names around it. */
interface Site {
  outer: Node;
  scope: string[];
}

/** What a symbol may have besides its name and place. */
interface Parts {
  bodyIndex?: number | undefined;
  children?: CSymbol[];
}

function make(kind: string, name: NameLike, site: Site, parts: Parts = {}): CSymbol {
  const { outer, scope } = site;
  return {
    kind,
    name: tidy(name.text),
    qualified: [...scope, tidy(name.text)].join("::"),
    startLine: outer.startPosition.row + 1,
    endLine: endLine(outer),
    startIndex: outer.startIndex,
    endIndex: outer.endIndex,
    nameLine: name.startPosition.row + 1,
    bodyIndex: parts.bodyIndex,
    children: parts.children ?? [],
  };
}

/** A name on one line: `A<T>::\n    f` is `A<T>::f`. */
function tidy(name: string): string {
  return name.replace(/\s*::\s*/g, "::").replace(/\s+/g, " ");
}

/** The last line a node occupies (a node ending at column 0 ends on the line before). */
function endLine(node: Node): number {
  const end = node.endPosition;
  return end.column === 0 && end.row > node.startPosition.row ? end.row : end.row + 1;
}
