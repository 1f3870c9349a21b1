/**
 * Every place in the call's files that refers to one Python symbol: names
 * whose look-up lands on it (through imports and their aliases), imported
 * names, attributes whose receiver is known to lead to it, `__all__` entries;
 * and, marked unsure, attributes of receivers of unknown type, names reached
 * through a star import, `getattr`-like strings and overriding methods.
 *
 * @module
 */

import type { SiteRole } from "../symbols/_resolver.ts";
import type { SiteSpan } from "../symbols/_sites.ts";
import { type ToolContext, yieldDue, yieldToWorker } from "../tool.ts";
import { type PyFacts, refsNamed, type UseRole } from "./_resolve_facts.ts";
import { type Denoted, type Sym, symKey } from "./_resolve_lookup.ts";
import type { ClassRef } from "./_resolve_classes.ts";
import type { PyValues } from "./_resolve_values.ts";
import type { PyFile } from "./_resolve_world.ts";

/** One site, before it is shown: where it is (`SiteSpan`) and in which file. */
export interface PySite extends SiteSpan {
  /** The file. */
  readonly file: PyFile;
}

const NAME_ROLES: Record<UseRole, SiteRole> = {
  load: "reference",
  call: "call",
  store: "assignment",
  del: "reference",
  def: "definition",
  param: "definition",
  declare: "reference",
};

const ATTR_ROLES: Record<UseRole, SiteRole> = { ...NAME_ROLES, load: "attribute" };

/**
 * The sites of a symbol in a set of files.
 *
 * @param ctx The tool context (for yielding on long scans).
 * @param values Values and look-ups for the call.
 * @param target The symbol.
 * @param files The files to search.
 * @returns The sites, unsorted.
 */
export async function collectSites(
  ctx: ToolContext,
  values: PyValues,
  target: Sym,
  files: readonly PyFile[],
): Promise<PySite[]> {
  const key = symKey(target);
  const names = aliasNames(values, key, target.name, files);
  const out: PySite[] = [];
  let last = performance.now();
  for (const file of files) {
    const scan = new FileScan(values, key, target.name, file);
    for (const name of names) scan.name(name, out);
    scan.strings(names, out);
    if (yieldDue(ctx, last)) {
      await yieldToWorker(ctx.signal);
      last = performance.now();
    }
  }
  if (target.file.facts.scopes[target.scope]!.kind === "class") {
    out.push(...overrides(values, target, files));
  }
  return out;
}

/**
 * The names a symbol goes by in a set of files: its own, and those it is
 * imported as (`from m import f as g`), and those imported from them.
 *
 * @param values Values and look-ups for the call.
 * @param target The symbol.
 * @param files The files to search.
 * @returns The names, its own first.
 */
export function symbolNames(values: PyValues, target: Sym, files: readonly PyFile[]): string[] {
  return aliasNames(values, symKey(target), target.name, files);
}

/** The symbol's name and every alias an import gives it (`from m import quote as q`). */
function aliasNames(
  values: PyValues,
  key: string,
  name: string,
  files: readonly PyFile[],
): string[] {
  const names = [name];
  for (let i = 0; i < names.length; i++) {
    for (const file of files) {
      for (const imported of file.facts.imports) {
        if (imported.name !== names[i] || imported.bound === imported.name) continue;
        if (names.includes(imported.bound)) continue;
        if (matches(values.lookup.importTarget(file, imported), key)) names.push(imported.bound);
      }
    }
  }
  return names;
}

function matches(found: Denoted, key: string): boolean {
  return found.kind === "sym" && symKey(found.sym) === key;
}

/** The sites of one file. */
class FileScan {
  #values: PyValues;
  #key: string;
  #name: string;
  #file: PyFile;
  #facts: PyFacts;

  constructor(values: PyValues, key: string, name: string, file: PyFile) {
    this.#values = values;
    this.#key = key;
    this.#name = name;
    this.#file = file;
    this.#facts = file.facts;
  }

  /** Names, imported names and attributes spelled `name`. */
  name(name: string, out: PySite[]): void {
    const via = name === this.#name ? {} : { via: name };
    const lookup = this.#values.lookup;
    for (const ref of refsNamed(this.#facts, name)) {
      const found = lookup.nameAt(this.#file, ref.scope, name);
      this.#push(out, found, ref.start, name, NAME_ROLES[ref.role], via);
    }
    for (const imported of this.#facts.imports) {
      if (imported.name !== name) continue;
      const found = lookup.importTarget(this.#file, imported);
      this.#push(out, found, imported.nameStart, name, "import", via);
      // `from m import name as name` (the explicit re-export): the alias is the same symbol's
      // name too, and a rename that left it would leave the file's uses bound to nothing.
      if (imported.bound === name && imported.boundStart !== imported.nameStart) {
        this.#push(out, found, imported.boundStart, name, "import", via);
      }
    }
    for (const i of this.#facts.attrsByName.get(name) ?? []) this.#attribute(i, name, via, out);
  }

  #attribute(index: number, name: string, via: { via?: string }, out: PySite[]): void {
    const attr = this.#facts.attrs[index]!;
    const receiver = this.#values.valueOf(this.#file, attr.object);
    const role = ATTR_ROLES[attr.role];
    if (receiver.kind === "unknown") {
      const reason = `receiver of unknown type (${receiver.reason})`;
      out.push({ ...this.#site(attr.start, name, role, "unsure"), reason, ...via });
      return;
    }
    this.#push(out, this.#values.member(receiver, name), attr.start, name, role, via);
  }

  /** `__all__` entries (exact) and `getattr`-like strings (unsure). */
  strings(names: readonly string[], out: PySite[]): void {
    for (const entry of this.#facts.strings) {
      if (!names.includes(entry.value)) continue;
      if (entry.kind === "dynamic") {
        if (entry.value !== this.#name) continue;
        const reason = `named by a string in ${entry.call}()`;
        out.push({ ...this.#site(entry.start, entry.value, "string", "unsure"), reason });
        continue;
      }
      const found = this.#values.lookup.exportOf(
        this.#values.lookup.moduleOf(this.#file),
        entry.value,
      );
      const via = entry.value === this.#name ? {} : { via: entry.value };
      this.#push(out, found, entry.start, entry.value, "string", via);
    }
  }

  #push(
    out: PySite[],
    found: Denoted,
    start: number,
    name: string,
    role: SiteRole,
    via: { via?: string },
  ): void {
    if (found.kind === "unknown" && name === this.#name && role !== "import") {
      out.push({ ...this.#site(start, name, role, "unsure"), reason: found.reason, ...via });
      return;
    }
    if (!matches(found, this.#key)) return;
    if (found.kind === "sym" && found.star) {
      const reason = `reached through "${found.star}"`;
      out.push({ ...this.#site(start, name, role, "unsure"), reason, ...via });
      return;
    }
    out.push({ ...this.#site(start, name, role, "exact"), ...via });
  }

  #site(start: number, name: string, role: SiteRole, certainty: "exact" | "unsure"): PySite {
    return { file: this.#file, start, end: start + name.length, role, certainty };
  }
}

/** Methods and class attributes of subclasses that override a class member: unsure sites. */
function overrides(values: PyValues, target: Sym, files: readonly PyFile[]): PySite[] {
  const base = `${target.file.path}\0${target.scope}`;
  const owner = target.file.facts.scopes[target.scope]!.name;
  const out: PySite[] = [];
  for (const file of files) {
    for (const [scope, info] of file.facts.scopes.entries()) {
      if (info.kind !== "class" || (file === target.file && scope === target.scope)) continue;
      const cls: ClassRef = { file, scope };
      const own = info.bindings.get(target.name)?.[0];
      if (own === undefined) continue;
      const start = file.facts.bindings[own]!.start;
      const inherits = values.mro(cls).classes.some((c) => `${c.file.path}\0${c.scope}` === base);
      if (!inherits) continue;
      out.push({
        file,
        start,
        end: start + target.name.length,
        role: "definition",
        certainty: "unsure",
        reason: `overrides ${owner}.${target.name} in subclass ${info.name}`,
      });
    }
  }
  return out;
}
