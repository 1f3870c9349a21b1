/**
 * The blacklist: globs that hide paths inside the roots. A glob without `/`
 * matches any one segment (so `.env` hides `a/.env` and `secrets` hides a
 * whole directory); a glob with `/` matches the path relative to its root, or
 * any leading part of it.
 *
 * @module
 */

import { globToRegExp } from "./glob.ts";

/** A compiled blacklist. */
export interface Blacklist {
  /**
   * The glob that hides a root-relative path, or `undefined` when none does.
   *
   * @param relative A `/`-separated path relative to its root ("" is the root).
   */
  match(relative: string): string | undefined;
  /**
   * The glob that hides an entry itself, its parent directories known not
   * to be hidden (a walk's check: only its own name and its whole path are
   * tested).
   *
   * @param relative A `/`-separated path relative to its root.
   */
  matchEntry(relative: string): string | undefined;
}

/**
 * Compile blacklist globs.
 *
 * @param globs The globs, as in the policy.
 * @returns The compiled blacklist.
 * @throws {SyntaxError} When a glob does not compile.
 */
export function compileBlacklist(globs: readonly string[]): Blacklist {
  const segment: Array<[string, RegExp]> = [];
  const anchored: Array<[string, RegExp]> = [];
  for (const glob of globs) {
    const trimmed = glob.replace(/^\/+|\/+$/g, "");
    if (trimmed.includes("/")) anchored.push([glob, globToRegExp(trimmed)]);
    else segment.push([glob, globToRegExp(trimmed)]);
  }
  // Each list as one expression, tested first: most paths match no glob, and one test of an
  // alternation costs a fraction of one test per glob. On a hit, the globs are tried in order, so
  // the glob named is the one the list's order gives.
  const anySegment = oneOf(segment);
  const anyAnchored = oneOf(anchored);
  return {
    matchEntry(relative: string): string | undefined {
      const name = relative.slice(relative.lastIndexOf("/") + 1);
      if (anySegment?.test(name)) return firstMatch(segment, name);
      if (anyAnchored?.test(relative)) return firstMatch(anchored, relative);
      return undefined;
    },
    match(relative: string): string | undefined {
      if (relative === "") return undefined;
      const parts = relative.split("/");
      if (anySegment) {
        for (const part of parts) if (anySegment.test(part)) return firstMatch(segment, part);
      }
      if (!anyAnchored) return undefined;
      let prefix = "";
      for (const part of parts) {
        prefix = prefix === "" ? part : `${prefix}/${part}`;
        if (anyAnchored.test(prefix)) return firstMatch(anchored, prefix);
      }
      return undefined;
    },
  };
}

/** One expression that matches what any of the globs' expressions matches (none: `undefined`). */
function oneOf(globs: ReadonlyArray<[string, RegExp]>): RegExp | undefined {
  if (globs.length === 0) return undefined;
  return new RegExp(globs.map(([, re]) => `(?:${re.source})`).join("|"), "u");
}

/** The first glob, in order, whose expression matches the text. */
function firstMatch(globs: ReadonlyArray<[string, RegExp]>, text: string): string | undefined {
  for (const [glob, re] of globs) if (re.test(text)) return glob;
  return undefined;
}
