/**
 * What the policy protects: the protected globs in force (the fixed list,
 * less what the user lifted, plus the configured ones), and the files
 * protected by path inside the roots (the state directory, the host's
 * configuration and programs, where protected links lead, git's hooks
 * directory).
 *
 * @module
 */

import { isInside, realOrLexical } from "./policy_paths.ts";
import {
  PROTECTED_PATHS,
  type ProtectedFile,
  protectedRegExp,
  type ProtectedRule,
} from "./protected.ts";

/**
 * The protected globs: the fixed list less the lifted entries, plus the
 * configured ones.
 *
 * @param input The globs to protect besides the fixed list, and the entries of the list to lift.
 * @returns The rules in force.
 * @throws {TypeError} When a lifted entry is not in the fixed list, or a glob does not compile.
 */
export function protectedRules(input: {
  protect?: readonly string[] | undefined;
  unprotect?: readonly string[] | undefined;
}): ProtectedRule[] {
  const lifted = new Set(input.unprotect ?? []);
  for (const glob of lifted) {
    if (!PROTECTED_PATHS.some((rule) => rule.glob === glob)) {
      throw new TypeError(
        `Cannot lift "${glob}": it is not a protected path (they are ${
          PROTECTED_PATHS.map((rule) => rule.glob).join(", ")
        })`,
      );
    }
  }
  const added = (input.protect ?? []).map((glob) => {
    try {
      protectedRegExp(glob);
    } catch (error) {
      throw new TypeError(`Cannot protect "${glob}": ${(error as Error).message}`);
    }
    return Object.freeze({ glob, why: "protected by the configuration" });
  });
  return [...PROTECTED_PATHS.filter((rule) => !lifted.has(rule.glob)), ...added];
}

/**
 * What is protected by path, by real path, inside the roots: the state
 * directory, the given files (the host's configuration, the programs its
 * servers run, where protected links lead), and the hooks directory
 * `core.hooksPath` names.
 *
 * @param roots The roots (real paths).
 * @param stateDir The state directory (real path).
 * @param candidates The other files to protect where a root holds them.
 * @returns The files, by real path, once each.
 */
export async function protectedFiles(
  roots: readonly string[],
  stateDir: string,
  candidates: readonly ProtectedFile[],
): Promise<ProtectedFile[]> {
  const files: ProtectedFile[] = [];
  const add = async (path: string, why: string) => {
    const real = await realOrLexical(path);
    if (isInside(real, roots) && !files.some((file) => file.path === real)) {
      files.push(Object.freeze({ path: real, why }));
    }
  };
  await add(stateDir, "toolhost's own state");
  for (const file of candidates) await add(file.path, file.why);
  for (const root of roots) {
    const hooks = await hooksPath(root);
    if (hooks !== undefined) await add(hooks, "git runs the hooks core.hooksPath names");
  }
  return files;
}

/** The directory `core.hooksPath` in a root's `.git/config` names, if any. */
async function hooksPath(root: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(`${root}/.git/config`);
  } catch {
    // No readable `.git/config`: git reads none either, so no hooks path to protect.
    return undefined;
  }
  const core = /^\s*\[core\]([\s\S]*?)(?=^\s*\[|(?![\s\S]))/im.exec(text)?.[1] ?? "";
  const value = /^\s*hookspath\s*=\s*(.*?)\s*$/im.exec(core)?.[1]?.replace(/^"(.*)"$/, "$1");
  if (!value || value.startsWith("~")) return undefined;
  return value.startsWith("/") ? value : `${root}/${value}`;
}
