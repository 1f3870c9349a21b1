/**
 * What a C/C++ rename must check: that the new name is an identifier (not a
 * keyword), and that the files being changed do not already use it.
 *
 * @module
 */

import { position } from "../symbols/_source_index.ts";
import type { RawSite } from "../symbols/_sites.ts";
import type { CProgram } from "./_resolve_program.ts";
import type { DeclRef } from "./_resolve_names.ts";
import type { CTarget } from "./_resolve_target.ts";

const KEYWORDS = new Set(
  ("auto break case char const continue default do double else enum extern float for goto if " +
    "inline int long register restrict return short signed sizeof static struct switch typedef " +
    "union unsigned void volatile while _Bool _Complex _Imaginary _Alignas _Alignof _Atomic " +
    "_Generic _Noreturn _Static_assert _Thread_local alignas alignof and and_eq asm bitand bitor " +
    "bool catch char8_t char16_t char32_t class compl concept consteval constexpr constinit " +
    "const_cast co_await co_return co_yield decltype delete dynamic_cast explicit export false " +
    "friend mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected " +
    "public reinterpret_cast requires static_assert static_cast template this thread_local throw " +
    "true try typeid typename using virtual wchar_t xor xor_eq").split(" "),
);

/** The most conflicts reported. */
const MAX_CONFLICTS = 20;

/**
 * Why a name cannot be a C/C++ identifier, or undefined when it can.
 *
 * @param name The proposed name.
 * @returns The reason, or undefined.
 */
export function invalidCName(name: string): string | undefined {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return "it is not a C/C++ identifier";
  return KEYWORDS.has(name) ? `"${name}" is a keyword` : undefined;
}

/**
 * Where renaming to `newName` would collide with a name the changed files
 * already have: a declaration of it they see (or, for a member, a member of
 * that name in the same struct or class), or a use of it there.
 *
 * @param p The program.
 * @param target The symbol being renamed.
 * @param sites Its sites.
 * @param newName The new name.
 * @returns One message per place (at most {@linkcode MAX_CONFLICTS}).
 */
export function cConflicts(
  p: CProgram,
  target: CTarget,
  sites: readonly RawSite[],
  newName: string,
): string[] {
  const out = new Set<string>();
  const owner = p.decl(target.ref).owner;
  const sameOwner = (ref: DeclRef) => {
    const decl = p.decl(ref);
    if (owner < 0) return decl.owner < 0;
    const record = p.facts(target.ref.file)!.records[owner]!.qualified;
    return decl.qualified === `${record}::${newName}`;
  };
  const files = new Set(sites.filter((s) => s.certainty === "exact").map((s) => s.file));
  for (const path of files) {
    for (const ref of p.visible(path, newName).filter(sameOwner)) {
      const where = p.file(ref.file)!;
      out.add(
        `${where.display}:${
          position(where, p.decl(ref).start).line
        }: "${newName}" is already declared`,
      );
    }
    const file = p.file(path)!;
    for (const i of owner < 0 ? p.facts(path)?.byName.get(newName) ?? [] : []) {
      const occ = p.facts(path)!.occs[i]!;
      if (occ.kind === "ref" || occ.kind === "type" || occ.kind === "tag" || occ.kind === "macro") {
        out.add(
          `${file.display}:${position(file, occ.start).line}: "${newName}" is already used here`,
        );
      }
    }
  }
  return [...out].slice(0, MAX_CONFLICTS);
}
