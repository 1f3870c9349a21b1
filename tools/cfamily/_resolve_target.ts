/**
 * The C/C++ symbol a model names (`compute`, `point.x`, `ns::Widget::draw`)
 * and what makes a site that symbol: its key (macros, `static` names and
 * types are kept apart from external names), and the files connected to
 * its declaration through `#include`.
 *
 * @module
 */

import { ToolError } from "../../security/errors.ts";
import type { CDecl } from "./_resolve_facts.ts";
import type { CProgram } from "./_resolve_program.ts";
import type { DeclRef } from "./_resolve_names.ts";

/** What a model named. */
export interface CTarget {
  /** The name a site must have. */
  name: string;
  /** The declaration chosen as its definition. */
  ref: DeclRef;
  /** Its key. */
  key: string;
  /** A function or variable with external linkage: declarations in files not connected to it may still be it. */
  external: boolean;
  /** A macro. */
  macro: boolean;
  /** A namespace (the same wherever it is opened). */
  namespace: boolean;
  /** Files that declare it and are connected to the definition's file through includes. */
  anchors: Set<string>;
  /** Where it is defined. */
  definition: { file: string; lines: [number, number] };
}

const DEFINES = new Set([
  "function",
  "variable",
  "tag",
  "macro",
  "typedef",
  "enumerator",
  "namespace",
  "member",
]);

/**
 * The key of a declaration: equal keys are the same symbol where both are seen.
 *
 * @param p The program.
 * @param ref The declaration.
 * @returns The key.
 */
export function declKey(p: CProgram, ref: DeclRef): string {
  const decl = p.decl(ref);
  if (decl.kind === "macro") return `m:${decl.name}`;
  if (decl.internal) return `i:${ref.file}:${decl.qualified}`;
  if (decl.kind === "tag") return `g:${decl.qualified}`;
  return `${decl.kind === "typedef" || decl.kind === "namespace" ? "t" : "o"}:${decl.qualified}`;
}

/**
 * Find the symbol a qualified name names in a file (or in what it includes).
 *
 * @param p The program (the file's facts made).
 * @param file The file's real path.
 * @param dotted The name (`f`, `point.x`, `ns::Widget::draw`).
 * @param files The files that contain the name (for the declarations connected to it).
 * @returns The target.
 * @throws {ToolError} `not_found` when no such declaration is found.
 */
export function findCTarget(
  p: CProgram,
  file: string,
  dotted: string,
  files: readonly string[],
): CTarget {
  const parts = dotted.split(/::|\./).filter((part) => part !== "");
  const qualified = parts.join("::");
  const name = parts.at(-1) ?? "";
  const facts = p.facts(file)!;
  const own: DeclRef[] = (facts.byName.get(name) ?? [])
    .map((i) => facts.occs[i]!)
    .filter((occ) => occ.kind === "decl")
    .map((occ) => ({ file, decl: occ.decl }));
  const seen = p.visible(file, name);
  const candidates = [own, seen].map((list) =>
    list.filter((ref) => p.decl(ref).qualified === qualified)
  );
  let found = candidates.find((list) => list.length > 0);
  if (!found) {
    const suffix = seen.filter((ref) => p.decl(ref).qualified.endsWith(`::${qualified}`));
    if (new Set(suffix.map((ref) => declKey(p, ref))).size === 1) found = suffix;
  }
  if (!found || found.length === 0) {
    const display = p.file(file)?.display ?? file;
    throw new ToolError(
      "not_found",
      `Cannot find "${dotted}" in "${display}"${topNames(facts.decls)}`,
    );
  }
  const ref = found.find((each) => DEFINES.has(p.decl(each).kind)) ?? found[0]!;
  return makeTarget(p, ref, files);
}

/** The target for a declaration: its key, the declarations connected to it. */
function makeTarget(p: CProgram, ref: DeclRef, files: readonly string[]): CTarget {
  const decl = p.decl(ref);
  const key = declKey(p, ref);
  const home = p.closure(ref.file);
  const anchors = new Set<string>([ref.file]);
  let external = false;
  for (const file of new Set([...files, ...home])) {
    const facts = p.facts(file);
    for (const i of facts?.byName.get(decl.name) ?? []) {
      const occ = facts!.occs[i]!;
      if (occ.kind !== "decl" || declKey(p, { file, decl: occ.decl }) !== key) continue;
      if (home.has(file) || p.closure(file).has(ref.file)) {
        anchors.add(file);
        external ||= isExternal(facts!.decls[occ.decl]!);
      }
    }
  }
  return {
    name: decl.name,
    ref,
    key,
    external: external || isExternal(decl),
    macro: decl.kind === "macro",
    namespace: decl.kind === "namespace",
    anchors,
    definition: { file: ref.file, lines: decl.lines },
  };
}

/** Linked across translation units. */
function isExternal(decl: CDecl): boolean {
  return !decl.internal && /^(function|prototype|variable|extern)$/.test(decl.kind);
}

/** ` (declared here: a, b, …)` for a not-found message. */
function topNames(decls: readonly CDecl[]): string {
  const names = [...new Set(decls.filter((d) => d.owner < 0).map((d) => d.qualified))];
  if (names.length === 0) return "";
  return ` (declared here: ${names.slice(0, 12).join(", ")}${names.length > 12 ? ", …" : ""})`;
}
