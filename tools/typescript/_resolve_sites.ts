/**
 * Which tokens of a module-level symbol's name are that symbol: every
 * declaration, reference, import and export that resolves to it, and
 * property reads on its module's namespace. A string key, a read on a
 * receiver that may hold it (when the symbol is stored as a property of its
 * name somewhere) are `unsure`; what is provably another symbol is left out.
 *
 * @module
 */

import type { SiteRole } from "../symbols/_resolver.ts";
import { position } from "../symbols/_source_index.ts";
import type { RawSite } from "../symbols/_source_sites.ts";
import { CALL, COMPUTED, EXPORT, type JsFacts, type Occ } from "./_resolve_facts.ts";
import { type Entity, entityKey, type JsProgram } from "./_resolve_program.ts";
import type { BindingTarget } from "./_resolve_target.ts";
import { valueOf } from "./_resolve_values.ts";
import { EXACT, propertyRole, push, unsure, type Verdict } from "./_resolve_verdict.ts";

/**
 * The sites of a module-level symbol in some files.
 *
 * @param p The program (facts made for the files).
 * @param t The target.
 * @param files The files that contain its name.
 * @returns The sites.
 */
export function bindingSites(p: JsProgram, t: BindingTarget, files: readonly string[]): RawSite[] {
  const escape = escapeOf(p, t, files);
  const same = (entity: Entity) => entityKey(entity) === t.key;
  const out: RawSite[] = [];
  for (const file of files) {
    const facts = p.facts(file);
    if (!facts) continue;
    const list = facts.byName.get(t.name) ?? [];
    const locals = new Set<number>();
    for (const i of list) {
      const occ = facts.occs[i]!;
      if (occ.kind !== "decl" || !occ.receiver || facts.decls[occ.decl]!.alias) continue;
      const verdict = bindingProperty(p, file, occ, t, escape);
      if (verdict?.certainty === "exact") locals.add(occ.decl);
      push(out, file, occ, "reference", verdict);
    }
    for (const i of list) {
      const occ = facts.occs[i]!;
      if (occ.kind === "decl" && occ.receiver && !facts.decls[occ.decl]!.alias) continue;
      const role = bindingRole(p, file, facts, occ, t, same, locals);
      if (role) push(out, file, occ, role, EXACT);
      else if (occ.kind === "prop") {
        push(out, file, occ, propertyRole(occ), bindingProperty(p, file, occ, t, escape));
      }
    }
  }
  return out;
}

/** The role of a token that resolves to the target by name (not through a receiver), or undefined. */
function bindingRole(
  p: JsProgram,
  file: string,
  facts: JsFacts,
  occ: Occ,
  t: BindingTarget,
  same: (entity: Entity) => boolean,
  locals: ReadonlySet<number>,
): SiteRole | undefined {
  switch (occ.kind) {
    case "decl": {
      if (!same(p.origin(file, occ.decl))) return undefined;
      const decl = facts.decls[occ.decl]!;
      return decl.kind === "import" || decl.alias ? "import" : "definition";
    }
    case "ref":
    case "shorthand":
      if (occ.decl < 0 || !(locals.has(occ.decl) || same(p.origin(file, occ.decl)))) {
        return undefined;
      }
      return occ.flags & EXPORT ? "export" : occ.flags & CALL ? "call" : "reference";
    case "imported":
    case "exported":
      return importedRole(p, file, facts, occ, same);
    case "cjs": {
      const entity = p.exportOf(file, occ.name);
      if (!entity || !same(entity)) return undefined;
      return t.entity.kind === "cjs" && t.entity.file === file ? "definition" : "export";
    }
    default:
      return undefined;
  }
}

/** `import { a as b }`, `export { a as b } from`, `export { x as a }`: the name's role, if it is the target. */
function importedRole(
  p: JsProgram,
  file: string,
  facts: JsFacts,
  occ: Occ,
  same: (entity: Entity) => boolean,
): SiteRole | undefined {
  if (occ.local !== undefined) {
    const local = facts.occs[occ.local]!;
    return local.decl >= 0 && same(p.origin(file, local.decl)) ? "export" : undefined;
  }
  if (occ.spec === undefined || occ.imported === undefined || occ.imported === "*") {
    return undefined;
  }
  const module = p.resolveModule(file, occ.spec);
  const entity = module === undefined
    ? { kind: "external" as const, spec: occ.spec, path: [occ.imported] }
    : p.exportOf(module, occ.imported);
  if (!entity || !same(entity)) return undefined;
  return occ.kind === "exported" || occ.flags & EXPORT ? "export" : "import";
}

/** A property read of the target's name: through its module's namespace, or unknown. */
function bindingProperty(
  p: JsProgram,
  file: string,
  occ: Occ,
  t: BindingTarget,
  escape: string | undefined,
): Verdict {
  const verdict = propertyVerdict(p, file, occ, t, escape);
  return verdict?.certainty === "exact" && occ.flags & COMPUTED
    ? unsure("accessed by a string key")
    : verdict;
}

function propertyVerdict(
  p: JsProgram,
  file: string,
  occ: Occ,
  t: BindingTarget,
  escape: string | undefined,
): Verdict {
  const value = valueOf(p, file, occ.receiver!);
  switch (value.kind) {
    case "module": {
      const entity = p.exportOf(value.file, t.name);
      if (entity) return entityKey(entity) === t.key ? EXACT : null;
      return p.facts(value.file)?.dynamicExports
        ? unsure("the module's exports are built at run time")
        : null;
    }
    case "object": {
      const facts = p.facts(value.file);
      const member = facts?.containers[value.container]?.members.get(t.name)?.[0];
      const held = member === undefined ? undefined : facts!.occs[member.occ]!;
      if (!held || held.decl < 0 || held.kind === "member") return null;
      return entityKey(p.origin(value.file, held.decl)) === t.key ? EXACT : null;
    }
    case "unknown":
      return escape
        ? unsure(`the receiver is not known, and ${t.name} is stored as a property at ${escape}`)
        : null;
    default:
      return null;
  }
}

/** Where the target is stored as a property of its own name (`{ f }`, `{ f: f }`, `x.f = f`), if anywhere. */
function escapeOf(p: JsProgram, t: BindingTarget, files: readonly string[]): string | undefined {
  for (const file of files) {
    const facts = p.facts(file);
    for (const i of facts?.byName.get(t.name) ?? []) {
      const occ = facts!.occs[i]!;
      const held = occ.kind === "shorthand"
        ? occ.decl
        : occ.value === undefined || occ.kind === "cjs"
        ? -1
        : facts!.occs[occ.value]!.decl;
      if (held < 0 || entityKey(p.origin(file, held)) !== t.key) continue;
      const source = p.file(file)!;
      return `${source.display}:${position(source, occ.start).line}`;
    }
  }
  return undefined;
}
