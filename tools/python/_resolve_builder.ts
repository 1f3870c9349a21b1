/**
 * The facts of one Python file as they are collected: scopes, bindings,
 * name uses (flat triples), attribute uses, imports, `__all__` entries and
 * `getattr`-like strings, and the statements read whole from their nodes
 * (definitions, imports, `global`/`nonlocal`, `__all__` changes). The cursor
 * walk (`_resolve_walk.ts`) drives it.
 *
 * @module
 */

import type { Node } from "web-tree-sitter";
import {
  type BindingKind,
  type MethodKind,
  type PyAttr,
  type PyBinding,
  type PyExpr,
  type PyFacts,
  type ScopeKind,
  USE_ROLES,
  type UseRole,
} from "./_resolve_facts.ts";
import { allEntries, dynamicName, importsOf, nodeExpr } from "./_resolve_nodes.ts";
import { lineStartsOf } from "../symbols/_lines.ts";
import { addTo } from "../symbols/_multimap.ts";

/** Builds one file's facts. */
export class FactsBuilder {
  /** The facts so far. */
  readonly facts: PyFacts;
  /**
   * Ends of the calls and attribute accesses an expression refers to (a
   * receiver, an assigned value, a base): only those are indexed.
   */
  #wanted = new Set<number>();

  /** @param text The file's text. */
  constructor(text: string) {
    this.facts = {
      text,
      lineStarts: lineStartsOf(text),
      scopes: [],
      bindings: [],
      refsByName: new Map(),
      attrs: [],
      attrsByName: new Map(),
      attrByEnd: new Map(),
      calls: new Map(),
      imports: [],
      strings: [],
      allDynamic: false,
    };
    this.openScope("module", -1, 0, text.length);
  }

  /**
   * Note that an expression is referred to, so that its call or attribute is indexed.
   *
   * @param expr The expression.
   * @returns The same expression.
   */
  want(expr: PyExpr): PyExpr {
    if (expr.kind === "attr" || expr.kind === "call") this.#wanted.add(expr.end);
    return expr;
  }

  /**
   * Whether an expression ending there is referred to.
   *
   * @param end Where the call or attribute access ends.
   * @returns True when it is.
   */
  wanted(end: number): boolean {
    return this.#wanted.has(end);
  }

  /**
   * Open a scope.
   *
   * @param kind What opens it.
   * @param parent The enclosing scope (-1 for the module).
   * @param start Where its statement starts.
   * @param end Where it ends.
   * @returns Its index.
   */
  openScope(kind: ScopeKind, parent: number, start: number, end: number): number {
    this.facts.scopes.push({
      kind,
      name: "",
      parent,
      start,
      end,
      nameStart: -1,
      bindings: new Map(),
    });
    return this.facts.scopes.length - 1;
  }

  /**
   * Open the scope of a `def` or `class` (its bases, or how a method takes its first parameter).
   *
   * @param node The `function_definition` or `class_definition`.
   * @param scope The scope it is in.
   * @returns The scope it opens.
   */
  definition(node: Node, scope: number): number {
    const kind = node.type === "class_definition" ? "class" : "function";
    const outer = node.parent?.type === "decorated_definition" ? node.parent : node;
    const inner = this.openScope(kind, scope, outer.startIndex, outer.endIndex);
    const opened = this.facts.scopes[inner]!;
    if (kind === "class") {
      for (const base of node.childForFieldName("superclasses")?.namedChildren ?? []) {
        if (base && base.type !== "keyword_argument") {
          (opened.bases ??= []).push(this.want(nodeExpr(base, scope)));
        }
      }
    } else if (this.facts.scopes[scope]!.kind === "class") {
      opened.method = methodKind(outer, node.childForFieldName("name")?.text ?? "");
    }
    return inner;
  }

  /**
   * Record an import statement's names.
   *
   * @param node The `import_statement` or `import_from_statement`.
   * @param scope The scope it is in.
   */
  imports(node: Node, scope: number): void {
    for (const imported of importsOf(node, scope)) {
      const index = this.facts.imports.push(imported) - 1;
      if (imported.star) {
        (this.facts.scopes[scope]!.stars ??= []).push(index);
        continue;
      }
      const at = this.bindingScope(scope, imported.bound);
      this.bind(at, imported.bound, imported.boundStart, "import").import = index;
    }
  }

  /**
   * Record a `global` or `nonlocal` statement.
   *
   * @param node The statement.
   * @param scope The scope it is in.
   */
  declare(node: Node, scope: number): void {
    const kind = node.type === "global_statement" ? "global" : "nonlocal";
    for (const id of node.namedChildren) {
      if (id?.type !== "identifier") continue;
      (this.facts.scopes[scope]!.declared ??= new Map()).set(id.text, kind);
      this.ref(id.text, id.startIndex, scope, "declare");
    }
  }

  /**
   * Record the entries of a module-level `__all__` value (or that it is built by code).
   *
   * @param value The list, tuple or argument list; missing when there is none.
   */
  all(value: Node | null | undefined): void {
    const entries = value ? allEntries(value) : undefined;
    if (!entries) {
      this.facts.allDynamic = true;
      return;
    }
    for (const entry of entries) this.facts.strings.push({ ...entry, scope: 0, kind: "all" });
  }

  /**
   * Record `__all__.extend([…])`/`append(…)`, or a `getattr`-like call's string.
   *
   * @param node The `call`.
   * @param scope The scope it is in.
   */
  call(node: Node, scope: number): void {
    if (scope === 0 && node.text.startsWith("__all__.")) {
      const method = node.childForFieldName("function")?.childForFieldName("attribute")?.text;
      const args = node.childForFieldName("arguments");
      if (method === "extend") this.all(args?.namedChildren[0]);
      else if (method === "append") this.all(args);
      else this.facts.allDynamic = true;
      return;
    }
    const found = dynamicName(node);
    if (found) this.facts.strings.push({ ...found, scope, kind: "dynamic" });
  }

  /**
   * Where a name assigned in a scope is bound: `global`, `nonlocal` and `:=` reach out.
   *
   * @param scope Where it is assigned.
   * @param name The name.
   * @param walrus Assigned with `:=` (a comprehension binds it in the enclosing scope).
   * @returns The binding scope (-1 for a `nonlocal` name: bound in an enclosing function).
   */
  bindingScope(scope: number, name: string, walrus = false): number {
    const scopes = this.facts.scopes;
    let at = scope;
    if (walrus) { while (scopes[at]!.kind === "comprehension") at = scopes[at]!.parent; }
    const declared = scopes[at]!.declared?.get(name);
    if (declared === "global") return 0;
    if (declared === "nonlocal") return -1;
    return at;
  }

  /**
   * Bind a name in a scope.
   *
   * @param scope The binding scope (-1: not recorded, see {@linkcode bindingScope}).
   * @param name The name.
   * @param start Where it is written.
   * @param kind What binds it.
   * @returns The binding (to add its value or annotation).
   */
  bind(scope: number, name: string, start: number, kind: BindingKind): PyBinding {
    const binding: PyBinding = { name, scope, start, kind };
    // A `nonlocal` name is bound in an enclosing function: its uses resolve there.
    if (scope < 0) return binding;
    const index = this.facts.bindings.push(binding) - 1;
    addTo(this.facts.scopes[scope]!.bindings, name, index);
    return binding;
  }

  /**
   * Record a use of a name.
   *
   * @param name The name.
   * @param start Where it is written.
   * @param scope The scope it is looked up from.
   * @param role How it is used.
   */
  ref(name: string, start: number, scope: number, role: UseRole): void {
    const flat = this.facts.refsByName.get(name);
    if (flat) flat.push(start, scope, USE_ROLES.indexOf(role));
    else this.facts.refsByName.set(name, [start, scope, USE_ROLES.indexOf(role)]);
  }

  /**
   * Record an attribute access.
   *
   * @param attr The access.
   * @param end Where the access ends (indexed when an expression refers to it).
   * @param always Index it whatever refers to it.
   */
  attr(attr: PyAttr, end: number, always = false): void {
    const index = this.facts.attrs.push(attr) - 1;
    addTo(this.facts.attrsByName, attr.name, index);
    if (always || this.#wanted.has(end)) this.facts.attrByEnd.set(end, index);
  }
}

/** How a function in a class takes its first parameter, from its decorators and name. */
function methodKind(outer: Node, name: string): MethodKind {
  const decorators = outer.type === "decorated_definition"
    ? outer.namedChildren.filter((child) => child?.type === "decorator").map((d) => d!.text)
    : [];
  if (decorators.some((d) => /^@\s*(?:builtins\.)?staticmethod\s*$/.test(d))) return "static";
  if (decorators.some((d) => /^@\s*(?:builtins\.)?classmethod\s*$/.test(d))) return "class";
  if (name === "__new__" || name === "__init_subclass__" || name === "__class_getitem__") {
    return "class";
  }
  return "instance";
}
