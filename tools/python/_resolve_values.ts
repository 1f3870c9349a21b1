/**
 * What a Python expression evaluates to, as far as it is obvious without
 * running it: a module, a class, an instance of a class (`x = Cls(…)`, a
 * parameter annotated with a class, `self` and `cls` in a method), `super()`;
 * and class members found through the bases defined in the project. The
 * kinds of value are in `_resolve_classes.ts`.
 *
 * @module
 */

import type { PyBinding, PyExpr } from "./_resolve_facts.ts";
import {
  classOfMethod,
  type ClassRef,
  describe,
  instanceAttrs,
  type Mro,
  sameClass,
  sameValue,
  type Value,
} from "./_resolve_classes.ts";
import { memoized } from "../symbols/_memo.ts";
import {
  bindingsOf,
  type Denoted,
  type PyLookup,
  scopeOf,
  type Sym,
  symKey,
} from "./_resolve_lookup.ts";
import type { PyFile } from "./_resolve_world.ts";

/** Values and class members, memoized for one call. */
export class PyValues {
  /** Names and imports. */
  readonly lookup: PyLookup;
  #symbols = new Map<string, Value>();
  #mros = new Map<string, Mro>();

  /** @param lookup Names and imports. */
  constructor(lookup: PyLookup) {
    this.lookup = lookup;
  }

  /**
   * What an expression evaluates to.
   *
   * @param file Its file.
   * @param expr The expression.
   * @returns Its value.
   */
  valueOf(file: PyFile, expr: PyExpr): Value {
    switch (expr.kind) {
      case "name":
        return this.valueOfDenoted(this.lookup.nameAt(file, expr.scope, expr.name));
      case "attr": {
        const attr = file.facts.attrs[file.facts.attrByEnd.get(expr.end) ?? -1];
        if (!attr) return { kind: "unknown", reason: "an expression it does not follow" };
        return this.valueOfDenoted(this.member(this.valueOf(file, attr.object), attr.name));
      }
      case "call":
        return this.#called(file, file.facts.calls.get(expr.end));
      case "literal":
        return { kind: "external" };
      default:
        return { kind: "unknown", reason: "an expression it does not follow" };
    }
  }

  #called(file: PyFile, callee: PyExpr | undefined): Value {
    if (callee?.kind === "name" && callee.name === "super") {
      if (scopeOf(file.facts, callee.scope, "super") < 0) {
        const cls = classOfMethod(file, callee.scope);
        if (cls) return { kind: "super", cls };
      }
    }
    const value = callee ? this.valueOf(file, callee) : undefined;
    if (value?.kind === "class") return { kind: "instance", cls: value.cls };
    if (value?.kind === "external") return value;
    if (value?.kind === "opaque" && value.fn) return this.#returnOf(value.fn);
    return { kind: "unknown", reason: "the result of a call" };
  }

  /**
   * What calling a project function gives: an instance of the class its
   * return annotation names, else of the one class all its `return`s give.
   */
  #returnOf(fn: ClassRef): Value {
    const scope = fn.file.facts.scopes[fn.scope]!;
    if (scope.returns) return this.#annotated(fn.file, scope.returns);
    const values = (scope.returned ?? []).map((expr) => this.valueOf(fn.file, expr));
    const first = values[0];
    const same = first?.kind === "instance" &&
      values.every((each) => each.kind === "instance" && sameClass(each.cls, first.cls));
    return same
      ? first
      : { kind: "unknown", reason: `what "${scope.name}" returns is not one class` };
  }

  /**
   * The value of what a name or attribute denotes.
   *
   * @param denoted What it denotes.
   * @returns Its value.
   */
  valueOfDenoted(denoted: Denoted): Value {
    switch (denoted.kind) {
      case "sym":
        return this.valueOfSym(denoted.sym);
      case "module":
        return denoted;
      case "external":
        return denoted;
      case "unknown":
        return denoted;
      default:
        return { kind: "unknown", reason: "a name that is not defined" };
    }
  }

  /**
   * A symbol's value: a class, a function, an instance, an alias.
   *
   * @param sym The symbol.
   * @returns Its value.
   */
  valueOfSym(sym: Sym): Value {
    return memoized(this.#symbols, symKey(sym), () => this.#symValue(sym, bindingsOf(sym)), {
      kind: "unknown",
      reason: `"${sym.name}" refers to itself`,
    });
  }

  #symValue(sym: Sym, bindings: PyBinding[]): Value {
    const first = bindings[0];
    if (!first) return this.#instanceAttr(sym);
    if (first.kind === "import") return this.valueOfDenoted(this.lookup.definitionOf(sym));
    if (bindings.every((binding) => binding.kind === "def")) {
      const only = bindings.length === 1 && first.opens !== undefined;
      return only
        ? { kind: "opaque", fn: { file: sym.file, scope: first.opens! } }
        : { kind: "opaque" };
    }
    if (bindings.length > 1) {
      return { kind: "unknown", reason: `"${sym.name}" is bound more than once` };
    }
    if (first.kind === "class") {
      return { kind: "class", cls: { file: sym.file, scope: first.opens! } };
    }
    if (first.kind === "param") return this.#parameter(sym, first);
    if (first.annotation) return this.#annotated(sym.file, first.annotation);
    if (first.kind === "assign" && first.value) return this.valueOf(sym.file, first.value);
    return { kind: "unknown", reason: `the type of "${sym.name}" is not known` };
  }

  /**
   * An attribute the methods of a class assign on `self` (`self.x = Cls(…)` in
   * `__init__`): what every assignment of it gives, when that is one thing.
   */
  #instanceAttr(sym: Sym): Value {
    const facts = sym.file.facts;
    const stores = facts.scopes[sym.scope]?.kind === "class"
      ? instanceAttrs(facts, sym.scope).get(sym.name) ?? []
      : [];
    const values = stores.map((i) => facts.attrs[i]!.value);
    if (values.length === 0 || values.some((value) => value === undefined)) {
      return { kind: "unknown", reason: `"${sym.name}" is bound elsewhere` };
    }
    const found = values.map((value) => this.valueOf(sym.file, value!));
    const first = found[0]!;
    if (first.kind !== "instance" && first.kind !== "class" && first.kind !== "module") {
      return first.kind === "unknown"
        ? first
        : { kind: "unknown", reason: `"self.${sym.name}" is ${describe(first)}` };
    }
    const same = found.every((each) => sameValue(each, first));
    return same
      ? first
      : { kind: "unknown", reason: `"self.${sym.name}" is assigned different things` };
  }

  #parameter(sym: Sym, binding: PyBinding): Value {
    const scope = sym.file.facts.scopes[sym.scope]!;
    if (scope.firstParam === sym.name && scope.method && scope.method !== "static") {
      const cls = { file: sym.file, scope: scope.parent };
      return scope.method === "class" ? { kind: "class", cls } : { kind: "instance", cls };
    }
    if (binding.annotation) return this.#annotated(sym.file, binding.annotation);
    return { kind: "unknown", reason: `the type of "${sym.name}" is not known` };
  }

  /** An annotation: an instance of the class it names (anything else is not followed). */
  #annotated(file: PyFile, annotation: PyExpr): Value {
    const value = this.valueOf(file, annotation);
    if (value.kind === "class") return { kind: "instance", cls: value.cls };
    return { kind: "unknown", reason: "its annotation is not a plain class" };
  }

  /**
   * What `value.name` denotes.
   *
   * @param value The receiver.
   * @param name The attribute.
   * @returns What it denotes.
   */
  member(value: Value, name: string): Denoted {
    switch (value.kind) {
      case "module":
        return this.lookup.exportOf(value.module, name);
      case "class":
      case "instance":
        return this.classMember(value.cls, name);
      case "super":
        return this.classMember(value.cls, name, 1);
      case "opaque":
        return { kind: "none" };
      default:
        return value;
    }
  }

  /**
   * A class member, through the class's bases: a name its body (or a base's)
   * binds, else an attribute its methods (or a base's) assign on `self`.
   *
   * @param cls The class.
   * @param name The member.
   * @param skip Classes of the resolution order to skip (1 for `super()`).
   * @returns The member, `external` when it can only come from a base outside the project.
   */
  classMember(cls: ClassRef, name: string, skip = 0): Denoted {
    const mro = this.mro(cls);
    const classes = mro.classes.slice(skip);
    const bound = classes.find((c) => c.file.facts.scopes[c.scope]!.bindings.has(name));
    if (bound) return this.lookup.definitionOf({ file: bound.file, scope: bound.scope, name });
    const assigned = classes.findLast((c) => instanceAttrs(c.file.facts, c.scope).has(name));
    if (assigned) return { kind: "sym", sym: { file: assigned.file, scope: assigned.scope, name } };
    if (mro.unknown) return { kind: "unknown", reason: mro.unknown };
    return mro.external ? { kind: "external" } : { kind: "none" };
  }

  /**
   * A class and its bases defined in the project, depth first, left to right.
   *
   * @param cls The class.
   * @returns The order, and whether a base was outside the project or not followed.
   */
  mro(cls: ClassRef): Mro {
    const key = `${cls.file.path}\0${cls.scope}`;
    const standIn = { classes: [cls], unknown: "its bases refer to it", external: false };
    return memoized(this.#mros, key, () => this.#mro(cls, key), standIn);
  }

  #mro(cls: ClassRef, key: string): Mro {
    const classes = [cls];
    const seen = new Set([key]);
    let unknown: string | undefined;
    let external = false;
    for (const base of cls.file.facts.scopes[cls.scope]!.bases ?? []) {
      const value = this.valueOf(cls.file, base);
      if (value.kind === "external") external = true;
      if (value.kind !== "class") {
        if (value.kind !== "external") unknown ??= `a base of the class is ${describe(value)}`;
        continue;
      }
      const inherited = this.mro(value.cls);
      unknown ??= inherited.unknown;
      external ||= inherited.external;
      for (const each of inherited.classes) {
        const id = `${each.file.path}\0${each.scope}`;
        if (!seen.has(id)) classes.push(each), seen.add(id);
      }
    }
    return unknown ? { classes, unknown, external } : { classes, external };
  }
}
