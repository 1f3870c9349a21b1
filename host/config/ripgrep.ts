/**
 * Which ripgrep the tool workers try: the `ripgrep` setting (`auto`, `off`
 * or a path) resolved to a binary, or to why there is none.
 *
 * @module
 */

import * as posix from "node:path/posix";
import { isInside } from "../../security/policy.ts";
import { commandPath, readablePath } from "../../sinks/peers.ts";

/** Ripgrep as configured: the binary the tool workers try, or why there is none. */
export type RipgrepSetting = { readonly path: string } | {
  readonly path: null;
  /** Why: switched off, or not found. */
  readonly reason: string;
};

/**
 * What `--ripgrep` says when `auto` found no ripgrep (the launcher tells the
 * served process, which may not search the PATH itself).
 */
export const RIPGREP_NOT_FOUND = "auto:not-found";

/**
 * Find ripgrep: `off` → none; a path → that binary (the tool workers check
 * that it runs, and say why when it does not); `auto` → `rg` on the PATH
 * (when the process may read PATH and the directories on it).
 *
 * @param setting `auto`, `off`, a path, or {@linkcode RIPGREP_NOT_FOUND}.
 * @returns The binary, or why there is none.
 */
export async function findRipgrep(setting: string): Promise<RipgrepSetting> {
  if (setting === "off") return { path: null, reason: "switched off (ripgrep: off)" };
  const notFound: RipgrepSetting = { path: null, reason: "rg was not found on the PATH" };
  if (setting === RIPGREP_NOT_FOUND) return notFound;
  if (setting !== "auto") {
    const path = posix.resolve(setting);
    // Missing or not visible: the tool workers try it and say why it does not run.
    return { path: await Deno.realPath(path).catch(() => path) };
  }
  const searchPath = readablePath();
  if (searchPath === undefined) {
    return { path: null, reason: "the PATH could not be read to look for rg" };
  }
  const found = commandPath("rg", "/", searchPath);
  return found === undefined ? notFound : { path: await Deno.realPath(found) };
}

/**
 * Refuse a ripgrep that lies inside a root: a tool could rewrite it, and its
 * process has no Deno sandbox.
 *
 * @param setting The ripgrep found.
 * @param roots The policy's roots (real paths).
 * @returns The same setting, or none with the reason.
 */
export function ripgrepOutsideRoots(
  setting: RipgrepSetting,
  roots: readonly string[],
): RipgrepSetting {
  if (setting.path === null || !isInside(setting.path, roots)) return setting;
  return {
    path: null,
    reason: `"${setting.path}" lies inside a root, where a tool could rewrite it`,
  };
}
