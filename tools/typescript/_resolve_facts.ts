/**
 * What the TS/JS symbol resolver keeps of a file: its declarations (with
 * their scopes already resolved), every identifier-like token by name and
 * what it is, its classes, interfaces and objects with their members, and
 * its imports and exports (ES and CommonJS). Plain data, no tree: made once
 * per file version and kept in the worker's index.
 *
 * @module
 */

/** A declaration lives among values. */
export const VALUE = 1;
/** A declaration lives among types. */
export const TYPE = 2;
/** A class, enum, namespace or import: both. */
export const BOTH = 3;

/** An occurrence is the callee of a call or `new`. */
export const CALL = 1;
/** An occurrence lies in code that does not parse. */
export const IN_ERROR = 2;
/** An occurrence is a name in an `export` clause or `export` default. */
export const EXPORT = 4;
/** A property occurrence is a string key (`o["name"]`). */
export const COMPUTED = 8;
/** A reference in a type position. */
export const TYPE_POSITION = 16;

/** What declares a name. */
export type DeclKind =
  | "var"
  | "let"
  | "const"
  | "function"
  | "class"
  | "param"
  | "catch"
  | "import"
  | "type"
  | "enum"
  | "namespace";

/** Where a chain of property reads starts. */
export type Root =
  /** An identifier, resolved through its occurrence. */
  | { kind: "ref"; occ: number }
  /** `this` in a container's method (`container` -1: a `function`'s own `this`). */
  | { kind: "this"; container: number; static: boolean }
  /** `super` in a container's method. */
  | { kind: "super"; container: number; static: boolean }
  /** A module by its specifier: an import, `require("x")`, `await import("x")`. */
  | { kind: "module"; spec: string }
  /** `new X(...)`: an instance of what the chain names. */
  | { kind: "new"; ctor: Chain }
  /** `f(...)`: what the callee returns. */
  | { kind: "call"; callee: Chain }
  /** A literal (string, number, array, ...). */
  | { kind: "literal" }
  /** Anything else. */
  | { kind: "unknown" };

/** A value as a root and property names read from it (`ns.a.b` is `ns` and `["a", "b"]`). */
export interface Chain {
  /** Where it starts. */
  root: Root;
  /** The names read, in order. */
  path: string[];
}

/** One declared name. */
export interface JsDecl {
  /** The name. */
  name: string;
  /** Offset of its name token (its first declaration). */
  start: number;
  /** What declares it. */
  kind: DeclKind;
  /** {@linkcode VALUE}, {@linkcode TYPE} or {@linkcode BOTH}. */
  space: number;
  /** Declared in the module's scope. */
  top: boolean;
  /** The lines of its declaration (1-based, inclusive). */
  lines: [number, number];
  /** An import or a destructured `require`: the same symbol as what the chain names. */
  alias?: Chain;
  /** What it was initialised with (for what a receiver is). */
  value?: Chain;
  /** Its TypeScript type annotation's name. */
  type?: Chain;
  /** A function: its return type annotation's name. */
  returns?: Chain;
  /** Assigned again after its declaration. */
  reassigned: boolean;
  /** The class, interface, object, namespace or enum it names (-1 none). */
  container: number;
}

/** What an occurrence is. */
export type OccKind =
  /** A declaration's name. */
  | "decl"
  /** An identifier that refers to a declaration (or to a global). */
  | "ref"
  /** `{ a }` in an object literal: a reference and a key. */
  | "shorthand"
  /** A property read or written: `x.a`, `x["a"]`, a destructured key. */
  | "prop"
  /** A member's name in a class, interface, object, namespace or enum. */
  | "member"
  /** A key of an object literal that is no known container. */
  | "key"
  /** The imported name of `import { a as b }`, `export { a as b } from`. */
  | "imported"
  /** The exported name of `export { a as b }`. */
  | "exported"
  /** `exports.a = …`, `module.exports.a = …`, a key of `module.exports = {…}`. */
  | "cjs";

/** One identifier-like token. */
export interface Occ {
  /** The name. */
  name: string;
  /** Offset of the token. */
  start: number;
  /** What it is. */
  kind: OccKind;
  /** decl, ref, shorthand: the declaration (-1: a global, or none). */
  decl: number;
  /** {@linkcode CALL}, {@linkcode IN_ERROR}, {@linkcode EXPORT}, {@linkcode COMPUTED}, ... */
  flags: number;
  /** prop, and a decl destructured from a value: what it is read from. */
  receiver?: Chain;
  /** member, key, shorthand: the container (-1 none). */
  container: number;
  /** key, prop, cjs: the occurrence of an identifier stored under this name. */
  value?: number;
  /** imported, exported with a source: the module specifier. */
  spec?: string;
  /** imported, exported with a source: the name in that module. */
  imported?: string;
  /** exported: the occurrence of the local name it exports. */
  local?: number;
}

/** A member of a container. */
export interface Member {
  /** The occurrence of its name. */
  occ: number;
  /** A static member (or a namespace's, an enum's). */
  static: boolean;
  /** Its lines. */
  lines: [number, number];
  /** A constructor parameter property: the parameter's declaration. */
  param?: number;
  /** A field's type annotation's name. */
  type?: Chain;
  /** A method's return type annotation's name. */
  returns?: Chain;
}

/** A class, interface, object literal bound to a name, namespace or enum. */
export interface JsContainer {
  /** What it is. */
  kind: "class" | "interface" | "object" | "namespace" | "enum";
  /** Its name ("" when anonymous). */
  name: string;
  /** The declaration of its name (-1 none). */
  decl: number;
  /** Its lines. */
  lines: [number, number];
  /** What it extends. */
  extends: Chain[];
  /** What it implements. */
  implements: Chain[];
  /** Its members by name. */
  members: Map<string, Member[]>;
  /** `this.name = …` occurrences in its methods (JavaScript's fields). */
  assigned: Map<string, number[]>;
}

/** What a module exports under one name. */
export type ExportEntry =
  /** A local declaration: the occurrence that names it. */
  | { kind: "local"; occ: number }
  /** What another module exports (`name` "*": that module itself). */
  | { kind: "from"; spec: string; name: string }
  /** A CommonJS export, and the identifier assigned to it. */
  | { kind: "cjs"; occ: number; value?: number }
  /** `export default <expression>`. */
  | { kind: "expr"; lines: [number, number] };

/** Everything the resolver keeps of one file. */
export interface JsFacts {
  /** Its declarations. */
  decls: JsDecl[];
  /** Its identifier-like tokens. */
  occs: Occ[];
  /** Occurrence indices by name. */
  byName: Map<string, number[]>;
  /** Its containers. */
  containers: JsContainer[];
  /** Module-scope declarations by name (values first). */
  top: Map<string, number>;
  /** Its exports by exported name. */
  exports: Map<string, ExportEntry[]>;
  /** `export * from` specifiers (and CommonJS whole-module re-exports). */
  stars: string[];
  /** CommonJS exports built at run time (`exports[k] = …`, `module.exports = f()`). */
  dynamicExports: boolean;
}
