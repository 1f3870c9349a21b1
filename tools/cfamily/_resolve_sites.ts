/**
 * Which tokens of a C/C++ target's name are the target. A token is exact
 * when it resolves to the target's key in a file connected to its
 * declaration through `#include`; a same-named external function declared
 * in an unconnected file, a member read through a receiver of unknown type,
 * words inside macro definitions and tokens a same-named macro may replace
 * are `unsure`; a `static` function of another file, a local, or a member
 * of another struct is another symbol and left out.
 *
 * @module
 */

import type { SiteRole } from "../symbols/_resolver.ts";
import type { RawSite } from "../symbols/_sites.ts";
import { CALL, type CFacts, type COcc, IN_ERROR } from "./_resolve_facts.ts";
import type { CProgram } from "./_resolve_program.ts";
import { type DeclRef, enclosing, type RecordRef } from "./_resolve_names.ts";
import { type CTarget, declKey } from "./_resolve_target.ts";

type Verdict = { certainty: "exact" } | { certainty: "unsure"; reason: string } | null;

const EXACT: Verdict = { certainty: "exact" };
const unsure = (reason: string): Verdict => ({ certainty: "unsure", reason });

/**
 * The sites of a target in some files.
 *
 * @param p The program (facts made for the files).
 * @param t The target.
 * @param files The files that contain its name.
 * @returns The sites.
 */
export function cSites(p: CProgram, t: CTarget, files: readonly string[]): RawSite[] {
  const out: RawSite[] = [];
  const related = relatedClasses(p, t, files);
  for (const file of files) {
    const facts = p.facts(file);
    if (!facts) continue;
    const sees = (paths: Set<string>) => [...paths].some((path) => t.anchors.has(path));
    const connected = t.namespace || sees(p.closure(file)) || sees(p.around(file));
    const macro = !t.macro && p.visible(file, t.name).some((ref) => p.decl(ref).kind === "macro");
    for (const i of facts.byName.get(t.name) ?? []) {
      const occ = facts.occs[i]!;
      let verdict = judge(p, t, { file, facts, occ, connected, related });
      if (verdict && macro && occ.kind !== "body" && occ.kind !== "macro") {
        verdict = unsure("a macro of the same name is visible here");
      }
      if (verdict?.certainty === "exact" && occ.flags & IN_ERROR) {
        verdict = unsure("in code that does not parse");
      }
      if (!verdict) continue;
      out.push({
        file,
        start: occ.start,
        role: roleOf(occ),
        certainty: verdict.certainty,
        ...(verdict.certainty === "unsure" ? { reason: verdict.reason } : {}),
      });
    }
  }
  return out;
}

/** One token in one file. */
interface Place {
  file: string;
  facts: CFacts;
  occ: COcc;
  /** The file sees a declaration of the target connected to its definition. */
  connected: boolean;
  /** Classes above and below the target's class, by qualified name. */
  related: ReadonlyMap<string, "above" | "below">;
}

function judge(p: CProgram, t: CTarget, at: Place): Verdict {
  const { occ, connected } = at;
  if (occ.kind === "body") return connected ? unsure("inside a macro's definition") : null;
  if (t.macro) {
    if (!connected) return null;
    if (occ.kind === "decl" && p.decl({ file: at.file, decl: occ.decl }).kind !== "macro") {
      return unsure("declared under the macro's name (the macro may replace it)");
    }
    return EXACT;
  }
  if (occ.kind === "macro") return null;
  const resolved = resolve(p, at);
  if (resolved === "unknown") {
    return connected ? unsure("the receiver's type is not known") : null;
  }
  if (resolved.length === 0) {
    if (occ.kind === "member") return null;
    if (connected || t.external) {
      return unsure("no declaration of it is visible here (an #include may not have been found)");
    }
    return null;
  }
  const keys = new Set(resolved.map((ref) => declKey(p, ref)));
  if (!keys.has(t.key)) return overriding(p, t, resolved, at);
  if (keys.size > 1) return unsure("other declarations of the name are visible here too");
  if (connected) return EXACT;
  return t.external ? unsure("declared again here without the header that declares it") : null;
}

/** A member of a class above or below the target's (an override, or what it overrides). */
function overriding(p: CProgram, t: CTarget, resolved: readonly DeclRef[], at: Place): Verdict {
  const own = p.decl(t.ref).qualified;
  for (const ref of resolved) {
    const qualified = p.decl(ref).qualified;
    const owner = qualified.slice(0, qualified.lastIndexOf("::"));
    const relation = at.related.get(owner);
    if (!relation) continue;
    if (at.occ.kind === "decl") {
      return unsure(relation === "below" ? `overrides ${own}` : `${own} overrides it`);
    }
    return unsure(
      relation === "below"
        ? `${owner} has its own ${t.name}`
        : `the receiver is a ${owner}, which may be a ${own.slice(0, own.lastIndexOf("::"))}`,
    );
  }
  return null;
}

/** The classes (by qualified name) that derive from the target's class or that it derives from. */
function relatedClasses(
  p: CProgram,
  t: CTarget,
  files: readonly string[],
): Map<string, "above" | "below"> {
  const out = new Map<string, "above" | "below">();
  const qualified = p.decl(t.ref).qualified;
  const cut = qualified.lastIndexOf("::");
  if (cut < 0 || t.macro) return out;
  const owner = qualified.slice(0, cut);
  const home = p.recordOf(t.ref.file, {
    name: owner.split("::").at(-1)!,
    tag: false,
    qualifier: owner.split("::").slice(0, -1),
  }, { ns: [], using: [] });
  if (!home) return out;
  for (const name of ancestors(p, home)) out.set(name, "above");
  for (const file of files) {
    p.facts(file)?.records.forEach((record, index) => {
      if (!record.members.has(t.name) || record.qualified === owner || out.has(record.qualified)) {
        return;
      }
      if (ancestors(p, { file, record: index }).has(owner)) out.set(record.qualified, "below");
    });
  }
  return out;
}

/** The qualified names of a record's bases, transitively. */
function ancestors(p: CProgram, start: RecordRef): Set<string> {
  const seen = new Set<string>();
  const queue = [start];
  while (queue.length > 0 && seen.size < 64) {
    const current = queue.shift()!;
    const record = p.facts(current.file)?.records[current.record];
    for (const base of record?.bases ?? []) {
      const found = p.recordOf(current.file, base, enclosing(record!.qualified));
      const name = found ? p.facts(found.file)?.records[found.record]?.qualified : undefined;
      if (!found || !name || seen.has(name)) continue;
      seen.add(name);
      queue.push(found);
    }
  }
  return seen;
}

/** What a token refers to: declarations, or "unknown" for a member of an unknown receiver. */
function resolve(p: CProgram, at: Place): DeclRef[] | "unknown" {
  const { file, facts, occ } = at;
  const context = facts.contexts[occ.context]!;
  switch (occ.kind) {
    case "decl":
      return [{ file, decl: occ.decl }];
    case "member": {
      const record = p.receiverRecord(file, occ, occ.receiver ?? { kind: "unknown" });
      return record ? p.member(record, occ.name) : "unknown";
    }
    case "ref":
    case "type":
    case "tag":
      return p.lookup(file, occ.name, occ.kind, { context, qualifier: occ.qualifier });
    default:
      return [];
  }
}

function roleOf(occ: COcc): SiteRole {
  switch (occ.kind) {
    case "decl":
      return "definition";
    case "member":
      return occ.flags & CALL ? "call" : "attribute";
    case "ref":
      return occ.flags & CALL ? "call" : "reference";
    default:
      return "reference";
  }
}
