/**
 * Where the policy's directories are, by real path: a root (it must exist
 * and be a directory), the state directory (never reached through a link
 * inside a root), the scratch directory (outside every root), which paths
 * lie inside the roots, and the real path of a path not made yet.
 *
 * @module
 */

/**
 * Whether an absolute path is one of the roots or lies beneath one.
 *
 * @param path An absolute path (real, for a decision that holds).
 * @param roots The roots (real paths).
 * @returns True when inside.
 */
export function isInside(path: string, roots: readonly string[]): boolean {
  return roots.some((root) =>
    path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`)
  );
}

/**
 * The paths (real, or as written when missing) that lie inside a root.
 *
 * @param paths Absolute paths.
 * @param roots The roots (real paths).
 * @returns Those inside, by real path, once each.
 */
export async function insideRoots(
  paths: readonly string[],
  roots: readonly string[],
): Promise<string[]> {
  const inside: string[] = [];
  for (const path of paths) {
    const real = await realOrLexical(path);
    if (isInside(real, roots) && !inside.includes(real)) inside.push(real);
  }
  return inside;
}

/**
 * The real path of a root.
 *
 * @param path A root as given.
 * @returns Its real path.
 * @throws {TypeError} When it does not exist or is not a directory.
 */
export async function realDirectory(path: string): Promise<string> {
  let real: string;
  try {
    real = await Deno.realPath(path);
  } catch {
    throw new TypeError(`Cannot use root "${path}": it does not exist`);
  }
  if (!(await Deno.stat(real)).isDirectory) {
    throw new TypeError(`Cannot use root "${path}": it is not a directory`);
  }
  return real;
}

/**
 * The state directory's real path, made when asked.
 *
 * @param path Where it is to be.
 * @param create Make it when missing.
 * @param roots The roots (real paths).
 * @returns Its real path (or, not made, the real path of where it would be).
 * @throws {TypeError} When a name on the way from a root to it is a link.
 */
export async function stateDirectory(
  path: string,
  create: boolean,
  roots: readonly string[],
): Promise<string> {
  const root = roots.find((each) => isInside(path, [each]) && path !== each);
  if (root) await refuseLinkedState(root, path);
  if (create) await Deno.mkdir(path, { recursive: true });
  return await realOrLexical(path);
}

/**
 * The scratch directory: outside every root and the state directory, made
 * (mode 0700) when asked.
 *
 * @param wanted Where it was asked for, if anywhere; whether to make it.
 * @param roots The roots (real paths).
 * @param stateDir The state directory (real path).
 * @returns Its real path, or why there is none.
 */
export async function scratchDirectory(
  wanted: { scratchDir: string | undefined; create: boolean },
  roots: readonly string[],
  stateDir: string,
): Promise<{ dir: string } | { dir: null; reason: string }> {
  if (wanted.scratchDir === undefined) {
    return { dir: null, reason: "no place for it was given (neither XDG_CACHE_HOME nor HOME)" };
  }
  const dir = await realOrLexical(wanted.scratchDir);
  const clash = [...roots, stateDir].find((each) => isInside(dir, [each]) || isInside(each, [dir]));
  if (clash !== undefined) {
    return {
      dir: null,
      reason: `${dir} and "${clash}" hold one another (set XDG_CACHE_HOME outside the roots)`,
    };
  }
  if (wanted.create) {
    try {
      await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
    } catch (error) {
      return { dir: null, reason: `${dir} cannot be made: ${(error as Error).message}` };
    }
  }
  return { dir };
}

/**
 * Refuse a state directory inside a root that is reached through a link: a
 * repository can ship `.toolhost` as a link, and the host would then keep
 * its state, and be granted to write, wherever it points.
 *
 * @throws {TypeError} When a name on the way from the root to the state directory is a link.
 */
async function refuseLinkedState(root: string, path: string): Promise<void> {
  let at = root;
  for (const name of path.slice(root.length).split("/").filter(Boolean)) {
    at = `${at}/${name}`;
    let info: Deno.FileInfo;
    try {
      info = await Deno.lstat(at);
    } catch {
      return; // Not there yet: the host makes it, a folder.
    }
    if (info.isSymlink) {
      const target = await Deno.readLink(at).catch(() => "?");
      throw new TypeError(
        `Cannot keep toolhost's state in "${path}": "${at}" is a link (to "${target}"), and a ` +
          `project's files may not send the host's state outside it; remove the link (toolhost ` +
          `makes the folder), or set "stateDir" in your own configuration`,
      );
    }
  }
}

/**
 * The real path of a path that may not exist yet: its nearest existing
 * ancestor's real path, with the missing names after it.
 *
 * @param path An absolute path.
 * @returns Its real path, or as written when no ancestor resolves.
 */
export async function realOrLexical(path: string): Promise<string> {
  const missing: string[] = [];
  let probe = path;
  for (;;) {
    try {
      const real = await Deno.realPath(probe);
      return [real === "/" ? "" : real, ...missing].join("/") || "/";
    } catch {
      // Missing (or unreadable): its parent decides; the names below it stay lexical.
      const slash = probe.lastIndexOf("/");
      if (slash <= 0) return path;
      missing.unshift(probe.slice(slash + 1));
      probe = probe.slice(0, slash);
    }
  }
}
