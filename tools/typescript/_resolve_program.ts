/**
 * The TS/JS files under a scope seen as one program: which file a relative
 * specifier names (with TypeScript's `.js` → `.ts` mapping and index files),
 * what a module exports under a name (through re-exports and `export *`),
 * which declaration a name finally is (through imports), and what a receiver
 * holds (a module, a class, an instance, an object) as far as the code says.
 *
 * Facts are read from the index; a file whose facts are not made yet is
 * noted in {@linkcode JsProgram.missing} and treated as unknown: the caller
 * makes them and asks again.
 *
 * @module
 */

import * as posix from "node:path/posix";
import type { SourceFile } from "../symbols/_source_index.ts";
import type { FactsOr } from "../symbols/_source_sites.ts";
import type { Chain, JsFacts } from "./_resolve_facts.ts";

/** What a name finally is. */
export type Entity =
  /** A declaration (not an import). */
  | { kind: "decl"; file: string; decl: number }
  /** A CommonJS export with no declaration of its own. */
  | { kind: "cjs"; file: string; name: string }
  /** `export default <expression>`. */
  | { kind: "expr"; file: string }
  /** A module's namespace. */
  | { kind: "module"; file: string }
  /** Something from outside the scope (a package, a file not under it). */
  | { kind: "external"; spec: string; path: string[] }
  /** A global, or a name nothing declares. */
  | { kind: "global"; name: string }
  /** Not known. */
  | { kind: "unknown" };

/** What a receiver holds. */
export type Value =
  | { kind: "module"; file: string }
  | { kind: "class"; file: string; container: number }
  | { kind: "instance"; file: string; container: number }
  | { kind: "object"; file: string; container: number }
  /** Provably none of the scope's classes or objects (a literal, a package's value). */
  | { kind: "other" }
  | { kind: "unknown" };

/** A file's facts, or why it has none. */
export type FactsOrError = FactsOr<JsFacts>;

const UNKNOWN: Entity = { kind: "unknown" };

const TS_FOR_JS: Readonly<Record<string, readonly string[]>> = {
  ".js": [".ts", ".tsx", ".d.ts"],
  ".jsx": [".tsx", ".d.ts"],
  ".mjs": [".mts", ".d.mts"],
  ".cjs": [".cts", ".d.cts"],
};
const TS_ORDER = [".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs"];
const JS_ORDER = [".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".d.ts"];

/**
 * A stable key for an entity (equal keys: the same symbol).
 *
 * @param entity The entity.
 * @returns The key.
 */
export function entityKey(entity: Entity): string {
  switch (entity.kind) {
    case "decl":
      return `d\0${entity.file}\0${entity.decl}`;
    case "cjs":
      return `c\0${entity.file}\0${entity.name}`;
    case "expr":
    case "module":
      return `${entity.kind}\0${entity.file}`;
    case "external":
      return `x\0${entity.spec}\0${entity.path.join(".")}`;
    case "global":
      return `g\0${entity.name}`;
    default:
      return "?";
  }
}

/**
 * Whether a path is a TypeScript file (declaration files included).
 *
 * @param path A path.
 * @returns True for .ts, .tsx, .mts, .cts.
 */
export function isTypeScript(path: string): boolean {
  return /\.[mc]?tsx?$/i.test(path);
}

/** The TS/JS files of a scope, resolved across. */
export class JsProgram {
  /** Files whose facts were wanted but not made yet. */
  readonly missing = new Set<string>();
  #files: ReadonlyMap<string, SourceFile<FactsOrError>>;
  #modules = new Map<string, string | undefined>();
  #exports = new Map<string, Entity | undefined>();
  #origins = new Map<string, Entity>();
  #busy = new Set<string>();

  /**
   * The program of some files.
   *
   * @param files The files, by real path.
   */
  constructor(files: ReadonlyMap<string, SourceFile<FactsOrError>>) {
    this.#files = files;
  }

  /** Forget what was resolved (after more facts were made). */
  reset(): void {
    this.missing.clear();
    this.#modules.clear();
    this.#exports.clear();
    this.#origins.clear();
  }

  /**
   * A file of the program.
   *
   * @param path Its real path.
   * @returns The file, or undefined.
   */
  file(path: string): SourceFile<FactsOrError> | undefined {
    return this.#files.get(path);
  }

  /**
   * A file's facts; notes it as missing when they are not made yet.
   *
   * @param path Its real path.
   * @returns The facts, or undefined (missing, failed, or not in the program).
   */
  facts(path: string): JsFacts | undefined {
    const file = this.#files.get(path);
    if (!file) return undefined;
    if (!file.facts) {
      this.missing.add(path);
      return undefined;
    }
    return "error" in file.facts ? undefined : file.facts;
  }

  /**
   * The file a relative specifier names, as TypeScript (from a .ts file) or
   * Node and bundlers (from a .js file) would find it.
   *
   * @param from The importing file.
   * @param spec The specifier.
   * @returns The file's real path, or undefined (a package, or not under the scope).
   */
  resolveModule(from: string, spec: string): string | undefined {
    if (!spec.startsWith("./") && !spec.startsWith("../") && spec !== "." && spec !== "..") {
      return undefined;
    }
    const key = `${posix.dirname(from)}\0${isTypeScript(from)}\0${spec}`;
    if (this.#modules.has(key)) return this.#modules.get(key);
    const base = posix.join(posix.dirname(from), spec);
    const found = moduleCandidates(base, isTypeScript(from)).find((path) => this.#files.has(path));
    this.#modules.set(key, found);
    return found;
  }

  /**
   * What a module exports under a name.
   *
   * @param file The module's real path.
   * @param name The exported name (`default` too).
   * @returns The entity, or undefined when it exports no such name.
   */
  exportOf(file: string, name: string): Entity | undefined {
    const key = `e\0${file}\0${name}`;
    if (this.#exports.has(key)) return this.#exports.get(key);
    if (this.#busy.has(key)) return undefined; // an export cycle
    this.#busy.add(key);
    try {
      const found = this.#exportOf(file, name);
      this.#exports.set(key, found);
      return found;
    } finally {
      this.#busy.delete(key);
    }
  }

  #exportOf(file: string, name: string): Entity | undefined {
    const facts = this.facts(file);
    if (!facts) return this.#files.has(file) ? UNKNOWN : undefined;
    const entry = facts.exports.get(name)?.[0];
    if (entry) {
      switch (entry.kind) {
        case "local": {
          const decl = facts.occs[entry.occ]!.decl;
          return decl >= 0 ? this.origin(file, decl) : { kind: "global", name };
        }
        case "from":
          return this.#fromModule(file, entry.spec, entry.name === "*" ? [] : [entry.name]);
        case "cjs": {
          const value = entry.value === undefined ? -1 : facts.occs[entry.value]!.decl;
          return value >= 0 ? this.origin(file, value) : { kind: "cjs", file, name };
        }
        case "expr":
          return { kind: "expr", file };
      }
    }
    if (name === "default") return undefined;
    const found = new Map<string, Entity>();
    for (const spec of facts.stars) {
      const module = this.resolveModule(file, spec);
      const entity = module === undefined
        ? { kind: "external" as const, spec, path: [name] }
        : this.exportOf(module, name);
      if (entity) found.set(entityKey(entity), entity);
    }
    return found.size === 1 ? [...found.values()][0] : found.size > 1 ? UNKNOWN : undefined;
  }

  /** What `spec` names (its exports followed along `path`). */
  #fromModule(from: string, spec: string, path: string[]): Entity {
    const module = this.resolveModule(from, spec);
    if (module === undefined) return { kind: "external", spec, path };
    return this.#follow({ kind: "module", file: module }, path);
  }

  /** Follow names through module namespaces (`ns.a.b` where `ns` re-exports `a` as a module). */
  #follow(start: Entity, path: readonly string[]): Entity {
    let entity = start;
    for (const name of path) {
      if (entity.kind === "module") entity = this.exportOf(entity.file, name) ?? UNKNOWN;
      else if (entity.kind === "external") entity = { ...entity, path: [...entity.path, name] };
      else return UNKNOWN;
    }
    return entity;
  }

  /**
   * The declaration a local declaration finally is: through imports and
   * destructured `require`s; a `.d.ts` declaration is its `.js` twin's.
   *
   * @param file The file.
   * @param decl The declaration's index in it.
   * @returns The entity.
   */
  origin(file: string, decl: number): Entity {
    const key = `o\0${file}\0${decl}`;
    const known = this.#origins.get(key);
    if (known) return known;
    if (this.#busy.has(key)) return UNKNOWN;
    this.#busy.add(key);
    try {
      const found = this.#origin(file, decl);
      this.#origins.set(key, found);
      return found;
    } finally {
      this.#busy.delete(key);
    }
  }

  #origin(file: string, decl: number): Entity {
    const facts = this.facts(file);
    const d = facts?.decls[decl];
    if (!facts || !d) return UNKNOWN;
    if (d.alias) return this.chainEntity(file, d.alias);
    const own: Entity = { kind: "decl", file, decl };
    const twin = d.top ? declarationTwin(file) : undefined;
    if (!twin || !this.#files.has(twin)) return own;
    for (const [name, entries] of facts.exports) {
      const entry = entries[0];
      if (entry?.kind === "local" && facts.occs[entry.occ]!.decl === decl) {
        const real = this.exportOf(twin, name);
        if (real && real.kind !== "unknown" && real.kind !== "global") return real;
      }
    }
    return own;
  }

  /**
   * The entity a chain names, followed through module namespaces only.
   *
   * @param file The file the chain is in.
   * @param chain The chain.
   * @returns The entity (unknown past a value's property).
   */
  chainEntity(file: string, chain: Chain): Entity {
    const root = chain.root;
    let start: Entity = UNKNOWN;
    if (root.kind === "ref") {
      const occ = this.facts(file)?.occs[root.occ];
      if (!occ) return UNKNOWN;
      start = occ.decl >= 0 ? this.origin(file, occ.decl) : { kind: "global", name: occ.name };
    } else if (root.kind === "module") {
      return this.#fromModule(file, root.spec, chain.path);
    }
    return this.#follow(start, chain.path);
  }
}

/** The files a specifier may name, in the order they are tried. */
function moduleCandidates(base: string, fromTs: boolean): string[] {
  const ext = posix.extname(base);
  const ts = TS_FOR_JS[ext];
  if (ts) {
    const stem = base.slice(0, -ext.length);
    const mapped = ts.map((each) => stem + each);
    return fromTs ? [...mapped, base] : [base, ...mapped];
  }
  if (/^\.(d\.)?[mc]?tsx?$|^\.json$/.test(ext)) return [base];
  const order = fromTs ? TS_ORDER : JS_ORDER;
  return [
    base,
    ...order.map((each) => base + each),
    ...order.map((each) => `${base}/index${each}`),
  ];
}

/** The JavaScript file a declaration file describes (`x.d.ts` → `x.js`). */
function declarationTwin(file: string): string | undefined {
  const match = /\.d\.([mc]?)ts$/.exec(file);
  return match ? `${file.slice(0, match.index)}.${match[1]}js` : undefined;
}
