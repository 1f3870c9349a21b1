/**
 * Whether a Python symbol can take a new name without changing what any
 * other name means: the new name must not be bound already where the symbol
 * is bound (its scope, the scopes that import it by name, the classes it is
 * a member of), must not be hidden by a nearer binding where a renamed use
 * looks it up, and must not capture an existing use of the new name (a
 * builtin's, say) that today resolves elsewhere.
 *
 * @module
 */

import { type PyFacts, refsNamed } from "./_resolve_facts.ts";
import { lineIndexOf } from "../symbols/_lines.ts";
import { scopeOf, type Sym } from "./_resolve_lookup.ts";
import type { PySite } from "./_resolve_sites.ts";
import { type ClassRef, instanceAttrs } from "./_resolve_classes.ts";
import type { PyValues } from "./_resolve_values.ts";
import type { PyFile } from "./_resolve_world.ts";

const KEYWORDS: ReadonlySet<string> = new Set(
  (
    "False None True and as assert async await break class continue def del elif else except " +
    "finally for from global if import in is lambda nonlocal not or pass raise return try while " +
    "with yield"
  ).split(" "),
);

/**
 * Why a name cannot be a Python identifier.
 *
 * @param name The proposed name.
 * @returns The reason, or `undefined` when it can be one.
 */
export function invalidPythonName(name: string): string | undefined {
  if (!/^[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*$/u.test(name)) {
    return "it is not a Python identifier";
  }
  if (KEYWORDS.has(name)) return "it is a Python keyword";
  return undefined;
}

/**
 * The conflicts renaming a symbol would cause.
 *
 * @param values Values and look-ups for the call.
 * @param target The symbol.
 * @param sites Its sites (the exact ones without an alias are the ones renamed).
 * @param newName The new name.
 * @returns One message per conflict, `path:line: …`.
 */
export function pythonConflicts(
  values: PyValues,
  target: Sym,
  sites: readonly PySite[],
  newName: string,
): string[] {
  const out = new Set<string>();
  const renamed = sites.filter((site) => site.certainty === "exact" && site.via === undefined);
  /** Scopes that will bind the new name, by file. */
  const binders = new Map<PyFile, Set<number>>([[target.file, new Set([target.scope])]]);
  alreadyBound(target.file, target.scope, newName, out);
  if (target.file.facts.scopes[target.scope]!.kind === "class") {
    classFamily(values, { file: target.file, scope: target.scope }, newName, out);
  }
  for (const site of renamed) {
    const facts = site.file.facts;
    const imported = site.role === "import"
      ? facts.imports.find((each) => each.nameStart === site.start)
      : undefined;
    if (imported && imported.bound === imported.name) {
      const scope = facts.scopes[imported.scope]!.declared?.get(imported.bound) === "global"
        ? 0
        : imported.scope;
      alreadyBound(site.file, scope, newName, out);
      if (!binders.has(site.file)) binders.set(site.file, new Set());
      binders.get(site.file)!.add(scope);
    }
    const ref = refsNamed(facts, target.name).find((each) => each.start === site.start);
    if (ref) hidden(site.file, ref.scope, target.name, newName, out);
  }
  for (const [file, scopes] of binders) captured(file, scopes, newName, out);
  return [...out];
}

/** A binding of the new name already in a scope that will bind it. */
function alreadyBound(file: PyFile, scope: number, newName: string, out: Set<string>): void {
  const facts = file.facts;
  const existing = facts.scopes[scope]!.bindings.get(newName)?.[0];
  if (existing !== undefined) {
    const at = where(file, facts.bindings[existing]!.start);
    out.add(`${at}: "${newName}" is already defined in ${describeScope(facts, scope)}`);
  }
  for (const entry of facts.strings) {
    if (scope === 0 && entry.kind === "all" && entry.value === newName) {
      out.add(`${where(file, entry.start)}: "${newName}" is already listed in __all__`);
    }
  }
}

/** Classes the member is shared with (its bases and subclasses) that have the new name already. */
function classFamily(values: PyValues, owner: ClassRef, newName: string, out: Set<string>): void {
  const ownerKey = `${owner.file.path}\0${owner.scope}`;
  const family = [...values.mro(owner).classes];
  for (const file of values.lookup.world.files) {
    for (const [scope, info] of file.facts.scopes.entries()) {
      if (info.kind !== "class") continue;
      const cls = { file, scope };
      const mro = values.mro(cls).classes;
      if (mro.some((c) => `${c.file.path}\0${c.scope}` === ownerKey)) family.push(cls);
    }
  }
  for (const cls of family) {
    const facts = cls.file.facts;
    const bound = facts.scopes[cls.scope]!.bindings.get(newName)?.[0];
    const assigned = instanceAttrs(facts, cls.scope).get(newName)?.[0];
    const start = bound !== undefined
      ? facts.bindings[bound]!.start
      : assigned !== undefined
      ? facts.attrs[assigned]!.start
      : undefined;
    if (start === undefined) continue;
    out.add(
      `${where(cls.file, start)}: "${newName}" is already a member of ${
        describeScope(facts, cls.scope)
      }`,
    );
  }
}

/** A nearer binding of the new name between a renamed use and the scope it resolves to. */
function hidden(
  file: PyFile,
  from: number,
  oldName: string,
  newName: string,
  out: Set<string>,
): void {
  const facts = file.facts;
  const bound = scopeOf(facts, from, oldName);
  for (const scope of chain(facts, from)) {
    if (scope === bound) return;
    const existing = facts.scopes[scope]!.bindings.get(newName)?.[0];
    if (existing === undefined) continue;
    const at = where(file, facts.bindings[existing]!.start);
    out.add(
      `${at}: "${newName}" defined here in ${
        describeScope(facts, scope)
      } would hide the renamed symbol`,
    );
    return;
  }
}

/** Existing uses of the new name that would resolve to the renamed symbol instead. */
function captured(
  file: PyFile,
  binders: ReadonlySet<number>,
  newName: string,
  out: Set<string>,
): void {
  const facts = file.facts;
  for (const ref of refsNamed(facts, newName)) {
    const now = scopeOf(facts, ref.scope, newName);
    for (const scope of chain(facts, ref.scope)) {
      if (scope === now) break;
      if (!binders.has(scope)) continue;
      out.add(
        `${
          where(file, ref.start)
        }: this use of "${newName}" would then refer to the renamed symbol`,
      );
      break;
    }
  }
}

/** The scopes a name used in `from` is looked up in, nearest first (class bodies do not enclose). */
function chain(facts: PyFacts, from: number): number[] {
  const out = [from];
  for (let at = facts.scopes[from]!.parent; at >= 0; at = facts.scopes[at]!.parent) {
    if (facts.scopes[at]!.kind !== "class") out.push(at);
  }
  return out;
}

function describeScope(facts: PyFacts, scope: number): string {
  const info = facts.scopes[scope]!;
  if (info.kind === "module") return "the module";
  if (info.kind === "class") return `class ${info.name}`;
  if (info.kind === "function") return `function ${info.name}`;
  return `a ${info.kind}`;
}

function where(file: PyFile, offset: number): string {
  return `${file.display}:${lineIndexOf(file.facts.lineStarts, offset) + 1}`;
}
