/**
 * Python answers kept with their inputs (`symbols/_answer_store.ts`). What
 * the resolver finds for one question (a scope, a file and a name) depends
 * on nothing but what its world gave it (`_resolve_world.ts`, the resolver's
 * only way to the files): the files it read, by version; the directories it
 * listed to find modules, by what each holds; which files under the scope
 * spell the names it took files by; and the roots and the size limit, which
 * are part of the question's key. When all of these are as they were, the
 * answer is too, and is given again without reading back or resolving a
 * file. Anything else, or a rename (whose conflicts need the resolution
 * itself), resolves afresh.
 *
 * @module
 */

import { createHash } from "node:crypto";
import type { DirEntry } from "../../security/safe_fs.ts";
import type { SymbolSite } from "../symbols/_resolver.ts";
import type { ToolContext } from "../tool.ts";
import type { PyWorld } from "./_resolve_world.ts";

/** A file and its version (mtime, size). */
type Version = [string, number, number];

/** What is kept of one answer. */
export interface PyAnswer {
  /** The names the call's files were taken by. */
  readonly names: readonly string[];
  /** The files under the scope that spell one of them. */
  readonly spelled: readonly Version[];
  /** Every file read. */
  readonly read: readonly Version[];
  /** Every directory listed for modules, with a hash of what it holds (`null`: it could not be listed). */
  readonly dirs: ReadonlyArray<[string, string | null]>;
  /** The definition's location. */
  readonly definition: string;
  /** The sites. */
  readonly sites: readonly SymbolSite[];
  /** The lookup's notes (the one about listings is the call's own). */
  readonly notes: readonly string[];
}

/**
 * A question's key: the resolver, what of the policy decides the answer, the scope, the file and the name.
 *
 * @param ctx The tool context.
 * @param scope The scope's real path.
 * @param file The named file's real path.
 * @param name The dotted name.
 * @returns The key.
 */
export function answerKey(ctx: ToolContext, scope: string, file: string, name: string): string {
  const { roots, limits } = ctx.policy;
  return JSON.stringify(["python", roots, limits.maxSearchFileBytes, scope, file, name]);
}

/**
 * What to keep of a call's answer.
 *
 * @param world The call's world, after the answer was found.
 * @param found The definition, the sites and the notes.
 * @returns The kept answer.
 */
export function keptAnswer(
  world: PyWorld,
  found: Pick<PyAnswer, "definition" | "sites" | "notes">,
): PyAnswer {
  const names = [...new Set(world.names)];
  return {
    names,
    spelled: spelledBy(world, names),
    read: [...world.read].map(([path, [mtime, size]]) => [path, mtime, size]),
    dirs: [...world.listed()].map(([dir, entries]) => [dir, contentOf(entries)]),
    ...found,
  };
}

/**
 * Whether a kept answer's inputs are all as they were.
 *
 * @param world A call's world, its listing brought up to date.
 * @param answer The kept answer.
 * @returns True when the answer holds.
 */
export function stillHolds(world: PyWorld, answer: PyAnswer): boolean {
  const spelled = spelledBy(world, answer.names);
  if (spelled.length !== answer.spelled.length) return false;
  const now = new Map(spelled.map(([path, mtime, size]) => [path, `${mtime}:${size}`]));
  for (const [path, mtime, size] of answer.spelled) {
    if (now.get(path) !== `${mtime}:${size}`) return false;
  }
  for (const [path, mtime, size] of answer.read) {
    const version = world.versionOf(path);
    if (version?.[0] !== mtime || version[1] !== size) return false;
  }
  return answer.dirs.every(([dir, content]) => contentOf(world.entries(dir) ?? null) === content);
}

function spelledBy(world: PyWorld, names: readonly string[]): Version[] {
  const out: Version[] = [];
  for (const entries of world.matching(names).values()) {
    for (const entry of entries) out.push([entry.path, entry.mtime?.getTime() ?? 0, entry.size]);
  }
  return out;
}

/** A SHA-256 of a directory's names and kinds (`null` when it could not be listed). */
function contentOf(entries: ReadonlyMap<string, DirEntry> | null): string | null {
  if (entries === null) return null;
  const names = [...entries.values()].map((entry) => `${entry.kind}:${entry.name}\0`).sort();
  return createHash("sha256").update(names.join("")).digest("base64");
}
