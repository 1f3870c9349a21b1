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
  return {
    matchEntry(relative: string): string | undefined {
      const name = relative.slice(relative.lastIndexOf("/") + 1);
      for (const [glob, re] of segment) if (re.test(name)) return glob;
      for (const [glob, re] of anchored) if (re.test(relative)) return glob;
      return undefined;
    },
    match(relative: string): string | undefined {
      if (relative === "") return undefined;
      const parts = relative.split("/");
      for (const part of parts) {
        for (const [glob, re] of segment) if (re.test(part)) return glob;
      }
      if (anchored.length === 0) return undefined;
      let prefix = "";
      for (const part of parts) {
        prefix = prefix === "" ? part : `${prefix}/${part}`;
        for (const [glob, re] of anchored) if (re.test(prefix)) return glob;
      }
      return undefined;
    },
  };
}
