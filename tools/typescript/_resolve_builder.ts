/**
 * Builds a file's {@linkcode JsFacts} while the walker goes through its
 * tree: scopes (module, function, block), declarations put where they are
 * hoisted to, and references resolved once every declaration is known.
 *
 * @module
 */

import type { Node } from "web-tree-sitter";
import {
  type Chain,
  type DeclKind,
  type ExportEntry,
  type JsContainer,
  type JsDecl,
  type JsFacts,
  type Member,
  type Occ,
  type OccKind,
  TYPE,
  TYPE_POSITION,
  VALUE,
} from "./_resolve_facts.ts";

/** Where the walker is. */
export interface At {
  /** The scope names are declared in and looked up from. */
  scope: number;
  /** What `this` is: a container's instance (or its class, when static); container -1 unknown. */
  self: { container: number; static: boolean };
  /** {@linkcode IN_ERROR} and {@linkcode TYPE_POSITION} bits for the occurrences made here. */
  flags: number;
  /** The TypeScript namespace whose body this is (-1: the module). */
  ns: number;
}

/** The walker as its handlers see it. */
export interface Walker {
  /** The facts being built. */
  readonly b: FactsBuilder;
  /**
   * Walk a node.
   *
   * @param node The node.
   * @param at Where it is.
   */
  visit(node: Node, at: At): void;
  /**
   * Walk a node's named children.
   *
   * @param node The node.
   * @param at Where they are.
   */
  visitChildren(node: Node, at: At): void;
}

interface Scope {
  parent: number;
  /** A function's (or the module's) scope: where `var` goes. */
  fn: boolean;
  values: Map<string, number>;
  types: Map<string, number>;
}

/** What a declaration gets besides its name. */
export interface DeclOptions {
  /** What declares it. */
  kind: DeclKind;
  /** {@linkcode VALUE}, {@linkcode TYPE} or {@linkcode BOTH}. */
  space: number;
  /** The scope it goes to. */
  scope: number;
  /** The lines of its declaration. */
  lines: [number, number];
  /** An import: what it names. */
  alias?: Chain;
  /** What it is initialised with. */
  value?: Chain;
  /** Its type annotation's name. */
  type?: Chain;
  /** More flags for its occurrence. */
  flags?: number;
  /** Destructured from this value. */
  receiver?: Chain;
}

/** The lines a node covers (1-based, inclusive; a node ending at column 0 ends on the line before). */
export function linesOf(node: Node): [number, number] {
  const end = node.endPosition;
  const last = end.column === 0 && end.row > node.startPosition.row ? end.row : end.row + 1;
  return [node.startPosition.row + 1, last];
}

/** Accumulates the facts of one file. */
export class FactsBuilder {
  #scopes: Scope[] = [{ parent: -1, fn: true, values: new Map(), types: new Map() }];
  #pending: number[] = [];
  #decls: JsDecl[] = [];
  #declScopes: number[] = [];
  #byStart = new Map<number, number>();
  #occs: Occ[] = [];
  #containers: JsContainer[] = [];
  #exports = new Map<string, ExportEntry[]>();
  #stars: string[] = [];
  #dynamic = false;

  /** The occurrences so far. */
  get occs(): readonly Occ[] {
    return this.#occs;
  }

  /** The declarations so far. */
  get decls(): readonly JsDecl[] {
    return this.#decls;
  }

  /** The containers so far. */
  get containers(): readonly JsContainer[] {
    return this.#containers;
  }

  /**
   * A new scope.
   *
   * @param parent The enclosing scope.
   * @param fn A function's scope (`var` goes there).
   * @returns Its id.
   */
  scope(parent: number, fn = false): number {
    this.#scopes.push({ parent, fn, values: new Map(), types: new Map() });
    return this.#scopes.length - 1;
  }

  /**
   * The nearest function (or module) scope.
   *
   * @param scope A scope.
   * @returns Its function's scope.
   */
  functionScope(scope: number): number {
    let id = scope;
    while (!this.#scopes[id]!.fn) id = this.#scopes[id]!.parent;
    return id;
  }

  /**
   * Declare a name (a second declaration in the same scope is the same one:
   * overloads, `var` twice, declaration merging).
   *
   * @param name The name's node.
   * @param options What declares it and where.
   * @returns The index of the name's occurrence.
   */
  declare(name: Node, options: DeclOptions): number {
    const scope = this.#scopes[options.scope]!;
    const text = name.text;
    let decl = (options.space & VALUE ? scope.values.get(text) : undefined) ??
      (options.space & TYPE ? scope.types.get(text) : undefined);
    if (decl === undefined) {
      decl = this.#decls.length;
      this.#decls.push({
        name: text,
        start: name.startIndex,
        kind: options.kind,
        space: options.space,
        top: options.scope === 0,
        lines: options.lines,
        reassigned: false,
        container: -1,
        ...(options.alias ? { alias: options.alias } : {}),
        ...(options.value ? { value: options.value } : {}),
        ...(options.type ? { type: options.type } : {}),
      });
      this.#declScopes.push(options.scope);
    } else {
      this.#decls[decl]!.space |= options.space;
    }
    if (options.space & VALUE) scope.values.set(text, decl);
    if (options.space & TYPE) scope.types.set(text, decl);
    const extra: Partial<Occ> = options.receiver ? { receiver: options.receiver } : {};
    return this.occ(name, "decl", { decl, flags: options.flags ?? 0, ...extra });
  }

  /**
   * Record an occurrence.
   *
   * @param node Its token.
   * @param kind What it is.
   * @param fields The rest of it.
   * @returns Its index.
   */
  occ(node: Node, kind: OccKind, fields: Partial<Occ> = {}): number {
    const start = node.type === "string"
      ? (node.namedChildren[0]?.startIndex ?? 0)
      : node.startIndex;
    const name = node.type === "string" ? (node.namedChildren[0]?.text ?? "") : node.text;
    this.#occs.push({ name, start, kind, decl: -1, flags: 0, container: -1, ...fields });
    this.#byStart.set(start, this.#occs.length - 1);
    return this.#occs.length - 1;
  }

  /**
   * The occurrence made last for a token.
   *
   * @param start The token's offset.
   * @returns Its index, or undefined.
   */
  occAt(start: number): number | undefined {
    return this.#byStart.get(start);
  }

  /**
   * The scope a declaration was put in.
   *
   * @param decl The declaration.
   * @returns The scope's id.
   */
  scopeOf(decl: number): number {
    return this.#declScopes[decl]!;
  }

  /**
   * Record an identifier that refers to a declaration, resolved at the end.
   *
   * @param node Its token.
   * @param at Where it is.
   * @param kind `ref` or `shorthand`.
   * @param fields The rest of it.
   * @returns Its index.
   */
  ref(node: Node, at: At, kind: OccKind = "ref", fields: Partial<Occ> = {}): number {
    const index = this.occ(node, kind, { flags: at.flags, ...fields });
    this.#pending.push(index, at.scope);
    return index;
  }

  /**
   * Mark the declaration an identifier will resolve to as assigned again.
   *
   * @param occ The identifier's occurrence.
   */
  reassigned(occ: number): void {
    this.#occs[occ]!.flags |= REASSIGNS;
  }

  /**
   * A new container.
   *
   * @param fields What it is, its name, its declaration and lines.
   * @returns Its index.
   */
  container(fields: Pick<JsContainer, "kind" | "name" | "decl" | "lines">): number {
    this.#containers.push({
      ...fields,
      extends: [],
      implements: [],
      members: new Map(),
      assigned: new Map(),
    });
    if (fields.decl >= 0) this.#decls[fields.decl]!.container = this.#containers.length - 1;
    return this.#containers.length - 1;
  }

  /**
   * Record a member of a container (its name's occurrence already made).
   *
   * @param container The container.
   * @param occ The name's occurrence.
   * @param member Static or not, its lines, a parameter property's declaration, its type.
   * @returns The member (its return type is set once its method is walked).
   */
  member(container: number, occ: number, member: Omit<Member, "occ">): Member {
    const name = this.#occs[occ]!.name;
    const members = this.#containers[container]!.members;
    const list = members.get(name) ?? [];
    const made = { occ, ...member };
    list.push(made);
    members.set(name, list);
    return made;
  }

  /**
   * Record `this.name = …` in a container's method (a JavaScript field).
   *
   * @param container The container.
   * @param occ The property's occurrence.
   */
  assignedMember(container: number, occ: number): void {
    const name = this.#occs[occ]!.name;
    const assigned = this.#containers[container]!.assigned;
    const list = assigned.get(name) ?? [];
    list.push(occ);
    assigned.set(name, list);
  }

  /**
   * Record an export.
   *
   * @param name The exported name.
   * @param entry What it exports.
   */
  export(name: string, entry: ExportEntry): void {
    const list = this.#exports.get(name) ?? [];
    list.push(entry);
    this.#exports.set(name, list);
  }

  /**
   * Record `export * from` (or a CommonJS whole-module re-export).
   *
   * @param spec The module specifier.
   */
  star(spec: string): void {
    this.#stars.push(spec);
  }

  /** Note that the CommonJS exports are built at run time. */
  dynamicExports(): void {
    this.#dynamic = true;
  }

  /**
   * Resolve the references and hand out the facts.
   *
   * @returns The facts.
   */
  finish(): JsFacts {
    for (let i = 0; i < this.#pending.length; i += 2) {
      const occ = this.#occs[this.#pending[i]!]!;
      occ.decl = this.#lookup(occ.name, this.#pending[i + 1]!, occ.flags & TYPE_POSITION);
      if (occ.flags & REASSIGNS && occ.decl >= 0) this.#decls[occ.decl]!.reassigned = true;
      occ.flags &= ~REASSIGNS;
    }
    const byName = new Map<string, number[]>();
    this.#occs.forEach((occ, i) => {
      const list = byName.get(occ.name);
      if (list) list.push(i);
      else byName.set(occ.name, [i]);
    });
    const module = this.#scopes[0]!;
    const top = new Map([...module.types, ...module.values]);
    return {
      decls: this.#decls,
      occs: this.#occs,
      byName,
      containers: this.#containers,
      top,
      exports: this.#exports,
      stars: this.#stars,
      dynamicExports: this.#dynamic,
    };
  }

  #lookup(name: string, scope: number, typePosition: number): number {
    for (let id = scope; id >= 0; id = this.#scopes[id]!.parent) {
      const found = typePosition
        ? this.#scopes[id]!.types.get(name)
        : this.#scopes[id]!.values.get(name);
      if (found !== undefined) return found;
    }
    return -1;
  }
}

/** Set on an identifier that is assigned to (cleared when resolved). */
const REASSIGNS = 1 << 20;
