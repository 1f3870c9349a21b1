/**
 * What the C/C++ symbol resolver keeps of a file: its declarations at file, namespace and class scope (with qualified names and
 * linkage), and every token that may name one of them — never locals (a
 * name that resolves to a local or a parameter is left out while walking),
 * never text in strings or comments. Plain data, no tree.
 *
 * @module
 */

/** The callee of a call. */
export const CALL = 1;
/** In code that does not parse. */
export const IN_ERROR = 2;

/** What a declaration declares. */
export type CDeclKind =
  /** A function with a body. */
  | "function"
  /** A function declared without a body. */
  | "prototype"
  /** A variable defined (not `extern`). */
  | "variable"
  /** A variable declared `extern`. */
  | "extern"
  /** A `typedef` name. */
  | "typedef"
  /** A struct, union or enum tag, or a C++ class. */
  | "tag"
  /** An enumerator. */
  | "enumerator"
  /** A macro. */
  | "macro"
  /** A C++ namespace. */
  | "namespace"
  /** A member of a struct, union or class (data or function). */
  | "member";

/** A type as a declaration names it (`struct point *`, `counter_t`, `ns::Widget &`). */
export interface TypeRef {
  /** The name, without qualifier. */
  name: string;
  /** `struct`/`union`/`enum`/`class` in front (a tag). */
  tag: boolean;
  /** `ns::` parts in front. */
  qualifier: string[];
  /** An anonymous record's index in the same file (`typedef struct {…} t`). */
  record?: number;
}

/** One declaration at file, namespace or class scope. */
export interface CDecl {
  /** The name. */
  name: string;
  /** The qualified name, `::`-joined (`ns::Widget::draw`, `point::x`, `f`). */
  qualified: string;
  /** What it declares. */
  kind: CDeclKind;
  /** Internal linkage (`static` at file scope, an anonymous namespace). */
  internal: boolean;
  /** Offset of the name token. */
  start: number;
  /** The declaration's lines (1-based, inclusive). */
  lines: [number, number];
  /** Its type (variables, members, typedefs), when named. */
  type?: TypeRef;
  /** A tag or class: the record it defines (-1 none). */
  record: number;
  /** A member: the record it belongs to (-1 none). */
  owner: number;
}

/** A struct, union, class or enum with a body. */
export interface CRecord {
  /** Its qualified name (a typedef's name for an anonymous one; "" when none). */
  qualified: string;
  /** Its members by name: declaration indices. */
  members: Map<string, number[]>;
  /** Base classes, as written. */
  bases: TypeRef[];
}

/** What a member access reads from. */
export type Receiver =
  /** `this->x`, or `x` in a member function: the enclosing class. */
  | { kind: "this"; cls: string[] }
  /** A variable or parameter of a known type (`struct point *p`). */
  | { kind: "type"; type: TypeRef }
  /** A file-scope variable, looked up when resolving. */
  | { kind: "global"; name: string }
  /** A member of another receiver (`a.b.x`). */
  | { kind: "member"; base: Receiver; member: string }
  /** Anything else. */
  | { kind: "unknown" };

/** What a token is. */
export type COccKind =
  /** A declaration's name (`decl` is its index). */
  | "decl"
  /** An identifier in an expression. */
  | "ref"
  /** A type name (`counter_t x`). */
  | "type"
  /** A tag after `struct`/`union`/`enum` (`struct point *p`). */
  | "tag"
  /** A member read through a receiver (`p->x`, `.x =`). */
  | "member"
  /** A macro name in `#ifdef`, `defined()`, `#undef`, an `#if` condition. */
  | "macro"
  /** A word inside a macro's definition. */
  | "body";

/** One token. */
export interface COcc {
  /** The name. */
  name: string;
  /** Offset of the token. */
  start: number;
  /** What it is. */
  kind: COccKind;
  /** decl: the declaration's index (-1 otherwise). */
  decl: number;
  /** {@linkcode CALL}, {@linkcode IN_ERROR}. */
  flags: number;
  /** `ns::` parts written in front (`[""]` for `::x`). */
  qualifier?: string[];
  /** Where it is: an index into {@linkcode CFacts.contexts}. */
  context: number;
  /** member: what it is read from. */
  receiver?: Receiver;
}

/** The namespaces and class a token is in. */
export interface CContext {
  /** Enclosing namespaces. */
  ns: string[];
  /** The enclosing member function's class (qualified parts), if any. */
  cls?: string[];
  /** Namespaces named by `using namespace` before here (file or namespace level). */
  using: string[][];
}

/** Everything the resolver keeps of one file. */
export interface CFacts {
  /** Its declarations. */
  decls: CDecl[];
  /** Its tokens. */
  occs: COcc[];
  /** Token indices by name. */
  byName: Map<string, number[]>;
  /** Its records. */
  records: CRecord[];
  /** The contexts tokens point to. */
  contexts: CContext[];
  /** `using ns::name;` declarations: the name → the qualified name it stands for. */
  usings: Map<string, string>;
  /** Parsed as C++. */
  cpp: boolean;
}
