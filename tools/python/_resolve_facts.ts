/**
 * What the Python symbol resolver keeps of a file once it has parsed it: its
 * scopes and the names each binds, every name and attribute it uses, its
 * imports and the names its `__all__` lists — plain data, no tree (a tree is
 * valid only until the next await), so that one parse serves every later call.
 *
 * @module
 */

/** What opened a scope. */
export type ScopeKind = "module" | "class" | "function" | "lambda" | "comprehension";

/** An expression as far as the resolver follows it (a receiver, a base class, an assigned value). */
export type PyExpr =
  | { readonly kind: "name"; readonly name: string; readonly start: number; readonly scope: number }
  /** An attribute access, by the offset where it ends (`PyFacts.attrByEnd`). */
  | { readonly kind: "attr"; readonly end: number }
  /** A call, by the offset where it ends (`PyFacts.calls` has its callee). */
  | { readonly kind: "call"; readonly end: number }
  /** A literal: a builtin value, never a project symbol. */
  | { readonly kind: "literal" }
  | { readonly kind: "other" };

/** How a function directly in a class takes its first parameter. */
export type MethodKind = "instance" | "class" | "static";

/** A scope: the module, a class body, a function, a lambda or a comprehension. */
export interface PyScope {
  /** What opened it. */
  readonly kind: ScopeKind;
  /** The class's or function's name (`""` for the module and anonymous scopes). */
  name: string;
  /** The enclosing scope, -1 for the module. */
  readonly parent: number;
  /** The defining statement's span, decorators included. */
  readonly start: number;
  /** Where the defining statement ends. */
  readonly end: number;
  /** Where the class's or function's name is, -1 when it has none. */
  nameStart: number;
  /** Bindings by name (indices into `PyFacts.bindings`). */
  readonly bindings: Map<string, number[]>;
  /** Names declared `global` or `nonlocal` here (made on the first). */
  declared?: Map<string, "global" | "nonlocal">;
  /** A class's bases, as written. */
  bases?: PyExpr[];
  /** A function directly in a class: how it takes its first parameter. */
  method?: MethodKind;
  /** A function's first parameter's name. */
  firstParam?: string;
  /** `from m import *` statements here (indices into `PyFacts.imports`). */
  stars?: number[];
  /** A function's return annotation (`-> Cls`). */
  returns?: PyExpr;
  /** What a function's `return` statements return, each as written. */
  returned?: PyExpr[];
}

/** What bound a name. */
export type BindingKind = "def" | "class" | "param" | "assign" | "import" | "other";

/** One binding of a name in a scope. */
export interface PyBinding {
  /** The bound name. */
  readonly name: string;
  /** The scope it is bound in. */
  readonly scope: number;
  /** Where the bound name is written. */
  readonly start: number;
  /** What bound it. */
  readonly kind: BindingKind;
  /** A `def` or `class`: the scope it opens. */
  opens?: number;
  /** An import: its index in `PyFacts.imports`. */
  import?: number;
  /** A single-target assignment: the value. */
  value?: PyExpr;
  /** An annotation (a parameter's, an annotated assignment's). */
  annotation?: PyExpr;
}

/** One imported name (`import a.b`, `import a.b as c`, `from .m import n as o`, `from m import *`). */
export interface PyImport {
  /** The scope the import is in. */
  readonly scope: number;
  /** Leading dots of a relative import. */
  readonly level: number;
  /** The module, dotted (`""` for `from . import n`). */
  readonly module: string;
  /** A `from` import's imported name; `undefined` for `import a.b`. */
  readonly name?: string;
  /** Where that name is written, -1 when there is none. */
  readonly nameStart: number;
  /** The name it binds (`a` for `import a.b`); `""` for a star import. */
  readonly bound: string;
  /** Where the bound name is written. */
  readonly boundStart: number;
  /** `from m import *`. */
  readonly star: boolean;
}

/** How a name or attribute is used. */
export type UseRole = "load" | "call" | "store" | "del" | "def" | "param" | "declare";

/** A name written in code (not an attribute, a keyword argument or an import). */
export interface PyRef {
  /** The name. */
  readonly name: string;
  /** Where it is written. */
  readonly start: number;
  /** The scope it is looked up from. */
  readonly scope: number;
  /** How it is used. */
  readonly role: UseRole;
}

/** An attribute access `object.name`. */
export interface PyAttr {
  /** The attribute's name. */
  readonly name: string;
  /** Where the attribute's name is written. */
  readonly start: number;
  /** The scope the access is in. */
  readonly scope: number;
  /** The receiver. */
  readonly object: PyExpr;
  /** How it is used. */
  readonly role: UseRole;
  /** A single-target assignment to it: the value. */
  readonly value?: PyExpr;
}

/** A name written as a string: an `__all__` entry, or `getattr(x, "name")` and its kin. */
export interface PyString {
  /** The string's content. */
  readonly value: string;
  /** The string's content (without quotes). */
  readonly start: number;
  /** Where the content ends. */
  readonly end: number;
  /** The scope the string is in. */
  readonly scope: number;
  /** `all`: an entry of the module's `__all__`; `dynamic`: a `getattr`-like call. */
  readonly kind: "all" | "dynamic";
  /** A dynamic string's function (`getattr`). */
  readonly call?: string;
}

/** Everything the resolver knows of one file. */
export interface PyFacts {
  /** The decoded text (for line text and columns). */
  readonly text: string;
  /** Offsets where each line starts. */
  readonly lineStarts: readonly number[];
  /** Every scope, the module first. */
  readonly scopes: PyScope[];
  /** Every binding. */
  readonly bindings: PyBinding[];
  /** The names used, by name: (start, scope, role) triples, flat (see {@linkcode refsNamed}). */
  readonly refsByName: Map<string, number[]>;
  /** Every attribute access. */
  readonly attrs: PyAttr[];
  /** Indices into `attrs`, by attribute name. */
  readonly attrsByName: Map<string, number[]>;
  /** Index into `attrs`, by the offset where the access ends. */
  readonly attrByEnd: Map<number, number>;
  /** A call's callee, by the offset where the call ends. */
  readonly calls: Map<number, PyExpr>;
  /** Every imported name. */
  readonly imports: PyImport[];
  /** `__all__` entries and `getattr`-like strings. */
  readonly strings: PyString[];
  /** The module's `__all__` is not a plain list of strings (built, or changed by code we do not follow). */
  allDynamic: boolean;
  /** Per-class names assigned as `self.name = …` in its methods, computed on first use. */
  instanceAttrs?: Map<number, Map<string, number[]>>;
}

/** Each {@linkcode UseRole} as stored in `PyFacts.refsByName`. */
export const USE_ROLES: readonly UseRole[] = [
  "load",
  "call",
  "store",
  "del",
  "def",
  "param",
  "declare",
];

/**
 * The uses of a name in a file.
 *
 * @param facts The file.
 * @param name The name.
 * @returns Its uses, in source order.
 */
export function refsNamed(facts: PyFacts, name: string): PyRef[] {
  const flat = facts.refsByName.get(name);
  if (!flat) return [];
  const out: PyRef[] = [];
  for (let i = 0; i < flat.length; i += 3) {
    out.push({ name, start: flat[i]!, scope: flat[i + 1]!, role: USE_ROLES[flat[i + 2]!]! });
  }
  return out;
}
