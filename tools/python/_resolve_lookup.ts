/**
 * What a Python name denotes: LEGB look-up in a file's scopes (`global`,
 * `nonlocal`, class bodies that do not enclose their methods), imports
 * followed to the definition they bring in, and a module's names as another
 * module sees them (its bindings, its submodules, its star imports).
 *
 * @module
 */

import { isBuiltin } from "./_resolve_builtins.ts";
import type { PyBinding, PyFacts, PyImport } from "./_resolve_facts.ts";
import { moduleOf, type PyModule, resolveModule, submodule } from "./_resolve_modules.ts";
import type { PyFile, PyWorld } from "./_resolve_world.ts";
import { memoized } from "../symbols/_memo.ts";

/** A name bound in one scope of one file: a symbol. */
export interface Sym {
  /** The file. */
  readonly file: PyFile;
  /** The scope that binds it. */
  readonly scope: number;
  /** The name. */
  readonly name: string;
}

/** What a name or an attribute denotes. */
export type Denoted =
  /** A project symbol; `star` names the `from m import *` it came through. */
  | { readonly kind: "sym"; readonly sym: Sym; readonly star?: string }
  | { readonly kind: "module"; readonly module: PyModule }
  /** Something outside the project (a builtin, the standard library, a dependency). */
  | { readonly kind: "external" }
  /** Something the resolver cannot tell. */
  | { readonly kind: "unknown"; readonly reason: string }
  /** Known not to exist. */
  | { readonly kind: "none" };

/**
 * A symbol's identity.
 *
 * @param sym The symbol.
 * @returns A string equal for the same symbol.
 */
export function symKey(sym: Sym): string {
  return `${sym.file.path}\0${sym.scope}\0${sym.name}`;
}

/**
 * The bindings of a symbol.
 *
 * @param sym The symbol.
 * @returns Its bindings, in source order.
 */
export function bindingsOf(sym: Sym): PyBinding[] {
  const facts = sym.file.facts;
  return (facts.scopes[sym.scope]?.bindings.get(sym.name) ?? []).map((i) => facts.bindings[i]!);
}

/**
 * The scope a name used in a scope is bound in (LEGB).
 *
 * @param facts The file.
 * @param scope Where the name is used.
 * @param name The name.
 * @returns The binding scope, or -1 for a builtin or unbound name.
 */
export function scopeOf(facts: PyFacts, scope: number, name: string): number {
  const scopes = facts.scopes;
  const own = scopes[scope]!;
  const global = () => (scopes[0]!.bindings.has(name) ? 0 : -1);
  const declared = own.declared?.get(name);
  if (declared === "global") return global();
  if (declared !== "nonlocal" && own.bindings.has(name)) return scope;
  for (let at = own.parent; at >= 0; at = scopes[at]!.parent) {
    const outer = scopes[at]!;
    if (outer.kind === "class") continue;
    if (outer.declared?.get(name) === "global") return global();
    if (outer.bindings.has(name)) return at;
  }
  return -1;
}

/** Names, imports and module exports, memoized for one call. */
export class PyLookup {
  /** The call's files. */
  readonly world: PyWorld;
  #definitions = new Map<string, Denoted>();
  #exports = new Map<string, Denoted>();

  /** @param world The call's files. */
  constructor(world: PyWorld) {
    this.world = world;
  }

  /**
   * What a name used in a scope denotes.
   *
   * @param file The file.
   * @param scope Where it is used.
   * @param name The name.
   * @returns What it denotes (a builtin is `external`, a name bound nowhere `unknown`).
   */
  nameAt(file: PyFile, scope: number, name: string): Denoted {
    const at = scopeOf(file.facts, scope, name);
    if (at >= 0) return this.definitionOf({ file, scope: at, name });
    const starred = this.#fromStars(file, name);
    if (starred) return starred;
    if (isBuiltin(name)) return { kind: "external" };
    const star = file.facts.scopes[0]!.stars?.[0];
    if (star !== undefined) {
      const from = file.facts.imports[star]!;
      const module = `${".".repeat(from.level)}${from.module}`;
      return { kind: "unknown", reason: `"${name}" may come from "from ${module} import *"` };
    }
    return { kind: "unknown", reason: `"${name}" is not defined in this module` };
  }

  /**
   * What a symbol is once imports are followed (itself when it is defined here).
   *
   * @param sym The symbol.
   * @returns The definition it stands for.
   */
  definitionOf(sym: Sym): Denoted {
    return memoized(this.#definitions, symKey(sym), () => this.#definition(sym), {
      kind: "unknown",
      reason: "circular imports",
    });
  }

  #definition(sym: Sym): Denoted {
    const bindings = bindingsOf(sym);
    if (bindings.length === 0 || bindings.some((binding) => binding.kind !== "import")) {
      return { kind: "sym", sym };
    }
    const targets = bindings.map((b) =>
      this.importTarget(sym.file, sym.file.facts.imports[b.import!]!)
    );
    return targets.find((t) => t.kind === "sym" || t.kind === "module") ?? targets[0]!;
  }

  /**
   * What one imported name brings in.
   *
   * @param file The importing file.
   * @param imported The import.
   * @returns The definition, module, or `external`.
   */
  importTarget(file: PyFile, imported: PyImport): Denoted {
    if (imported.name === undefined) {
      const top = imported.module.split(".")[0]!;
      const dotted = imported.bound === top ? top : imported.module;
      const module = resolveModule(this.world, file, 0, dotted);
      return module ? { kind: "module", module } : { kind: "external" };
    }
    const module = resolveModule(this.world, file, imported.level, imported.module);
    if (!module) return { kind: "external" };
    // A package's `__init__` importing from itself (`from . import sub`) names a submodule.
    const sub = module.file === file ? submodule(this.world, module, imported.name) : undefined;
    if (sub) return { kind: "module", module: sub };
    const found = this.exportOf(module, imported.name);
    if (found.kind !== "none") return found;
    return { kind: "unknown", reason: `"${imported.name}" is not defined in that module` };
  }

  /**
   * A module's name as other modules see it: a binding, a submodule, or what
   * a star import brings.
   *
   * @param module The module.
   * @param name The name.
   * @returns What it denotes, or `none`.
   */
  exportOf(module: PyModule, name: string): Denoted {
    return memoized(this.#exports, `${module.key}\0${name}`, () => this.#export(module, name), {
      kind: "unknown",
      reason: "circular star imports",
    });
  }

  #export(module: PyModule, name: string): Denoted {
    const file = module.file;
    if (file && file.facts.scopes[0]!.bindings.has(name)) {
      return this.definitionOf({ file, scope: 0, name });
    }
    const sub = submodule(this.world, module, name);
    if (sub) return { kind: "module", module: sub };
    if (file) return this.#fromStars(file, name) ?? { kind: "none" };
    if (module.dir === undefined) {
      return { kind: "unknown", reason: "its module could not be read" };
    }
    return { kind: "none" };
  }

  /** A module-level name a file's `from m import *` statements bring in. */
  #fromStars(file: PyFile, name: string): Denoted | undefined {
    for (const index of file.facts.scopes[0]!.stars ?? []) {
      const imported = file.facts.imports[index]!;
      const module = resolveModule(this.world, file, imported.level, imported.module);
      if (!module || !starExports(module, name)) continue;
      const found = this.exportOf(module, name);
      const star = `from ${".".repeat(imported.level)}${imported.module} import *`;
      if (found.kind === "sym") return { kind: "sym", sym: found.sym, star: found.star ?? star };
      if (found.kind !== "none") return found;
    }
    return undefined;
  }

  /**
   * The module a file is.
   *
   * @param file The file.
   * @returns Its module.
   */
  moduleOf(file: PyFile): PyModule {
    return moduleOf(file);
  }
}

/** Whether `from module import *` brings a name: its `__all__` lists it, or it is public. */
function starExports(module: PyModule, name: string): boolean {
  const facts = module.file?.facts;
  if (!facts) return !name.startsWith("_");
  const all = facts.strings.filter((entry) => entry.kind === "all");
  if (all.length > 0 && !facts.allDynamic) return all.some((entry) => entry.value === name);
  return !name.startsWith("_");
}
