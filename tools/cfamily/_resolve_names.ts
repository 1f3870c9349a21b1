/**
 * C/C++ names as a look-up sees them: references to declarations and
 * records, what kind of token a look-up is for and which declarations fit
 * it, and qualified names looked up from the namespaces around them.
 *
 * @module
 */

import type { CContext, CDecl } from "./_resolve_facts.ts";

/** A declaration in a file. */
export interface DeclRef {
  /** The file's real path. */
  file: string;
  /** The declaration's index. */
  decl: number;
}

/** A record (struct, union, class) in a file. */
export interface RecordRef {
  /** The file's real path. */
  file: string;
  /** The record's index. */
  record: number;
}

/** What kind of token a lookup is for. */
export type Space = "ref" | "type" | "tag";

/**
 * `a::b::n` from the namespaces around it (innermost first), or through `using namespace`; `::n` at the top.
 *
 * @param want The declarations of a qualified name (its parts).
 * @param context Where the name is written.
 * @param parts The qualifier's parts and the name.
 * @returns The declarations found.
 */
export function qualifiedLookup(
  want: (parts: string[]) => DeclRef[],
  context: CContext,
  parts: string[],
): DeclRef[] {
  if (parts[0] === "") return want(parts.slice(1));
  for (let k = context.ns.length; k >= 0; k--) {
    const found = want([...context.ns.slice(0, k), ...parts]);
    if (found.length) return found;
  }
  return context.using.flatMap((using) => want([...using, ...parts]));
}

/**
 * The context a record's own names are written in (its bases): the scopes around it.
 *
 * @param qualified The record's qualified name.
 * @returns The context.
 */
export function enclosing(qualified: string): CContext {
  return { ns: qualified.split("::").slice(0, -1), using: [] };
}

/**
 * Whether a declaration can be what a kind of token names (in C, a tag only after `struct`).
 *
 * @param decl The declaration.
 * @param space What kind of token names it.
 * @param cpp Whether the file is C++.
 * @returns True when it can.
 */
export function fits(decl: CDecl, space: Space, cpp: boolean): boolean {
  switch (space) {
    case "tag":
      return decl.kind === "tag";
    case "type":
      return decl.kind === "typedef" || cpp && (decl.kind === "tag" || decl.kind === "namespace");
    default:
      return decl.kind !== "namespace" && decl.kind !== "macro" && (cpp || decl.kind !== "tag");
  }
}
