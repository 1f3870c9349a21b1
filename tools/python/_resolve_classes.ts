/**
 * The values the Python resolver tells apart (a module, a class, an instance
 * of one, `super()`, an opaque project value, something outside the project,
 * something unknown), the classes of the project they refer to, and what a
 * class's methods assign on `self`.
 *
 * @module
 */

import type { PyFacts } from "./_resolve_facts.ts";
import { scopeOf } from "./_resolve_lookup.ts";
import type { PyModule } from "./_resolve_modules.ts";
import type { PyFile } from "./_resolve_world.ts";

/** A class of the project: the scope its body opens. */
export interface ClassRef {
  /** Its file. */
  readonly file: PyFile;
  /** The scope its body opens. */
  readonly scope: number;
}

/** What an expression evaluates to. */
export type Value =
  | { readonly kind: "module"; readonly module: PyModule }
  | { readonly kind: "class"; readonly cls: ClassRef }
  | { readonly kind: "instance"; readonly cls: ClassRef }
  | { readonly kind: "super"; readonly cls: ClassRef }
  /**
   * A project function or value whose attributes are not symbols of the
   * project; for one `def`, the scope it opens (its calls' results follow
   * its return annotation or its `return`s).
   */
  | { readonly kind: "opaque"; readonly fn?: ClassRef }
  | { readonly kind: "external" }
  | { readonly kind: "unknown"; readonly reason: string };

/** A class's bases in method resolution order, and what could not be followed. */
export interface Mro {
  /** The class, then its bases. */
  readonly classes: ClassRef[];
  /** Why a base could not be followed. */
  readonly unknown?: string;
  /** A base lies outside the project. */
  readonly external: boolean;
}

/**
 * Names assigned as `self.name = …` (or `cls.name = …`) in the methods of
 * each class of a file, computed once per file.
 *
 * @param facts The file.
 * @param classScope The class.
 * @returns The attribute uses (indices into `facts.attrs`), by name.
 */
export function instanceAttrs(facts: PyFacts, classScope: number): Map<string, number[]> {
  if (!facts.instanceAttrs) {
    const all = new Map<number, Map<string, number[]>>();
    for (const [i, attr] of facts.attrs.entries()) {
      if (attr.role !== "store" || attr.object.kind !== "name") continue;
      const at = scopeOf(facts, attr.object.scope, attr.object.name);
      const method = facts.scopes[at];
      if (!method?.method || method.method === "static") continue;
      if (method.firstParam !== attr.object.name) continue;
      const names = all.get(method.parent) ?? new Map<string, number[]>();
      all.set(method.parent, names);
      names.set(attr.name, [...(names.get(attr.name) ?? []), i]);
    }
    facts.instanceAttrs = all;
  }
  return facts.instanceAttrs.get(classScope) ?? new Map();
}

/**
 * The class a method (or code nested in one) belongs to.
 *
 * @param file The file.
 * @param scope A scope inside the method.
 * @returns The class, or `undefined`.
 */
export function classOfMethod(file: PyFile, scope: number): ClassRef | undefined {
  const scopes = file.facts.scopes;
  for (let at = scope; at >= 0; at = scopes[at]!.parent) {
    if (scopes[at]!.method) return { file, scope: scopes[at]!.parent };
  }
  return undefined;
}

/**
 * A value in a message: why it is unknown, or its kind.
 *
 * @param value The value.
 * @returns The words.
 */
export function describe(value: Value): string {
  return value.kind === "unknown" ? value.reason : `a ${value.kind}`;
}

/**
 * Whether two references are the same class.
 *
 * @param a One class.
 * @param b The other.
 * @returns True when they are.
 */
export function sameClass(a: ClassRef, b: ClassRef): boolean {
  return a.file.path === b.file.path && a.scope === b.scope;
}

/**
 * Whether two values are the same instance's class, class or module.
 *
 * @param a One value.
 * @param b The other.
 * @returns True when they are.
 */
export function sameValue(a: Value, b: Value): boolean {
  if (a.kind === "module" && b.kind === "module") return a.module === b.module;
  if ((a.kind === "instance" || a.kind === "class") && a.kind === b.kind) {
    return sameClass(a.cls, (b as { cls: ClassRef }).cls);
  }
  return false;
}
