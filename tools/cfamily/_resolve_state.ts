/**
 * The state of the C/C++ facts walker: the facts being built, the block
 * scopes of locals (whose names are never recorded), the enclosing
 * namespaces, class and records, and `using namespace` directives.
 *
 * @module
 */

import type { Node } from "web-tree-sitter";
import type {
  CContext,
  CDeclKind,
  CFacts,
  COcc,
  COccKind,
  CRecord,
  TypeRef,
} from "./_resolve_facts.ts";
import { BlockScopes } from "./_resolve_locals.ts";
import { addTo } from "../symbols/_multimap.ts";

/** What a declaration gets besides its name. */
export interface DeclOptions {
  /** What it declares. */
  kind: CDeclKind;
  /** Its qualifier parts (before the name), the enclosing namespaces excluded. */
  qualifier?: string[];
  /** Internal linkage. */
  internal?: boolean;
  /** The node whose lines it covers. */
  node: Node;
  /** Its type. */
  type?: TypeRef;
  /** The record it defines. */
  record?: number;
  /** The record it is a member of. */
  owner?: number;
}

/** The lines a node covers (1-based, inclusive). */
export function linesOf(node: Node): [number, number] {
  const end = node.endPosition;
  const last = end.column === 0 && end.row > node.startPosition.row ? end.row : end.row + 1;
  return [node.startPosition.row + 1, last];
}

/** The walker's state and the facts it builds. */
export class CState {
  /** Walk a node (set by the walker). */
  visit: (node: Node) => void = () => {};

  /**
   * Walk a node's named children.
   *
   * @param node The node.
   */
  visitChildren(node: Node): void {
    for (const child of node.namedChildren) if (child) this.visit(child);
  }
  /** Enclosing namespaces (`""` for an anonymous one). */
  ns: string[] = [];
  /** The enclosing member function's class. */
  cls: string[] | undefined;
  /** Records being filled, innermost last. */
  records: number[] = [];
  /** {@linkcode IN_ERROR} when inside an ERROR node. */
  flags = 0;
  #scopes = new BlockScopes();
  #using: string[][] = [];
  #contexts = new Map<string, number>();
  #last: { ns: string[]; cls: string[] | undefined; version: number; index: number } | undefined;
  #version = 0;
  #facts: CFacts;

  /**
   * A walker's state for one file.
   *
   * @param cpp Whether the file is parsed as C++.
   */
  constructor(cpp: boolean) {
    this.#facts = {
      decls: [],
      occs: [],
      byName: new Map(),
      records: [],
      contexts: [],
      usings: new Map(),
      cpp,
    };
  }

  /** The facts built so far. */
  get facts(): CFacts {
    return this.#facts;
  }

  /** Inside a function (or a block): names declared now are locals. */
  get inBlock(): boolean {
    return this.#scopes.inBlock;
  }

  /** Whether an anonymous namespace encloses the walker (internal linkage). */
  get inAnonymous(): boolean {
    return this.ns.includes("");
  }

  /**
   * Run `body` in a new block scope (names declared in it are locals).
   *
   * @param body What to walk in it.
   * @param isBlock False for a template's parameters: the templated declaration is not local.
   */
  block(body: () => void, isBlock = true): void {
    this.#scopes.run(body, isBlock);
  }

  /**
   * Run `body` with a namespace or `using` state restored afterwards.
   *
   * @param body What to walk.
   */
  nested(body: () => void): void {
    const ns = this.ns;
    const cls = this.cls;
    const using = this.#using.length;
    try {
      body();
    } finally {
      this.ns = ns;
      this.cls = cls;
      this.#using.length = using;
      this.#version++;
    }
  }

  /**
   * Declare a local (a parameter, a block variable, a template parameter).
   *
   * @param name Its name.
   * @param type Its type, when known.
   */
  local(name: string, type: TypeRef | null = null): void {
    this.#scopes.declare(name, type);
  }

  /**
   * The local a name refers to here.
   *
   * @param name The name.
   * @returns Its type (null when unknown), or undefined when it is no local.
   */
  lookupLocal(name: string): TypeRef | null | undefined {
    return this.#scopes.lookup(name);
  }

  /**
   * Note `using namespace X;`.
   *
   * @param parts X's parts.
   */
  usingNamespace(parts: string[]): void {
    this.#using.push(parts);
    this.#version++;
  }

  /**
   * Record a token.
   *
   * @param node The token.
   * @param kind What it is.
   * @param fields The rest.
   * @returns Its index.
   */
  occ(node: Node, kind: COccKind, fields: Partial<COcc> = {}): number {
    return this.occAt(node.text, node.startIndex, kind, fields);
  }

  /**
   * Record a token by its text and offset.
   *
   * @param name The text.
   * @param start The offset.
   * @param kind What it is.
   * @param fields The rest.
   * @returns Its index.
   */
  occAt(name: string, start: number, kind: COccKind, fields: Partial<COcc> = {}): number {
    const occs = this.#facts.occs;
    occs.push({
      name,
      start,
      kind,
      decl: -1,
      flags: this.flags,
      context: this.#context(),
      ...fields,
    });
    addTo(this.#facts.byName, name, occs.length - 1);
    return occs.length - 1;
  }

  /**
   * Declare a name at file, namespace or class scope.
   *
   * @param token The name token.
   * @param options What it declares.
   * @returns The declaration's index.
   */
  declare(token: Node, options: DeclOptions): number {
    const decls = this.#facts.decls;
    const scope = options.owner !== undefined || options.kind === "macro"
      ? []
      : [...this.ns.filter((n) => n !== ""), ...this.#recordPath()];
    const qualified = [...scope, ...(options.qualifier ?? []), token.text].join("::");
    decls.push({
      name: token.text,
      qualified,
      kind: options.kind,
      internal: options.internal ?? false,
      start: token.startIndex,
      lines: linesOf(options.node),
      record: options.record ?? -1,
      owner: options.owner ?? -1,
      ...(options.type ? { type: options.type } : {}),
    });
    this.occ(token, "decl", { decl: decls.length - 1 });
    return decls.length - 1;
  }

  /**
   * A new record.
   *
   * @param qualified Its qualified name ("" when anonymous).
   * @returns Its index.
   */
  record(qualified: string): number {
    const record: CRecord = { qualified, members: new Map(), bases: [] };
    this.#facts.records.push(record);
    return this.#facts.records.length - 1;
  }

  /**
   * Add a member to a record.
   *
   * @param record The record.
   * @param decl The member's declaration.
   */
  member(record: number, decl: number): void {
    addTo(this.#facts.records[record]!.members, this.#facts.decls[decl]!.name, decl);
  }

  /**
   * The qualified names of members, once every record has its name (a
   * typedef names an anonymous struct after its body).
   *
   * @returns The facts.
   */
  finish(): CFacts {
    for (const decl of this.#facts.decls) {
      if (decl.owner >= 0) {
        decl.qualified = `${this.#facts.records[decl.owner]!.qualified}::${decl.name}`;
      }
    }
    return this.#facts;
  }

  /** The names of the records being filled (nested classes qualify their members). */
  #recordPath(): string[] {
    const last = this.records.at(-1);
    if (last === undefined) return [];
    const qualified = this.#facts.records[last]!.qualified;
    const prefix = this.ns.filter((n) => n !== "").join("::");
    const rest = prefix && qualified.startsWith(`${prefix}::`)
      ? qualified.slice(prefix.length + 2)
      : qualified;
    return rest ? rest.split("::") : [];
  }

  #context(): number {
    const last = this.#last;
    if (last && last.ns === this.ns && last.cls === this.cls && last.version === this.#version) {
      return last.index;
    }
    const context: CContext = {
      ns: this.ns.filter((n) => n !== ""),
      ...(this.cls ? { cls: this.cls } : {}),
      using: this.#using.map((parts) => [...parts]),
    };
    const key = JSON.stringify(context);
    let index = this.#contexts.get(key);
    if (index === undefined) {
      index = this.#facts.contexts.length;
      this.#facts.contexts.push(context);
      this.#contexts.set(key, index);
    }
    this.#last = { ns: this.ns, cls: this.cls, version: this.#version, index };
    return index;
  }
}
