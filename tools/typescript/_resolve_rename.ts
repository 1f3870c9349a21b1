/**
 * What a TS/JS rename must check: that the new name is an identifier (not a
 * reserved word), and that it does not collide with or shadow a name the
 * files being changed already have.
 *
 * @module
 */

import { position } from "../symbols/_source_index.ts";
import type { JsProgram } from "./_resolve_program.ts";
import type { RawSite } from "../symbols/_source_sites.ts";
import type { JsTarget } from "./_resolve_target.ts";

/** Words that cannot name a binding in strict code (ES2024, and TypeScript's own). */
const RESERVED = new Set(
  ("break case catch class const continue debugger default delete do else enum export extends " +
    "false finally for function if import in instanceof new null return super switch this throw " +
    "true try typeof var void while with implements interface let package private protected " +
    "public static yield await arguments eval").split(" "),
);

/** The most conflicts reported. */
const MAX_CONFLICTS = 20;

/**
 * Why a name cannot be a TS/JS identifier, or undefined when it can.
 *
 * @param name The proposed name.
 * @returns The reason, or undefined.
 */
export function invalidJsName(name: string): string | undefined {
  const bare = name.startsWith("#") ? name.slice(1) : name;
  if (!/^[\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*$/u.test(bare)) {
    return "it is not a JavaScript identifier";
  }
  return RESERVED.has(bare) ? `"${bare}" is a reserved word` : undefined;
}

/**
 * Where renaming to `newName` would collide with or shadow a name: in each
 * file the rename changes, a declaration or global of that name, an export
 * of that name where an export is renamed, a member of that name in the
 * target's class.
 *
 * @param p The program.
 * @param target The symbol being renamed.
 * @param sites Its sites.
 * @param newName The new name.
 * @returns One message per place (at most {@linkcode MAX_CONFLICTS}).
 */
export function jsConflicts(
  p: JsProgram,
  target: JsTarget,
  sites: readonly RawSite[],
  newName: string,
): string[] {
  const out: string[] = [];
  const files = new Set(sites.filter((s) => s.certainty === "exact").map((s) => s.file));
  for (const path of files) {
    const facts = p.facts(path);
    const file = p.file(path);
    if (!facts || !file) continue;
    const where = (start: number) => `${file.display}:${position(file, start).line}`;
    if (target.kind === "member") {
      for (const container of facts.containers) {
        const clash = container.members.get(newName)?.[0] ?? undefined;
        if (clash && container.members.has(target.name)) {
          out.push(
            `${where(facts.occs[clash.occ]!.start)}: ${container.name} already has "${newName}"`,
          );
        }
      }
      continue;
    }
    for (const i of facts.byName.get(newName) ?? []) {
      const occ = facts.occs[i]!;
      if (occ.kind === "decl") {
        out.push(`${where(occ.start)}: "${newName}" is already declared here`);
      } else if (occ.kind === "ref" && occ.decl < 0) {
        out.push(`${where(occ.start)}: the global "${newName}" is used here and would be shadowed`);
      }
      if (out.length >= MAX_CONFLICTS) return out;
    }
    const exportsRenamed = sites.some((s) => s.file === path && s.role === "export");
    if ((exportsRenamed || path === target.definition.file) && facts.exports.has(newName)) {
      out.push(`${file.display}: the module already exports "${newName}"`);
    }
  }
  return out.slice(0, MAX_CONFLICTS);
}
